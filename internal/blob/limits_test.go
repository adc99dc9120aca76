package blob

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/cockroachdb/pebble/v2/vfs"

	"github.com/cerulean-db/cerulean/internal/azauth"
	"github.com/cerulean-db/cerulean/internal/azerr"
	"github.com/cerulean-db/cerulean/internal/kv"
	"github.com/cerulean-db/cerulean/internal/kv/chunk"
	"github.com/cerulean-db/cerulean/internal/kv/memory"
	"github.com/cerulean-db/cerulean/internal/kv/pebble"
	"github.com/cerulean-db/cerulean/internal/kv/record"
)

// sizedStore records the largest and the longest transaction run through
// it, the size counted as the kv contract counts it.
type sizedStore struct {
	kv.Store
	largest, longest atomic.Int64
}

func (s *sizedStore) Update(ctx context.Context, fn func(kv.Txn) error) error {
	return s.Store.Update(ctx, func(tx kv.Txn) error {
		began := time.Now()
		t := &sizedTxn{Txn: tx}
		err := fn(t)
		raise(&s.largest, t.size)
		raise(&s.longest, int64(time.Since(began)))
		return err
	})
}

func (s *sizedStore) reset() {
	s.largest.Store(0)
	s.longest.Store(0)
}

func (s *sizedStore) String() string {
	return fmt.Sprintf("largest transaction %d bytes, longest %v", s.largest.Load(), time.Duration(s.longest.Load()))
}

func raise(v *atomic.Int64, to int64) {
	for {
		cur := v.Load()
		if to <= cur || v.CompareAndSwap(cur, to) {
			return
		}
	}
}

type sizedTxn struct {
	kv.Txn
	size int64
}

func (t *sizedTxn) Set(k, v []byte) error {
	t.size += int64(len(k) + len(v))
	return t.Txn.Set(k, v)
}

func (t *sizedTxn) Delete(k []byte) error {
	t.size += int64(len(k))
	return t.Txn.Delete(k)
}

func (t *sizedTxn) DeleteRange(a, b []byte) error {
	t.size += int64(len(a) + len(b))
	return t.Txn.DeleteRange(a, b)
}

// newLimitsService returns a Service over a fresh store (the pebble engine
// when onPebble, else the memory engine) with one container, and checks the store's invariants when the
// test ends.
func newLimitsService(t *testing.T, onPebble bool) (*Service, *sizedStore) {
	t.Helper()
	var inner kv.Store
	if onPebble {
		// The pebble engine, on an in-memory file system: the layout is
		// under test here, not the disk's fsync rate.
		st, err := pebble.Open("db", pebble.Options{FS: vfs.NewMem()})
		if err != nil {
			t.Fatal(err)
		}
		inner = st
	} else {
		inner = memory.Open()
	}
	store := &sizedStore{Store: inner}
	s := New(Config{Store: store, Accounts: azauth.NewAccounts(azauth.Account{Name: testAcct})})
	t.Cleanup(func() {
		if err := CheckInvariants(context.Background(), store); err != nil {
			t.Error(err)
		}
		if err := store.Close(); err != nil {
			t.Error(err)
		}
	})
	if _, err := s.CreateContainer(t.Context(), ContainerRef{Account: testAcct, Container: "c"}, CreateContainerOptions{}); err != nil {
		t.Fatal(err)
	}
	return s, store
}

// putBlock stages data as block id of the blob, as Put Block's handler does.
func putBlock(ctx context.Context, s *Service, name string, id, data []byte) error {
	_, err := s.PutBlock(ctx, Ref{Account: testAcct, Container: "c", Name: name}, id, contentOf(data), "")
	return err
}

// testBlockID is a 64-byte block ID for block i, the longest Azure allows.
func testBlockID(i int) []byte {
	return fmt.Appendf(nil, "%064d", i)
}

// stageBlocks stages blocks [from, to) of one byte each from a bounded
// pool of workers.
func stageBlocks(t *testing.T, s *Service, name string, from, to int) {
	t.Helper()
	var wg sync.WaitGroup
	var next atomic.Int64
	next.Store(int64(from))
	errs := make(chan error, 8)
	for range 8 {
		wg.Go(func() {
			for {
				i := int(next.Add(1) - 1)
				if i >= to {
					return
				}
				if err := putBlock(t.Context(), s, name, testBlockID(i), []byte{byte(i)}); err != nil {
					errs <- fmt.Errorf("put block %d: %w", i, err)
					return
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
}

// seedBlocks writes uncommitted blocks [from, to) of one byte each
// straight into the layout, thousands per transaction: staging them one
// Put Block at a time would dominate the tests of what comes after.
// Their data ids have the top bit set, so that no transaction version
// (the ids Put Block uses) can collide with them.
func seedBlocks(t *testing.T, store kv.Store, name string, from, to int) {
	t.Helper()
	for lo := from; lo < to; lo += 2000 {
		hi := min(lo+2000, to)
		err := store.Update(t.Context(), func(tx kv.Txn) error {
			for i := lo; i < hi; i++ {
				id, data := testBlockID(i), 1<<63|uint64(i)
				if err := tx.Set(chunk.Key(dataPrefix(testAcct, "c", name, data), 0), []byte{byte(i)}); err != nil {
					return err
				}
				if err := record.Store(tx, blockKey(testAcct, "c", name, id), block{Data: data, Size: 1}); err != nil {
					return err
				}
				if err := blockCount(testAcct, "c", name).Add(tx, id, 1); err != nil {
					return err
				}
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
}

// commitBlocks commits the given uncommitted blocks and reports how long
// the commit took.
func commitBlocks(t *testing.T, s *Service, name string, idx []int) time.Duration {
	t.Helper()
	refs := make([]BlockRef, len(idx))
	for i, n := range idx {
		refs[i] = BlockRef{ID: testBlockID(n), From: Uncommitted}
	}
	began := time.Now()
	if _, err := s.PutBlockList(t.Context(), Ref{Account: testAcct, Container: "c", Name: name}, refs, PutBlobOptions{}); err != nil {
		t.Fatalf("put block list of %d blocks: %v", len(refs), err)
	}
	return time.Since(began)
}

func seq(from, to, step int) []int {
	var out []int
	for i := from; i < to; i += step {
		out = append(out, i)
	}
	return out
}

func wantContent(idx []int) []byte {
	out := make([]byte, len(idx))
	for i, n := range idx {
		out[i] = byte(n)
	}
	return out
}

func TestPutBlockListOf50000Blocks(t *testing.T) {
	s, store := newLimitsService(t, true)
	seedBlocks(t, store, "big", 0, maxCommittedBlocks-1000)
	stageBlocks(t, s, "big", maxCommittedBlocks-1000, maxCommittedBlocks)
	store.reset()
	idx := seq(0, maxCommittedBlocks, 1)
	took := commitBlocks(t, s, "big", idx)
	t.Logf("commit of %d blocks with 64-byte IDs: %v, %v", len(idx), took, store)
	if got := readBlob(t, s, "big"); !bytes.Equal(got, wantContent(idx)) {
		t.Fatalf("read back %d bytes that differ from the %d committed", len(got), len(idx))
	}
	// Recommitting from the committed list replaces every page.
	rev := make([]BlockRef, len(idx))
	for i := range rev {
		rev[i] = BlockRef{ID: testBlockID(len(idx) - 1 - i), From: Committed}
	}
	if _, err := s.PutBlockList(t.Context(), Ref{Account: testAcct, Container: "c", Name: "big"}, rev, PutBlobOptions{}); err != nil {
		t.Fatal(err)
	}
	l, err := s.GetBlockList(t.Context(), Ref{Account: testAcct, Container: "c", Name: "big"}, GetBlockListOptions{Committed: true, Uncommitted: true})
	if err != nil {
		t.Fatal(err)
	}
	if len(l.Committed) != len(idx) || !bytes.Equal(l.Committed[0].ID, testBlockID(len(idx)-1)) || len(l.Uncommitted) != 0 {
		t.Fatalf("block list after recommit: %d committed (first %q), %d uncommitted", len(l.Committed), l.Committed[0].ID, len(l.Uncommitted))
	}
	// A snapshot copies the pages; deleting it frees nothing in use.
	snap, _, err := s.CreateSnapshot(t.Context(), Ref{Account: testAcct, Container: "c", Name: "big"}, nil, Preconditions{})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.DeleteSnapshot(t.Context(), Ref{Account: testAcct, Container: "c", Name: "big", Snapshot: snap}, Preconditions{}.Conditions); err != nil {
		t.Fatal(err)
	}
	if got := readBlob(t, s, "big"); len(got) != len(idx) || got[0] != byte(len(idx)-1) {
		t.Fatalf("content after snapshot round trip: %d bytes", len(got))
	}
}

func TestLongBlobNameWith30000Blocks(t *testing.T) {
	s, store := newLimitsService(t, false)
	name := strings.Repeat("n", 1024)
	seedBlocks(t, store, name, 0, 29_000)
	stageBlocks(t, s, name, 29_000, 30_000)
	store.reset()
	idx := seq(0, 30_000, 1)
	took := commitBlocks(t, s, name, idx)
	t.Logf("commit of %d blocks under a 1,024-character name: %v, %v", len(idx), took, store)
	if got := readBlob(t, s, name); !bytes.Equal(got, wantContent(idx)) {
		t.Fatalf("read back differs")
	}
	// Overwriting the blob frees 30,000 data objects after the commit.
	store.reset()
	if _, err := s.PutBlob(t.Context(), Ref{Account: testAcct, Container: "c", Name: name}, contentOf([]byte("new")), PutBlobOptions{}); err != nil {
		t.Fatal(err)
	}
	t.Logf("overwrite freeing %d data objects: %v", len(idx), store)
	assertNoGarbage(t, store)
	if n := countDataObjects(t, store); n != 1 {
		t.Fatalf("%d data objects after the overwrite, want 1", n)
	}
}

func TestUncommittedBlockLimitAndCollection(t *testing.T) {
	s, store := newLimitsService(t, false)
	// The last blocks go through Put Block, across the point where it
	// starts counting exactly.
	seedBlocks(t, store, "many", 0, maxUncommittedBlocks-2*blockLimitMargin)
	stageBlocks(t, s, "many", maxUncommittedBlocks-2*blockLimitMargin, maxUncommittedBlocks)
	err := putBlock(t.Context(), s, "many", testBlockID(maxUncommittedBlocks), []byte{1})
	if !errors.Is(err, azerr.ErrBlockCountExceedsLimit) {
		t.Fatalf("block %d: %v, want BlockCountExceedsLimit", maxUncommittedBlocks+1, err)
	}
	// Replacing an existing block is no new block.
	if err := putBlock(t.Context(), s, "many", testBlockID(0), []byte{0}); err != nil {
		t.Fatalf("replacing a block at the limit: %v", err)
	}
	store.reset()
	idx := seq(0, maxUncommittedBlocks, 2)
	took := commitBlocks(t, s, "many", idx)
	t.Logf("commit of %d of %d uncommitted blocks: %v, %v", len(idx), maxUncommittedBlocks, took, store)
	if got := readBlob(t, s, "many"); !bytes.Equal(got, wantContent(idx)) {
		t.Fatalf("read back differs")
	}
	assertNoGarbage(t, store)
	if n := countDataObjects(t, store); n != len(idx) {
		t.Fatalf("%d data objects after the commit, want %d", n, len(idx))
	}
	if err := CheckInvariants(t.Context(), store); err != nil {
		t.Fatal(err)
	}
	// The count restarts after a commit.
	if err := putBlock(t.Context(), s, "many", testBlockID(1), []byte{1}); err != nil {
		t.Fatal(err)
	}
}

func TestBlockListTooLong(t *testing.T) {
	s, _ := newLimitsService(t, false)
	refs := make([]BlockRef, maxCommittedBlocks+1)
	for i := range refs {
		refs[i] = BlockRef{ID: testBlockID(i), From: Latest}
	}
	_, err := s.PutBlockList(t.Context(), Ref{Account: testAcct, Container: "c", Name: "b"}, refs, PutBlobOptions{})
	if !errors.Is(err, azerr.ErrBlockListTooLong) {
		t.Fatalf("%d blocks: %v, want BlockListTooLong", len(refs), err)
	}
}

func TestAppendBlobPages(t *testing.T) {
	s, _ := newLimitsService(t, false)
	if _, err := s.CreateEmpty(t.Context(), Ref{Account: testAcct, Container: "c", Name: "log"}, CreateEmptyOptions{Type: appendBlob}); err != nil {
		t.Fatal(err)
	}
	n := extentsPerPage*2 + 5
	var want []byte
	for i := range n {
		data := []byte{byte(i), byte(i >> 8)}
		if _, err := s.AppendBlock(t.Context(), Ref{Account: testAcct, Container: "c", Name: "log"}, contentOf(data), AppendConditions{}, Preconditions{}); err != nil {
			t.Fatalf("append %d: %v", i, err)
		}
		want = append(want, data...)
	}
	if got := readBlob(t, s, "log"); !bytes.Equal(got, want) {
		t.Fatalf("append blob content differs")
	}
}

func TestExtentPageRoundTrip(t *testing.T) {
	in := []extent{
		{BlockID: []byte(strings.Repeat("\xff", maxBlockIDLen)), Data: 1<<64 - 1, DataOff: 1<<63 - 1, Offset: 1<<63 - 1, Size: 1<<63 - 1},
		{Data: 7, Size: 3},
	}
	var exts []extent
	for range extentsPerPage {
		exts = append(exts, in[0])
	}
	if v := encodePage(exts); len(v) >= kv.MaxValueSize {
		t.Fatalf("a full page of the largest extents is %d bytes", len(v))
	}
	page := encodePage(in)
	out, err := decodePage(nil, nil, page)
	if err != nil {
		t.Fatal(err)
	}
	for i := range in {
		if out[i].stored != len(page) {
			t.Fatalf("extent %d: stored %d, the page is %d bytes", i, out[i].stored, len(page))
		}
		in[i].key, in[i].stored = nil, 0
		out[i].key, out[i].stored = nil, 0
		if fmt.Sprint(in[i]) != fmt.Sprint(out[i]) {
			t.Fatalf("extent %d: %+v, want %+v", i, out[i], in[i])
		}
	}
	if _, err := decodePage(nil, nil, []byte{pageFormat, 5, 'a'}); err == nil {
		t.Fatal("a truncated page decoded")
	}
}

func TestCheckInvariantsFindsCorruption(t *testing.T) {
	ctx := context.Background()
	store := memory.Open()
	t.Cleanup(func() {
		if err := store.Close(); err != nil {
			t.Error(err)
		}
	})
	s := New(Config{Store: store, Accounts: azauth.NewAccounts(azauth.Account{Name: testAcct})})
	if _, err := s.CreateContainer(ctx, ContainerRef{Account: testAcct, Container: "c"}, CreateContainerOptions{}); err != nil {
		t.Fatal(err)
	}
	for i := range 3 {
		if err := putBlock(ctx, s, "b", testBlockID(i), bytes.Repeat([]byte{byte(i)}, chunk.Size+10)); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := s.PutBlockList(ctx, Ref{Account: testAcct, Container: "c", Name: "b"}, []BlockRef{{ID: testBlockID(0), From: Latest}, {ID: testBlockID(1), From: Latest}}, PutBlobOptions{}); err != nil {
		t.Fatal(err)
	}
	if err := putBlock(ctx, s, "b", testBlockID(7), []byte("pending")); err != nil {
		t.Fatal(err)
	}
	if _, _, err := s.CreateSnapshot(ctx, Ref{Account: testAcct, Container: "c", Name: "b"}, nil, Preconditions{}); err != nil {
		t.Fatal(err)
	}
	if err := CheckInvariants(ctx, store); err != nil {
		t.Fatalf("populated store: %v", err)
	}
	exts := mustExtents(t, store, "b")

	corrupt := func(what string, fn func(kv.Txn) error, want string) {
		t.Helper()
		if err := store.Update(ctx, fn); err != nil {
			t.Fatal(err)
		}
		err := CheckInvariants(ctx, store)
		if err == nil || !strings.Contains(err.Error(), want) {
			t.Fatalf("%s: CheckInvariants = %v, want a violation mentioning %q", what, err, want)
		}
		t.Logf("%s: %v", what, err)
	}
	corrupt("chunk deleted", func(tx kv.Txn) error {
		return tx.Delete(chunk.Key(dataPrefix(testAcct, "c", "b", exts[1].Data), 1))
	}, "65546 needed")
	corrupt("orphan data object", func(tx kv.Txn) error {
		return tx.Set(chunk.Key(dataPrefix(testAcct, "c", "b", 12345), 0), []byte("orphan"))
	}, "data object 12345 is referenced by nothing")
	corrupt("record size changed", func(tx kv.Txn) error {
		b, err := loadBlob(tx, testAcct, "c", "b")
		if err != nil {
			return err
		}
		b.Size++
		return storeRecord(tx, b)
	}, "record says")
	corrupt("container dropped", func(tx kv.Txn) error {
		return tx.Delete(containerKey(testAcct, "c"))
	}, "container does not exist")
}

func storeRecord(tx kv.Txn, b *Blob) error {
	return record.Store(tx, blobKey(testAcct, "c", "b"), b)
}

func mustExtents(t *testing.T, store kv.Store, name string) []extent {
	t.Helper()
	var exts []extent
	err := store.View(t.Context(), func(r kv.Reader) error {
		var err error
		exts, err = loadExtents(r, testAcct, "c", name)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return exts
}

func assertNoGarbage(t *testing.T, store kv.Store) {
	t.Helper()
	n := 0
	err := store.View(t.Context(), func(r kv.Reader) error {
		p := garbagePrefix()
		return r.Scan(p, kv.PrefixEnd(p), func(_, _ []byte) error { n++; return nil })
	})
	if err != nil {
		t.Fatal(err)
	}
	if n != 0 {
		t.Fatalf("%d garbage pages left after the commit returned", n)
	}
}

// countDataObjects counts the distinct data objects of every blob of
// container c.
func countDataObjects(t *testing.T, store kv.Store) int {
	t.Helper()
	seen := map[string]bool{}
	err := store.View(t.Context(), func(r kv.Reader) error {
		p := accountKey(testAcct).Raw("d").Str("c")
		return r.Scan(p, kv.PrefixEnd(p), func(k, _ []byte) error {
			seen[string(k[:len(k)-8])] = true
			return nil
		})
	})
	if err != nil {
		t.Fatal(err)
	}
	return len(seen)
}
