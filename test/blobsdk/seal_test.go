package blobsdk_test

import (
	"net/http"
	"testing"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/appendblob"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/blob"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/bloberror"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/lease"
)

// newAppendBlob creates an append blob holding data.
func newAppendBlob(t *testing.T, ab *appendblob.Client, data []byte) {
	t.Helper()
	_, err := ab.Create(t.Context(), nil)
	must(t, err, "Create append blob %s", ab.URL())
	_, err = ab.AppendBlock(t.Context(), rsc(data), nil)
	must(t, err, "AppendBlock %s", ab.URL())
}

// TestSealAppendBlob: a sealed append blob says so in Seal's answer, its
// properties, downloads and listings, and refuses appends with BlobIsSealed;
// Seal keeps the ETag and is idempotent; Azure's errors for other blob
// types and missing blobs.
func TestSealAppendBlob(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	cc := f.createContainer(cname("seal"), nil)
	ab := cc.NewAppendBlobClient("log")
	newAppendBlob(t, ab, []byte("first\n"))
	before := props(t, ab.BlobClient())
	if before.IsSealed != nil {
		t.Fatalf("unsealed append blob reports sealed %v", deref(before.IsSealed))
	}
	if it := listedItem(t, cc, "log"); it.Properties.IsSealed != nil {
		t.Fatalf("unsealed append blob listed sealed %v", deref(it.Properties.IsSealed))
	}

	r, err := ab.Seal(t.Context(), nil)
	must(t, err, "Seal")
	// Sealing is a write with an ETag of its own, as Azure's answers in
	// the Go SDK's recording go-azblob-TestSealAppendBlob show.
	if deref(r.IsSealed) != true || sameETag(etagOf(r.ETag), etagOf(before.ETag)) {
		t.Fatalf("Seal answered sealed %v ETag %v, want true and an ETag other than %v", deref(r.IsSealed), deref(r.ETag), deref(before.ETag))
	}
	if p := props(t, ab.BlobClient()); deref(p.IsSealed) != true || !sameETag(etagOf(p.ETag), etagOf(r.ETag)) {
		t.Fatalf("sealed properties: sealed %v ETag %v Last-Modified %v", deref(p.IsSealed), deref(p.ETag), deref(p.LastModified))
	}
	d, err := ab.BlobClient().DownloadStream(t.Context(), nil)
	must(t, err, "download a sealed blob")
	_ = d.Body.Close() // only the headers are checked
	if deref(d.IsSealed) != true {
		t.Fatalf("download of a sealed blob: sealed %v", deref(d.IsSealed))
	}
	if it := listedItem(t, cc, "log"); deref(it.Properties.IsSealed) != true {
		t.Fatalf("sealed blob listed sealed %v", deref(it.Properties.IsSealed))
	}
	_, err = ab.AppendBlock(t.Context(), rsc([]byte("late\n")), nil)
	mustErr(t, err, http.StatusConflict, bloberror.Code("BlobIsSealed"), "append to a sealed blob")
	_, err = ab.Seal(t.Context(), nil)
	must(t, err, "sealing a sealed blob again")
	expectContent(t, ab.BlobClient(), []byte("first\n"), "sealed blob")

	snap, err := ab.BlobClient().CreateSnapshot(t.Context(), nil)
	must(t, err, "snapshot a sealed blob")
	sc, err := ab.WithSnapshot(*snap.Snapshot)
	must(t, err, "snapshot client")
	if p := props(t, sc.BlobClient()); deref(p.IsSealed) != true {
		t.Fatalf("snapshot of a sealed blob: sealed %v", deref(p.IsSealed))
	}

	bb := cc.NewBlockBlobClient("block")
	upload(t, bb, []byte("block"), nil)
	_, err = cc.NewAppendBlobClient("block").Seal(t.Context(), nil)
	mustErr(t, err, http.StatusConflict, bloberror.InvalidBlobType, "Seal a block blob")
	pb := cc.NewPageBlobClient("disk")
	_, err = pb.Create(t.Context(), 512, nil)
	must(t, err, "Create page blob")
	_, err = cc.NewAppendBlobClient("disk").Seal(t.Context(), nil)
	mustErr(t, err, http.StatusConflict, bloberror.InvalidBlobType, "Seal a page blob")
	_, err = cc.NewAppendBlobClient("missing").Seal(t.Context(), nil)
	mustErr(t, err, http.StatusNotFound, bloberror.BlobNotFound, "Seal a missing blob")
}

// TestSealConditions: Seal honours the blob's lease, If-Match and
// If-None-Match, and x-ms-blob-condition-appendpos; a refused Seal leaves
// the blob appendable.
func TestSealConditions(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	cc := f.createContainer(cname("seal-cond"), nil)
	ab := cc.NewAppendBlobClient("log")
	newAppendBlob(t, ab, []byte("12345"))
	etag := etagOf(props(t, ab.BlobClient()).ETag)

	lc, err := lease.NewBlobClient(ab, nil)
	must(t, err, "lease.NewBlobClient")
	_, err = lc.AcquireLease(t.Context(), -1, nil)
	must(t, err, "AcquireLease")
	_, err = ab.Seal(t.Context(), nil)
	mustErr(t, err, http.StatusPreconditionFailed, bloberror.LeaseIDMissing, "Seal a leased blob without its lease")
	other := &blob.AccessConditions{LeaseAccessConditions: &blob.LeaseAccessConditions{LeaseID: ptr("00000000-0000-0000-0000-000000000000")}}
	_, err = ab.Seal(t.Context(), &appendblob.SealOptions{AccessConditions: other})
	mustErr(t, err, http.StatusPreconditionFailed, bloberror.LeaseIDMismatchWithBlobOperation, "Seal with another lease")

	mine := func(mac *blob.ModifiedAccessConditions) *blob.AccessConditions {
		return &blob.AccessConditions{LeaseAccessConditions: &blob.LeaseAccessConditions{LeaseID: lc.LeaseID()}, ModifiedAccessConditions: mac}
	}
	_, err = ab.Seal(t.Context(), &appendblob.SealOptions{AccessConditions: mine(&blob.ModifiedAccessConditions{IfMatch: ptr(azcore.ETag(`"0x8D0000000000000"`))})})
	mustErr(t, err, http.StatusPreconditionFailed, bloberror.ConditionNotMet, "Seal with a stale If-Match")
	_, err = ab.Seal(t.Context(), &appendblob.SealOptions{AccessConditions: mine(&blob.ModifiedAccessConditions{IfNoneMatch: &etag})})
	mustErr(t, err, http.StatusPreconditionFailed, bloberror.ConditionNotMet, "Seal with If-None-Match of the current ETag")
	_, err = ab.Seal(t.Context(), &appendblob.SealOptions{AccessConditions: mine(nil),
		AppendPositionAccessConditions: &appendblob.AppendPositionAccessConditions{AppendPosition: ptr(int64(4))}})
	mustErr(t, err, http.StatusPreconditionFailed, bloberror.AppendPositionConditionNotMet, "Seal at a wrong append position")
	if p := props(t, ab.BlobClient()); p.IsSealed != nil {
		t.Fatal("a refused Seal sealed the blob")
	}
	_, err = ab.AppendBlock(t.Context(), rsc([]byte("6")), &appendblob.AppendBlockOptions{AccessConditions: mine(nil)})
	must(t, err, "append with the lease after refused Seals")

	etag = etagOf(props(t, ab.BlobClient()).ETag)
	_, err = ab.Seal(t.Context(), &appendblob.SealOptions{AccessConditions: mine(&blob.ModifiedAccessConditions{IfMatch: &etag}),
		AppendPositionAccessConditions: &appendblob.AppendPositionAccessConditions{AppendPosition: ptr(int64(6))}})
	must(t, err, "Seal with the lease, the current ETag and the right position")
	_, err = ab.AppendBlock(t.Context(), rsc([]byte("7")), &appendblob.AppendBlockOptions{AccessConditions: mine(nil)})
	mustErr(t, err, http.StatusConflict, bloberror.Code("BlobIsSealed"), "append with the lease to a sealed blob")
	expectContent(t, ab.BlobClient(), []byte("123456"), "sealed blob")
}
