package blobsdk_test

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/blob"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/bloberror"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/container"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/sas"
)

// accountInfo is what Get Account Information answers, from any client.
type accountInfo struct {
	sku, kind string
	hns       *bool
}

func checkAccountInfo(t *testing.T, what string, got accountInfo, err error) {
	t.Helper()
	must(t, err, "Get Account Information (%s)", what)
	if got.sku != "Standard_RAGRS" || got.kind != "StorageV2" || got.hns == nil || *got.hns {
		t.Errorf("Get Account Information (%s): sku %q kind %q hns %v, want Standard_RAGRS StorageV2 false", what, got.sku, got.kind, got.hns)
	}
}

func enumText[T ~string](p *T) string {
	if p == nil {
		return ""
	}
	return string(*p)
}

// TestAccountInfoEverywhere: Get Account Information answers on the
// account, container and blob URLs, with Shared Key and with a SAS scoped
// to each; the container and blob need not exist.
func TestAccountInfoEverywhere(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	ctx := t.Context()
	c := cname("acctinfo")
	cc := f.createContainer(c, nil)

	s, err := f.svc.GetAccountInfo(ctx, nil)
	checkAccountInfo(t, "account, shared key", accountInfo{enumText(s.SKUName), enumText(s.AccountKind), s.IsHierarchicalNamespaceEnabled}, err)
	ci, err := cc.GetAccountInfo(ctx, nil)
	checkAccountInfo(t, "container, shared key", accountInfo{enumText(ci.SKUName), enumText(ci.AccountKind), ci.IsHierarchicalNamespaceEnabled}, err)
	bi, err := cc.NewBlobClient("never-created").GetAccountInfo(ctx, nil)
	checkAccountInfo(t, "missing blob, shared key", accountInfo{enumText(bi.SKUName), enumText(bi.AccountKind), bi.IsHierarchicalNamespaceEnabled}, err)

	now := time.Now().UTC()
	// An account SAS of any single resource type and permission will do.
	objOnly := f.accountSASFor(sas.AccountResourceTypes{Object: true}, sas.AccountPermissions{List: true}, now.Add(-time.Hour), now.Add(time.Hour))
	s, err = sasService(t, f, objOnly).GetAccountInfo(ctx, nil)
	checkAccountInfo(t, "account, account SAS srt=o", accountInfo{enumText(s.SKUName), enumText(s.AccountKind), s.IsHierarchicalNamespaceEnabled}, err)

	// A service SAS for the container, on the container URL.
	cq, err := sas.BlobSignatureValues{
		Protocol: sas.ProtocolHTTPSandHTTP, StartTime: now.Add(-time.Hour), ExpiryTime: now.Add(time.Hour),
		Permissions: (&sas.ContainerPermissions{Read: true}).String(), ContainerName: c,
	}.SignWithSharedKey(f.cred)
	must(t, err, "signing container SAS")
	ci, err = sasContainer(t, f, c, cq.Encode()).GetAccountInfo(ctx, nil)
	checkAccountInfo(t, "container, container SAS", accountInfo{enumText(ci.SKUName), enumText(ci.AccountKind), ci.IsHierarchicalNamespaceEnabled}, err)

	// A service SAS for a blob that does not exist, on the blob URL.
	bq, err := sas.BlobSignatureValues{
		Protocol: sas.ProtocolHTTPSandHTTP, StartTime: now.Add(-time.Hour), ExpiryTime: now.Add(time.Hour),
		Permissions: (&sas.BlobPermissions{Write: true}).String(), ContainerName: c, BlobName: "ghost",
	}.SignWithSharedKey(f.cred)
	must(t, err, "signing blob SAS")
	blobURL := strings.TrimSuffix(f.env.BlobURL, "/") + "/" + c + "/ghost?" + bq.Encode()
	bc, err := blob.NewClientWithNoCredential(blobURL, (*blob.ClientOptions)(clientOptions(nil)))
	must(t, err, "blob.NewClientWithNoCredential")
	bi, err = bc.GetAccountInfo(ctx, nil)
	checkAccountInfo(t, "blob, blob SAS", accountInfo{enumText(bi.SKUName), enumText(bi.AccountKind), bi.IsHierarchicalNamespaceEnabled}, err)

	// The blob SAS covers that blob only: on the container URL its
	// signature does not verify.
	other, err := container.NewClientWithNoCredential(strings.TrimSuffix(f.env.BlobURL, "/")+"/"+c+"?"+bq.Encode(), (*container.ClientOptions)(clientOptions(nil)))
	must(t, err, "container.NewClientWithNoCredential")
	_, err = other.GetAccountInfo(ctx, nil)
	checkErr(t, err, http.StatusForbidden, bloberror.AuthenticationFailed, "container URL with a blob SAS")

	// Anonymous callers are refused.
	_, err = anonContainer(t, f, c).GetAccountInfo(ctx, nil)
	if err == nil {
		t.Errorf("anonymous Get Account Information succeeded")
	}
}
