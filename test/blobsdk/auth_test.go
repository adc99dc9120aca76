package blobsdk_test

import (
	"bytes"
	"context"
	"encoding/base64"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/blob"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/bloberror"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/blockblob"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/container"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/sas"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/service"
)

// sasService returns a service client that authenticates only with the given
// SAS query string.
func sasService(t *testing.T, f *fixture, q string) *service.Client {
	t.Helper()
	svc, err := service.NewClientWithNoCredential(withQuery(f.env.BlobURL, q), clientOptions(nil))
	must(t, err, "service.NewClientWithNoCredential with SAS")
	return svc
}

// sasContainer returns a container client authorised only by a SAS query.
func sasContainer(t *testing.T, f *fixture, name, q string) *container.Client {
	t.Helper()
	cc, err := container.NewClientWithNoCredential(withQuery(strings.TrimSuffix(f.env.BlobURL, "/")+"/"+name, q), (*container.ClientOptions)(clientOptions(nil)))
	must(t, err, "container.NewClientWithNoCredential with SAS")
	return cc
}

// anonContainer returns a container client that sends no credentials at all.
func anonContainer(t *testing.T, f *fixture, name string) *container.Client {
	t.Helper()
	cc, err := container.NewClientWithNoCredential(strings.TrimSuffix(f.env.BlobURL, "/")+"/"+name, (*container.ClientOptions)(clientOptions(nil)))
	must(t, err, "container.NewClientWithNoCredential")
	return cc
}

// TestWrongKeyRejected: Shared Key with the wrong key is 403
// AuthenticationFailed on reads and writes, and nothing is written.
func TestWrongKeyRejected(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	ctx := context.Background()
	cn := cname("wrongkey")
	cc := f.createContainer(cn, nil)
	upload(t, cc.NewBlockBlobClient("b"), []byte("secret"), nil)

	otherKey := base64.StdEncoding.EncodeToString(bytes.Repeat([]byte{0x42}, 64))
	cred, err := service.NewSharedKeyCredential(f.env.Account, otherKey)
	must(t, err, "NewSharedKeyCredential")
	bad, err := service.NewClientWithSharedKeyCredential(f.env.BlobURL, cred, clientOptions(nil))
	must(t, err, "service client with wrong key")

	_, err = bad.NewContainerClient(cn).NewBlobClient("b").DownloadStream(ctx, nil)
	checkErr(t, err, http.StatusForbidden, bloberror.AuthenticationFailed, "Get Blob with wrong key")
	_, err = bad.NewContainerClient(cn).NewBlockBlobClient("b").Upload(ctx, rsc([]byte("overwritten")), nil)
	checkErr(t, err, http.StatusForbidden, bloberror.AuthenticationFailed, "Put Blob with wrong key")
	_, err = bad.NewContainerClient(cname("sneaky")).Create(ctx, nil)
	checkErr(t, err, http.StatusForbidden, bloberror.AuthenticationFailed, "Create Container with wrong key")
	_, err = bad.NewListContainersPager(nil).NextPage(ctx)
	checkErr(t, err, http.StatusForbidden, bloberror.AuthenticationFailed, "List Containers with wrong key")
	_, err = bad.GetProperties(ctx, nil)
	checkErr(t, err, http.StatusForbidden, bloberror.AuthenticationFailed, "Get Blob Service Properties with wrong key")

	// Wrong account name with the right key is also a failed signature.
	cred2, err := service.NewSharedKeyCredential("someoneelse", f.env.Key)
	must(t, err, "NewSharedKeyCredential")
	bad2, err := service.NewClientWithSharedKeyCredential(f.env.BlobURL, cred2, clientOptions(nil))
	must(t, err, "service client with wrong account name")
	_, err = bad2.NewContainerClient(cn).NewBlobClient("b").GetProperties(ctx, nil)
	checkErr(t, err, http.StatusForbidden, bloberror.AuthenticationFailed, "Get Blob Properties signed for another account")

	expectContent(t, cc.NewBlobClient("b"), []byte("secret"), "after wrong-key writes")
	if names := listContainers(t, f.svc, nil); len(names) != 1 {
		t.Errorf("containers after wrong-key create: %v", names)
	}
}

// TestAccountSASReadOnly: sp=rl can read and list but writes are 403
// AuthorizationPermissionMismatch; an expired SAS is 403 AuthenticationFailed.
func TestAccountSASReadOnly(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	ctx := context.Background()
	cn := cname("sasro")
	cc := f.createContainer(cn, nil)
	upload(t, cc.NewBlockBlobClient("readme"), []byte("readable"), nil)

	now := time.Now().UTC()
	ro := f.accountSAS(sas.AccountPermissions{Read: true, List: true}, now.Add(-time.Hour), now.Add(time.Hour))
	if !strings.Contains(ro, "sp=rl") {
		t.Fatalf("read-only account SAS %q does not carry sp=rl", ro)
	}
	svc := sasService(t, f, ro)
	rcc := svc.NewContainerClient(cn)

	expectContent(t, rcc.NewBlobClient("readme"), []byte("readable"), "Get Blob with read-only account SAS")
	p, err := rcc.NewBlobClient("readme").GetProperties(ctx, nil)
	must(t, err, "Get Blob Properties with read-only account SAS")
	if deref(p.ContentLength) != any(int64(8)) {
		t.Errorf("Content-Length via SAS: %v", deref(p.ContentLength))
	}
	items, _ := listFlat(t, rcc, nil)
	if names := blobNames(items); len(names) != 1 || names[0] != "readme" {
		t.Errorf("List Blobs with read-only SAS: %v", names)
	}
	if names := listContainers(t, svc, nil); len(names) != 1 || names[0] != cn {
		t.Errorf("List Containers with read-only SAS: %v", names)
	}

	_, err = rcc.NewBlockBlobClient("readme").Upload(ctx, rsc([]byte("overwrite")), nil)
	checkErr(t, err, http.StatusForbidden, bloberror.AuthorizationPermissionMismatch, "Put Blob (overwrite) with read-only SAS")
	_, err = rcc.NewBlockBlobClient("new").Upload(ctx, rsc([]byte("create")), nil)
	checkErr(t, err, http.StatusForbidden, bloberror.AuthorizationPermissionMismatch, "Put Blob (create) with read-only SAS")
	_, err = rcc.NewBlobClient("readme").Delete(ctx, nil)
	checkErr(t, err, http.StatusForbidden, bloberror.AuthorizationPermissionMismatch, "Delete Blob with read-only SAS")
	_, err = rcc.NewBlobClient("readme").SetMetadata(ctx, strMeta(map[string]string{"a": "b"}), nil)
	checkErr(t, err, http.StatusForbidden, bloberror.AuthorizationPermissionMismatch, "Set Blob Metadata with read-only SAS")
	_, err = rcc.NewBlockBlobClient("new").StageBlock(ctx, blockID(0), rsc([]byte("x")), nil)
	checkErr(t, err, http.StatusForbidden, bloberror.AuthorizationPermissionMismatch, "Put Block with read-only SAS")
	_, err = svc.NewContainerClient(cname("sasmade")).Create(ctx, nil)
	checkErr(t, err, http.StatusForbidden, bloberror.AuthorizationPermissionMismatch, "Create Container with read-only SAS")
	expectContent(t, cc.NewBlobClient("readme"), []byte("readable"), "after rejected SAS writes")
	_, err = cc.NewBlobClient("new").GetProperties(ctx, nil)
	checkErr(t, err, http.StatusNotFound, bloberror.BlobNotFound, "blob the read-only SAS tried to create")

	// srt=o only: blob operations work, container and service operations are
	// the wrong resource type.
	objOnly := f.accountSASFor(sas.AccountResourceTypes{Object: true}, sas.AccountPermissions{Read: true, List: true}, now.Add(-time.Hour), now.Add(time.Hour))
	osvc := sasService(t, f, objOnly)
	expectContent(t, osvc.NewContainerClient(cn).NewBlobClient("readme"), []byte("readable"), "Get Blob with srt=o account SAS")
	_, err = osvc.NewContainerClient(cn).NewListBlobsFlatPager(nil).NextPage(ctx)
	checkErr(t, err, http.StatusForbidden, bloberror.AuthorizationResourceTypeMismatch, "List Blobs with srt=o account SAS")
	_, err = osvc.NewListContainersPager(nil).NextPage(ctx)
	checkErr(t, err, http.StatusForbidden, bloberror.AuthorizationResourceTypeMismatch, "List Containers with srt=o account SAS")

	// A read-write SAS can write.
	rw := f.accountSAS(sas.AccountPermissions{Read: true, Write: true, Create: true, List: true}, now.Add(-time.Hour), now.Add(time.Hour))
	upload(t, sasService(t, f, rw).NewContainerClient(cn).NewBlockBlobClient("by-sas"), []byte("sas wrote this"), nil)
	expectContent(t, cc.NewBlobClient("by-sas"), []byte("sas wrote this"), "blob written with rw account SAS")

	// Expired.
	expired := f.accountSAS(sas.AccountPermissions{Read: true, List: true}, now.Add(-2*time.Hour), now.Add(-time.Hour))
	_, err = sasService(t, f, expired).NewContainerClient(cn).NewBlobClient("readme").DownloadStream(ctx, nil)
	checkErr(t, err, http.StatusForbidden, bloberror.AuthenticationFailed, "Get Blob with expired account SAS")
	// Not yet valid.
	future := f.accountSAS(sas.AccountPermissions{Read: true, List: true}, now.Add(time.Hour), now.Add(2*time.Hour))
	_, err = sasService(t, f, future).NewContainerClient(cn).NewBlobClient("readme").DownloadStream(ctx, nil)
	checkErr(t, err, http.StatusForbidden, bloberror.AuthenticationFailed, "Get Blob with not-yet-valid account SAS")
	// Tampered signature (permissions widened after signing).
	tampered := strings.Replace(ro, "sp=rl", "sp=rwl", 1)
	_, err = sasService(t, f, tampered).NewContainerClient(cn).NewBlockBlobClient("readme").Upload(ctx, rsc([]byte("forged")), nil)
	checkErr(t, err, http.StatusForbidden, bloberror.AuthenticationFailed, "Put Blob with a SAS whose sp was altered after signing")
	expectContent(t, cc.NewBlobClient("readme"), []byte("readable"), "after forged SAS write")
}

// TestContainerServiceSAS: a service SAS for one container works there and
// only there.
func TestContainerServiceSAS(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	ctx := context.Background()
	c1, c2 := cname("sas-one"), cname("sas-two")
	f.createContainer(c1, nil)
	cc2 := f.createContainer(c2, nil)
	upload(t, cc2.NewBlockBlobClient("other"), []byte("not yours"), nil)

	now := time.Now().UTC()
	perms := sas.ContainerPermissions{Read: true, Add: true, Create: true, Write: true, List: true}
	qp, err := sas.BlobSignatureValues{
		Protocol:      sas.ProtocolHTTPSandHTTP,
		StartTime:     now.Add(-time.Hour),
		ExpiryTime:    now.Add(time.Hour),
		Permissions:   perms.String(),
		ContainerName: c1,
	}.SignWithSharedKey(f.cred)
	must(t, err, "signing container SAS")
	q := qp.Encode()

	s1 := sasContainer(t, f, c1, q)
	upload(t, s1.NewBlockBlobClient("mine"), []byte("written with container SAS"), nil)
	expectContent(t, s1.NewBlobClient("mine"), []byte("written with container SAS"), "Get Blob with container SAS")
	items, _ := listFlat(t, s1, nil)
	if names := blobNames(items); len(names) != 1 || names[0] != "mine" {
		t.Errorf("List Blobs with container SAS: %v", names)
	}
	// No delete permission.
	_, err = s1.NewBlobClient("mine").Delete(ctx, nil)
	checkErr(t, err, http.StatusForbidden, bloberror.AuthorizationPermissionMismatch, "Delete Blob with container SAS lacking d")

	// The same SAS on another container: the signature covers the container.
	s2 := sasContainer(t, f, c2, q)
	_, err = s2.NewBlobClient("other").DownloadStream(ctx, nil)
	checkErr(t, err, http.StatusForbidden, bloberror.AuthenticationFailed, "Get Blob in another container with container SAS")
	_, err = s2.NewBlockBlobClient("intruder").Upload(ctx, rsc([]byte("x")), nil)
	checkErr(t, err, http.StatusForbidden, bloberror.AuthenticationFailed, "Put Blob in another container with container SAS")
	_, err = s2.NewListBlobsFlatPager(nil).NextPage(ctx)
	checkErr(t, err, http.StatusForbidden, bloberror.AuthenticationFailed, "List Blobs in another container with container SAS")
	_, err = cc2.NewBlobClient("intruder").GetProperties(ctx, nil)
	checkErr(t, err, http.StatusNotFound, bloberror.BlobNotFound, "blob written through a foreign container SAS")

	// A container SAS gives no service-level access.
	_, err = sasService(t, f, q).NewListContainersPager(nil).NextPage(ctx)
	if err == nil {
		t.Errorf("List Containers with a container SAS succeeded; want 403")
	} else {
		checkErr(t, err, http.StatusForbidden, "", "List Containers with a container SAS")
	}

	// A blob SAS (sr=b) for one blob does not open its neighbour.
	bq, err := sas.BlobSignatureValues{
		Protocol: sas.ProtocolHTTPSandHTTP, ExpiryTime: now.Add(time.Hour),
		Permissions: (&sas.BlobPermissions{Read: true}).String(), ContainerName: c1, BlobName: "mine",
	}.SignWithSharedKey(f.cred)
	must(t, err, "signing blob SAS")
	bsas := sasContainer(t, f, c1, bq.Encode())
	expectContent(t, bsas.NewBlobClient("mine"), []byte("written with container SAS"), "Get Blob with blob SAS")
	upload(t, f.svc.NewContainerClient(c1).NewBlockBlobClient("neighbour"), []byte("n"), nil)
	_, err = bsas.NewBlobClient("neighbour").DownloadStream(ctx, nil)
	checkErr(t, err, http.StatusForbidden, bloberror.AuthenticationFailed, "Get Blob of a neighbour with a blob SAS")
}

// TestStoredAccessPolicySAS: a service SAS that refers to a stored access
// policy by its signed identifier takes permissions and times from the
// policy; unknown or removed identifiers fail.
func TestStoredAccessPolicySAS(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	ctx := context.Background()
	cn := cname("policy")
	cc := f.createContainer(cn, nil)
	upload(t, cc.NewBlockBlobClient("doc"), []byte("policy protected"), nil)
	now := time.Now().UTC().Truncate(time.Second)
	_, err := cc.SetAccessPolicy(ctx, &container.SetAccessPolicyOptions{ContainerACL: []*container.SignedIdentifier{
		{ID: ptr("readers"), AccessPolicy: &container.AccessPolicy{Start: ptr(now.Add(-time.Hour)), Expiry: ptr(now.Add(time.Hour)), Permission: ptr("rl")}},
		{ID: ptr("expired"), AccessPolicy: &container.AccessPolicy{Start: ptr(now.Add(-2 * time.Hour)), Expiry: ptr(now.Add(-time.Hour)), Permission: ptr("rl")}},
	}})
	must(t, err, "Set Container ACL")

	sign := func(id string) string {
		qp, err := sas.BlobSignatureValues{Protocol: sas.ProtocolHTTPSandHTTP, Identifier: id, ContainerName: cn}.SignWithSharedKey(f.cred)
		must(t, err, "signing SAS for policy %q", id)
		return qp.Encode()
	}
	readers := sasContainer(t, f, cn, sign("readers"))
	expectContent(t, readers.NewBlobClient("doc"), []byte("policy protected"), "Get Blob with stored-policy SAS")
	items, _ := listFlat(t, readers, nil)
	if names := blobNames(items); len(names) != 1 || names[0] != "doc" {
		t.Errorf("List Blobs with stored-policy SAS: %v", names)
	}
	_, err = readers.NewBlockBlobClient("doc").Upload(ctx, rsc([]byte("nope")), nil)
	checkErr(t, err, http.StatusForbidden, bloberror.AuthorizationPermissionMismatch, "Put Blob with stored-policy SAS granting rl")

	_, err = sasContainer(t, f, cn, sign("expired")).NewBlobClient("doc").DownloadStream(ctx, nil)
	checkErr(t, err, http.StatusForbidden, bloberror.AuthenticationFailed, "Get Blob with SAS whose stored policy expired")
	_, err = sasContainer(t, f, cn, sign("no-such-policy")).NewBlobClient("doc").DownloadStream(ctx, nil)
	checkErr(t, err, http.StatusForbidden, bloberror.AuthenticationFailed, "Get Blob with SAS naming an unknown stored policy")

	// Removing the policy revokes the SAS.
	_, err = cc.SetAccessPolicy(ctx, &container.SetAccessPolicyOptions{})
	must(t, err, "Set Container ACL (remove policies)")
	_, err = readers.NewBlobClient("doc").DownloadStream(ctx, nil)
	checkErr(t, err, http.StatusForbidden, bloberror.AuthenticationFailed, "Get Blob with SAS whose stored policy was removed")
}

// TestAnonymousAccess: no credentials at all. Private containers hide their
// blobs (404 ResourceNotFound, as Azure answers anonymous requests it cannot
// authorise); "blob" public access allows reading blobs but not listing;
// "container" allows both. Anonymous writes never succeed.
func TestAnonymousAccess(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	ctx := context.Background()
	priv := f.createContainer(cname("anon-private"), nil)
	pubBlob := f.createContainer(cname("anon-blob"), &container.CreateOptions{Access: ptr(container.PublicAccessTypeBlob)})
	pubCont := f.createContainer(cname("anon-container"), nil)
	_, err := pubCont.SetAccessPolicy(ctx, &container.SetAccessPolicyOptions{Access: ptr(container.PublicAccessTypeContainer)})
	must(t, err, "Set Container ACL access=container")
	for _, cc := range []*container.Client{priv, pubBlob, pubCont} {
		upload(t, cc.NewBlockBlobClient("file.txt"), []byte("public? "+cc.URL()), &blockblob.UploadOptions{
			HTTPHeaders: &blob.HTTPHeaders{BlobContentType: ptr("text/plain")},
		})
	}
	name := func(cc *container.Client) string {
		u := strings.TrimSuffix(cc.URL(), "/")
		return u[strings.LastIndex(u, "/")+1:]
	}

	// private
	ap := anonContainer(t, f, name(priv))
	_, err = ap.NewBlobClient("file.txt").DownloadStream(ctx, nil)
	checkErr(t, err, http.StatusNotFound, bloberror.ResourceNotFound, "anonymous Get Blob in a private container")
	_, err = ap.NewBlobClient("file.txt").GetProperties(ctx, nil)
	checkErr(t, err, http.StatusNotFound, "", "anonymous Get Blob Properties in a private container")
	_, err = ap.NewListBlobsFlatPager(nil).NextPage(ctx)
	checkErr(t, err, http.StatusNotFound, bloberror.ResourceNotFound, "anonymous List Blobs on a private container")
	raw := rawDo(t, http.MethodGet, priv.NewBlobClient("file.txt").URL(), nil, nil)
	if raw.StatusCode != http.StatusNotFound || bytes.Contains(raw.Body, []byte("public?")) {
		t.Errorf("raw anonymous GET of a private blob: HTTP %d %q, want 404 and no content", raw.StatusCode, raw.Code)
	}

	// public access "blob"
	ab := anonContainer(t, f, name(pubBlob))
	expectContent(t, ab.NewBlobClient("file.txt"), []byte("public? "+pubBlob.URL()), "anonymous Get Blob with access=blob")
	p, err := ab.NewBlobClient("file.txt").GetProperties(ctx, nil)
	must(t, err, "anonymous Get Blob Properties with access=blob")
	if deref(p.ContentType) != any("text/plain") {
		t.Errorf("anonymous Get Blob Properties Content-Type %v", deref(p.ContentType))
	}
	_, err = ab.NewListBlobsFlatPager(nil).NextPage(ctx)
	checkErr(t, err, http.StatusNotFound, bloberror.ResourceNotFound, "anonymous List Blobs with access=blob")
	_, err = ab.NewBlobClient("missing").DownloadStream(ctx, nil)
	checkErr(t, err, http.StatusNotFound, "", "anonymous Get Blob of a missing blob with access=blob")
	raw = rawDo(t, http.MethodGet, pubBlob.NewBlobClient("file.txt").URL(), nil, nil)
	if raw.StatusCode != http.StatusOK || string(raw.Body) != "public? "+pubBlob.URL() {
		t.Errorf("raw anonymous GET with access=blob: HTTP %d %q body %q", raw.StatusCode, raw.Code, raw.Body)
	}

	// public access "container"
	ac := anonContainer(t, f, name(pubCont))
	expectContent(t, ac.NewBlobClient("file.txt"), []byte("public? "+pubCont.URL()), "anonymous Get Blob with access=container")
	items, _ := listFlat(t, ac, nil)
	if names := blobNames(items); len(names) != 1 || names[0] != "file.txt" {
		t.Errorf("anonymous List Blobs with access=container: %v", names)
	}

	// Anonymous writes and account-level operations never succeed.
	for _, cc := range []*container.Client{ap, ab, ac} {
		_, err = cc.NewBlockBlobClient("file.txt").Upload(ctx, rsc([]byte("defaced")), nil)
		if err == nil {
			t.Errorf("anonymous Put Blob into %s succeeded", cc.URL())
		}
		_, err = cc.NewBlobClient("file.txt").Delete(ctx, nil)
		if err == nil {
			t.Errorf("anonymous Delete Blob in %s succeeded", cc.URL())
		}
		_, err = cc.SetMetadata(ctx, &container.SetMetadataOptions{Metadata: strMeta(map[string]string{"x": "y"})})
		if err == nil {
			t.Errorf("anonymous Set Container Metadata on %s succeeded", cc.URL())
		}
	}
	for _, cc := range []*container.Client{priv, pubBlob, pubCont} {
		expectContent(t, cc.NewBlobClient("file.txt"), []byte("public? "+cc.URL()), "after anonymous write attempts")
	}
	anonSvc, err := service.NewClientWithNoCredential(f.env.BlobURL, clientOptions(nil))
	must(t, err, "anonymous service client")
	if _, err := anonSvc.NewListContainersPager(nil).NextPage(ctx); err == nil {
		t.Errorf("anonymous List Containers succeeded")
	}
	if _, err := anonSvc.NewContainerClient(cname("anon-made")).Create(ctx, nil); err == nil {
		t.Errorf("anonymous Create Container succeeded")
	}
}

// TestAnonymousServiceRequests: the account itself is never public, and
// an anonymous request to it answers 401 NoAuthenticationInformation (the
// .NET SDK's recording ServiceClientTests/FindBlobsByTagAsync_Error, and
// its test expecting the code), where one to a private container's
// resources answers 404 ResourceNotFound (TestAnonymousAccess).
func TestAnonymousServiceRequests(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	svc, err := service.NewClientWithNoCredential(f.env.BlobURL, (*service.ClientOptions)(clientOptions(nil)))
	must(t, err, "service.NewClientWithNoCredential")
	_, err = svc.FilterBlobs(t.Context(), `"key" = 'value'`, nil)
	checkErr(t, err, http.StatusUnauthorized, bloberror.NoAuthenticationInformation, "anonymous Find Blobs by Tags")
	_, err = svc.GetProperties(t.Context(), nil)
	checkErr(t, err, http.StatusUnauthorized, bloberror.NoAuthenticationInformation, "anonymous Get Blob Service Properties")
	_, err = svc.NewListContainersPager(nil).NextPage(t.Context())
	checkErr(t, err, http.StatusUnauthorized, bloberror.NoAuthenticationInformation, "anonymous List Containers")
}
