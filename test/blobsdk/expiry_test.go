package blobsdk_test

import (
	"net/http"
	"testing"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/appendblob"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/bloberror"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/blockblob"
)

// TestSetExpiryFlatAccount: Set Blob Expiry exists only on accounts with a
// hierarchical namespace. cerulean's accounts are flat (Get Account
// Information says so), and it answers as Azure answers a flat account
// (the azblob suite's TestBlockBlobSetExpiryOnHnsDisabledAccount):
// HierarchicalNamespaceNotEnabled, whatever the option, and the blob keeps
// no expiry time.
func TestSetExpiryFlatAccount(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	ctx := t.Context()
	cc := f.createContainer(cname("expiry"), nil)
	bb := cc.NewBlockBlobClient("b")
	upload(t, bb, []byte("data"), nil)
	for name, opt := range map[string]blockblob.ExpiryType{
		"never":       blockblob.ExpiryTypeNever{},
		"relative":    blockblob.ExpiryTypeRelativeToNow(time.Hour),
		"creation":    blockblob.ExpiryTypeRelativeToCreation(time.Hour),
		"absolute":    blockblob.ExpiryTypeAbsolute(time.Now().Add(time.Hour)),
		"no settings": nil,
	} {
		_, err := bb.SetExpiry(ctx, opt, nil)
		checkErr(t, err, http.StatusBadRequest, bloberror.Code("HierarchicalNamespaceNotEnabled"), "Set Blob Expiry %s", name)
	}
	p, err := bb.GetProperties(ctx, nil)
	must(t, err, "GetProperties")
	if p.ExpiresOn != nil {
		t.Errorf("x-ms-expiry-time %v on a blob of a flat account", p.ExpiresOn)
	}

	ab := cc.NewAppendBlobClient("a")
	_, err = ab.Create(ctx, nil)
	must(t, err, "Create append blob")
	_, err = ab.SetExpiry(ctx, appendblob.ExpiryTypeRelativeToNow(time.Minute), nil)
	checkErr(t, err, http.StatusBadRequest, bloberror.Code("HierarchicalNamespaceNotEnabled"), "Set Blob Expiry on an append blob")
}
