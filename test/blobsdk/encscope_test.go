package blobsdk_test

import (
	"net/http"
	"testing"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/blob"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/bloberror"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/blockblob"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/container"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/sas"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/service"

	"github.com/cerulean-db/cerulean/internal/testkit"
)

// A blob written in a named encryption scope keeps it: echoed on the
// write, in its properties and in listings; a container's default scope
// applies to blobs written without one and, when the container denies
// overrides, no other scope may be named.
func TestEncryptionScopes(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	plain := f.createContainer(testkit.Name("scope"), nil)
	scope1 := &blob.CPKScopeInfo{EncryptionScope: ptr("scope1")}

	bb := plain.NewBlockBlobClient("named")
	up, err := bb.Upload(t.Context(), rsc([]byte("abc")), &blockblob.UploadOptions{CPKScopeInfo: scope1})
	must(t, err, "Put Blob in scope1")
	if deref(up.EncryptionScope) != "scope1" {
		t.Errorf("Put Blob echoed scope %v", deref(up.EncryptionScope))
	}
	p := props(t, bb.BlobClient())
	if deref(p.EncryptionScope) != "scope1" {
		t.Errorf("properties: scope %v, want scope1", deref(p.EncryptionScope))
	}
	upload(t, plain.NewBlockBlobClient("unnamed"), []byte("x"), nil)
	if p := props(t, plain.NewBlobClient("unnamed")); p.EncryptionScope != nil {
		t.Errorf("blob written without a scope reports %q", *p.EncryptionScope)
	}
	cp, err := plain.GetProperties(t.Context(), nil)
	must(t, err, "container properties")
	if deref(cp.DefaultEncryptionScope) != "$account-encryption-key" || deref(cp.DenyEncryptionScopeOverride) != false {
		t.Errorf("plain container: default scope %v, deny %v", deref(cp.DefaultEncryptionScope), deref(cp.DenyEncryptionScopeOverride))
	}

	// Staged blocks take the scope of the commit.
	staged := plain.NewBlockBlobClient("staged")
	_, err = staged.StageBlock(t.Context(), blockID(0), rsc([]byte("abc")), &blockblob.StageBlockOptions{CPKScopeInfo: scope1})
	must(t, err, "Put Block in scope1")
	_, err = staged.CommitBlockList(t.Context(), []string{blockID(0)}, &blockblob.CommitBlockListOptions{CPKScopeInfo: scope1})
	must(t, err, "Put Block List in scope1")
	if p := props(t, staged.BlobClient()); deref(p.EncryptionScope) != "scope1" {
		t.Errorf("committed blob: scope %v", deref(p.EncryptionScope))
	}

	// Container defaults.
	deny := f.createContainer(testkit.Name("deny"), &container.CreateOptions{
		CPKScopeInfo: &container.CPKScopeInfo{DefaultEncryptionScope: ptr("tenant-a"), PreventEncryptionScopeOverride: ptr(true)},
	})
	allow := f.createContainer(testkit.Name("allow"), &container.CreateOptions{
		CPKScopeInfo: &container.CPKScopeInfo{DefaultEncryptionScope: ptr("tenant-b"), PreventEncryptionScopeOverride: ptr(false)},
	})
	cp, err = deny.GetProperties(t.Context(), nil)
	must(t, err, "deny container properties")
	if deref(cp.DefaultEncryptionScope) != "tenant-a" || deref(cp.DenyEncryptionScopeOverride) != true {
		t.Errorf("deny container: default scope %v, deny %v", deref(cp.DefaultEncryptionScope), deref(cp.DenyEncryptionScopeOverride))
	}
	upload(t, deny.NewBlockBlobClient("default"), []byte("d"), nil)
	if p := props(t, deny.NewBlobClient("default")); deref(p.EncryptionScope) != "tenant-a" {
		t.Errorf("blob in deny container: scope %v, want tenant-a", deref(p.EncryptionScope))
	}
	_, err = deny.NewBlockBlobClient("other").Upload(t.Context(), rsc([]byte("o")), &blockblob.UploadOptions{CPKScopeInfo: scope1})
	mustErr(t, err, 403, bloberror.Code("RequestForbiddenByContainerEncryptionPolicy"), "another scope in a container denying overrides (Java's recording CPKNTests.containerDenyEncryptionScopeOverride)")
	_, err = deny.NewBlockBlobClient("same").Upload(t.Context(), rsc([]byte("s")), &blockblob.UploadOptions{CPKScopeInfo: &blob.CPKScopeInfo{EncryptionScope: ptr("tenant-a")}})
	must(t, err, "the default scope named in a container denying overrides")
	_, err = allow.NewBlockBlobClient("other").Upload(t.Context(), rsc([]byte("o")), &blockblob.UploadOptions{CPKScopeInfo: scope1})
	must(t, err, "another scope in a container allowing overrides")
	if p := props(t, allow.NewBlobClient("other")); deref(p.EncryptionScope) != "scope1" {
		t.Errorf("override: scope %v, want scope1", deref(p.EncryptionScope))
	}

	// Listings carry the blob's scope and the container's default.
	items, _ := listFlat(t, deny, nil)
	for _, it := range items {
		if deref(it.Properties.EncryptionScope) != "tenant-a" {
			t.Errorf("listing %s: EncryptionScope %v", *it.Name, deref(it.Properties.EncryptionScope))
		}
	}
	pager := f.svc.NewListContainersPager(&service.ListContainersOptions{Prefix: ptr("deny")})
	found := false
	for pager.More() {
		page, err := pager.NextPage(t.Context())
		must(t, err, "list containers")
		for _, c := range page.ContainerItems {
			found = true
			if deref(c.Properties.DefaultEncryptionScope) != "tenant-a" || deref(c.Properties.PreventEncryptionScopeOverride) != true {
				t.Errorf("listed container %s: default scope %v, deny %v", *c.Name, deref(c.Properties.DefaultEncryptionScope), deref(c.Properties.PreventEncryptionScopeOverride))
			}
		}
	}
	if !found {
		t.Error("deny container not listed")
	}
}

// Create Container takes both default-scope headers or neither, and
// scope names must be well formed.
func TestEncryptionScopeHeaders(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	sign := f.signer()
	url := f.env.BlobURL + testkit.Name("half") + "?restype=container"
	sign.Send(t, testkit.Request{Method: http.MethodPut, URL: url, Header: map[string]string{"x-ms-default-encryption-scope": "s1"}}).
		Check(t, http.StatusBadRequest, "ContainerOperationFailure", "default scope without deny-override")
	sign.Send(t, testkit.Request{Method: http.MethodPut, URL: url, Header: map[string]string{"x-ms-deny-encryption-scope-override": "true"}}).
		Check(t, http.StatusBadRequest, "ContainerOperationFailure", "deny-override without default scope")
	sign.Send(t, testkit.Request{Method: http.MethodPut, URL: url, Header: map[string]string{"x-ms-default-encryption-scope": "s1", "x-ms-deny-encryption-scope-override": "maybe"}}).
		Check(t, http.StatusBadRequest, "InvalidHeaderValue", "deny-override not a boolean")

	cc := f.createContainer(testkit.Name("badscope"), nil)
	_, err := cc.NewBlockBlobClient("b").Upload(t.Context(), rsc([]byte("x")), &blockblob.UploadOptions{CPKScopeInfo: &blob.CPKScopeInfo{EncryptionScope: ptr("no spaces allowed")}})
	mustErr(t, err, 400, bloberror.InvalidHeaderValue, "malformed scope name")
}

// A SAS signed with an encryption scope (ses) writes in that scope: blobs
// written without one get it, and a request naming another is refused.
func TestSASEncryptionScope(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	cname := testkit.Name("ses")
	cc := f.createContainer(cname, nil)
	qp, err := sas.BlobSignatureValues{
		Protocol:        sas.ProtocolHTTPSandHTTP,
		ExpiryTime:      time.Now().UTC().Add(time.Hour),
		Permissions:     (&sas.ContainerPermissions{Read: true, Write: true, Create: true}).String(),
		ContainerName:   cname,
		EncryptionScope: "sasscope",
	}.SignWithSharedKey(f.cred)
	must(t, err, "sign SAS with ses")
	client := func(name string) *blockblob.Client {
		c, err := blockblob.NewClientWithNoCredential(cc.NewBlobClient(name).URL()+"?"+qp.Encode(), nil)
		must(t, err, "SAS client")
		return c
	}

	_, err = client("implicit").Upload(t.Context(), rsc([]byte("i")), nil)
	must(t, err, "upload through a SAS with ses")
	if p := props(t, cc.NewBlobClient("implicit")); deref(p.EncryptionScope) != "sasscope" {
		t.Errorf("blob written through a SAS with ses: scope %v, want sasscope", deref(p.EncryptionScope))
	}
	_, err = client("same").Upload(t.Context(), rsc([]byte("s")), &blockblob.UploadOptions{CPKScopeInfo: &blob.CPKScopeInfo{EncryptionScope: ptr("sasscope")}})
	must(t, err, "upload naming the SAS's scope")
	_, err = client("other").Upload(t.Context(), rsc([]byte("o")), &blockblob.UploadOptions{CPKScopeInfo: &blob.CPKScopeInfo{EncryptionScope: ptr("another")}})
	mustErr(t, err, 403, bloberror.AuthorizationFailure, "upload naming another scope through a SAS with ses")
	_, err = cc.NewBlobClient("other").GetProperties(t.Context(), nil)
	mustErr(t, err, 404, bloberror.BlobNotFound, "blob after the refused upload")
}
