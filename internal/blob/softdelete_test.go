package blob

import (
	"bytes"
	"context"
	"errors"
	"testing"
	"time"

	"github.com/cerulean-db/cerulean/internal/azauth"
	"github.com/cerulean-db/cerulean/internal/azerr"
	"github.com/cerulean-db/cerulean/internal/conditions"
	"github.com/cerulean-db/cerulean/internal/kv"
	"github.com/cerulean-db/cerulean/internal/kv/memory"
	"github.com/cerulean-db/cerulean/internal/kv/record"
	"github.com/cerulean-db/cerulean/internal/svcprops"
	"github.com/cerulean-db/cerulean/internal/testkit"
)

// newProtectedService is newTestService with a clock, the test account
// registered (PurgeExpired walks the accounts) and data protection opts;
// softDays > 0 turns blob soft delete on. It checks the layout at the end.
func newProtectedService(t *testing.T, clock *testkit.Clock, softDays int, opts ...Option) (*Service, kv.Store) {
	t.Helper()
	store := memory.Open()
	accts := azauth.NewAccounts(azauth.Account{Name: testAcct, Keys: [][]byte{[]byte("k")}})
	s := New(Config{Store: store, Accounts: accts, Now: clock.Now}, opts...)
	if _, err := s.CreateContainer(t.Context(), ContainerRef{Account: testAcct, Container: "c"}, CreateContainerOptions{}); err != nil {
		t.Fatal(err)
	}
	if softDays > 0 {
		p := svcprops.DefaultServiceProperties("blob")
		p.DeleteRetentionPolicy = &svcprops.RetentionXML{Enabled: true, Days: &softDays}
		if err := store.Update(t.Context(), func(tx kv.Txn) error { return record.Store(tx, servicePropsKey(testAcct), p) }); err != nil {
			t.Fatal(err)
		}
	}
	t.Cleanup(func() {
		if err := CheckInvariants(context.Background(), store); err != nil {
			t.Error(err)
		}
		if err := store.Close(); err != nil {
			t.Error(err)
		}
	})
	return s, store
}

func putBytes(t *testing.T, s *Service, name string, data []byte) *Blob {
	t.Helper()
	w, err := s.PutBlob(t.Context(), Ref{Account: testAcct, Container: "c", Name: name}, contentOf(data), PutBlobOptions{Tags: Tags{{"k", "v"}}})
	if err != nil {
		t.Fatalf("put %s: %v", name, err)
	}
	return w.Blob
}

// A soft-deleted blob keeps its bytes until its retention has passed;
// then PurgeExpired frees them, and nothing is left to undelete.
func TestPurgeExpiredFreesSoftDeletedData(t *testing.T) {
	clock := testkit.NewClock(time.Date(2026, 6, 1, 0, 0, 0, 0, time.UTC))
	s, store := newProtectedService(t, clock, 1)
	data := bytes.Repeat([]byte("soft"), inlineLimit) // staged: several data chunks
	putBytes(t, s, "doc", data)
	if err := s.DeleteBlob(t.Context(), Ref{Account: testAcct, Container: "c", Name: "doc"}, KeepSnapshots, Preconditions{}); err != nil {
		t.Fatal(err)
	}
	if blobExists(t, s, "doc") || blobDataKeys(t, store, "c", "doc") == 0 {
		t.Fatalf("after a soft delete: exists=%v, %d data keys", blobExists(t, s, "doc"), blobDataKeys(t, store, "c", "doc"))
	}
	if n, err := s.PurgeExpired(t.Context()); err != nil || n != 0 {
		t.Fatalf("purge within the retention: %d, %v", n, err)
	}
	if err := s.UndeleteBlob(t.Context(), Ref{Account: testAcct, Container: "c", Name: "doc"}); err != nil {
		t.Fatal(err)
	}
	if got := readBlob(t, s, "doc"); !bytes.Equal(got, data) {
		t.Fatalf("undeleted blob: %d bytes, want %d", len(got), len(data))
	}
	if n := testkit.CountKeys(t, store, tagIndexPrefix(testAcct, "c")); n != 1 {
		t.Errorf("undeleted blob: %d tag index entries, want 1", n)
	}
	if err := s.DeleteBlob(t.Context(), Ref{Account: testAcct, Container: "c", Name: "doc"}, KeepSnapshots, Preconditions{}); err != nil {
		t.Fatal(err)
	}
	clock.Advance(24 * time.Hour)
	if n, err := s.PurgeExpired(t.Context()); err != nil || n != 1 {
		t.Fatalf("purge after the retention: %d, %v; want 1", n, err)
	}
	if n := testkit.CountKeys(t, store, accountKey(testAcct).Raw("n")); n != 0 {
		t.Errorf("%d snapshot records left", n)
	}
	if n := blobDataKeys(t, store, "c", "doc"); n != 0 {
		t.Errorf("%d data keys left after the purge", n)
	}
	if err := s.UndeleteBlob(t.Context(), Ref{Account: testAcct, Container: "c", Name: "doc"}); !errors.Is(err, azerr.ErrBlobNotFound) {
		t.Errorf("undelete after the purge: %v, want BlobNotFound", err)
	}
}

// Version IDs come from the clock but never repeat or go back, even with
// the clock standing still and the blob deleted in between; a deleted
// version's bytes go, the others' stay.
func TestVersionIDsAreMonotonic(t *testing.T) {
	clock := testkit.NewClock(time.Date(2026, 6, 1, 0, 0, 0, 0, time.UTC))
	s, store := newProtectedService(t, clock, 0, WithVersioning(true))
	var ids []string
	for i := range 3 {
		ids = append(ids, putBytes(t, s, "doc", bytes.Repeat([]byte{byte('a' + i)}, inlineLimit+1)).VersionID)
	}
	if err := s.DeleteBlob(t.Context(), Ref{Account: testAcct, Container: "c", Name: "doc"}, KeepSnapshots, Preconditions{}); err != nil {
		t.Fatal(err)
	}
	ids = append(ids, putBytes(t, s, "doc", []byte("new")).VersionID)
	for i := 1; i < len(ids); i++ {
		if ids[i] <= ids[i-1] {
			t.Fatalf("version IDs %v do not increase", ids)
		}
	}
	before := blobDataKeys(t, store, "c", "doc")
	if err := s.DeleteSnapshot(t.Context(), Ref{Account: testAcct, Container: "c", Name: "doc", Snapshot: versionPoint(ids[0])}, conditions.Conditions{}); err != nil {
		t.Fatal(err)
	}
	if after := blobDataKeys(t, store, "c", "doc"); after >= before {
		t.Errorf("deleting version 1 freed nothing: %d data keys, then %d", before, after)
	}
	var got bytes.Buffer
	err := s.GetBlob(t.Context(), Ref{Account: testAcct, Container: "c", Name: "doc", Snapshot: versionPoint(ids[1])}, GetBlobOptions{}, func(d *Download) error { return d.Stream(&got) })
	if err != nil || !bytes.Equal(got.Bytes(), bytes.Repeat([]byte{'b'}, inlineLimit+1)) {
		t.Errorf("version 2 after deleting version 1: %d bytes, %v", got.Len(), err)
	}
}

// A container deletion whose move aside was cut short (the Tx path leaves
// it to later) is finished by the next Create Container of the name; the
// old generation stays restorable and comes back with its tag index.
func TestInterruptedContainerMoveIsFinished(t *testing.T) {
	clock := testkit.NewClock(time.Date(2026, 6, 1, 0, 0, 0, 0, time.UTC))
	s, store := newProtectedService(t, clock, 0, WithContainerRetention(5))
	data := bytes.Repeat([]byte("x"), inlineLimit+7)
	putBytes(t, s, "doc", data)
	if err := s.Update(t.Context(), func(tx *Tx) error {
		return tx.DeleteContainer(ContainerRef{Account: testAcct, Container: "c"}, Preconditions{})
	}); err != nil {
		t.Fatal(err)
	}
	if err := CheckInvariants(t.Context(), store); err != nil {
		t.Fatalf("mid-move: %v", err)
	}
	if err := s.Update(t.Context(), func(tx *Tx) error {
		_, err := tx.CreateContainer(ContainerRef{Account: testAcct, Container: "c"}, CreateContainerOptions{})
		return err
	}); !errors.Is(err, azerr.ErrContainerBeingDeleted) {
		t.Fatalf("Create Container in a transaction while the old one moves: %v, want ContainerBeingDeleted", err)
	}
	if _, err := s.CreateContainer(t.Context(), ContainerRef{Account: testAcct, Container: "c"}, CreateContainerOptions{}); err != nil {
		t.Fatalf("Create Container: %v", err)
	}
	if blobExists(t, s, "doc") {
		t.Fatal("the new container holds the old one's blob")
	}
	items, _, err := s.ListContainersWithDeleted(t.Context(), testAcct, "", "", 10)
	if err != nil || len(items) != 2 || items[1].Deleted == nil {
		t.Fatalf("List Containers with deleted: %+v, %v", items, err)
	}
	version := items[1].Deleted.Version
	if _, err := s.RestoreContainer(t.Context(), testAcct, "c", version); !errors.Is(err, azerr.ErrContainerAlreadyExists) {
		t.Fatalf("restore over a live container: %v", err)
	}
	if err := s.DeleteContainer(t.Context(), ContainerRef{Account: testAcct, Container: "c"}, Preconditions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.RestoreContainer(t.Context(), testAcct, "c", version); err != nil {
		t.Fatalf("restore: %v", err)
	}
	if got := readBlob(t, s, "doc"); !bytes.Equal(got, data) {
		t.Errorf("restored blob: %d bytes, want %d", len(got), len(data))
	}
	if n := testkit.CountKeys(t, store, tagIndexPrefix(testAcct, "c")); n != 1 {
		t.Errorf("restored container: %d tag index entries, want 1", n)
	}
	clock.Advance(5 * 24 * time.Hour)
	if n, err := s.PurgeExpired(t.Context()); err != nil || n != 1 {
		t.Fatalf("purge of the expired generation: %d, %v; want 1", n, err)
	}
	if n := testkit.CountKeys(t, store, retiredPrefix(testAcct)); n != 0 {
		t.Errorf("%d retired containers left", n)
	}
}

// A blob deleted and then written again keeps its deleted state as a
// soft-deleted snapshot; Undelete Blob then makes that a snapshot and
// leaves the new blob as it is.
func TestUndeleteUnderANewBlob(t *testing.T) {
	clock := testkit.NewClock(time.Date(2026, 6, 1, 0, 0, 0, 0, time.UTC))
	s, _ := newProtectedService(t, clock, 3)
	putBytes(t, s, "doc", []byte("old"))
	if err := s.DeleteBlob(t.Context(), Ref{Account: testAcct, Container: "c", Name: "doc"}, KeepSnapshots, Preconditions{}); err != nil {
		t.Fatal(err)
	}
	putBytes(t, s, "doc", []byte("new"))
	if err := s.UndeleteBlob(t.Context(), Ref{Account: testAcct, Container: "c", Name: "doc"}); err != nil {
		t.Fatal(err)
	}
	if got := readBlob(t, s, "doc"); string(got) != "new" {
		t.Errorf("blob after undelete: %q, want the new content", got)
	}
	l, err := s.ListBlobs(t.Context(), ContainerRef{Account: testAcct, Container: "c"}, ListBlobsOptions{Max: 10, Snapshots: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(l.Blobs) != 2 || l.Blobs[0].Snapshot == "" || !l.Blobs[0].Record.Deleted.IsZero() {
		t.Fatalf("listing after undelete: %+v, want a live snapshot then the blob", l.Blobs)
	}
	var got bytes.Buffer
	err = s.GetBlob(t.Context(), Ref{Account: testAcct, Container: "c", Name: "doc", Snapshot: l.Blobs[0].Snapshot}, GetBlobOptions{}, func(d *Download) error { return d.Stream(&got) })
	if err != nil || got.String() != "old" {
		t.Errorf("the snapshot: %q, %v; want the deleted content", got.String(), err)
	}
}
