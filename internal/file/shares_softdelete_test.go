package file

import (
	"bytes"
	"errors"
	"reflect"
	"testing"
	"time"

	"github.com/cerulean-db/cerulean/internal/azauth"
	"github.com/cerulean-db/cerulean/internal/azerr"
	"github.com/cerulean-db/cerulean/internal/kv"
	"github.com/cerulean-db/cerulean/internal/kv/memory"
	"github.com/cerulean-db/cerulean/internal/testkit"
)

// newSoftDeleteService is newTestService with share soft delete kept
// days, a clock and the test account (PurgeExpired walks accounts).
func newSoftDeleteService(t *testing.T, clock *testkit.Clock, days int) (*Service, kv.Store) {
	t.Helper()
	store := memory.Open()
	accts := azauth.NewAccounts(azauth.Account{Name: testAcct, Keys: [][]byte{[]byte("k")}})
	s := New(Config{Store: store, Accounts: accts, Now: clock.Now}, WithShareRetention(days))
	if _, err := s.CreateShare(t.Context(), ShareRef{Account: testAcct, Share: "s"}, ShareSpec{}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := store.Close(); err != nil {
			t.Error(err)
		}
	})
	testkit.CheckAfter(t, store, CheckInvariants)
	return s, store
}

// deletedOf lists the deleted generations of share s.
func deletedOf(t *testing.T, s *Service) []ShareItem {
	t.Helper()
	items, _, err := s.ListSharesWithDeleted(t.Context(), testAcct, ListSharesOptions{Prefix: "s", Max: 100})
	if err != nil {
		t.Fatal(err)
	}
	var out []ShareItem
	for _, it := range items {
		if it.Deleted != nil {
			out = append(out, it)
		}
	}
	return out
}

// TestShareSoftDeleteRestores: a deleted share is gone for every
// operation (ShareNotFound), listed with include=deleted, and Restore
// Share brings it back with its files, its snapshots and their content,
// under a new ETag (the Java SDK's restoreShareMin; the Go SDK's
// TestShareRestoreWithSnapshotsAgain, whose test expects the snapshot
// back).
func TestShareSoftDeleteRestores(t *testing.T) {
	clock := testkit.NewClock(time.Date(2026, 6, 1, 0, 0, 0, 0, time.UTC))
	s, _ := newSoftDeleteService(t, clock, 7)
	ctx := t.Context()
	ref := ShareRef{Account: testAcct, Share: "s"}
	createFile(t, s, "f", 5)
	put(t, s, "f", 0, []byte("hello"))
	createFile(t, s, "g", 1024)
	snap, _, err := s.SnapshotShare(ctx, ref, nil)
	if err != nil {
		t.Fatal(err)
	}
	put(t, s, "f", 0, []byte("HELLO"))
	// A clear since the snapshot, which only its clear mark shows.
	g := Ref{Account: testAcct, Share: "s", Path: "g"}
	if _, err := s.ClearRange(ctx, g, 0, 511, Preconditions{}); err != nil {
		t.Fatal(err)
	}
	before, err := s.GetShare(ctx, ref, "")
	if err != nil {
		t.Fatal(err)
	}
	if err := s.DeleteShare(ctx, ref, ""); !errors.Is(err, azerr.ErrShareHasSnapshots) {
		t.Fatalf("delete without include: %v, want ShareHasSnapshots", err)
	}
	if err := s.DeleteShareAndSnapshots(ctx, ref, ""); err != nil {
		t.Fatal(err)
	}
	if _, err := s.GetShare(ctx, ref, ""); !errors.Is(err, azerr.ErrShareNotFound) {
		t.Fatalf("get a deleted share: %v, want ShareNotFound", err)
	}
	if _, err := s.GetShare(ctx, ShareRef{Account: testAcct, Share: SnapshotNamespace("s", snap)}, ""); !errors.Is(err, azerr.ErrShareNotFound) {
		t.Fatalf("get a deleted share's snapshot: %v, want ShareNotFound", err)
	}
	live, _, err := s.ListShares(ctx, testAcct, "", "", 100)
	if err != nil || len(live) != 0 {
		t.Fatalf("list without deleted: %v %v", live, err)
	}
	gone := deletedOf(t, s)
	if len(gone) != 1 || gone[0].Name != "s" || gone[0].Deleted.Version == "" || gone[0].Version != before.Version {
		t.Fatalf("deleted listing %+v", gone)
	}
	if got := gone[0].Deleted.RemainingDays(clock.Now()); got != 7 {
		t.Fatalf("remaining days %d, want 7", got)
	}

	clock.Advance(time.Hour)
	restored, err := s.RestoreShare(ctx, testAcct, "s", gone[0].Deleted.Version)
	if err != nil {
		t.Fatal(err)
	}
	if restored.Version == before.Version || !restored.Modified.After(before.Modified) {
		t.Fatalf("restored share kept its ETag or time: %+v", restored)
	}
	if got := read(t, s, "f", nil); !bytes.Equal(got, []byte("HELLO")) {
		t.Fatalf("restored file reads %q", got)
	}
	if got := readIn(t, s, SnapshotNamespace("s", snap), "f"); !bytes.Equal(got, []byte("hello")) {
		t.Fatalf("restored snapshot reads %q", got)
	}
	if left := deletedOf(t, s); len(left) != 0 {
		t.Fatalf("a restored share is still listed as deleted: %+v", left)
	}
	if d, err := s.ListRangesDiff(ctx, g, ListRangesDiffOptions{PrevSnapshot: snap}); err != nil || !reflect.DeepEqual(d.Cleared, []Range{{Start: 0, End: 511}}) {
		t.Fatalf("restored share's diff: %+v, %v; want 0-511 cleared", d, err)
	}
	// The restored share is a share like any other: it writes and deletes.
	put(t, s, "f", 0, []byte("again"))
	if err := s.DeleteShareAndSnapshots(ctx, ref, ""); err != nil {
		t.Fatal(err)
	}
}

// TestShareRestoreErrors: a version never deleted is ShareNotFound (the
// Java SDK's restoreShareError, the .NET SDK's UndeleteShareAsync_Error);
// a deleted share whose name a new share took is ShareAlreadyExists (the
// Python SDK's test_restore_to_existing_share), and the new share starts
// empty.
func TestShareRestoreErrors(t *testing.T) {
	clock := testkit.NewClock(time.Date(2026, 6, 1, 0, 0, 0, 0, time.UTC))
	s, _ := newSoftDeleteService(t, clock, 7)
	ctx := t.Context()
	ref := ShareRef{Account: testAcct, Share: "s"}
	createFile(t, s, "f", 5)
	if _, err := s.RestoreShare(ctx, testAcct, "s", "01D60F8BB59A4652"); !errors.Is(err, azerr.ErrShareNotFound) {
		t.Fatalf("restore an unknown version: %v, want ShareNotFound", err)
	}
	if err := s.DeleteShare(ctx, ref, ""); err != nil {
		t.Fatal(err)
	}
	if _, err := s.CreateShare(ctx, ref, ShareSpec{}); err != nil {
		t.Fatalf("create over a deleted share: %v", err)
	}
	if _, err := s.GetFileProperties(ctx, Ref{Account: testAcct, Share: "s", Path: "f"}, Preconditions{}); !errors.Is(err, azerr.ErrResourceNotFound) {
		t.Fatalf("the new share has the old one's file: %v", err)
	}
	gone := deletedOf(t, s)
	if len(gone) != 1 {
		t.Fatalf("deleted generations %+v", gone)
	}
	if _, err := s.RestoreShare(ctx, testAcct, "s", gone[0].Deleted.Version); !errors.Is(err, azerr.ErrShareAlreadyExists) {
		t.Fatalf("restore over a live share: %v, want ShareAlreadyExists", err)
	}
	// Once the new share goes too, both generations are kept, and either
	// comes back.
	clock.Advance(time.Minute)
	if err := s.DeleteShare(ctx, ref, ""); err != nil {
		t.Fatal(err)
	}
	gone = deletedOf(t, s)
	if len(gone) != 2 || gone[0].Deleted.Version >= gone[1].Deleted.Version {
		t.Fatalf("two deleted generations, oldest first: %+v", gone)
	}
	if _, err := s.RestoreShare(ctx, testAcct, "s", gone[0].Deleted.Version); err != nil {
		t.Fatal(err)
	}
	if got := read(t, s, "f", nil); len(got) != 5 {
		t.Fatalf("the first generation's file reads %q", got)
	}
}

// TestShareSoftDeleteExpires: a deleted share counts its remaining days
// down as Azure does, is neither listed nor restorable once its retention
// has passed, and PurgeExpired removes every key it kept.
func TestShareSoftDeleteExpires(t *testing.T) {
	clock := testkit.NewClock(time.Date(2026, 6, 1, 0, 0, 0, 0, time.UTC))
	s, store := newSoftDeleteService(t, clock, 2)
	ctx := t.Context()
	ref := ShareRef{Account: testAcct, Share: "s"}
	createFile(t, s, "f", 5)
	put(t, s, "f", 0, []byte("hello"))
	if _, _, err := s.SnapshotShare(ctx, ref, nil); err != nil {
		t.Fatal(err)
	}
	if err := s.DeleteShareAndSnapshots(ctx, ref, ""); err != nil {
		t.Fatal(err)
	}
	gone := deletedOf(t, s)
	if len(gone) != 1 {
		t.Fatalf("deleted %+v", gone)
	}
	version := gone[0].Deleted.Version
	for _, c := range []struct {
		after time.Duration
		left  int
	}{{59 * time.Minute, 2}, {4*time.Hour + 42*time.Minute, 1}, {24 * time.Hour, 1}, {25 * time.Hour, 0}, {47 * time.Hour, 0}} {
		if got := gone[0].Deleted.RemainingDays(gone[0].Deleted.Time.Add(c.after)); got != c.left {
			t.Errorf("%v after the delete: %d days left, want %d", c.after, got, c.left)
		}
	}
	if n, err := s.PurgeExpired(ctx); err != nil || n != 0 {
		t.Fatalf("purge within the retention: %d %v", n, err)
	}
	clock.Advance(48 * time.Hour)
	if left := deletedOf(t, s); len(left) != 0 {
		t.Fatalf("listed past its retention: %+v", left)
	}
	if _, err := s.RestoreShare(ctx, testAcct, "s", version); !errors.Is(err, azerr.ErrShareNotFound) {
		t.Fatalf("restore past the retention: %v, want ShareNotFound", err)
	}
	if n, err := s.PurgeExpired(ctx); err != nil || n != 1 {
		t.Fatalf("purge: %d %v", n, err)
	}
	if n := countKeys(t, store, accountKey(testAcct)); n != 0 {
		t.Fatalf("%d keys left after the purge", n)
	}
}

// TestShareDeleteWithoutRetention: with share soft delete off, a deleted
// share leaves nothing behind and nothing is listed as deleted (the Go
// SDK's TestShareRestoreWithSnapshotsAgain on an account without it).
func TestShareDeleteWithoutRetention(t *testing.T) {
	s, store := newTestService(t)
	ctx := t.Context()
	createFile(t, s, "f", 5)
	if err := s.DeleteShare(ctx, ShareRef{Account: testAcct, Share: "s"}, ""); err != nil {
		t.Fatal(err)
	}
	if left := deletedOf(t, s); len(left) != 0 {
		t.Fatalf("deleted listing %+v", left)
	}
	if n := countKeys(t, store, accountKey(testAcct)); n != 0 {
		t.Fatalf("%d keys left", n)
	}
}

// TestShareMoveFinishesAfterCrash: a deletion whose move aside a crash
// cut short (the share record gone, the keys still under the name) makes
// Create Share of the name finish the move first, so the new share
// starts empty and the deleted one restores whole.
func TestShareMoveFinishesAfterCrash(t *testing.T) {
	clock := testkit.NewClock(time.Date(2026, 6, 1, 0, 0, 0, 0, time.UTC))
	s, _ := newSoftDeleteService(t, clock, 7)
	ctx := t.Context()
	ref := ShareRef{Account: testAcct, Share: "s"}
	createFile(t, s, "f", 5)
	// The deleting transaction alone, as if the process died after it.
	if err := s.Update(ctx, func(tx *Tx) error { return tx.DeleteShare(ref, "") }); err != nil {
		t.Fatal(err)
	}
	// A create inside a caller's transaction cannot move keys first: while
	// the deleted share's keys are still under the name, it is refused.
	err := s.Update(ctx, func(tx *Tx) error { _, err := tx.CreateShare(ref, ShareSpec{}); return err })
	if !errors.Is(err, azerr.ErrShareBeingDeleted) {
		t.Fatalf("create while the deleted share moves: %v, want ShareBeingDeleted", err)
	}
	if _, err := s.CreateShare(ctx, ref, ShareSpec{}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.GetFileProperties(ctx, Ref{Account: testAcct, Share: "s", Path: "f"}, Preconditions{}); !errors.Is(err, azerr.ErrResourceNotFound) {
		t.Fatalf("the new share has the old one's file: %v", err)
	}
	if err := s.DeleteShare(ctx, ref, ""); err != nil {
		t.Fatal(err)
	}
	gone := deletedOf(t, s)
	if len(gone) != 2 {
		t.Fatalf("deleted %+v", gone)
	}
	if _, err := s.RestoreShare(ctx, testAcct, "s", gone[0].Deleted.Version); err != nil {
		t.Fatal(err)
	}
	if got := read(t, s, "f", nil); len(got) != 5 {
		t.Fatalf("restored file reads %q", got)
	}
}

// TestShareSoftDeleteKeepsHardLinks: a deleted NFS share's hard-linked
// files (their inode records) move aside with the rest of the share, so
// the deleted generation is whole while it waits and comes back whole.
func TestShareSoftDeleteKeepsHardLinks(t *testing.T) {
	clock := testkit.NewClock(time.Date(2026, 6, 1, 0, 0, 0, 0, time.UTC))
	s, store := newSoftDeleteService(t, clock, 7)
	ctx := t.Context()
	nfs, ref := linkedPair(t, s)
	if err := s.DeleteShare(ctx, nfs, ""); err != nil {
		t.Fatal(err)
	}
	if err := CheckInvariants(ctx, store); err != nil {
		t.Fatalf("while the share is deleted: %v", err)
	}
	gone, _, err := s.ListSharesWithDeleted(ctx, testAcct, ListSharesOptions{Prefix: "nfs", Max: 10})
	if err != nil || len(gone) != 1 || gone[0].Deleted == nil {
		t.Fatalf("deleted listing %+v, %v", gone, err)
	}
	if _, err := s.RestoreShare(ctx, testAcct, "nfs", gone[0].Deleted.Version); err != nil {
		t.Fatal(err)
	}
	wantContent(t, s, ref("a"), "linked!!")
	wantContent(t, s, ref("b"), "linked!!")
}
