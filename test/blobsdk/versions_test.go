package blobsdk_test

import (
	"net/http"
	"testing"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore/policy"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/blob"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/bloberror"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/container"

	"github.com/cerulean-db/cerulean/internal/servertest"
	"github.com/cerulean-db/cerulean/internal/testkit"
)

// versionsOf lists the entries of one blob name with include=versions.
func versionsOf(t *testing.T, cc *container.Client, name string, inc container.ListBlobsInclude) []*container.BlobItem {
	t.Helper()
	inc.Versions = true
	items, _ := listFlat(t, cc, &container.ListBlobsFlatOptions{Prefix: ptr(name), Include: inc})
	return items
}

// TestBlobVersions: with versioning on, every write that changes content
// or metadata keeps the previous state as a version, readable by its ID,
// listed with include=versions, restorable by copying it over the blob,
// and deleting the blob leaves its versions. The clock stands still, so
// version IDs stay unique only by moving one tick past the last.
func TestBlobVersions(t *testing.T) {
	t.Parallel()
	clock := testkit.NewClock(time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC))
	f := newFixture(t, servertest.WithClock(clock.Now), servertest.WithBlobDataProtection(true, 0))
	cc := f.createContainer(cname("versions"), nil)
	bb := cc.NewBlockBlobClient("doc")

	v1 := randBytes(1, 70<<10)
	r1 := upload(t, bb, v1, nil)
	if r1.VersionID == nil || *r1.VersionID == "" {
		t.Fatal("Put Blob: no x-ms-version-id")
	}
	p := props(t, bb.BlobClient())
	if deref(p.VersionID) != any(*r1.VersionID) || deref(p.IsCurrentVersion) != any(true) {
		t.Fatalf("Get Properties: version %v current %v, want %s current", deref(p.VersionID), deref(p.IsCurrentVersion), *r1.VersionID)
	}
	v2 := randBytes(2, 10<<10)
	r2 := upload(t, bb, v2, nil)
	md, err := bb.SetMetadata(t.Context(), map[string]*string{"stage": ptr("three")}, nil)
	must(t, err, "Set Blob Metadata")
	ids := []string{*r1.VersionID, deref(r2.VersionID).(string), deref(md.VersionID).(string)}
	if ids[0] != "2026-03-01T12:00:00.0000000Z" || ids[0] >= ids[1] || ids[1] >= ids[2] {
		t.Fatalf("version IDs %v: want the clock's time, then strictly increasing", ids)
	}

	old, err := bb.BlobClient().WithVersionID(ids[0])
	must(t, err, "WithVersionID")
	expectContent(t, old, v1, "version 1")
	op, err := old.GetProperties(t.Context(), nil)
	must(t, err, "Get Properties of version 1")
	if deref(op.IsCurrentVersion) == any(true) || deref(op.VersionID) != any(ids[0]) {
		t.Errorf("version 1 properties: version %v current %v", deref(op.VersionID), deref(op.IsCurrentVersion))
	}
	cur, _ := bb.BlobClient().WithVersionID(ids[2])
	expectContent(t, cur, v2, "the current version by its ID")

	// Without include=versions the current blob still lists its version
	// (azure-storage-blob's recording test_smart_access_tier).
	if it := listedItem(t, cc, "doc"); deref(it.VersionID) != any(ids[2]) || deref(it.IsCurrentVersion) != any(true) {
		t.Fatalf("List Blobs without include=versions: version %v current %v, want %s current", deref(it.VersionID), deref(it.IsCurrentVersion), ids[2])
	}
	items := versionsOf(t, cc, "doc", container.ListBlobsInclude{Metadata: true})
	if len(items) != 3 {
		t.Fatalf("List Blobs include=versions: %d entries, want 3", len(items))
	}
	for i, it := range items {
		// Only the current version lists IsCurrentVersion (the Go SDK's
		// recording go-azblob-TestDeleteSpecificBlobVersion).
		want := any("<nil>")
		if i == 2 {
			want = true
		}
		if deref(it.VersionID) != any(ids[i]) || deref(it.IsCurrentVersion) != want {
			t.Errorf("entry %d: version %v current %v, want %s current=%v", i, deref(it.VersionID), deref(it.IsCurrentVersion), ids[i], want)
		}
	}
	if _, ok := metaLookup(items[2].Metadata, "stage"); !ok {
		t.Errorf("current version lost its metadata: %v", flatMeta(items[2].Metadata))
	}
	if _, ok := metaLookup(items[1].Metadata, "stage"); ok {
		t.Errorf("version 2 has the metadata set after it: %v", flatMeta(items[1].Metadata))
	}
	plain, _ := listFlat(t, cc, nil)
	if len(plain) != 1 {
		t.Errorf("List Blobs without versions: %d entries, want 1", len(plain))
	}

	// Promote version 1: copy it over the blob (Copy Blob, which takes the
	// caller's Shared Key for a source in its own account).
	_, err = bb.BlobClient().StartCopyFromURL(t.Context(), old.URL(), nil)
	must(t, err, "Copy Blob from version 1")
	expectContent(t, bb.BlobClient(), v1, "blob after promoting version 1")
	if n := len(versionsOf(t, cc, "doc", container.ListBlobsInclude{})); n != 4 {
		t.Errorf("after the promotion: %d versions, want 4", n)
	}

	// Deleting the blob keeps it as a version; deleting a version removes it.
	var raw *http.Response
	_, err = bb.Delete(policy.WithCaptureResponse(t.Context(), &raw), nil)
	must(t, err, "Delete Blob")
	if got := raw.Header.Get("x-ms-delete-type-permanent"); got != "false" {
		t.Errorf("x-ms-delete-type-permanent %q, want false", got)
	}
	_, err = bb.GetProperties(t.Context(), nil)
	mustErr(t, err, http.StatusNotFound, bloberror.BlobNotFound, "the deleted blob")
	expectContent(t, old, v1, "version 1 after the blob was deleted")
	items = versionsOf(t, cc, "doc", container.ListBlobsInclude{})
	if len(items) != 4 {
		t.Fatalf("after Delete Blob: %d versions, want 4", len(items))
	}
	for _, it := range items {
		if deref(it.IsCurrentVersion) == any(true) {
			t.Errorf("version %v still current after Delete Blob", deref(it.VersionID))
		}
	}
	dv, _ := listFlat(t, cc, &container.ListBlobsFlatOptions{Include: container.ListBlobsInclude{DeletedWithVersions: true}})
	if len(dv) != 1 || deref(dv[0].Name) != any("doc") || deref(dv[0].HasVersionsOnly) != any(true) {
		t.Errorf("include=deletedwithversions: %d entries (%v), want doc with HasVersionsOnly", len(dv), blobNames(dv))
	}
	if plain, _ := listFlat(t, cc, nil); len(plain) != 0 {
		t.Errorf("List Blobs after Delete Blob lists %v", blobNames(plain))
	}
	_, err = old.Delete(t.Context(), nil)
	must(t, err, "Delete Blob versionid=1")
	_, err = old.GetProperties(t.Context(), nil)
	mustErr(t, err, http.StatusNotFound, bloberror.BlobNotFound, "a deleted version")
	if n := len(versionsOf(t, cc, "doc", container.ListBlobsInclude{})); n != 3 {
		t.Errorf("after deleting version 1: %d versions, want 3", n)
	}

	// A new blob of the name gets a version ID past every earlier one.
	r5 := upload(t, bb, []byte("again"), nil)
	if deref(r5.VersionID).(string) <= *items[3].VersionID {
		t.Errorf("new version %v not after %v", deref(r5.VersionID), *items[3].VersionID)
	}
}

// TestBlobVersionRules: snapshot and versionid exclude each other; a
// version is read-only; Delete Blob still needs x-ms-delete-snapshots for
// a blob with snapshots; without versioning no version IDs appear.
func TestBlobVersionRules(t *testing.T) {
	t.Parallel()
	f := newFixture(t, servertest.WithBlobDataProtection(true, 0))
	cc := f.createContainer(cname("vrules"), nil)
	bb := cc.NewBlockBlobClient("doc")
	r1 := upload(t, bb, []byte("one"), nil)
	upload(t, bb, []byte("two"), nil)
	old, _ := bb.BlobClient().WithVersionID(*r1.VersionID)
	_, err := old.SetMetadata(t.Context(), map[string]*string{"x": ptr("y")}, nil)
	mustErr(t, err, http.StatusBadRequest, "", "Set Metadata on a version")
	res := rawDo(t, http.MethodGet, withQuery(bb.URL(), "snapshot=2026-01-01T00:00:00.0000000Z&versionid="+*r1.VersionID+"&"+f.fullAccountSAS()), nil, nil)
	if res.StatusCode != http.StatusBadRequest {
		t.Errorf("snapshot and versionid together: status %d, want 400", res.StatusCode)
	}
	missing, _ := bb.BlobClient().WithVersionID("2001-01-01T00:00:00.0000000Z")
	_, err = missing.GetProperties(t.Context(), nil)
	mustErr(t, err, http.StatusNotFound, bloberror.BlobNotFound, "a version that never was")

	// Tags belong to a version; the blob's own tags stay as they were.
	_, err = old.SetTags(t.Context(), map[string]string{"stage": "old"}, nil)
	must(t, err, "Set Blob Tags on version 1")
	vt, err := old.GetTags(t.Context(), nil)
	must(t, err, "Get Blob Tags of version 1")
	if len(vt.BlobTagSet) != 1 || deref(vt.BlobTagSet[0].Value) != any("old") {
		t.Errorf("version 1 tags %+v", vt.BlobTagSet)
	}
	bt, err := bb.GetTags(t.Context(), nil)
	must(t, err, "Get Blob Tags")
	if len(bt.BlobTagSet) != 0 {
		t.Errorf("the blob took its version's tags: %+v", bt.BlobTagSet)
	}
	expectContent(t, old, []byte("one"), "version 1 after tagging it")

	_, err = bb.CreateSnapshot(t.Context(), nil)
	must(t, err, "Create Snapshot")
	_, err = bb.Delete(t.Context(), nil)
	mustErr(t, err, http.StatusConflict, bloberror.SnapshotsPresent, "Delete Blob with a snapshot and no x-ms-delete-snapshots")
	_, err = bb.Delete(t.Context(), &blob.DeleteOptions{DeleteSnapshots: ptr(blob.DeleteSnapshotsOptionTypeInclude)})
	must(t, err, "Delete Blob include snapshots")
	expectContent(t, old, []byte("one"), "version 1 after deleting the blob and its snapshots")

	plain := newFixture(t)
	pc := plain.createContainer(cname("noversions"), nil)
	pr := upload(t, pc.NewBlockBlobClient("doc"), []byte("x"), nil)
	if pr.VersionID != nil {
		t.Errorf("versioning off: Put Blob answered version %q", *pr.VersionID)
	}
	var raw *http.Response
	_, err = pc.NewBlockBlobClient("doc").Delete(policy.WithCaptureResponse(t.Context(), &raw), nil)
	must(t, err, "Delete Blob without data protection")
	if got := raw.Header.Get("x-ms-delete-type-permanent"); got != "true" {
		t.Errorf("x-ms-delete-type-permanent %q, want true", got)
	}
}
