package blobsdk_test

import (
	"net/http"
	"testing"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore/policy"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/blob"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/bloberror"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/blockblob"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/container"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/service"

	"github.com/cerulean-db/cerulean/internal/servertest"
	"github.com/cerulean-db/cerulean/internal/testkit"
)

// setSoftDelete turns blob soft delete on for days.
func (f *fixture) setSoftDelete(days int32) {
	f.t.Helper()
	_, err := f.svc.SetProperties(f.t.Context(), &service.SetPropertiesOptions{
		DeleteRetentionPolicy: &service.RetentionPolicy{Enabled: ptr(true), Days: ptr(days)},
	})
	must(f.t, err, "Set Blob Service Properties with a %d-day DeleteRetentionPolicy", days)
}

// TestDeleteRetentionPolicyValidation: soft delete keeps data 1 to 365
// days; Azure refuses other values and an enabled policy without days as
// an invalid document (azblob's own live tests expect InvalidXmlDocument).
func TestDeleteRetentionPolicyValidation(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	for _, days := range []int32{0, 366, -1} {
		_, err := f.svc.SetProperties(t.Context(), &service.SetPropertiesOptions{
			DeleteRetentionPolicy: &service.RetentionPolicy{Enabled: ptr(true), Days: ptr(days)},
		})
		mustErr(t, err, http.StatusBadRequest, bloberror.InvalidXMLDocument, "DeleteRetentionPolicy Days=%d", days)
	}
	_, err := f.svc.SetProperties(t.Context(), &service.SetPropertiesOptions{
		DeleteRetentionPolicy: &service.RetentionPolicy{Enabled: ptr(true)},
	})
	mustErr(t, err, http.StatusBadRequest, bloberror.InvalidXMLDocument, "an enabled DeleteRetentionPolicy without Days")
	f.setSoftDelete(365)
	p, err := f.svc.GetProperties(t.Context(), nil)
	must(t, err, "Get Blob Service Properties")
	if d := p.DeleteRetentionPolicy; d == nil || deref(d.Enabled) != any(true) || deref(d.Days) != any(int32(365)) {
		t.Errorf("DeleteRetentionPolicy read back as %+v", d)
	}
}

// TestBlobSoftDelete: with soft delete on, a deleted blob and its
// snapshots stay listable with include=deleted for the retention days and
// Undelete Blob brings them back; an overwrite keeps the old content as a
// soft-deleted snapshot; once the days have passed, nothing is left to
// list or undelete.
func TestBlobSoftDelete(t *testing.T) {
	t.Parallel()
	clock := testkit.NewClock(time.Date(2026, 4, 1, 8, 0, 0, 0, time.UTC))
	f := newFixture(t, servertest.WithClock(clock.Now))
	f.setSoftDelete(2)
	cc := f.createContainer(cname("softdelete"), nil)
	bb := cc.NewBlockBlobClient("doc")
	v1 := randBytes(3, 50<<10)
	upload(t, bb, v1, nil)
	snap, err := bb.CreateSnapshot(t.Context(), nil)
	must(t, err, "Create Snapshot")

	var raw *http.Response
	_, err = bb.Delete(policy.WithCaptureResponse(t.Context(), &raw), &blob.DeleteOptions{DeleteSnapshots: ptr(blob.DeleteSnapshotsOptionTypeInclude)})
	must(t, err, "Delete Blob include snapshots")
	if got := raw.Header.Get("x-ms-delete-type-permanent"); got != "false" {
		t.Errorf("x-ms-delete-type-permanent %q, want false", got)
	}
	_, err = bb.GetProperties(t.Context(), nil)
	mustErr(t, err, http.StatusNotFound, bloberror.BlobNotFound, "a soft-deleted blob")
	sc, _ := bb.WithSnapshot(*snap.Snapshot)
	_, err = sc.GetProperties(t.Context(), nil)
	mustErr(t, err, http.StatusNotFound, bloberror.BlobNotFound, "a soft-deleted snapshot")
	if items, _ := listFlat(t, cc, nil); len(items) != 0 {
		t.Errorf("List Blobs lists %v after the delete", blobNames(items))
	}

	clock.Advance(time.Hour)
	items, _ := listFlat(t, cc, &container.ListBlobsFlatOptions{Include: container.ListBlobsInclude{Deleted: true, Snapshots: true}})
	if len(items) != 2 {
		t.Fatalf("include=deleted,snapshots: %d entries, want the snapshot and the blob", len(items))
	}
	for i, it := range items {
		pr := it.Properties
		if deref(it.Deleted) != any(true) || pr.DeletedTime == nil || deref(pr.RemainingRetentionDays) != any(int32(2)) {
			t.Errorf("entry %d: deleted %v at %v, %v days left; want deleted, 2 days left", i, deref(it.Deleted), deref(pr.DeletedTime), deref(pr.RemainingRetentionDays))
		}
	}
	if deref(items[0].Snapshot) != any(*snap.Snapshot) || deref(items[1].Snapshot) != any("") && items[1].Snapshot != nil {
		t.Errorf("entries: snapshot %v then %v; want the snapshot, then the blob", deref(items[0].Snapshot), deref(items[1].Snapshot))
	}

	_, err = bb.Undelete(t.Context(), nil)
	must(t, err, "Undelete Blob")
	expectContent(t, bb.BlobClient(), v1, "the undeleted blob")
	expectContent(t, sc.BlobClient(), v1, "the undeleted snapshot")

	// An overwrite keeps the old content as a soft-deleted snapshot.
	upload(t, bb, []byte("second"), nil)
	items, _ = listFlat(t, cc, &container.ListBlobsFlatOptions{Include: container.ListBlobsInclude{Deleted: true, Snapshots: true}})
	if len(items) != 3 || deref(items[1].Deleted) != any(true) {
		t.Fatalf("after an overwrite: %d entries (second deleted=%v), want a soft-deleted snapshot of the old content", len(items), deref(items[1].Deleted))
	}
	kept, _ := bb.WithSnapshot(*items[1].Snapshot)
	_, err = bb.Undelete(t.Context(), nil)
	must(t, err, "Undelete Blob after the overwrite")
	expectContent(t, kept.BlobClient(), v1, "the overwritten content, undeleted")
	expectContent(t, bb.BlobClient(), []byte("second"), "the blob after undeleting its snapshots")

	// Deleting a snapshot alone is soft too.
	_, err = sc.Delete(t.Context(), nil)
	must(t, err, "Delete Snapshot")
	_, err = sc.Delete(t.Context(), nil)
	mustErr(t, err, http.StatusNotFound, bloberror.BlobNotFound, "deleting a soft-deleted snapshot again")
	_, err = bb.Undelete(t.Context(), nil)
	must(t, err, "Undelete Blob for a snapshot")
	expectContent(t, sc.BlobClient(), v1, "the snapshot deleted alone, undeleted")

	// Past the retention days nothing is left.
	_, err = bb.Delete(t.Context(), &blob.DeleteOptions{DeleteSnapshots: ptr(blob.DeleteSnapshotsOptionTypeInclude)})
	must(t, err, "Delete Blob again")
	clock.Advance(48 * time.Hour)
	if items, _ := listFlat(t, cc, &container.ListBlobsFlatOptions{Include: container.ListBlobsInclude{Deleted: true, Snapshots: true}}); len(items) != 0 {
		t.Errorf("after the retention: include=deleted lists %d entries", len(items))
	}
	_, err = bb.Undelete(t.Context(), nil)
	mustErr(t, err, http.StatusNotFound, bloberror.BlobNotFound, "Undelete Blob after the retention")
	_, err = cc.NewBlockBlobClient("never").Undelete(t.Context(), nil)
	mustErr(t, err, http.StatusNotFound, bloberror.BlobNotFound, "Undelete Blob of a name that never existed")
}

// TestSoftDeleteWithVersions: with versioning and soft delete, deleting
// a blob makes it a previous version (not a soft-deleted blob), deleting
// a version soft-deletes it, and Undelete Blob restores the version.
func TestSoftDeleteWithVersions(t *testing.T) {
	t.Parallel()
	f := newFixture(t, servertest.WithBlobDataProtection(true, 0))
	f.setSoftDelete(7)
	cc := f.createContainer(cname("sdversions"), nil)
	bb := cc.NewBlockBlobClient("doc")
	r1 := upload(t, bb, []byte("one"), nil)
	upload(t, bb, []byte("two"), nil)
	v1, _ := bb.BlobClient().WithVersionID(*r1.VersionID)
	_, err := v1.Delete(t.Context(), nil)
	must(t, err, "Delete version 1")
	_, err = v1.GetProperties(t.Context(), nil)
	mustErr(t, err, http.StatusNotFound, bloberror.BlobNotFound, "a soft-deleted version")
	items := versionsOf(t, cc, "doc", container.ListBlobsInclude{Deleted: true})
	if len(items) != 2 || deref(items[0].Deleted) != any(true) || deref(items[0].VersionID) != any(*r1.VersionID) {
		t.Fatalf("include=versions,deleted: %d entries, first deleted=%v version %v", len(items), deref(items[0].Deleted), deref(items[0].VersionID))
	}
	if n := len(versionsOf(t, cc, "doc", container.ListBlobsInclude{})); n != 1 {
		t.Errorf("include=versions without deleted: %d entries, want 1", n)
	}
	_, err = bb.Undelete(t.Context(), nil)
	must(t, err, "Undelete Blob")
	expectContent(t, v1, []byte("one"), "version 1 undeleted")
}

// TestContainerSoftDelete: with container retention, a deleted container
// is listed with include=deleted and restored with its blobs by name and
// version; a live container of the name refuses the restore; past the
// retention it is gone.
func TestContainerSoftDelete(t *testing.T) {
	t.Parallel()
	clock := testkit.NewClock(time.Date(2026, 5, 1, 9, 0, 0, 0, time.UTC))
	f := newFixture(t, servertest.WithClock(clock.Now), servertest.WithBlobDataProtection(false, 3))
	name := cname("retired")
	cc := f.createContainer(name, &container.CreateOptions{Metadata: map[string]*string{"team": ptr("blue")}})
	data := randBytes(4, 20<<10)
	upload(t, cc.NewBlockBlobClient("a/b"), data, nil)
	// A blob of uncommitted blocks, leased: its blocks and lease go and
	// come back with the container.
	staged := cc.NewBlockBlobClient("staged")
	_, err := staged.StageBlock(t.Context(), blockID(1), rsc([]byte("s")), nil)
	must(t, err, "StageBlock")
	stagedLease := blobLease(t, staged, "")
	_, err = stagedLease.AcquireLease(t.Context(), -1, nil)
	must(t, err, "AcquireLease on a blob of uncommitted blocks")
	_, err = cc.Delete(t.Context(), nil)
	must(t, err, "Delete Container")
	_, err = cc.GetProperties(t.Context(), nil)
	mustErr(t, err, http.StatusNotFound, bloberror.ContainerNotFound, "a soft-deleted container")
	_, err = cc.NewBlockBlobClient("a/b").GetProperties(t.Context(), nil)
	mustErr(t, err, http.StatusNotFound, bloberror.ContainerNotFound, "a blob of a soft-deleted container")

	listDeleted := func() []*service.ContainerItem {
		t.Helper()
		var out []*service.ContainerItem
		pager := f.svc.NewListContainersPager(&service.ListContainersOptions{Prefix: ptr(name), Include: service.ListContainersInclude{Deleted: true, Metadata: true}})
		for pager.More() {
			page, err := pager.NextPage(t.Context())
			must(t, err, "List Containers include=deleted")
			out = append(out, page.ContainerItems...)
		}
		return out
	}
	got := listDeleted()
	if len(got) != 1 || deref(got[0].Deleted) != any(true) || got[0].Version == nil || *got[0].Version == "" {
		t.Fatalf("List Containers include=deleted: %d items (%+v)", len(got), got)
	}
	if p := got[0].Properties; p.DeletedTime == nil || deref(p.RemainingRetentionDays) != any(int32(3)) {
		t.Errorf("deleted container properties: deleted %v, %v days left", deref(p.DeletedTime), deref(p.RemainingRetentionDays))
	}
	plain := f.svc.NewListContainersPager(&service.ListContainersOptions{Prefix: ptr(name)})
	page, err := plain.NextPage(t.Context())
	must(t, err, "List Containers")
	if len(page.ContainerItems) != 0 {
		t.Errorf("List Containers without include=deleted lists the deleted container")
	}

	version := *got[0].Version
	_, err = f.svc.RestoreContainer(t.Context(), name, "01D0000000000000", nil)
	mustErr(t, err, http.StatusNotFound, bloberror.ContainerNotFound, "Restore Container with a wrong version")
	_, err = f.svc.RestoreContainer(t.Context(), name, version, nil)
	must(t, err, "Restore Container")
	expectContent(t, cc.NewBlockBlobClient("a/b").BlobClient(), data, "a blob of the restored container")
	_, err = staged.CommitBlockList(t.Context(), []string{blockID(1)}, nil)
	mustErr(t, err, http.StatusPreconditionFailed, bloberror.LeaseIDMissing, "commit of the restored uncommitted blob without its lease")
	_, err = staged.CommitBlockList(t.Context(), []string{blockID(1)}, &blockblob.CommitBlockListOptions{AccessConditions: &blob.AccessConditions{LeaseAccessConditions: &blob.LeaseAccessConditions{LeaseID: stagedLease.LeaseID()}}})
	must(t, err, "commit of the restored uncommitted blob with its lease")
	cp, err := cc.GetProperties(t.Context(), nil)
	must(t, err, "Get Container Properties after the restore")
	if v, ok := metaLookup(cp.Metadata, "team"); !ok || v != "blue" {
		t.Errorf("restored container metadata %v", flatMeta(cp.Metadata))
	}
	_, err = f.svc.RestoreContainer(t.Context(), name, version, nil)
	mustErr(t, err, http.StatusNotFound, bloberror.ContainerNotFound, "restoring a container that was restored")

	// A live container of the name refuses a restore; a new container of
	// the name starts empty, and deleting it keeps a second generation.
	again := cc.NewBlockBlobClient("staged-again")
	_, err = again.StageBlock(t.Context(), blockID(1), rsc([]byte("s")), nil)
	must(t, err, "StageBlock")
	_, err = blobLease(t, again, "").AcquireLease(t.Context(), -1, nil)
	must(t, err, "AcquireLease on a blob of uncommitted blocks")
	_, err = cc.Delete(t.Context(), nil)
	must(t, err, "Delete Container again")
	version = *listDeleted()[0].Version
	cc2 := f.createContainer(name, nil)
	// The retired container's blob of uncommitted blocks took its lease
	// along: the blob of that name in the new container is free.
	again2 := cc2.NewBlockBlobClient("staged-again")
	_, err = again2.StageBlock(t.Context(), blockID(1), rsc([]byte("n")), nil)
	must(t, err, "StageBlock in the new container")
	_, err = again2.CommitBlockList(t.Context(), []string{blockID(1)}, nil)
	must(t, err, "commit without a lease in the new container")
	_, err = f.svc.RestoreContainer(t.Context(), name, version, nil)
	mustErr(t, err, http.StatusConflict, bloberror.ContainerAlreadyExists, "Restore Container over a live container")
	_, err = cc2.NewBlockBlobClient("a/b").GetProperties(t.Context(), nil)
	mustErr(t, err, http.StatusNotFound, bloberror.BlobNotFound, "a blob of the old container in the new one")
	upload(t, cc2.NewBlockBlobClient("c"), []byte("new"), nil)
	_, err = cc2.Delete(t.Context(), nil)
	must(t, err, "Delete the new container")
	gens := listDeleted()
	if len(gens) != 2 || *gens[0].Version == *gens[1].Version {
		t.Fatalf("two deleted generations: listed %d", len(gens))
	}
	_, err = f.svc.RestoreContainer(t.Context(), name, version, nil)
	must(t, err, "Restore Container, the older generation")
	expectContent(t, cc.NewBlockBlobClient("a/b").BlobClient(), data, "a blob of the older generation")
	_, err = cc.NewBlockBlobClient("c").GetProperties(t.Context(), nil)
	mustErr(t, err, http.StatusNotFound, bloberror.BlobNotFound, "a blob of the newer generation")
	_, err = cc.Delete(t.Context(), nil)
	must(t, err, "Delete Container a third time")

	// Past the retention nothing is restorable.
	version = *listDeleted()[0].Version
	clock.Advance(72 * time.Hour)
	if n := len(listDeleted()); n != 0 {
		t.Errorf("after the retention: %d deleted containers listed", n)
	}
	_, err = f.svc.RestoreContainer(t.Context(), name, version, nil)
	mustErr(t, err, http.StatusNotFound, bloberror.ContainerNotFound, "Restore Container after the retention")
}
