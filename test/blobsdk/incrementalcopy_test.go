package blobsdk_test

import (
	"net/http"
	"testing"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore/policy"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/blob"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/bloberror"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/container"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/sas"
)

// TestIncrementalCopy: Incremental Copy Blob copies page blob snapshots
// into an incremental copy blob, snapshotting the destination each time
// (x-ms-copy-destination-snapshot), and holds to Azure's rules: the
// source must be a snapshot, of a page blob, later than the last one
// copied, and the destination only ever takes copies of that source. It
// answers x-ms-copy-status pending, as Azure's background copies do
// (azblob's live TestIncrementalCopy requires pending, then polls Get
// Blob Properties until success), and the next request sees success.
func TestIncrementalCopy(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	ctx := t.Context()
	name := cname("incr-copy")
	cc := f.createContainer(name, nil)
	src := cc.NewPageBlobClient("disk")
	_, err := src.Create(ctx, 2048, nil)
	must(t, err, "create source page blob")
	first := randBytes(51, 512)
	_, err = src.UploadPages(ctx, rsc(first), blob.HTTPRange{Offset: 0, Count: 512}, nil)
	must(t, err, "write first pages")
	s1, err := src.CreateSnapshot(ctx, nil)
	must(t, err, "snapshot 1")
	second := randBytes(52, 512)
	_, err = src.UploadPages(ctx, rsc(second), blob.HTTPRange{Offset: 1024, Count: 512}, nil)
	must(t, err, "write more pages")
	s2, err := src.CreateSnapshot(ctx, nil)
	must(t, err, "snapshot 2")

	qp, err := sas.BlobSignatureValues{Protocol: sas.ProtocolHTTPSandHTTP, ExpiryTime: time.Now().Add(time.Hour), Permissions: "r", ContainerName: name}.SignWithSharedKey(f.cred)
	must(t, err, "sign source SAS")
	srcURL := withQuery(src.URL(), qp.Encode())

	dst := cc.NewPageBlobClient("backup")
	var raw *http.Response
	r, err := dst.StartCopyIncremental(policy.WithCaptureResponse(ctx, &raw), srcURL, *s1.Snapshot, nil)
	must(t, err, "Incremental Copy Blob of snapshot 1")
	if raw.StatusCode != http.StatusAccepted || r.CopyStatus == nil || *r.CopyStatus != blob.CopyStatusTypePending || r.CopyID == nil {
		t.Fatalf("Incremental Copy Blob: status %d copy status %v id %v", raw.StatusCode, deref(r.CopyStatus), deref(r.CopyID))
	}
	want1 := make([]byte, 2048)
	copy(want1, first)
	p := props(t, dst.BlobClient())
	if deref(p.IsIncrementalCopy) != true || deref(p.BlobType) != blob.BlobTypePageBlob || deref(p.ContentLength) != int64(2048) || p.DestinationSnapshot == nil {
		t.Fatalf("destination properties: incremental %v type %v length %v destination snapshot %v",
			deref(p.IsIncrementalCopy), deref(p.BlobType), deref(p.ContentLength), deref(p.DestinationSnapshot))
	}
	if deref(p.CopyStatus) != blob.CopyStatusTypeSuccess || deref(p.CopyID) != deref(r.CopyID) {
		t.Fatalf("after the copy: status %v id %v, want success of %v", deref(p.CopyStatus), deref(p.CopyID), deref(r.CopyID))
	}
	dsnap1 := *p.DestinationSnapshot
	d1, err := dst.BlobClient().WithSnapshot(dsnap1)
	must(t, err, "destination snapshot client")
	expectContent(t, d1, want1, "destination snapshot of the first copy")

	// The next snapshot brings the destination up to date, in a new snapshot.
	_, err = dst.StartCopyIncremental(ctx, srcURL, *s2.Snapshot, nil)
	must(t, err, "Incremental Copy Blob of snapshot 2")
	want2 := append([]byte(nil), want1...)
	copy(want2[1024:], second)
	p = props(t, dst.BlobClient())
	if p.DestinationSnapshot == nil || *p.DestinationSnapshot == dsnap1 {
		t.Fatalf("second copy: destination snapshot %v, want a new one", deref(p.DestinationSnapshot))
	}
	d2, _ := dst.BlobClient().WithSnapshot(*p.DestinationSnapshot)
	expectContent(t, d2, want2, "destination snapshot of the second copy")
	expectContent(t, d1, want1, "the first destination snapshot after the second copy")
	items, _ := listFlat(t, cc, &container.ListBlobsFlatOptions{Include: container.ListBlobsInclude{Snapshots: true, Copy: true}})
	var backups, incremental int
	for _, it := range items {
		if *it.Name == "backup" {
			backups++
			if deref(it.Properties.IncrementalCopy) == true {
				incremental++
			}
		}
	}
	if backups != 3 || incremental != 3 {
		t.Errorf("listing: %d entries for the destination (%d marked incremental), want the blob and 2 snapshots, all incremental", backups, incremental)
	}

	// Azure's rules.
	_, err = dst.StartCopyIncremental(ctx, srcURL, *s1.Snapshot, nil)
	checkErr(t, err, http.StatusConflict, bloberror.IncrementalCopyOfEarlierSnapshotNotAllowed, "copying an earlier snapshot")
	_, err = dst.StartCopyIncremental(ctx, srcURL, *s2.Snapshot, nil)
	checkErr(t, err, http.StatusConflict, bloberror.IncrementalCopyOfEarlierSnapshotNotAllowed, "copying the same snapshot again")
	_, err = cc.NewPageBlobClient("no-snap").StartCopyIncremental(ctx, srcURL, "", nil)
	checkErr(t, err, http.StatusConflict, bloberror.IncrementalCopySourceMustBeSnapshot, "a source that is not a snapshot")

	other := cc.NewPageBlobClient("other-disk")
	_, err = other.Create(ctx, 512, nil)
	must(t, err, "create another page blob")
	os1, err := other.CreateSnapshot(ctx, nil)
	must(t, err, "snapshot the other page blob")
	_, err = dst.StartCopyIncremental(ctx, withQuery(other.URL(), qp.Encode()), *os1.Snapshot, nil)
	checkErr(t, err, http.StatusConflict, bloberror.IncrementalCopyBlobMismatch, "a snapshot of another source into the destination")

	plain := cc.NewPageBlobClient("plain")
	_, err = plain.Create(ctx, 512, nil)
	must(t, err, "create a plain page blob")
	_, err = plain.StartCopyIncremental(ctx, srcURL, *s2.Snapshot, nil)
	checkErr(t, err, http.StatusConflict, bloberror.InvalidBlobType, "a destination that is not an incremental copy")

	block := cc.NewBlockBlobClient("block-src")
	upload(t, block, []byte("not pages"), nil)
	bs, err := block.CreateSnapshot(ctx, nil)
	must(t, err, "snapshot a block blob")
	_, err = cc.NewPageBlobClient("from-block").StartCopyIncremental(ctx, withQuery(block.URL(), qp.Encode()), *bs.Snapshot, nil)
	checkErr(t, err, http.StatusConflict, bloberror.InvalidBlobType, "a block blob snapshot as the source")

	// The source is authorized by its own URL only.
	_, err = cc.NewPageBlobClient("nosas").StartCopyIncremental(ctx, src.URL(), *s1.Snapshot, nil)
	checkErr(t, err, http.StatusNotFound, bloberror.CannotVerifyCopySource, "a private source without a SAS")
}
