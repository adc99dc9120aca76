package blobsdk_test

import (
	"testing"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore/to"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/blob"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/blockblob"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/sas"

	"github.com/cerulean-db/cerulean/internal/testkit"
)

// TestSASResponseOverrides: a blob SAS's rscc, rscd, rsce, rscl and rsct
// replace the response headers of Get Blob and Get Blob Properties made
// with it, and only those: a Shared Key read sees the stored headers.
func TestSASResponseOverrides(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	ctx := t.Context()
	c := cname("rsc")
	cc := f.createContainer(c, nil)
	bb := cc.NewBlockBlobClient("b")
	upload(t, bb, []byte("data"), &blockblob.UploadOptions{HTTPHeaders: &blob.HTTPHeaders{
		BlobContentType: to.Ptr("application/x-stored"), BlobCacheControl: to.Ptr("stored")}})
	now := time.Now().UTC()
	qp, err := sas.BlobSignatureValues{
		Protocol: sas.ProtocolHTTPSandHTTP, StartTime: now.Add(-time.Hour), ExpiryTime: now.Add(time.Hour),
		Permissions: (&sas.BlobPermissions{Read: true}).String(), ContainerName: c, BlobName: "b",
		CacheControl: testkit.OverrideCacheControl, ContentDisposition: testkit.OverrideContentDisposition, ContentEncoding: testkit.OverrideContentEncoding,
		ContentLanguage: testkit.OverrideContentLanguage, ContentType: testkit.OverrideContentType,
	}.SignWithSharedKey(f.cred)
	must(t, err, "signing blob SAS")
	viaSAS := sasContainer(t, f, c, qp.Encode()).NewBlobClient("b")
	p, err := viaSAS.GetProperties(ctx, nil)
	must(t, err, "Get Blob Properties with the SAS")
	testkit.CheckOverrides(t, "get properties", p.CacheControl, p.ContentDisposition, p.ContentEncoding, p.ContentLanguage, p.ContentType)
	d, err := viaSAS.DownloadStream(ctx, nil)
	must(t, err, "Get Blob with the SAS")
	_ = d.Body.Close()
	testkit.CheckOverrides(t, "get blob", d.CacheControl, d.ContentDisposition, d.ContentEncoding, d.ContentLanguage, d.ContentType)
	own, err := bb.GetProperties(ctx, nil)
	if err != nil || *own.ContentType != "application/x-stored" || *own.CacheControl != "stored" {
		t.Fatalf("shared key read: %v", err)
	}
}
