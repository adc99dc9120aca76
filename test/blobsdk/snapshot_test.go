package blobsdk_test

import (
	"net/http"
	"testing"

	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/blob"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/bloberror"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/container"
)

// TestSnapshots: a snapshot keeps the content and properties of the moment
// it was taken, is listed before its blob, and governs how the blob may be
// deleted.
func TestSnapshots(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	cc := f.createContainer(cname("snapshots"), nil)
	bb := cc.NewBlockBlobClient("doc")
	v1 := randBytes(1, 300<<10)
	upload(t, bb, v1, nil)
	base := props(t, bb.BlobClient())

	s1, err := bb.CreateSnapshot(t.Context(), nil)
	must(t, err, "CreateSnapshot")
	if s1.Snapshot == nil || *s1.Snapshot == "" {
		t.Fatal("no x-ms-snapshot in the response")
	}
	if !sameETag(etagOf(s1.ETag), etagOf(base.ETag)) {
		t.Errorf("snapshot ETag %v, blob ETag %v", etagOf(s1.ETag), etagOf(base.ETag))
	}
	s2, err := bb.CreateSnapshot(t.Context(), &blob.CreateSnapshotOptions{Metadata: map[string]*string{"tag": ptr("second")}})
	must(t, err, "CreateSnapshot with metadata")
	if *s2.Snapshot <= *s1.Snapshot {
		t.Fatalf("snapshot ids not increasing: %s then %s", *s1.Snapshot, *s2.Snapshot)
	}

	v2 := randBytes(2, 200<<10)
	upload(t, bb, v2, nil)
	snap1, err := bb.WithSnapshot(*s1.Snapshot)
	must(t, err, "WithSnapshot")
	expectContent(t, snap1.BlobClient(), v1, "snapshot after the blob was overwritten")
	expectContent(t, bb.BlobClient(), v2, "blob after overwrite")
	sp, err := snap1.GetProperties(t.Context(), nil)
	must(t, err, "snapshot GetProperties")
	if deref(sp.ContentLength) != any(int64(len(v1))) {
		t.Errorf("snapshot Content-Length %v, want %d", deref(sp.ContentLength), len(v1))
	}
	snap2, _ := bb.WithSnapshot(*s2.Snapshot)
	sp2, err := snap2.GetProperties(t.Context(), nil)
	must(t, err, "snapshot 2 GetProperties")
	if v, ok := metaLookup(sp2.Metadata, "tag"); !ok || v != "second" {
		t.Errorf("snapshot metadata %v", flatMeta(sp2.Metadata))
	}
	_, err = snap1.SetMetadata(t.Context(), map[string]*string{"x": ptr("y")}, nil)
	mustErr(t, err, http.StatusBadRequest, "", "writing to a snapshot")
	missing, _ := bb.WithSnapshot("2001-01-01T00:00:00.0000000Z")
	_, err = missing.GetProperties(t.Context(), nil)
	mustErr(t, err, http.StatusNotFound, bloberror.BlobNotFound, "a snapshot that does not exist")

	items, _ := listFlat(t, cc, &container.ListBlobsFlatOptions{Include: container.ListBlobsInclude{Snapshots: true}})
	if len(items) != 3 || deref(items[0].Snapshot) != *s1.Snapshot || deref(items[1].Snapshot) != *s2.Snapshot || items[2].Snapshot != nil {
		var got []any
		for _, it := range items {
			got = append(got, []any{deref(it.Name), deref(it.Snapshot)})
		}
		t.Fatalf("listing with snapshots: %v", got)
	}
	if items, _ := listFlat(t, cc, nil); len(items) != 1 {
		t.Fatalf("listing without snapshots returned %d items", len(items))
	}

	_, err = bb.Delete(t.Context(), nil)
	mustErr(t, err, http.StatusConflict, bloberror.SnapshotsPresent, "deleting a blob that has snapshots")
	_, err = snap2.Delete(t.Context(), nil)
	must(t, err, "delete one snapshot")
	_, err = snap2.GetProperties(t.Context(), nil)
	mustErr(t, err, http.StatusNotFound, bloberror.BlobNotFound, "deleted snapshot")
	expectContent(t, snap1.BlobClient(), v1, "the other snapshot after deleting one")

	_, err = bb.Delete(t.Context(), &blob.DeleteOptions{DeleteSnapshots: ptr(blob.DeleteSnapshotsOptionTypeOnly)})
	must(t, err, "delete only snapshots")
	expectContent(t, bb.BlobClient(), v2, "blob after deleting its snapshots")
	_, err = snap1.GetProperties(t.Context(), nil)
	mustErr(t, err, http.StatusNotFound, bloberror.BlobNotFound, "snapshot after delete=only")

	_, err = bb.CreateSnapshot(t.Context(), nil)
	must(t, err, "CreateSnapshot again")
	_, err = bb.Delete(t.Context(), &blob.DeleteOptions{DeleteSnapshots: ptr(blob.DeleteSnapshotsOptionTypeInclude)})
	must(t, err, "delete with snapshots included")
	if items, _ := listFlat(t, cc, &container.ListBlobsFlatOptions{Include: container.ListBlobsInclude{Snapshots: true}}); len(items) != 0 {
		t.Fatalf("%d items left after delete include", len(items))
	}
}

// TestSnapshotBytesAreShared: a snapshot shares the blob's bytes; they are
// freed only when neither the blob nor any snapshot references them.
func TestSnapshotBytesAreShared(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	cc := f.createContainer(cname("snapshot-bytes"), nil)
	empty := statStore(t, f.env)
	bb := cc.NewBlockBlobClient("b")
	data := randBytes(7, 1<<20)
	upload(t, bb, data, nil)
	one := statStore(t, f.env)
	s, err := bb.CreateSnapshot(t.Context(), nil)
	must(t, err, "CreateSnapshot")
	withSnap := statStore(t, f.env)
	if grew := withSnap.Bytes - one.Bytes; grew > 4<<10 {
		t.Fatalf("a snapshot copied %d bytes; it should share the blob's data", grew)
	}
	upload(t, bb, randBytes(8, 1<<20), nil)
	snap, _ := bb.WithSnapshot(*s.Snapshot)
	expectContent(t, snap.BlobClient(), data, "snapshot after overwrite")
	_, err = snap.Delete(t.Context(), nil)
	must(t, err, "delete snapshot")
	after := statStore(t, f.env)
	if diff := after.Bytes - one.Bytes; diff > 4<<10 || diff < -4<<10 {
		t.Fatalf("after deleting the snapshot the store holds %s, one blob held %s", after, one)
	}
	_, err = bb.Delete(t.Context(), nil)
	must(t, err, "delete blob")
	if st := statStore(t, f.env); st != empty {
		t.Fatalf("after deleting everything: %s, empty container was %s", st, empty)
	}
}
