package blobsdk_test

import (
	"context"
	"fmt"
	"net/http"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore/policy"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/bloberror"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/container"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/service"
)

// TestContainerLifecycle: create, duplicate create, properties, metadata,
// delete, and 404 ContainerNotFound on everything afterwards.
func TestContainerLifecycle(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	ctx := context.Background()
	cn := cname("life")
	cc := f.svc.NewContainerClient(cn)

	var raw *http.Response
	cr, err := cc.Create(policy.WithCaptureResponse(ctx, &raw), &container.CreateOptions{Metadata: strMeta(map[string]string{"owner": "alice", "Team": "Blue"})})
	mustStatus(t, err, raw, http.StatusCreated, "Create Container")
	if cr.ETag == nil || *cr.ETag == "" || cr.LastModified == nil {
		t.Fatalf("Create Container: ETag %v Last-Modified %v; both required", deref(cr.ETag), deref(cr.LastModified))
	}

	_, err = cc.Create(ctx, nil)
	checkErr(t, err, http.StatusConflict, bloberror.ContainerAlreadyExists, "second Create Container")

	p, err := cc.GetProperties(ctx, nil)
	must(t, err, "Get Container Properties")
	if etagOf(p.ETag) != *cr.ETag {
		t.Errorf("Get Container Properties ETag %q, want creation ETag %q", etagOf(p.ETag), *cr.ETag)
	}
	if p.LastModified == nil || !p.LastModified.Equal(*cr.LastModified) {
		t.Errorf("Get Container Properties Last-Modified %v, want %v", deref(p.LastModified), *cr.LastModified)
	}
	if err := metaEqualFold(p.Metadata, map[string]string{"owner": "alice", "team": "Blue"}); err != nil {
		t.Errorf("container metadata after create: %v", err)
	}
	if p.BlobPublicAccess != nil {
		t.Errorf("private container reports public access %q, want header absent", *p.BlobPublicAccess)
	}

	// Set metadata replaces everything and changes the ETag.
	sm, err := cc.SetMetadata(ctx, &container.SetMetadataOptions{Metadata: strMeta(map[string]string{"env": "prod"})})
	must(t, err, "Set Container Metadata")
	if sm.ETag == nil || *sm.ETag == *cr.ETag {
		t.Errorf("Set Container Metadata: ETag %v, want a new ETag (was %q)", deref(sm.ETag), *cr.ETag)
	}
	p, err = cc.GetProperties(ctx, nil)
	must(t, err, "Get Container Properties after Set Metadata")
	if err := metaEqualFold(p.Metadata, map[string]string{"env": "prod"}); err != nil {
		t.Errorf("container metadata after Set Container Metadata (replace semantics): %v", err)
	}
	if sm.ETag != nil && etagOf(p.ETag) != *sm.ETag {
		t.Errorf("Get Container Properties ETag %q, want Set Metadata's %q", etagOf(p.ETag), *sm.ETag)
	}

	// Reads of the container don't change its ETag.
	_, _ = listFlat(t, cc, nil)
	_, err = cc.GetAccessPolicy(ctx, nil)
	must(t, err, "Get Container ACL")
	if p2, err := cc.GetProperties(ctx, nil); err == nil && etagOf(p2.ETag) != etagOf(p.ETag) {
		t.Errorf("container ETag changed by reads: %q -> %q", etagOf(p.ETag), etagOf(p2.ETag))
	}

	// A blob inside, so deletion has something to remove.
	bb := cc.NewBlockBlobClient("inside")
	upload(t, bb, []byte("x"), nil)

	raw = nil
	_, err = cc.Delete(policy.WithCaptureResponse(ctx, &raw), nil)
	mustStatus(t, err, raw, http.StatusAccepted, "Delete Container")

	_, err = cc.GetProperties(ctx, nil)
	checkErr(t, err, http.StatusNotFound, bloberror.ContainerNotFound, "Get Container Properties after delete")
	_, err = cc.SetMetadata(ctx, &container.SetMetadataOptions{Metadata: strMeta(map[string]string{"a": "b"})})
	checkErr(t, err, http.StatusNotFound, bloberror.ContainerNotFound, "Set Container Metadata after delete")
	_, err = cc.GetAccessPolicy(ctx, nil)
	checkErr(t, err, http.StatusNotFound, bloberror.ContainerNotFound, "Get Container ACL after delete")
	_, err = cc.SetAccessPolicy(ctx, nil)
	checkErr(t, err, http.StatusNotFound, bloberror.ContainerNotFound, "Set Container ACL after delete")
	_, err = cc.NewListBlobsFlatPager(nil).NextPage(ctx)
	checkErr(t, err, http.StatusNotFound, bloberror.ContainerNotFound, "List Blobs after delete")
	_, err = cc.Delete(ctx, nil)
	checkErr(t, err, http.StatusNotFound, bloberror.ContainerNotFound, "second Delete Container")
	_, err = bb.BlobClient().DownloadStream(ctx, nil)
	checkErr(t, err, http.StatusNotFound, bloberror.ContainerNotFound, "Get Blob in deleted container")
	_, err = bb.GetProperties(ctx, nil)
	checkErr(t, err, http.StatusNotFound, bloberror.ContainerNotFound, "Get Blob Properties in deleted container")
	_, err = bb.Upload(ctx, rsc([]byte("y")), nil)
	checkErr(t, err, http.StatusNotFound, bloberror.ContainerNotFound, "Put Blob in deleted container")

	for _, c := range listContainers(t, f.svc, &service.ListContainersOptions{}) {
		if c == cn {
			t.Errorf("List Containers still returns deleted container %q", cn)
		}
	}
}

func listContainers(t *testing.T, svc *service.Client, o *service.ListContainersOptions) []string {
	t.Helper()
	var names []string
	pager := svc.NewListContainersPager(o)
	for pager.More() {
		page, err := pager.NextPage(context.Background())
		must(t, err, "List Containers")
		for _, c := range page.ContainerItems {
			names = append(names, deref(c.Name).(string))
		}
	}
	return names
}

// TestContainerPublicAccessAndACL covers Get/Set Container ACL: five stored
// access policies round-trip, public access none/blob/container round-trips,
// and a sixth policy is rejected with 400 leaving the ACL unchanged.
func TestContainerPublicAccessAndACL(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	ctx := context.Background()

	// Public access set at creation.
	for _, acc := range []container.PublicAccessType{container.PublicAccessTypeBlob, container.PublicAccessTypeContainer} {
		cc := f.createContainer(cname("pub-"+string(acc)), &container.CreateOptions{Access: ptr(acc)})
		p, err := cc.GetProperties(ctx, nil)
		must(t, err, "Get Container Properties")
		if p.BlobPublicAccess == nil || *p.BlobPublicAccess != acc {
			t.Errorf("container created with access %q reports %v", acc, deref(p.BlobPublicAccess))
		}
	}

	cc := f.createContainer(cname("acl"), nil)
	base := time.Now().UTC().Truncate(time.Second)
	perms := []container.AccessPolicyPermission{
		{Read: true},
		{Read: true, List: true},
		{Read: true, Write: true},
		{Read: true, Add: true, Create: true, Write: true, Delete: true, List: true},
		{Delete: true},
	}
	var ids []*container.SignedIdentifier
	for i, pm := range perms {
		start := base.Add(time.Duration(-i) * time.Hour)
		expiry := base.Add(time.Duration(i+1) * 24 * time.Hour)
		ids = append(ids, &container.SignedIdentifier{
			ID: ptr(fmt.Sprintf("policy-%d", i)),
			AccessPolicy: &container.AccessPolicy{
				Start: ptr(start), Expiry: ptr(expiry), Permission: ptr(pm.String()),
			},
		})
	}
	want := map[string][3]string{}
	for _, id := range ids {
		want[*id.ID] = [3]string{*id.AccessPolicy.Permission, id.AccessPolicy.Start.Format(time.RFC3339), id.AccessPolicy.Expiry.Format(time.RFC3339)}
	}

	checkACL := func(what string, wantAccess *container.PublicAccessType) {
		t.Helper()
		got, err := cc.GetAccessPolicy(ctx, nil)
		must(t, err, "Get Container ACL (%s)", what)
		if (wantAccess == nil) != (got.BlobPublicAccess == nil) || (wantAccess != nil && *wantAccess != *got.BlobPublicAccess) {
			t.Errorf("Get Container ACL (%s): public access %v, want %v", what, deref(got.BlobPublicAccess), deref(wantAccess))
		}
		if len(got.SignedIdentifiers) != len(want) {
			t.Errorf("Get Container ACL (%s): %d signed identifiers, want %d", what, len(got.SignedIdentifiers), len(want))
		}
		for _, si := range got.SignedIdentifiers {
			if si.ID == nil || si.AccessPolicy == nil {
				t.Errorf("Get Container ACL (%s): identifier without Id or AccessPolicy", what)
				continue
			}
			w, ok := want[*si.ID]
			if !ok {
				t.Errorf("Get Container ACL (%s): unexpected identifier %q", what, *si.ID)
				continue
			}
			g := [3]string{deref(si.AccessPolicy.Permission).(string), fmtTime(si.AccessPolicy.Start), fmtTime(si.AccessPolicy.Expiry)}
			if g != w {
				t.Errorf("Get Container ACL (%s): policy %q = %v, want %v", what, *si.ID, g, w)
			}
		}
		p, err := cc.GetProperties(ctx, nil)
		must(t, err, "Get Container Properties (%s)", what)
		if (wantAccess == nil) != (p.BlobPublicAccess == nil) || (wantAccess != nil && *wantAccess != *p.BlobPublicAccess) {
			t.Errorf("Get Container Properties (%s): public access %v, want %v", what, deref(p.BlobPublicAccess), deref(wantAccess))
		}
		if etagOf(p.ETag) != etagOf(got.ETag) {
			t.Errorf("Get Container ACL ETag %q differs from Get Container Properties ETag %q", etagOf(got.ETag), etagOf(p.ETag))
		}
	}

	for _, acc := range []*container.PublicAccessType{ptr(container.PublicAccessTypeContainer), ptr(container.PublicAccessTypeBlob), nil} {
		_, err := cc.SetAccessPolicy(ctx, &container.SetAccessPolicyOptions{Access: acc, ContainerACL: ids})
		must(t, err, "Set Container ACL with 5 policies and access %v", deref(acc))
		checkACL(fmt.Sprintf("access %v", deref(acc)), acc)
	}

	// Six policies: 400, nothing changes.
	six := append(append([]*container.SignedIdentifier(nil), ids...), &container.SignedIdentifier{
		ID:           ptr("policy-6"),
		AccessPolicy: &container.AccessPolicy{Start: ptr(base), Expiry: ptr(base.Add(time.Hour)), Permission: ptr("r")},
	})
	_, err := cc.SetAccessPolicy(ctx, &container.SetAccessPolicyOptions{Access: ptr(container.PublicAccessTypeContainer), ContainerACL: six})
	if checkErr(t, err, http.StatusBadRequest, "", "Set Container ACL with 6 policies") {
		t.Logf("six policies rejected with %s", describe(err))
	}
	checkACL("after rejected 6-policy ACL", nil)

	// Clearing: no policies, no access.
	_, err = cc.SetAccessPolicy(ctx, &container.SetAccessPolicyOptions{})
	must(t, err, "Set Container ACL (clear)")
	want = map[string][3]string{}
	checkACL("cleared", nil)
}

func fmtTime(tm *time.Time) string {
	if tm == nil {
		return "<nil>"
	}
	return tm.UTC().Format(time.RFC3339)
}

// TestListContainersPaging: prefix + maxresults paging over 25 containers
// returns each exactly once, in order, with metadata when asked.
func TestListContainersPaging(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	ctx := context.Background()
	var want []string
	for i := 0; i < 25; i++ {
		// create in a scrambled order; listing must still be sorted
		j := (i * 7) % 25
		name := fmt.Sprintf("paged-%02d", j)
		want = append(want, name)
		f.createContainer(name, &container.CreateOptions{Metadata: strMeta(map[string]string{"idx": fmt.Sprint(j)})})
	}
	sort.Strings(want)
	// noise outside the prefix, sorting on both sides of it
	f.createContainer("aaa-other", nil)
	f.createContainer("pagee", nil)
	f.createContainer("zzz-other", nil)

	pager := f.svc.NewListContainersPager(&service.ListContainersOptions{
		Prefix: ptr("paged-"), MaxResults: ptr(int32(7)), Include: service.ListContainersInclude{Metadata: true},
	})
	var got []string
	pages := 0
	var firstNext string
	for pager.More() {
		page, err := pager.NextPage(ctx)
		must(t, err, "List Containers page %d", pages+1)
		pages++
		if len(page.ContainerItems) > 7 {
			t.Errorf("page %d has %d containers, maxresults was 7", pages, len(page.ContainerItems))
		}
		if page.Prefix == nil || *page.Prefix != "paged-" {
			t.Errorf("page %d: Prefix element %v, want paged-", pages, deref(page.Prefix))
		}
		if pages == 1 {
			firstNext = deref(page.NextMarker).(string)
		}
		for _, c := range page.ContainerItems {
			name := deref(c.Name).(string)
			got = append(got, name)
			if c.Properties == nil || c.Properties.ETag == nil || c.Properties.LastModified == nil {
				t.Errorf("container %q listed without ETag/Last-Modified", name)
			}
			idx := strings.TrimLeft(strings.TrimPrefix(name, "paged-"), "0")
			if idx == "" {
				idx = "0"
			}
			if err := metaEqualFold(c.Metadata, map[string]string{"idx": idx}); err != nil {
				t.Errorf("container %q metadata: %v", name, err)
			}
		}
		if pages > 30 {
			t.Fatalf("List Containers never stops paging")
		}
	}
	if strings.Join(got, ",") != strings.Join(want, ",") {
		t.Fatalf("List Containers prefix=paged- maxresults=7:\n got %v\nwant %v", got, want)
	}
	if pages < 4 {
		t.Errorf("25 containers at maxresults=7 came in %d pages, want at least 4", pages)
	}

	// Resuming from the first NextMarker yields exactly the remainder.
	if firstNext == "" {
		t.Fatalf("first page had no NextMarker")
	}
	resumed := listContainers(t, f.svc, &service.ListContainersOptions{Prefix: ptr("paged-"), Marker: ptr(firstNext)})
	if strings.Join(resumed, ",") != strings.Join(want[7:], ",") {
		t.Errorf("List Containers from marker %q:\n got %v\nwant %v", firstNext, resumed, want[7:])
	}

	// Without include=metadata no metadata is returned.
	page, err := f.svc.NewListContainersPager(&service.ListContainersOptions{Prefix: ptr("paged-"), MaxResults: ptr(int32(1))}).NextPage(ctx)
	must(t, err, "List Containers without metadata")
	if len(page.ContainerItems) != 1 || len(page.ContainerItems[0].Metadata) != 0 {
		t.Errorf("List Containers without include=metadata: %d items, metadata %v", len(page.ContainerItems), page.ContainerItems)
	}
}

// TestContainerNameValidation: names with invalid characters or form are 400
// InvalidResourceName; names of invalid length are 400 OutOfRangeInput (what
// Azure answers: "The specified resource name length is not within the
// permissible limits").
func TestContainerNameValidation(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	ctx := context.Background()
	bad := []struct {
		name string
		code bloberror.Code
	}{
		{"UpperCase", bloberror.InvalidResourceName},
		{"double--hyphen", bloberror.InvalidResourceName},
		{"-leading", bloberror.InvalidResourceName},
		{"trailing-", bloberror.InvalidResourceName},
		{"under_score", bloberror.InvalidResourceName},
		{"ab", bloberror.OutOfRangeInput},
		{strings.Repeat("a", 64), bloberror.OutOfRangeInput},
	}
	for _, b := range bad {
		_, err := f.svc.NewContainerClient(b.name).Create(ctx, nil)
		checkErr(t, err, http.StatusBadRequest, b.code, "Create Container %q", b.name)
	}
	for _, name := range []string{"abc", strings.Repeat("z", 63), "a-1-b", "123"} {
		f.createContainer(name, nil)
	}
	got := listContainers(t, f.svc, nil)
	if len(got) != 4 {
		t.Errorf("after 4 valid and %d invalid creates, List Containers returns %v", len(bad), got)
	}
}

// TestServiceProperties: Set Blob Service Properties with CORS rules and a
// default service version; Get returns them; omitted elements are preserved.
func TestServiceProperties(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	ctx := context.Background()
	rules := []*service.CORSRule{
		{
			AllowedOrigins:  ptr("https://example.com,https://app.example.org"),
			AllowedMethods:  ptr("GET,PUT,HEAD"),
			AllowedHeaders:  ptr("x-ms-meta-*,content-type"),
			ExposedHeaders:  ptr("x-ms-meta-*"),
			MaxAgeInSeconds: ptr(int32(300)),
		},
		{
			AllowedOrigins:  ptr("*"),
			AllowedMethods:  ptr("GET"),
			AllowedHeaders:  ptr("*"),
			ExposedHeaders:  ptr("*"),
			MaxAgeInSeconds: ptr(int32(60)),
		},
	}
	var raw *http.Response
	_, err := f.svc.SetProperties(policy.WithCaptureResponse(ctx, &raw), &service.SetPropertiesOptions{CORS: rules, DefaultServiceVersion: ptr("2020-10-02")})
	mustStatus(t, err, raw, http.StatusAccepted, "Set Blob Service Properties")

	check := func(what, wantVersion string) {
		t.Helper()
		got, err := f.svc.GetProperties(ctx, nil)
		must(t, err, "Get Blob Service Properties (%s)", what)
		if deref(got.DefaultServiceVersion) != any(wantVersion) {
			t.Errorf("%s: DefaultServiceVersion %v, want %q", what, deref(got.DefaultServiceVersion), wantVersion)
		}
		if len(got.CORS) != len(rules) {
			t.Fatalf("%s: %d CORS rules, want %d", what, len(got.CORS), len(rules))
		}
		for i, r := range rules {
			g := got.CORS[i]
			gs := fmt.Sprint(deref(g.AllowedOrigins), "|", deref(g.AllowedMethods), "|", deref(g.AllowedHeaders), "|", deref(g.ExposedHeaders), "|", deref(g.MaxAgeInSeconds))
			ws := fmt.Sprint(*r.AllowedOrigins, "|", *r.AllowedMethods, "|", *r.AllowedHeaders, "|", *r.ExposedHeaders, "|", *r.MaxAgeInSeconds)
			if gs != ws {
				t.Errorf("%s: CORS rule %d = %s, want %s", what, i, gs, ws)
			}
		}
	}
	check("after set", "2020-10-02")

	// Only the version this time: the CORS rules must survive.
	_, err = f.svc.SetProperties(ctx, &service.SetPropertiesOptions{DefaultServiceVersion: ptr("2021-08-06")})
	must(t, err, "Set Blob Service Properties (version only)")
	check("after version-only set", "2021-08-06")
}
