package blobsdk_test

import (
	"maps"
	"net/http"
	"slices"
	"strings"
	"testing"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/to"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/blob"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/bloberror"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/blockblob"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/container"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/lease"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/service"
)

// blobTags returns a blob's (or snapshot's) tags as a map.
func blobTags(t *testing.T, bc *blob.Client, opts *blob.GetTagsOptions) map[string]string {
	t.Helper()
	resp, err := bc.GetTags(t.Context(), opts)
	must(t, err, "Get Blob Tags")
	out := map[string]string{}
	for _, tag := range resp.BlobTagSet {
		out[*tag.Key] = *tag.Value
	}
	return out
}

func ifTags(expr string) *blob.AccessConditions {
	return &blob.AccessConditions{ModifiedAccessConditions: &blob.ModifiedAccessConditions{IfTags: &expr}}
}

// TestTagsRoundTrip: tags set on upload come back from Get Blob Tags, the
// tag count shows on Get Properties, Download and listings, and Set Blob
// Tags replaces them without changing the blob's ETag.
func TestTagsRoundTrip(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	cc := f.createContainer(cname("tags"), nil)
	bb := cc.NewBlockBlobClient("tagged")
	first := map[string]string{"project": "cerulean", "Stage": "a b+c-d.e/f:g=h_i", "empty": ""}
	upload(t, bb, []byte("data"), &blockblob.UploadOptions{Tags: first})
	if got := blobTags(t, bb.BlobClient(), nil); !maps.Equal(got, first) {
		t.Errorf("tags after upload = %v, want %v", got, first)
	}
	p := props(t, bb.BlobClient())
	if deref(p.TagCount) != any(int64(3)) {
		t.Errorf("Get Properties TagCount = %v, want 3", deref(p.TagCount))
	}
	dl, err := bb.DownloadStream(t.Context(), nil)
	must(t, err, "Download")
	_ = dl.Body.Close()
	if deref(dl.TagCount) != any(int64(3)) {
		t.Errorf("Download TagCount = %v, want 3", deref(dl.TagCount))
	}

	second := map[string]string{"project": "other"}
	_, err = bb.SetTags(t.Context(), second, nil)
	must(t, err, "Set Blob Tags")
	if got := blobTags(t, bb.BlobClient(), nil); !maps.Equal(got, second) {
		t.Errorf("tags after Set Blob Tags = %v, want %v", got, second)
	}
	if after := props(t, bb.BlobClient()); !sameETag(etagOf(after.ETag), etagOf(p.ETag)) {
		t.Errorf("Set Blob Tags changed the ETag: %v -> %v", etagOf(p.ETag), etagOf(after.ETag))
	}

	plain := cc.NewBlockBlobClient("plain")
	upload(t, plain, []byte("x"), nil)
	if got := blobTags(t, plain.BlobClient(), nil); len(got) != 0 {
		t.Errorf("tags of an untagged blob = %v, want none", got)
	}
	if pp := props(t, plain.BlobClient()); pp.TagCount != nil {
		t.Errorf("untagged blob TagCount = %v, want absent", *pp.TagCount)
	}

	items, _ := listFlat(t, cc, &container.ListBlobsFlatOptions{Include: container.ListBlobsInclude{Tags: true}})
	found := map[string]map[string]string{}
	for _, it := range items {
		tags := map[string]string{}
		if it.BlobTags != nil {
			for _, tag := range it.BlobTags.BlobTagSet {
				tags[*tag.Key] = *tag.Value
			}
		}
		found[*it.Name] = tags
	}
	if !maps.Equal(found["tagged"], second) || len(found["plain"]) != 0 {
		t.Errorf("List Blobs include=tags = %v", found)
	}

	// Overwriting a blob without x-ms-tags drops its tags, as Azure does.
	upload(t, bb, []byte("new"), nil)
	if got := blobTags(t, bb.BlobClient(), nil); len(got) != 0 {
		t.Errorf("tags after overwrite = %v, want none", got)
	}
}

// TestTagsValidation: Azure's limits answer 400 with its codes.
func TestTagsValidation(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	cc := f.createContainer(cname("tags-bad"), nil)
	bb := cc.NewBlockBlobClient("b")
	upload(t, bb, []byte("x"), nil)
	eleven := map[string]string{}
	for i := range 11 {
		eleven[string(rune('a'+i))] = "v"
	}
	cases := []struct {
		name string
		tags map[string]string
		code bloberror.Code
	}{
		{"eleven tags", eleven, "TagsTooLarge"},
		{"empty key", map[string]string{"": "v"}, "InvalidTag"},
		{"key of 129", map[string]string{strings.Repeat("k", 129): "v"}, "InvalidTag"},
		{"value of 257", map[string]string{"k": strings.Repeat("v", 257)}, "InvalidTag"},
		{"forbidden character", map[string]string{"k": "a&b"}, "InvalidTag"},
		{"non-ASCII key", map[string]string{"clé": "v"}, "InvalidTag"},
	}
	for _, tc := range cases {
		_, err := bb.SetTags(t.Context(), tc.tags, nil)
		checkErr(t, err, http.StatusBadRequest, tc.code, "Set Blob Tags with %s", tc.name)
		_, err = cc.NewBlockBlobClient("new").Upload(t.Context(), rsc([]byte("x")), &blockblob.UploadOptions{Tags: tc.tags})
		checkErr(t, err, http.StatusBadRequest, tc.code, "Upload with %s", tc.name)
	}
	// The limits themselves are allowed.
	ok := map[string]string{strings.Repeat("k", 128): strings.Repeat("v", 256)}
	for i := range 9 {
		ok[string(rune('a'+i))] = ""
	}
	_, err := bb.SetTags(t.Context(), ok, nil)
	must(t, err, "Set Blob Tags at the limits")
	if got := blobTags(t, bb.BlobClient(), nil); !maps.Equal(got, ok) {
		t.Errorf("tags at the limits did not round-trip: %d of %d", len(got), len(ok))
	}
	_, err = cc.NewBlockBlobClient("missing").SetTags(t.Context(), map[string]string{"k": "v"}, nil)
	checkErr(t, err, http.StatusNotFound, bloberror.BlobNotFound, "Set Blob Tags on a missing blob")
}

// TestIfTags: x-ms-if-tags gates writes and reads, alone and together with
// If-Match in one request; each must hold.
func TestIfTags(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	cc := f.createContainer(cname("iftags"), nil)
	bb := cc.NewBlockBlobClient("b")
	put := upload(t, bb, []byte("v1"), &blockblob.UploadOptions{Tags: map[string]string{"state": "draft", "n": "5"}})
	etag := etagOf(put.ETag)

	both := func(expr string, match string) *blob.AccessConditions {
		ac := ifTags(expr)
		m := etag
		if match != "" {
			m = azcore.ETag(match)
		}
		ac.ModifiedAccessConditions.IfMatch = &m
		return ac
	}
	_, err := bb.Upload(t.Context(), rsc([]byte("v2")), &blockblob.UploadOptions{AccessConditions: both(`"state" = 'draft'`, `"0x1"`)})
	checkErr(t, err, http.StatusPreconditionFailed, bloberror.ConditionNotMet, "upload with matching tags but a stale If-Match")
	_, err = bb.Upload(t.Context(), rsc([]byte("v2")), &blockblob.UploadOptions{AccessConditions: both(`"state" = 'final'`, "")})
	checkErr(t, err, http.StatusPreconditionFailed, bloberror.ConditionNotMet, "upload with the current If-Match but tags that do not match")
	expectContent(t, bb.BlobClient(), []byte("v1"), "after refused conditional uploads")

	v2, err := bb.Upload(t.Context(), rsc([]byte("v2")), &blockblob.UploadOptions{
		Tags:             map[string]string{"state": "final"},
		AccessConditions: both(`"state" = 'draft' AND "n" >= '5' AND "n" < '6'`, ""),
	})
	must(t, err, "upload with tags and If-Match both holding")
	expectContent(t, bb.BlobClient(), []byte("v2"), "after the conditional upload")

	// Reads and the other writes take the condition too.
	_, err = bb.GetProperties(t.Context(), &blob.GetPropertiesOptions{AccessConditions: ifTags(`"state" = 'draft'`)})
	checkErr(t, err, http.StatusPreconditionFailed, "", "Get Properties with tags that do not match")
	_, err = bb.GetTags(t.Context(), &blob.GetTagsOptions{BlobAccessConditions: ifTags(`"state" = 'draft' OR "state" = 'final'`)})
	must(t, err, "Get Blob Tags with an OR that holds")
	_, err = bb.SetMetadata(t.Context(), map[string]*string{"k": to.Ptr("v")}, &blob.SetMetadataOptions{AccessConditions: ifTags(`"missing" = ''`)})
	checkErr(t, err, http.StatusPreconditionFailed, bloberror.ConditionNotMet, "Set Metadata on a tag the blob lacks")
	_, err = bb.SetTags(t.Context(), map[string]string{"x": "y"}, &blob.SetTagsOptions{AccessConditions: ifTags(`"state" <> 'final'`)})
	checkErr(t, err, http.StatusPreconditionFailed, bloberror.ConditionNotMet, "Set Blob Tags with <> on the current value")
	stale := azcore.ETag(`"0x1"`)
	_, err = bb.SetTags(t.Context(), map[string]string{"x": "y"}, &blob.SetTagsOptions{
		AccessConditions:             ifTags(`"state" = 'final'`),
		BlobModifiedAccessConditions: &blob.BlobModifiedAccessConditions{IfMatch: &stale},
	})
	checkErr(t, err, http.StatusPreconditionFailed, bloberror.ConditionNotMet, "Set Blob Tags with matching tags but a stale If-Match")
	_, err = bb.SetTags(t.Context(), map[string]string{"state": "final", "x": "y"}, &blob.SetTagsOptions{
		AccessConditions:             ifTags(`"state" = 'final'`),
		BlobModifiedAccessConditions: &blob.BlobModifiedAccessConditions{IfMatch: v2.ETag},
	})
	must(t, err, "Set Blob Tags with x-ms-if-tags and If-Match both holding")
	lc := blobLease(t, bb, "")
	_, err = lc.AcquireLease(t.Context(), 15, &lease.BlobAcquireOptions{ModifiedAccessConditions: &blob.ModifiedAccessConditions{IfTags: to.Ptr(`"state" = 'draft'`)}})
	checkErr(t, err, http.StatusPreconditionFailed, bloberror.ConditionNotMet, "Acquire Lease with tags that do not match")
	_, err = lc.AcquireLease(t.Context(), 15, &lease.BlobAcquireOptions{ModifiedAccessConditions: &blob.ModifiedAccessConditions{IfTags: to.Ptr(`"state" = 'final'`)}})
	must(t, err, "Acquire Lease with matching tags")
	// Every lease action takes x-ms-if-tags (Lease Blob's request headers).
	_, err = lc.RenewLease(t.Context(), &lease.BlobRenewOptions{ModifiedAccessConditions: &blob.ModifiedAccessConditions{IfTags: to.Ptr(`"state" = 'draft'`)}})
	checkErr(t, err, http.StatusPreconditionFailed, bloberror.ConditionNotMet, "Renew Lease with tags that do not match")
	_, err = lc.ReleaseLease(t.Context(), &lease.BlobReleaseOptions{ModifiedAccessConditions: &blob.ModifiedAccessConditions{IfTags: to.Ptr(`"state" = 'draft'`)}})
	checkErr(t, err, http.StatusPreconditionFailed, bloberror.ConditionNotMet, "Release Lease with tags that do not match")
	_, err = lc.BreakLease(t.Context(), &lease.BlobBreakOptions{ModifiedAccessConditions: &blob.ModifiedAccessConditions{IfTags: to.Ptr(`"state" = 'draft'`)}})
	checkErr(t, err, http.StatusPreconditionFailed, bloberror.ConditionNotMet, "Break Lease with tags that do not match")
	_, err = lc.BreakLease(t.Context(), &lease.BlobBreakOptions{BreakPeriod: to.Ptr(int32(0)), ModifiedAccessConditions: &blob.ModifiedAccessConditions{IfTags: to.Ptr(`"state" = 'final'`)}})
	must(t, err, "Break Lease with matching tags")
	_, err = bb.Delete(t.Context(), &blob.DeleteOptions{AccessConditions: ifTags(`"state" = 'draft'`)})
	checkErr(t, err, http.StatusPreconditionFailed, bloberror.ConditionNotMet, "Delete with tags that do not match")
	_, err = bb.Delete(t.Context(), &blob.DeleteOptions{AccessConditions: ifTags(`"state" = 'final'`)})
	must(t, err, "Delete with matching tags")

	_, err = cc.NewBlockBlobClient("c").Upload(t.Context(), rsc([]byte("x")), &blockblob.UploadOptions{AccessConditions: ifTags(`"state" == 'final'`)})
	checkErr(t, err, http.StatusBadRequest, bloberror.InvalidHeaderValue, "a malformed x-ms-if-tags")
}

// TestTagsOnALeasedBlob: Set Blob Tags on a leased blob needs the lease
// ID, as azblob's live TestSetBlobTagsWithLeaseId requires of Azure (block
// and append blobs); Get Blob Tags does not, and a wrong ID is refused
// (go-storage's recorded LeaseBlobSuite and Java's setTagsLeaseFail answer
// a lease ID on an unleased blob with LeaseNotPresentWithBlobOperation).
func TestTagsOnALeasedBlob(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	cc := f.createContainer(cname("tagslease"), nil)
	bb := cc.NewBlockBlobClient("b")
	upload(t, bb, []byte("v1"), nil)
	tags := map[string]string{"state": "leased"}
	withLease := func(id string) *blob.SetTagsOptions {
		return &blob.SetTagsOptions{AccessConditions: &blob.AccessConditions{LeaseAccessConditions: &blob.LeaseAccessConditions{LeaseID: &id}}}
	}
	_, err := bb.SetTags(t.Context(), tags, withLease("c820a799-76d7-4ee2-6e15-546f19325c2c"))
	checkErr(t, err, http.StatusPreconditionFailed, bloberror.LeaseNotPresentWithBlobOperation, "Set Blob Tags with a lease ID on an unleased blob")

	lc := blobLease(t, bb, "c820a799-76d7-4ee2-6e15-546f19325c2c")
	_, err = lc.AcquireLease(t.Context(), 60, nil)
	must(t, err, "Acquire Lease")
	_, err = bb.SetTags(t.Context(), tags, nil)
	checkErr(t, err, http.StatusPreconditionFailed, bloberror.LeaseIDMissing, "Set Blob Tags on a leased blob without its lease ID")
	_, err = bb.SetTags(t.Context(), tags, withLease("a820a799-76d7-4ee2-6e15-546f19325c2c"))
	checkErr(t, err, http.StatusPreconditionFailed, bloberror.LeaseIDMismatchWithBlobOperation, "Set Blob Tags with another lease ID")
	if got := blobTags(t, bb.BlobClient(), nil); len(got) != 0 {
		t.Fatalf("refused Set Blob Tags left tags %v", got)
	}
	_, err = bb.SetTags(t.Context(), tags, withLease(*lc.LeaseID()))
	must(t, err, "Set Blob Tags with the lease ID")
	if got := blobTags(t, bb.BlobClient(), nil); !maps.Equal(got, tags) {
		t.Fatalf("tags %v, want %v", got, tags)
	}

	// A snapshot has no lease: its tags need none.
	snap, err := bb.CreateSnapshot(t.Context(), nil)
	must(t, err, "Snapshot Blob on a leased blob without its lease ID")
	sc, err := bb.WithSnapshot(*snap.Snapshot)
	must(t, err, "WithSnapshot")
	_, err = sc.SetTags(t.Context(), map[string]string{"snapshot": "yes"}, nil)
	must(t, err, "Set Blob Tags on a snapshot of a leased blob")
}

// TestTagsSnapshotsAndCopies: a snapshot keeps the tags its blob had when
// it was taken, and has tags of its own after; a copy takes x-ms-tags,
// never the source's tags.
func TestTagsSnapshotsAndCopies(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	cc := f.createContainer(cname("tags-snap"), nil)
	bb := cc.NewBlockBlobClient("b")
	upload(t, bb, []byte("x"), &blockblob.UploadOptions{Tags: map[string]string{"v": "1"}})
	snap, err := bb.CreateSnapshot(t.Context(), nil)
	must(t, err, "Create Snapshot")
	_, err = bb.SetTags(t.Context(), map[string]string{"v": "2"}, nil)
	must(t, err, "Set Blob Tags")
	if got := blobTags(t, bb.BlobClient(), &blob.GetTagsOptions{Snapshot: snap.Snapshot}); got["v"] != "1" {
		t.Errorf("snapshot tags = %v, want v=1", got)
	}
	sc, err := bb.WithSnapshot(*snap.Snapshot)
	must(t, err, "WithSnapshot")
	// Since version 2020-08-04 a snapshot's tags may be set; the blob's stay.
	_, err = sc.SetTags(t.Context(), map[string]string{"v": "3"}, nil)
	must(t, err, "Set Blob Tags on a snapshot")
	if got := blobTags(t, bb.BlobClient(), &blob.GetTagsOptions{Snapshot: snap.Snapshot}); got["v"] != "3" {
		t.Errorf("snapshot tags after Set Blob Tags = %v, want v=3", got)
	}
	if got := blobTags(t, bb.BlobClient(), nil); got["v"] != "2" {
		t.Errorf("blob tags after setting the snapshot's = %v, want v=2", got)
	}

	dst := cc.NewBlockBlobClient("copy")
	_, err = dst.StartCopyFromURL(t.Context(), bb.URL(), &blob.StartCopyFromURLOptions{BlobTags: map[string]string{"copied": "yes"}})
	must(t, err, "Copy Blob with x-ms-tags")
	if got := blobTags(t, dst.BlobClient(), nil); !maps.Equal(got, map[string]string{"copied": "yes"}) {
		t.Errorf("copy tags = %v, want copied=yes only", got)
	}

	// Copy Blob From URL may take the source's tags instead (azblob has no
	// option for it on this call, so the request is sent raw).
	sasQ := f.fullAccountSAS()
	syncDst := cc.NewBlockBlobClient("sync-copy")
	hdr := map[string]string{"x-ms-copy-source": withQuery(bb.URL(), sasQ), "x-ms-requires-sync": "true", "x-ms-copy-source-tag-option": "COPY"}
	rawDo(t, http.MethodPut, withQuery(syncDst.URL(), sasQ), hdr, nil).Check(t, http.StatusAccepted, "", "Copy Blob From URL with the source's tags")
	if got := blobTags(t, syncDst.BlobClient(), nil); !maps.Equal(got, map[string]string{"v": "2"}) {
		t.Errorf("Copy Blob From URL tags = %v, want the source's v=2", got)
	}
	hdr["x-ms-tags"] = "own=1"
	rawDo(t, http.MethodPut, withQuery(syncDst.URL(), sasQ), hdr, nil).Check(t, http.StatusBadRequest, "InvalidHeaderValue", "COPY together with x-ms-tags")
}

// foundNames flattens a Find Blobs by Tags page to container/name pairs.
func foundNames(items []*service.FilterBlobItem) []string {
	out := make([]string, 0, len(items))
	for _, it := range items {
		out = append(out, *it.ContainerName+"/"+*it.Name)
	}
	return out
}

// TestFindBlobsByTags: the account and container searches find exactly
// the blobs whose tags satisfy the expression, follow tag changes and
// deletions, page with markers, and refuse malformed expressions.
func TestFindBlobsByTags(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	c1, c2 := cname("find-a"), cname("find-b")
	if c1 > c2 {
		c1, c2 = c2, c1
	}
	cc1, cc2 := f.createContainer(c1, nil), f.createContainer(c2, nil)
	put := func(cc *container.Client, name string, tags map[string]string) {
		upload(t, cc.NewBlockBlobClient(name), []byte(name), &blockblob.UploadOptions{Tags: tags})
	}
	put(cc1, "a", map[string]string{"status": "done", "n": "1"})
	put(cc1, "b", map[string]string{"status": "open", "n": "2"})
	put(cc1, "c", nil)
	put(cc2, "a", map[string]string{"status": "done", "n": "3"})
	put(cc2, "z", map[string]string{"status": "done"})

	find := func(where string) []string {
		t.Helper()
		resp, err := f.svc.FilterBlobs(t.Context(), where, nil)
		must(t, err, "Find Blobs by Tags %s", where)
		if deref(resp.Where) != any(where) {
			t.Errorf("Where = %v, want %q", deref(resp.Where), where)
		}
		return foundNames(resp.Blobs)
	}
	for _, tc := range []struct {
		where string
		want  []string
	}{
		{`"status" = 'done'`, []string{c1 + "/a", c2 + "/a", c2 + "/z"}},
		{`"status" = 'done' AND "n" > '1'`, []string{c2 + "/a"}},
		{`"n" >= '2' AND "n" <= '3'`, []string{c1 + "/b", c2 + "/a"}},
		{`"n" < '2'`, []string{c1 + "/a"}},
		{`@container = '` + c2 + `' AND "status" = 'done'`, []string{c2 + "/a", c2 + "/z"}},
		{`"status" = 'missing'`, []string{}},
		// No spaces around AND or =, as azblob's TestFilterBlobsWithTags
		// sends them to Azure.
		{`"status"='done'AND"n">'1'`, []string{c2 + "/a"}},
		{`"n"='3'AND@container='` + c2 + `'`, []string{c2 + "/a"}},
		// A bare key and a lower-case and, as azure-storage-blob's
		// test_filter_blobs writes them.
		{`status = 'done' and "n" <= '1'`, []string{c1 + "/a"}},
	} {
		if got := find(tc.where); !slices.Equal(got, tc.want) {
			t.Errorf("Find Blobs by Tags %s = %v, want %v", tc.where, got, tc.want)
		}
	}

	// The result carries the tags the expression names.
	resp, err := f.svc.FilterBlobs(t.Context(), `"n" = '2'`, nil)
	must(t, err, "Find Blobs by Tags")
	if len(resp.Blobs) != 1 || resp.Blobs[0].Tags == nil || len(resp.Blobs[0].Tags.BlobTagSet) != 1 || *resp.Blobs[0].Tags.BlobTagSet[0].Key != "n" {
		t.Errorf("Find Blobs by Tags result tags: %+v", resp.Blobs)
	}

	// Container scope.
	cresp, err := cc1.FilterBlobs(t.Context(), `"status" = 'done'`, nil)
	must(t, err, "container Find Blobs by Tags")
	if got := foundNames(cresp.Blobs); !slices.Equal(got, []string{c1 + "/a"}) {
		t.Errorf("container Find Blobs by Tags = %v", got)
	}

	// Paging.
	var pages [][]string
	var marker *string
	for {
		r, err := f.svc.FilterBlobs(t.Context(), `"status" = 'done'`, &service.FilterBlobsOptions{MaxResults: ptr(int32(2)), Marker: marker})
		must(t, err, "Find Blobs by Tags page")
		pages = append(pages, foundNames(r.Blobs))
		if r.NextMarker == nil || *r.NextMarker == "" {
			break
		}
		marker = r.NextMarker
	}
	if len(pages) != 2 || !slices.Equal(slices.Concat(pages...), []string{c1 + "/a", c2 + "/a", c2 + "/z"}) {
		t.Errorf("paged Find Blobs by Tags = %v", pages)
	}

	// The index follows Set Blob Tags, overwrites and deletes.
	_, err = cc1.NewBlobClient("b").SetTags(t.Context(), map[string]string{"status": "done"}, nil)
	must(t, err, "Set Blob Tags")
	put(cc2, "a", nil)
	_, err = cc2.NewBlobClient("z").Delete(t.Context(), nil)
	must(t, err, "Delete Blob")
	if got := find(`"status" = 'done'`); !slices.Equal(got, []string{c1 + "/a", c1 + "/b"}) {
		t.Errorf("after changes: %v", got)
	}
	_, err = cc1.Delete(t.Context(), nil)
	must(t, err, "Delete Container")
	if got := find(`"status" = 'done'`); len(got) != 0 {
		t.Errorf("after deleting the container: %v", got)
	}

	// OR, <> and parentheses are x-ms-if-tags operators only; a
	// same-sided range on one key is invalid (the blob index tags guide).
	for _, bad := range []string{`"status" = 'done' OR "n" = '1'`, `"status" <> 'done'`, `@container = 'x'`, `"status" = done`, `("n" = '1')`, `"n" > '1' AND "n" >= '2'`} {
		_, err := f.svc.FilterBlobs(t.Context(), bad, nil)
		checkErr(t, err, http.StatusBadRequest, bloberror.InvalidQueryParameterValue, "Find Blobs by Tags %s", bad)
	}
	// Azure refuses @container on a container's search with this message
	// (azure-sdk-for-net#27610).
	_, err = cc2.FilterBlobs(t.Context(), `@container = '`+c2+`' AND "status" = 'done'`, nil)
	checkErr(t, err, http.StatusBadRequest, bloberror.InvalidQueryParameterValue, "container Find Blobs by Tags with @container")
	if err != nil && !strings.Contains(err.Error(), "Cannot have container in both uri and query") {
		t.Errorf("container Find Blobs by Tags with @container: %v", err)
	}
}
