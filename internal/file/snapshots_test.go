package file

import (
	"bytes"
	"errors"
	"fmt"
	"net/http/httptest"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cerulean-db/cerulean/internal/azerr"
	"github.com/cerulean-db/cerulean/internal/azhttp"
	"github.com/cerulean-db/cerulean/internal/kv"
	"github.com/cerulean-db/cerulean/internal/kv/memory"
	"github.com/cerulean-db/cerulean/internal/kv/record"
	"github.com/cerulean-db/cerulean/internal/lease"
	"github.com/cerulean-db/cerulean/internal/testkit"
)

func snapshot(t *testing.T, s *Service, share string) string {
	t.Helper()
	snap, _, err := s.SnapshotShare(t.Context(), ShareRef{Account: testAcct, Share: share}, nil)
	if err != nil {
		t.Fatal(err)
	}
	return snap
}

func readIn(t *testing.T, s *Service, share, path string) []byte {
	t.Helper()
	var buf bytes.Buffer
	err := s.GetFile(t.Context(), Ref{Account: testAcct, Share: share, Path: path}, GetFileOptions{}, func(d *Download) error { return d.Stream(&buf) })
	if err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func createFile(t *testing.T, s *Service, path string, size int64) *Node {
	t.Helper()
	n, err := s.CreateFile(t.Context(), Ref{Account: testAcct, Share: "s", Path: path}, CreateFileOptions{Size: size})
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// dataKeys counts the chunks of data objects under the live share.
func dataKeys(t *testing.T, store kv.Store) int {
	t.Helper()
	return countKeys(t, store, accountKey(testAcct).Raw("d").Str("s"))
}

// TestSnapshotIsPointInTime: whatever happens to the live share after a
// snapshot, the snapshot reads as the share read when it was taken.
func TestSnapshotIsPointInTime(t *testing.T) {
	s, _ := newTestService(t)
	ctx := t.Context()
	if _, err := s.CreateDirectory(ctx, Ref{Account: testAcct, Share: "s", Path: "d"}, SMBChange{}, azhttp.Metadata{{"k", "v"}}); err != nil {
		t.Fatal(err)
	}
	createFile(t, s, "d/f", 8)
	put(t, s, "d/f", 0, []byte("original"))
	if _, err := s.LeaseFile(ctx, Ref{Account: testAcct, Share: "s", Path: "d/f"}, lease.Request{Action: lease.Acquire, Duration: lease.Infinite}); err != nil {
		t.Fatal(err)
	}
	createFile(t, s, "gone", 3)
	put(t, s, "gone", 0, []byte("bye"))
	snap := snapshot(t, s, "s")
	ns := SnapshotNamespace("s", snap)

	if _, err := s.LeaseFile(ctx, Ref{Account: testAcct, Share: "s", Path: "d/f"}, lease.Request{Action: lease.Break}); err != nil {
		t.Fatal(err)
	}
	put(t, s, "d/f", 0, []byte("CHANGED!"))
	if err := s.DeleteFile(ctx, Ref{Account: testAcct, Share: "s", Path: "gone"}, Preconditions{}); err != nil {
		t.Fatal(err)
	}
	createFile(t, s, "d/new", 1)
	if _, err := s.SetDirectoryMetadata(ctx, Ref{Account: testAcct, Share: "s", Path: "d"}, azhttp.Metadata{{"k", "new"}}, Preconditions{}); err != nil {
		t.Fatal(err)
	}

	if got := readIn(t, s, ns, "d/f"); string(got) != "original" {
		t.Errorf("snapshot d/f reads %q", got)
	}
	if got := readIn(t, s, ns, "gone"); string(got) != "bye" {
		t.Errorf("snapshot gone reads %q", got)
	}
	if got := readIn(t, s, "s", "d/f"); string(got) != "CHANGED!" {
		t.Errorf("live d/f reads %q", got)
	}
	l, err := s.ListDirectory(ctx, Ref{Account: testAcct, Share: ns, Path: "d"}, ListDirectoryOptions{Max: 100})
	if err != nil {
		t.Fatal(err)
	}
	if len(l.Entries) != 1 || l.Entries[0].Name != "f" {
		t.Errorf("snapshot d lists %v, want only f", l.Entries)
	}
	dir, err := s.GetDirectory(ctx, Ref{Account: testAcct, Share: ns, Path: "d"}, Preconditions{})
	if err != nil || !dir.Metadata.Equal(azhttp.Metadata{{"k", "v"}}) {
		t.Errorf("snapshot d: %v %v, want metadata k=v", dir, err)
	}
	f, err := s.GetFileProperties(ctx, Ref{Account: testAcct, Share: ns, Path: "d/f"}, Preconditions{})
	if err != nil {
		t.Fatal(err)
	}
	if f.Lease != (lease.Lease{}) {
		t.Errorf("a snapshot's file carries a lease: %+v", f.Lease)
	}
	if _, err := s.GetShare(ctx, ShareRef{Account: testAcct, Share: SnapshotNamespace("s", "2001-01-01T00:00:00.0000000Z")}, ""); !errors.Is(err, azerr.ErrShareNotFound) {
		t.Errorf("unknown snapshot: %v, want ShareNotFound", err)
	}
	if _, _, err := s.SnapshotShare(ctx, ShareRef{Account: testAcct, Share: ns}, nil); !errors.Is(err, azerr.ErrShareSnapshotOperationNotSupported) {
		t.Errorf("snapshot of a snapshot: %v", err)
	}
}

// TestSnapshotSharesData: a snapshot copies no data; a data object
// survives while the live file or any snapshot references it, and goes
// with the last reference.
func TestSnapshotSharesData(t *testing.T) {
	s, store := newTestService(t)
	ctx := t.Context()
	createFile(t, s, "f", 2*chunkTestSize)
	put(t, s, "f", 0, bytes.Repeat([]byte("a"), chunkTestSize))
	before := dataKeys(t, store)
	snap1 := snapshot(t, s, "s")
	snap2 := snapshot(t, s, "s")
	if got := dataKeys(t, store); got != before {
		t.Fatalf("snapshots wrote data: %d chunks, had %d", got, before)
	}
	// Overwrite the live range: the old data object stays for the
	// snapshots, the new one is added.
	put(t, s, "f", 0, bytes.Repeat([]byte("b"), chunkTestSize))
	if got := dataKeys(t, store); got != 2*before {
		t.Fatalf("after overwrite: %d chunks, want %d", got, 2*before)
	}
	if err := s.DeleteShare(ctx, ShareRef{Account: testAcct, Share: SnapshotNamespace("s", snap1)}, ""); err != nil {
		t.Fatal(err)
	}
	if got := dataKeys(t, store); got != 2*before {
		t.Fatalf("another snapshot still holds the old data: %d chunks, want %d", got, 2*before)
	}
	if got := readIn(t, s, SnapshotNamespace("s", snap2), "f"); !bytes.Equal(got[:chunkTestSize], bytes.Repeat([]byte("a"), chunkTestSize)) {
		t.Fatal("snapshot 2 lost its data")
	}
	if err := s.DeleteShare(ctx, ShareRef{Account: testAcct, Share: SnapshotNamespace("s", snap2)}, ""); err != nil {
		t.Fatal(err)
	}
	if got := dataKeys(t, store); got != before {
		t.Fatalf("no snapshot holds the old data: %d chunks, want %d", got, before)
	}

	// Deleting or replacing the live file keeps what a snapshot holds;
	// deleting the snapshot then frees it.
	snap3 := snapshot(t, s, "s")
	if _, err := s.CreateFile(ctx, Ref{Account: testAcct, Share: "s", Path: "f"}, CreateFileOptions{Size: 10}); err != nil {
		t.Fatal(err)
	}
	if got := dataKeys(t, store); got != before {
		t.Fatalf("replaced file: %d chunks, want the snapshot's %d", got, before)
	}
	if err := s.DeleteFile(ctx, Ref{Account: testAcct, Share: "s", Path: "f"}, Preconditions{}); err != nil {
		t.Fatal(err)
	}
	if got := readIn(t, s, SnapshotNamespace("s", snap3), "f"); !bytes.Equal(got[:chunkTestSize], bytes.Repeat([]byte("b"), chunkTestSize)) {
		t.Fatal("snapshot 3 lost its data")
	}
	if err := s.DeleteShare(ctx, ShareRef{Account: testAcct, Share: SnapshotNamespace("s", snap3)}, ""); err != nil {
		t.Fatal(err)
	}
	if got := dataKeys(t, store); got != 0 {
		t.Fatalf("nothing references any data: %d chunks left", got)
	}
	// Azure names the snapshot (@azure/storage-file-share's recording
	// deleteIfExists).
	if err := s.DeleteShare(ctx, ShareRef{Account: testAcct, Share: SnapshotNamespace("s", snap3)}, ""); !errors.Is(err, azerr.ErrShareSnapshotNotFound) {
		t.Fatalf("deleting a deleted snapshot: %v, want ShareSnapshotNotFound", err)
	}
}

// chunkTestSize spans more than one chunk, so a data object has several.
const chunkTestSize = 300 << 10

// TestDeleteShareWithSnapshots: a share with snapshots is deleted only
// with them, and then nothing of it is left.
func TestDeleteShareWithSnapshots(t *testing.T) {
	s, store := newTestService(t)
	ctx := t.Context()
	createFile(t, s, "f", 4)
	put(t, s, "f", 0, []byte("data"))
	snapshot(t, s, "s")
	snapshot(t, s, "s")
	if err := s.DeleteShare(ctx, ShareRef{Account: testAcct, Share: "s"}, ""); !errors.Is(err, azerr.ErrShareHasSnapshots) {
		t.Fatalf("delete a share with snapshots: %v, want ShareHasSnapshots", err)
	}
	if err := s.DeleteShareAndSnapshots(ctx, ShareRef{Account: testAcct, Share: "s"}, ""); err != nil {
		t.Fatal(err)
	}
	if n := countKeys(t, store, accountKey(testAcct)); n != 0 {
		t.Fatalf("%d keys left after deleting the share and its snapshots", n)
	}
	if err := s.DeleteShareAndSnapshots(ctx, ShareRef{Account: testAcct, Share: "s"}, ""); !errors.Is(err, azerr.ErrShareNotFound) {
		t.Fatalf("delete again: %v, want ShareNotFound", err)
	}
}

// TestSnapshotTimes: a snapshot is named by the transaction's time, and
// two taken within the clock's resolution still get distinct, ordered
// names.
func TestSnapshotTimes(t *testing.T) {
	store := memory.Open()
	t.Cleanup(func() { _ = store.Close() })
	testkit.CheckAfter(t, store, CheckInvariants)
	start := time.Date(2017, 5, 10, 17, 52, 33, 0, time.UTC)
	clock := testkit.NewClock(start)
	s := New(Config{Store: store, Now: clock.Now})
	ctx := t.Context()
	if _, err := s.CreateShare(ctx, ShareRef{Account: testAcct, Share: "s"}, ShareSpec{Metadata: azhttp.Metadata{{"a", "1"}}}); err != nil {
		t.Fatal(err)
	}
	first, rec, err := s.SnapshotShare(ctx, ShareRef{Account: testAcct, Share: "s"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	if first != "2017-05-10T17:52:33.0000000Z" {
		t.Errorf("snapshot time %q", first)
	}
	live, _ := s.GetShare(ctx, ShareRef{Account: testAcct, Share: "s"}, "")
	if rec.Version != live.Version || !rec.Modified.Equal(live.Modified) || !rec.Metadata.Equal(live.Metadata) {
		t.Errorf("a snapshot without metadata keeps the share's ETag, time and metadata: %+v vs %+v", rec, live)
	}
	second, rec2, err := s.SnapshotShare(ctx, ShareRef{Account: testAcct, Share: "s"}, azhttp.Metadata{{"b", "2"}})
	if err != nil {
		t.Fatal(err)
	}
	if second != "2017-05-10T17:52:33.0000001Z" {
		t.Errorf("second snapshot in the same instant: %q", second)
	}
	if rec2.Version == live.Version || !rec2.Metadata.Equal(azhttp.Metadata{{"b", "2"}}) {
		t.Errorf("a snapshot with metadata has its own ETag and only that metadata: %+v", rec2)
	}
	got, err := s.GetShare(ctx, ShareRef{Account: testAcct, Share: SnapshotNamespace("s", second)}, "")
	if err != nil || !got.Metadata.Equal(azhttp.Metadata{{"b", "2"}}) {
		t.Errorf("snapshot record: %+v %v", got, err)
	}
}

// TestSnapshotCountLimit: Azure's 200 snapshots per share.
func TestSnapshotCountLimit(t *testing.T) {
	s, _ := newTestService(t)
	for range MaxShareSnapshots {
		snapshot(t, s, "s")
	}
	if _, _, err := s.SnapshotShare(t.Context(), ShareRef{Account: testAcct, Share: "s"}, nil); !errors.Is(err, azerr.ErrShareSnapshotCountExceeded) {
		t.Fatalf("snapshot %d: %v, want ShareSnapshotCountExceeded", MaxShareSnapshots+1, err)
	}
	if err := s.DeleteShareAndSnapshots(t.Context(), ShareRef{Account: testAcct, Share: "s"}, ""); err != nil {
		t.Fatal(err)
	}
}

// TestSnapshotBudget: a share whose records do not fit one transaction
// answers a clear error and leaves no half snapshot.
func TestSnapshotBudget(t *testing.T) {
	s, store := newTestService(t)
	ctx := t.Context()
	// Files with 7 KiB of metadata each: ~1,500 of them pass the budget.
	meta := azhttp.Metadata{{"pad", strings.Repeat("m", 7<<10)}}
	const perTx = 500
	for b := 0; b*perTx*(7<<10) <= SnapshotRecordBudget; b++ {
		err := s.Update(ctx, func(tx *Tx) error {
			for i := range perTx {
				name := fmt.Sprintf("f%06d", b*perTx+i)
				if _, err := tx.CreateFile(Ref{Account: testAcct, Share: "s", Path: name}, CreateFileOptions{Metadata: meta}); err != nil {
					return err
				}
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	_, _, err := s.SnapshotShare(ctx, ShareRef{Account: testAcct, Share: "s"}, nil)
	var e *azerr.Error
	if !errors.As(err, &e) || e.Status != 501 || !strings.Contains(e.Message, "one transaction") {
		t.Fatalf("snapshot past the budget: %v, want 501 naming the transaction limit", err)
	}
	if n := countKeys(t, store, snapshotsPrefix(testAcct, "s")); n != 0 {
		t.Fatalf("%d snapshot records after a refused snapshot", n)
	}
}

// TestListRangesDiff: the changed and cleared ranges between a snapshot
// and the live file, and between two snapshots.
func TestListRangesDiff(t *testing.T) {
	s, _ := newTestService(t)
	ctx := t.Context()
	createFile(t, s, "f", 4096)
	put(t, s, "f", 0, bytes.Repeat([]byte("a"), 4096))
	snap1 := snapshot(t, s, "s")
	put(t, s, "f", 512, bytes.Repeat([]byte("b"), 512))
	if _, err := s.ClearRange(ctx, Ref{Account: testAcct, Share: "s", Path: "f"}, 2048, 2559, Preconditions{}); err != nil {
		t.Fatal(err)
	}
	snap2 := snapshot(t, s, "s")
	put(t, s, "f", 3072, bytes.Repeat([]byte("c"), 100))

	for _, tc := range []struct {
		name, share, prev string
		rng               *Range
		changed, cleared  []Range
	}{
		// 100 bytes at 3072 change their whole page (rangePage).
		{"snap1 to live", "s", snap1, nil, []Range{{Start: 512, End: 1023}, {Start: 3072, End: 3583}}, []Range{{Start: 2048, End: 2559}}},
		{"snap1 to snap2", SnapshotNamespace("s", snap2), snap1, nil, []Range{{Start: 512, End: 1023}}, []Range{{Start: 2048, End: 2559}}},
		{"snap2 to live", "s", snap2, nil, []Range{{Start: 3072, End: 3583}}, nil},
		{"within a range", "s", snap1, &Range{Start: 600, End: 2100}, []Range{{Start: 600, End: 1023}}, []Range{{Start: 2048, End: 2100}}},
	} {
		d, err := s.ListRangesDiff(ctx, Ref{Account: testAcct, Share: tc.share, Path: "f"}, ListRangesDiffOptions{PrevSnapshot: tc.prev, Range: tc.rng})
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if !reflect.DeepEqual(d.Changed, tc.changed) || !reflect.DeepEqual(d.Cleared, tc.cleared) {
			t.Errorf("%s: changed %v cleared %v, want %v and %v", tc.name, d.Changed, d.Cleared, tc.changed, tc.cleared)
		}
	}
	if _, err := s.ListRangesDiff(ctx, Ref{Account: testAcct, Share: SnapshotNamespace("s", snap1), Path: "f"}, ListRangesDiffOptions{PrevSnapshot: snap2}); !errors.Is(err, azerr.ErrInvalidQueryParameterValue) {
		t.Errorf("previous snapshot newer than the target: %v", err)
	}
	if _, err := s.ListRangesDiff(ctx, Ref{Account: testAcct, Share: "s", Path: "f"}, ListRangesDiffOptions{PrevSnapshot: "2001-01-01T00:00:00.0000000Z"}); !errors.Is(err, azerr.ErrPreviousSnapshotNotFound) {
		t.Errorf("unknown previous snapshot: %v", err)
	}
	// Deleted and created again, the file is another generation (created
	// over, it keeps its ID and is the same file).
	if err := s.DeleteFile(ctx, Ref{Account: testAcct, Share: "s", Path: "f"}, Preconditions{}); err != nil {
		t.Fatal(err)
	}
	createFile(t, s, "f", 10)
	if _, err := s.ListRangesDiff(ctx, Ref{Account: testAcct, Share: "s", Path: "f"}, ListRangesDiffOptions{PrevSnapshot: snap1}); !errors.Is(err, azerr.ErrFileGenerationMismatch) {
		t.Errorf("recreated file: %v, want FileGenerationMismatch", err)
	}
	createFile(t, s, "g", 10)
	if _, err := s.ListRangesDiff(ctx, Ref{Account: testAcct, Share: "s", Path: "g"}, ListRangesDiffOptions{PrevSnapshot: snap1}); !errors.Is(err, azerr.ErrPreviousSnapshotNotFound) {
		t.Errorf("file absent from the previous snapshot: %v", err)
	}
}

// TestListSharesAndSnapshots: each share follows its snapshots, oldest
// first, and paging by any size visits every entry once, in order.
func TestListSharesAndSnapshots(t *testing.T) {
	s, _ := newTestService(t)
	ctx := t.Context()
	if _, err := s.CreateShare(ctx, ShareRef{Account: testAcct, Share: "t"}, ShareSpec{}); err != nil {
		t.Fatal(err)
	}
	a, b := snapshot(t, s, "s"), snapshot(t, s, "s")
	c := snapshot(t, s, "t")
	want := []string{"s@" + a, "s@" + b, "s", "t@" + c, "t"}
	name := func(it ShareItem) string {
		if it.Snapshot == "" {
			return it.Name
		}
		return SnapshotNamespace(it.Name, it.Snapshot)
	}
	for size := 1; size <= len(want)+1; size++ {
		var got []string
		marker := ""
		for pages := 0; ; pages++ {
			if pages > len(want) {
				t.Fatalf("page size %d: paging does not end", size)
			}
			items, next, err := s.ListSharesAndSnapshots(ctx, testAcct, "", marker, size)
			if err != nil {
				t.Fatal(err)
			}
			if len(items) > size {
				t.Fatalf("page size %d: %d items", size, len(items))
			}
			for _, it := range items {
				got = append(got, name(it))
			}
			if next == "" {
				break
			}
			marker = next
		}
		if !reflect.DeepEqual(got, want) {
			t.Errorf("page size %d: %v, want %v", size, got, want)
		}
	}
	plain, _, err := s.ListShares(ctx, testAcct, "", "", 10)
	if err != nil || len(plain) != 2 {
		t.Errorf("ListShares lists snapshots: %v %v", plain, err)
	}
	if err := s.DeleteShareAndSnapshots(ctx, ShareRef{Account: testAcct, Share: "t"}, ""); err != nil {
		t.Fatal(err)
	}
}

// TestDiffExtents covers the overlaps the sweep must tell apart.
func TestDiffExtents(t *testing.T) {
	ext := func(data uint64, dataOff, off, size int64) extent {
		return extent{Data: data, DataOff: dataOff, Offset: off, Size: size, DataSize: 1000}
	}
	now := []extent{ext(1, 0, 0, 10), ext(1, 20, 20, 10), ext(3, 0, 40, 10)}
	then := []extent{ext(1, 0, 0, 30), ext(2, 0, 45, 10)}
	changed, cleared := diffExtents(now, then, 0, 60)
	if want := []Range{{Start: 40, End: 49}}; !reflect.DeepEqual(changed, want) {
		t.Errorf("changed %v, want %v", changed, want)
	}
	if want := []Range{{Start: 10, End: 19}, {Start: 50, End: 54}}; !reflect.DeepEqual(cleared, want) {
		t.Errorf("cleared %v, want %v", cleared, want)
	}
	// The same data object at another offset is a change.
	changed, _ = diffExtents([]extent{ext(1, 5, 0, 5)}, []extent{ext(1, 0, 0, 5)}, 0, 5)
	if want := []Range{{Start: 0, End: 4}}; !reflect.DeepEqual(changed, want) {
		t.Errorf("shifted data: changed %v, want %v", changed, want)
	}
}

// TestCheckInvariantsCatchesSnapshotDamage: the checker sees a snapshot
// extent without its hold, a hold no extent needs, and a snapshot left
// behind by its share.
func TestCheckInvariantsCatchesSnapshotDamage(t *testing.T) {
	for _, tc := range []struct {
		name, want string
		damage     func(tx kv.Txn, f *Node, snap string) error
	}{
		{"missing hold", "does not hold", func(tx kv.Txn, f *Node, snap string) error {
			ext := extentsOf(t, tx, f)
			return tx.Delete(holdKey(testAcct, "s", f.ID, ext[0].Data, snap))
		}},
		{"stray hold", "none of its extents names", func(tx kv.Txn, f *Node, snap string) error {
			return tx.Set(holdKey(testAcct, "s", f.ID, 12345, snap), []byte{})
		}},
		{"orphan snapshot", "outlives its share", func(tx kv.Txn, _ *Node, _ string) error {
			return tx.Delete(shareKey(testAcct, "s"))
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, store, f := layout(t)
			snap := snapshot(t, s, "s")
			if err := CheckInvariants(t.Context(), store); err != nil {
				t.Fatalf("a consistent snapshot fails the check: %v", err)
			}
			wantViolation(t, store, func(tx kv.Txn) error { return tc.damage(tx, f, snap) }, tc.want)
		})
	}
}

// TestListRangesDiffFollowsRenames: a file moved since the previous
// snapshot is found there by its ID only when the client asks
// (x-ms-file-support-rename).
func TestListRangesDiffFollowsRenames(t *testing.T) {
	s, _ := newTestService(t)
	ctx := t.Context()
	createFile(t, s, "f", 100)
	put(t, s, "f", 0, []byte("abc"))
	snap := snapshot(t, s, "s")
	put(t, s, "f", 10, []byte("xyz"))
	// Move f to h the way a rename does: one record, same ID.
	err := s.Update(ctx, func(tx *Tx) error {
		l, err := tx.locate(testAcct, "s", "f")
		if err != nil {
			return err
		}
		if err := tx.tx.Delete(l.key); err != nil {
			return err
		}
		l.node.Name = "h"
		return record.Store(tx.tx, nodeKey(testAcct, "s", rootID, "h"), l.node)
	})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.ListRangesDiff(ctx, Ref{Account: testAcct, Share: "s", Path: "h"}, ListRangesDiffOptions{PrevSnapshot: snap}); !errors.Is(err, azerr.ErrPreviousSnapshotNotFound) {
		t.Fatalf("moved file without support-rename: %v, want PreviousSnapshotNotFound", err)
	}
	d, err := s.ListRangesDiff(ctx, Ref{Account: testAcct, Share: "s", Path: "h"}, ListRangesDiffOptions{PrevSnapshot: snap, FollowRenames: true})
	if err != nil {
		t.Fatal(err)
	}
	// Bytes 10-12 changed: their page, cut at the file's end.
	if want := []Range{{Start: 0, End: 99}}; !reflect.DeepEqual(d.Changed, want) || len(d.Cleared) != 0 {
		t.Fatalf("moved file: changed %v cleared %v, want %v", d.Changed, d.Cleared, want)
	}
}

// TestSnapshotsUnderConcurrentWrites: snapshots taken and deleted while
// files are overwritten stay point-in-time (every file in a snapshot is
// one whole write), and no data object is lost or leaked (the invariant
// check that ends every test).
func TestSnapshotsUnderConcurrentWrites(t *testing.T) {
	s, _ := newTestService(t)
	ctx := t.Context()
	const files, size, rounds = 3, 1024, 30
	for i := range files {
		createFile(t, s, fmt.Sprintf("f%d", i), size)
	}
	var wg sync.WaitGroup
	for i := range files {
		wg.Go(func() {
			for r := range rounds {
				data := bytes.Repeat([]byte{byte('a' + r%26)}, size)
				_, err := s.PutRange(ctx, Ref{Account: testAcct, Share: "s", Path: fmt.Sprintf("f%d", i)}, 0, Content{Body: bytes.NewReader(data), Length: size}, Preconditions{})
				if err != nil && !errors.Is(err, kv.ErrConflict) {
					t.Error(err)
					return
				}
			}
		})
	}
	var kept []string
	var mu sync.Mutex
	wg.Go(func() {
		for r := range rounds {
			snap, _, err := s.SnapshotShare(ctx, ShareRef{Account: testAcct, Share: "s"}, nil)
			if errors.Is(err, kv.ErrConflict) {
				continue
			}
			if err != nil {
				t.Error(err)
				return
			}
			if r%2 == 0 {
				if err := s.DeleteShare(ctx, ShareRef{Account: testAcct, Share: SnapshotNamespace("s", snap)}, ""); err != nil && !errors.Is(err, kv.ErrConflict) {
					t.Error(err)
					return
				}
				continue
			}
			mu.Lock()
			kept = append(kept, snap)
			mu.Unlock()
		}
	})
	wg.Wait()
	if len(kept) == 0 {
		t.Fatal("no snapshot survived to check")
	}
	for _, snap := range kept {
		for i := range files {
			got := readIn(t, s, SnapshotNamespace("s", snap), fmt.Sprintf("f%d", i))
			if len(got) != size || bytes.Count(got, got[:1]) != size {
				t.Fatalf("snapshot %s f%d is not one write: %q...", snap, i, got[:16])
			}
		}
	}
}

// TestRangeDiffXML: Range and ClearRange elements interleave by offset
// under one <Ranges>, as Azure writes them.
func TestRangeDiffXML(t *testing.T) {
	rec := httptest.NewRecorder()
	d := &RangeDiff{Changed: []Range{{Start: 0, End: 511}, {Start: 2048, End: 2559}}, Cleared: []Range{{Start: 1024, End: 1535}}}
	if err := writeRangeDiff(rec, d); err != nil {
		t.Fatal(err)
	}
	want := "<Ranges><Range><Start>0</Start><End>511</End></Range><ClearRange><Start>1024</Start><End>1535</End></ClearRange>" +
		"<Range><Start>2048</Start><End>2559</End></Range></Ranges>"
	if got := rec.Body.String(); !strings.HasSuffix(got, want) {
		t.Fatalf("body %s\nwant %s", got, want)
	}
	rec = httptest.NewRecorder()
	if err := writeRangeDiff(rec, &RangeDiff{}); err != nil {
		t.Fatal(err)
	}
	if got := rec.Body.String(); !strings.HasSuffix(got, "<Ranges></Ranges>") {
		t.Fatalf("empty diff: %s", got)
	}
}

// TestListRangesDiffClearedSinceSnapshot: a page cleared since a snapshot
// is a ClearRange against it even when it held nothing at the snapshot,
// because it was written and cleared afterwards. The case is
// azure-storage-file-share's recording
// test_file.py::test_list_ranges_diff (test/parity): a snapshot of an
// empty file, 0-1535 written, a second snapshot, 512-1023 cleared;
// against the first snapshot Azure answers Range 0-511, ClearRange
// 512-1023, Range 1024-1535, against the second ClearRange 512-1023.
func TestListRangesDiffClearedSinceSnapshot(t *testing.T) {
	s, store := newTestService(t)
	ctx := t.Context()
	ref := Ref{Account: testAcct, Share: "s", Path: "f"}
	createFile(t, s, "f", 2048)
	marks := accountKey(testAcct).Raw(clearMarksTag).Str("s")

	// Without a snapshot to compare with, a clear leaves no mark.
	put(t, s, "f", 0, bytes.Repeat([]byte("z"), 512))
	if _, err := s.ClearRange(ctx, ref, 0, 511, Preconditions{}); err != nil {
		t.Fatal(err)
	}
	if n := countKeys(t, store, marks); n != 0 {
		t.Fatalf("%d clear marks without a snapshot", n)
	}

	snap1 := snapshot(t, s, "s")
	put(t, s, "f", 0, bytes.Repeat([]byte("a"), 1536))
	snap2 := snapshot(t, s, "s")
	if _, err := s.ClearRange(ctx, ref, 512, 1023, Preconditions{}); err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name, share, prev string
		changed, cleared  []Range
	}{
		{"snap1 to live", "s", snap1, []Range{{Start: 0, End: 511}, {Start: 1024, End: 1535}}, []Range{{Start: 512, End: 1023}}},
		{"snap2 to live", "s", snap2, nil, []Range{{Start: 512, End: 1023}}},
		{"snap1 to snap2", SnapshotNamespace("s", snap2), snap1, []Range{{Start: 0, End: 1535}}, nil},
	} {
		d, err := s.ListRangesDiff(ctx, Ref{Account: testAcct, Share: tc.share, Path: "f"}, ListRangesDiffOptions{PrevSnapshot: tc.prev})
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if !reflect.DeepEqual(d.Changed, tc.changed) || !reflect.DeepEqual(d.Cleared, tc.cleared) {
			t.Errorf("%s: changed %v cleared %v, want %v and %v", tc.name, d.Changed, d.Cleared, tc.changed, tc.cleared)
		}
	}

	// A page cleared and written again since is a Range, not a
	// ClearRange (@azure/storage-file-share's recording
	// fileclient/recording_getrangelistdiff: 0-1023 cleared, then
	// 1023-1027 written, answer ClearRange 0-511 and Range 512-1535).
	snap3 := snapshot(t, s, "s")
	if _, err := s.ClearRange(ctx, ref, 0, 1023, Preconditions{}); err != nil {
		t.Fatal(err)
	}
	put(t, s, "f", 1023, []byte("bbbbb"))
	d, err := s.ListRangesDiff(ctx, ref, ListRangesDiffOptions{PrevSnapshot: snap3})
	if err != nil {
		t.Fatal(err)
	}
	if want := []Range{{Start: 512, End: 1535}}; !reflect.DeepEqual(d.Changed, want) || !reflect.DeepEqual(d.Cleared, []Range{{Start: 0, End: 511}}) {
		t.Errorf("cleared then written: changed %v cleared %v", d.Changed, d.Cleared)
	}

	// The marks go with the last snapshot, and with the file.
	if n := countKeys(t, store, marks); n != 2 {
		t.Fatalf("%d clear marks, want 2", n)
	}
	for _, snap := range []string{snap1, snap2} {
		if err := s.DeleteShare(ctx, ShareRef{Account: testAcct, Share: SnapshotNamespace("s", snap)}, ""); err != nil {
			t.Fatal(err)
		}
	}
	if n := countKeys(t, store, marks); n != 2 {
		t.Fatalf("%d clear marks while a snapshot is left, want 2", n)
	}
	if err := s.DeleteFile(ctx, ref, Preconditions{}); err != nil {
		t.Fatal(err)
	}
	if n := countKeys(t, store, marks); n != 0 {
		t.Fatalf("%d clear marks of a deleted file", n)
	}
	createFile(t, s, "g", 1024)
	if _, err := s.ClearRange(ctx, Ref{Account: testAcct, Share: "s", Path: "g"}, 0, 511, Preconditions{}); err != nil {
		t.Fatal(err)
	}
	if err := s.DeleteShare(ctx, ShareRef{Account: testAcct, Share: SnapshotNamespace("s", snap3)}, ""); err != nil {
		t.Fatal(err)
	}
	if n := countKeys(t, store, marks); n != 0 {
		t.Fatalf("%d clear marks once no snapshot is left", n)
	}
}
