package file

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"math"
	"math/rand/v2"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/anishathalye/porcupine"

	"github.com/cerulean-db/cerulean/internal/azerr"
	"github.com/cerulean-db/cerulean/internal/azhttp"
	"github.com/cerulean-db/cerulean/internal/kv"
	"github.com/cerulean-db/cerulean/internal/kv/memory"
	"github.com/cerulean-db/cerulean/internal/kv/record"
)

func lock(t *testing.T, s *Service, h *Handle, off, n uint64, excl bool) error {
	t.Helper()
	return s.Lock(t.Context(), HandleRef{Account: testAcct, Share: "s", FileID: h.FileID, HandleID: h.ID}, LockRange{Offset: off, Length: n, Exclusive: excl})
}

func unlock(t *testing.T, s *Service, h *Handle, off, n uint64) error {
	t.Helper()
	return s.Unlock(t.Context(), HandleRef{Account: testAcct, Share: "s", FileID: h.FileID, HandleID: h.ID}, off, n)
}

// checkRange runs CheckRange in a transaction of its own.
func checkRange(t *testing.T, s *Service, file, handle, off, n uint64, write bool) error {
	t.Helper()
	return s.Update(t.Context(), func(tx *Tx) error {
		return tx.CheckRange(HandleRef{Account: testAcct, Share: "s", FileID: file, HandleID: handle}, RangeAccess{Offset: off, Length: n, Write: write})
	})
}

func must(t *testing.T, err error) {
	t.Helper()
	if err != nil {
		t.Fatal(err)
	}
}

func wantErr(t *testing.T, what string, err, want error) {
	t.Helper()
	if want == nil && err != nil || want != nil && !errors.Is(err, want) {
		t.Fatalf("%s: %v, want %v", what, err, want)
	}
}

var rw = HandleOptions{Access: AccessRead | AccessWrite, ShareAccess: AccessAll}

// TestLockConflicts: the lock-against-lock rules of MS-FSA 2.1.4.10, from
// two handles on one file.
func TestLockConflicts(t *testing.T) {
	s, _ := newTestService(t)
	mkFile(t, s, "f", 100)
	a, b := open(t, s, "f", rw), open(t, s, "f", rw)

	must(t, lock(t, s, a, 10, 10, true))                                            // a: [10,20) exclusive
	wantErr(t, "b exclusive overlap", lock(t, s, b, 15, 10, true), ErrLockConflict) // overlap
	wantErr(t, "b shared overlap", lock(t, s, b, 19, 1, false), ErrLockConflict)    // last byte
	wantErr(t, "b adjacent before", lock(t, s, b, 0, 10, true), nil)                // [0,10) touches, no overlap
	wantErr(t, "b adjacent after", lock(t, s, b, 20, 5, true), nil)                 // [20,25)
	wantErr(t, "a exclusive over own exclusive", lock(t, s, a, 12, 2, true), ErrLockConflict)
	wantErr(t, "a shared within own exclusive", lock(t, s, a, 12, 2, false), nil)

	// Shared locks stack across handles and within one.
	must(t, lock(t, s, a, 50, 10, false))
	must(t, lock(t, s, b, 55, 10, false))
	must(t, lock(t, s, b, 55, 10, false))
	wantErr(t, "a exclusive over b's shared", lock(t, s, a, 58, 1, true), ErrLockConflict)
	wantErr(t, "a exclusive over own shared", lock(t, s, a, 50, 1, true), ErrLockConflict)

	// Zero-length ranges: {0,0} conflicts with nothing; a zero-length
	// range at o conflicts with a lock covering o-1 and o.
	wantErr(t, "{0,0} exclusive over a's lock", lock(t, s, b, 0, 0, true), nil)
	wantErr(t, "zero-length inside a's exclusive", lock(t, s, b, 15, 0, true), ErrLockConflict)
	wantErr(t, "zero-length at start of a's exclusive", lock(t, s, b, 10, 0, true), nil)
	wantErr(t, "zero-length at last byte of a's exclusive", lock(t, s, b, 19, 0, false), ErrLockConflict)
	wantErr(t, "zero-length just past a's exclusive", lock(t, s, b, 20, 0, false), nil)
	must(t, lock(t, s, a, 80, 0, true))
	wantErr(t, "lock across a's zero-length", lock(t, s, b, 79, 2, true), ErrLockConflict)
	wantErr(t, "lock ending at a's zero-length", lock(t, s, b, 75, 5, true), nil)

	// Beyond the end of the file and up to the largest offset.
	must(t, lock(t, s, a, 1000, math.MaxUint64-1000, false))
	wantErr(t, "past the largest offset", lock(t, s, b, math.MaxUint64, 2, true), ErrInvalidLockRange)
	wantErr(t, "exclusive on the shared lock's last byte", lock(t, s, b, math.MaxUint64-1, 1, true), ErrLockConflict)
	wantErr(t, "exclusive on the largest offset", lock(t, s, b, math.MaxUint64, 1, true), nil)

	// Directories take no locks; closed handles none either.
	dirH := open(t, s, "", HandleOptions{Dir: true, Access: AccessRead, ShareAccess: AccessAll})
	wantErr(t, "lock on a directory", lock(t, s, dirH, 0, 1, false), ErrLockOnDirectory)
	closeH(t, s, dirH)
	c := open(t, s, "f", rw)
	closeH(t, s, c)
	wantErr(t, "lock through a closed handle", lock(t, s, c, 0, 1, false), ErrHandleClosed)
}

// TestCheckRange: reads and writes through a handle (or REST's handle 0)
// against the locks held.
func TestCheckRange(t *testing.T) {
	s, _ := newTestService(t)
	f := mkFile(t, s, "f", 100)
	a, b := open(t, s, "f", rw), open(t, s, "f", rw)
	must(t, lock(t, s, a, 10, 10, true))
	must(t, lock(t, s, a, 50, 10, false))
	for _, tc := range []struct {
		name    string
		handle  uint64
		off, n  uint64
		write   bool
		blocked bool
	}{
		{"holder reads its exclusive range", a.ID, 10, 10, false, false},
		{"holder writes its exclusive range", a.ID, 10, 10, true, false},
		{"other reads the exclusive range", b.ID, 19, 5, false, true},
		{"other writes the exclusive range", b.ID, 0, 11, true, true},
		{"REST reads the exclusive range", 0, 0, 100, false, true},
		{"other reads around it", b.ID, 0, 10, false, false},
		{"other reads the shared range", b.ID, 50, 10, false, false},
		{"other writes the shared range", b.ID, 59, 1, true, true},
		{"holder writes its own shared range", a.ID, 55, 1, true, true},
		{"holder reads its own shared range", a.ID, 55, 1, false, false},
		{"REST writes past both", 0, 60, 40, true, false},
		{"{0,0} access", b.ID, 0, 0, true, false},
		{"a range past the largest offset ends there", b.ID, 55, math.MaxUint64, true, true},
	} {
		err := checkRange(t, s, f.ID, tc.handle, tc.off, tc.n, tc.write)
		if blocked := errors.Is(err, ErrLockConflict); blocked != tc.blocked || (err != nil && !blocked) {
			t.Errorf("%s: %v, want blocked %v", tc.name, err, tc.blocked)
		}
	}
}

// TestUnlockRules: an unlock names exactly a range its handle holds;
// stacked shared locks take one unlock each; an exclusive lock goes
// before a shared one on the same range.
func TestUnlockRules(t *testing.T) {
	s, _ := newTestService(t)
	f := mkFile(t, s, "f", 100)
	a, b := open(t, s, "f", rw), open(t, s, "f", rw)
	must(t, lock(t, s, a, 10, 10, true))
	wantErr(t, "unlock a sub-range", unlock(t, s, a, 10, 5), ErrRangeNotLocked)
	wantErr(t, "unlock a wider range", unlock(t, s, a, 10, 11), ErrRangeNotLocked)
	wantErr(t, "unlock through another handle", unlock(t, s, b, 10, 10), ErrRangeNotLocked)
	must(t, lock(t, s, a, 10, 10, false)) // shared within own exclusive
	must(t, unlock(t, s, a, 10, 10))      // releases the exclusive one
	wantErr(t, "b reads under a's shared", checkRange(t, s, f.ID, b.ID, 10, 1, false), nil)
	wantErr(t, "b writes under a's shared", checkRange(t, s, f.ID, b.ID, 10, 1, true), ErrLockConflict)
	must(t, unlock(t, s, a, 10, 10))
	wantErr(t, "unlock again", unlock(t, s, a, 10, 10), ErrRangeNotLocked)

	must(t, lock(t, s, b, 30, 5, false))
	must(t, lock(t, s, b, 30, 5, false))
	must(t, lock(t, s, b, 30, 5, false))
	if ls, err := s.Locks(t.Context(), HandleRef{Account: testAcct, Share: "s", FileID: f.ID, HandleID: b.ID}); err != nil || len(ls) != 3 {
		t.Fatalf("stacked locks: %v %v, want 3", ls, err)
	}
	for range 3 {
		wantErr(t, "exclusive while stacked", lock(t, s, a, 30, 1, true), ErrLockConflict)
		must(t, unlock(t, s, b, 30, 5))
	}
	wantErr(t, "exclusive once all unlocked", lock(t, s, a, 30, 1, true), nil)
	wantErr(t, "unlock past the largest offset", unlock(t, s, a, math.MaxUint64, 2), ErrInvalidLockRange)
	must(t, lock(t, s, b, 0, 0, true))
	must(t, unlock(t, s, b, 0, 0))
}

// TestCloseReleasesLocks: every way a handle ends drops its locks and
// wakes LockReleased.
func TestCloseReleasesLocks(t *testing.T) {
	for _, tc := range []struct {
		name  string
		close func(t *testing.T, s *Service, h *Handle)
	}{
		{"CloseHandle", func(t *testing.T, s *Service, h *Handle) { closeH(t, s, h) }},
		{"ForceCloseHandles", func(t *testing.T, s *Service, h *Handle) {
			id := h.ID
			if _, err := s.ForceCloseHandles(t.Context(), Ref{Account: testAcct, Share: "s", Path: "f"}, ForceCloseOptions{HandleID: &id}); err != nil {
				t.Fatal(err)
			}
		}},
		{"delete on close", func(t *testing.T, s *Service, h *Handle) {
			must(t, s.SetDeleteOnClose(t.Context(), HandleRef{Account: testAcct, Share: "s", FileID: h.FileID, HandleID: h.ID}, DeleteOnCloseOptions{DeleteOnClose: true}))
			closeH(t, s, h)
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, _ := newTestService(t)
			f := mkFile(t, s, "f", 100)
			h := open(t, s, "f", HandleOptions{Access: AccessAll, ShareAccess: AccessAll})
			other := open(t, s, "f", rw)
			must(t, lock(t, s, h, 0, 50, true))
			must(t, lock(t, s, h, 60, 10, false))
			wake := s.LockReleased(testAcct, "s", f.ID)
			wantErr(t, "other locks", lock(t, s, other, 0, 1, false), ErrLockConflict)
			select {
			case <-wake:
				t.Fatal("LockReleased fired before any release")
			default:
			}
			tc.close(t, s, h)
			select {
			case <-wake:
			case <-time.After(5 * time.Second):
				t.Fatal("LockReleased did not fire on close")
			}
			wantErr(t, "other locks once closed", lock(t, s, other, 0, 100, true), nil)
			closeH(t, s, other)
			_, err := s.GetFileProperties(t.Context(), Ref{Account: testAcct, Share: "s", Path: "f"}, Preconditions{})
			if deleted := errors.Is(err, azerr.ErrResourceNotFound); deleted != (tc.name == "delete on close") {
				t.Fatalf("file after its handles closed: %v", err)
			}
		})
	}
}

// TestDeleteShareDropsLocks: a share's deletion takes its locks along.
func TestDeleteShareDropsLocks(t *testing.T) {
	s, _ := newTestService(t)
	mkFile(t, s, "f", 10)
	h := open(t, s, "f", rw)
	must(t, lock(t, s, h, 0, 10, true))
	if err := s.DeleteShare(t.Context(), ShareRef{Account: testAcct, Share: "s"}, ""); err != nil {
		t.Fatal(err)
	}
	wantErr(t, "unlock after share deletion", unlock(t, s, h, 0, 10), ErrHandleClosed)
}

// TestRESTAgainstLocks: the FileREST operations meet the locks: Get File
// an exclusive lock on the range it reads, Put Range and Create File any
// lock at all (Put Range "requires write access to the entire file"), a
// resize a lock between the old and new sizes; metadata and properties
// are not content and pass.
func TestRESTAgainstLocks(t *testing.T) {
	s, _ := newTestService(t)
	ctx := t.Context()
	mkFile(t, s, "f", 100)
	put(t, s, "f", 0, bytes.Repeat([]byte("x"), 100))
	h := open(t, s, "f", rw)
	get := func(rng *Range) error {
		return s.GetFile(ctx, Ref{Account: testAcct, Share: "s", Path: "f"}, GetFileOptions{Range: rng}, func(d *Download) error { return d.Stream(io.Discard) })
	}
	putAt := func(off int64) error {
		_, err := s.PutRange(ctx, Ref{Account: testAcct, Share: "s", Path: "f"}, off, contentOf("ab"), Preconditions{})
		return err
	}
	resize := func(n int64) error {
		_, err := s.SetFileProperties(ctx, Ref{Account: testAcct, Share: "s", Path: "f"}, FileProperties{Size: &n}, Preconditions{})
		return err
	}

	must(t, lock(t, s, h, 40, 10, false))
	wantErr(t, "Get File under a shared lock", get(nil), nil)
	wantErr(t, "Put Range far from a shared lock", putAt(0), ErrLockConflict)
	_, err := s.ClearRange(ctx, Ref{Account: testAcct, Share: "s", Path: "f"}, 90, 99, Preconditions{})
	wantErr(t, "Clear Range far from a shared lock", err, ErrLockConflict)
	wantErr(t, "shrink into the shared lock", resize(45), ErrLockConflict)
	wantErr(t, "shrink above the shared lock", resize(60), nil)
	_, err = s.CreateFile(ctx, Ref{Account: testAcct, Share: "s", Path: "f"}, CreateFileOptions{Size: 10})
	wantErr(t, "Create File over a locked file", err, ErrLockConflict)
	_, err = s.SetFileMetadata(ctx, Ref{Account: testAcct, Share: "s", Path: "f"}, azhttp.Metadata{{"k", "v"}}, Preconditions{})
	wantErr(t, "Set File Metadata", err, nil)
	must(t, unlock(t, s, h, 40, 10))

	must(t, lock(t, s, h, 40, 10, true))
	wantErr(t, "Get File over an exclusive lock", get(nil), ErrLockConflict)
	wantErr(t, "Get File of a range it covers", get(&Range{Start: 49, End: 55}), ErrLockConflict)
	wantErr(t, "Get File of a range beside it", get(&Range{Start: 0, End: 39}), nil)
	wantErr(t, "grow beyond it", resize(200), nil)
	must(t, unlock(t, s, h, 40, 10))

	wantErr(t, "Put Range once unlocked", putAt(0), nil)
	must(t, lock(t, s, h, 0, 0, true))
	wantErr(t, "Put Range beside a {0,0} lock", putAt(0), nil)
	closeH(t, s, h)
}

// TestCopySourceLocked: a copy reads its whole source, so an exclusive
// lock on it refuses the copy.
func TestCopySourceLocked(t *testing.T) {
	s, _ := newTestService(t)
	mkFile(t, s, "src", 10)
	h := open(t, s, "src", rw)
	must(t, lock(t, s, h, 5, 1, true))
	_, err := s.CopyFile(t.Context(), CopyRequest{SrcAcct: testAcct, SrcShare: "s", SrcPath: "src", Acct: testAcct, Share: "s", Path: "dst"})
	wantErr(t, "copy a locked source", err, ErrLockConflict)
	closeH(t, s, h)
}

// TestCheckInvariantsCatchesLockDamage: a lock left behind by its handle
// and two handles' conflicting locks are reported.
func TestCheckInvariantsCatchesLockDamage(t *testing.T) {
	for _, tc := range []struct {
		name, want string
		damage     func(tx kv.Txn, a, b *Handle) error
	}{
		{"lock without handle", "not open on it", func(tx kv.Txn, a, _ *Handle) error {
			return tx.Delete(handleKey(testAcct, "s", a.FileID, a.ID))
		}},
		{"conflicting locks", "conflict", func(tx kv.Txn, _, b *Handle) error {
			l := &lockRecord{Handle: b.ID, Offset: 5, Length: 1, Exclusive: true, Count: 1}
			return storeLock(tx, b.FileID, l)
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, store := newTestService(t)
			mkFile(t, s, "f", 10)
			a, b := open(t, s, "f", rw), open(t, s, "f", rw)
			must(t, lock(t, s, a, 0, 10, false))
			wantViolation(t, store, func(tx kv.Txn) error { return tc.damage(tx, a, b) }, tc.want)
		})
	}
}

func storeLock(tx kv.Txn, file uint64, l *lockRecord) error {
	return record.Store(tx, lockKey(testAcct, "s", file, l.Handle, l.Offset, l.Length, l.Exclusive), l)
}

// TestConcurrentExclusiveLocks: handles racing for exclusive locks on one
// range: exactly one wins each round, and a writer racing the locks never
// writes while another handle holds the range.
func TestConcurrentExclusiveLocks(t *testing.T) {
	s, _ := newTestService(t)
	f := mkFile(t, s, "f", 100)
	const n = 8
	hs := make([]*Handle, n)
	for i := range hs {
		hs[i] = open(t, s, "f", rw)
	}
	for round := range 20 {
		var won atomic.Int32
		var wg sync.WaitGroup
		for _, h := range hs {
			wg.Go(func() {
				err := s.Lock(t.Context(), HandleRef{Account: testAcct, Share: "s", FileID: f.ID, HandleID: h.ID}, LockRange{Offset: 0, Length: 10, Exclusive: true})
				switch {
				case err == nil:
					won.Add(1)
				case !errors.Is(err, ErrLockConflict):
					t.Errorf("lock: %v", err)
				}
			})
		}
		wg.Wait()
		if won.Load() != 1 {
			t.Fatalf("round %d: %d handles hold the exclusive lock", round, won.Load())
		}
		ls, err := s.Locks(t.Context(), HandleRef{Account: testAcct, Share: "s", FileID: f.ID})
		if err != nil || len(ls) != 1 {
			t.Fatalf("round %d: locks %v %v", round, ls, err)
		}
		for _, h := range hs {
			if err := s.Unlock(t.Context(), HandleRef{Account: testAcct, Share: "s", FileID: f.ID, HandleID: h.ID}, 0, 10); err == nil {
				break
			}
		}
	}
	for _, h := range hs {
		closeH(t, s, h)
	}
}

// TestLockRacesPutRange: a Put Range racing a Lock either commits before
// the lock is granted or is refused: a lock holder never sees REST write
// under it.
func TestLockRacesPutRange(t *testing.T) {
	s, _ := newTestService(t)
	mkFile(t, s, "f", 10)
	h := open(t, s, "f", rw)
	for range 30 {
		var wg sync.WaitGroup
		var lockErr, putErr error
		wg.Go(func() { lockErr = lock(t, s, h, 0, 10, true) })
		wg.Go(func() {
			_, putErr = s.PutRange(t.Context(), Ref{Account: testAcct, Share: "s", Path: "f"}, 0, contentOf("zz"), Preconditions{})
		})
		wg.Wait()
		if lockErr != nil || (putErr != nil && !errors.Is(putErr, ErrLockConflict)) {
			t.Fatalf("lock %v, put %v", lockErr, putErr)
		}
		// With the lock held, Put Range is refused.
		_, err := s.PutRange(t.Context(), Ref{Account: testAcct, Share: "s", Path: "f"}, 0, contentOf("zz"), Preconditions{})
		wantErr(t, "put under the lock", err, ErrLockConflict)
		must(t, unlock(t, s, h, 0, 10))
	}
	closeH(t, s, h)
}

// BenchmarkLocks measures what locks cost the hot paths: Put Range (its
// scan of a file without locks), Get File 4 KiB while 0 or 1000 shared
// locks are held on the file (in its way only as a scan), and a Lock +
// Unlock pair.
func BenchmarkLocks(b *testing.B) {
	setup := func(b *testing.B) (*Service, *Handle) {
		s := New(Config{Store: memory.Open()})
		ctx := b.Context()
		if _, err := s.CreateShare(ctx, ShareRef{Account: testAcct, Share: "s"}, ShareSpec{}); err != nil {
			b.Fatal(err)
		}
		if _, err := s.CreateFile(ctx, Ref{Account: testAcct, Share: "s", Path: "f"}, CreateFileOptions{Size: 1 << 20}); err != nil {
			b.Fatal(err)
		}
		h, err := s.OpenHandle(ctx, Ref{Account: testAcct, Share: "s", Path: "f"}, rw)
		if err != nil {
			b.Fatal(err)
		}
		return s, h
	}
	data := bytes.Repeat([]byte("x"), 4096)
	b.Run("PutRange", func(b *testing.B) {
		s, _ := setup(b)
		for b.Loop() {
			if _, err := s.PutRange(b.Context(), Ref{Account: testAcct, Share: "s", Path: "f"}, 0, Content{Body: bytes.NewReader(data), Length: int64(len(data))}, Preconditions{}); err != nil {
				b.Fatal(err)
			}
		}
	})
	for _, held := range []int{0, 1000} {
		b.Run("GetFile/locks="+strconv.Itoa(held), func(b *testing.B) {
			s, h := setup(b)
			ctx := b.Context()
			if _, err := s.PutRange(ctx, Ref{Account: testAcct, Share: "s", Path: "f"}, 0, Content{Body: bytes.NewReader(data), Length: int64(len(data))}, Preconditions{}); err != nil {
				b.Fatal(err)
			}
			for i := range held {
				if err := s.Lock(ctx, HandleRef{Account: testAcct, Share: "s", FileID: h.FileID, HandleID: h.ID}, LockRange{Offset: uint64(i), Length: 1}); err != nil {
					b.Fatal(err)
				}
			}
			rng := &Range{Start: 0, End: 4095}
			for b.Loop() {
				if err := s.GetFile(ctx, Ref{Account: testAcct, Share: "s", Path: "f"}, GetFileOptions{Range: rng}, func(d *Download) error { return d.Stream(io.Discard) }); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
	b.Run("LockUnlock", func(b *testing.B) {
		s, h := setup(b)
		ctx := b.Context()
		for b.Loop() {
			if err := s.Lock(ctx, HandleRef{Account: testAcct, Share: "s", FileID: h.FileID, HandleID: h.ID}, LockRange{Offset: 0, Length: 10, Exclusive: true}); err != nil {
				b.Fatal(err)
			}
			if err := s.Unlock(ctx, HandleRef{Account: testAcct, Share: "s", FileID: h.FileID, HandleID: h.ID}, 0, 10); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// lockOp is one operation of TestLocksLinearizable's history.
type lockOp struct {
	kind   string // lock, unlock, read, write
	handle uint64
	r      LockRange
}

// lockModel is the locks of one file as a sequential model: each stored
// (handle, range, mode) with its count. Its conflict rule is the same
// blocks the implementation uses (its table tests pin the rule down);
// what the history checks is that each operation acts atomically on one
// consistent set of locks.
type lockModel []lockRecord

func (m lockModel) step(op lockOp) (result string, next lockModel) {
	next = append(lockModel(nil), m...)
	switch op.kind {
	case "lock":
		for _, l := range m {
			if l.blocks(op.r.Offset, op.r.Length, op.r.Exclusive, true, op.handle) {
				return "conflict", m
			}
		}
		for i, l := range next {
			if l.Handle == op.handle && l.Offset == op.r.Offset && l.Length == op.r.Length && l.Exclusive == op.r.Exclusive {
				next[i].Count++
				return "ok", next
			}
		}
		return "ok", append(next, lockRecord{Handle: op.handle, Offset: op.r.Offset, Length: op.r.Length, Exclusive: op.r.Exclusive, Count: 1})
	case "unlock":
		for _, exclusive := range []bool{true, false} {
			for i, l := range next {
				if l.Handle == op.handle && l.Offset == op.r.Offset && l.Length == op.r.Length && l.Exclusive == exclusive {
					if next[i].Count--; next[i].Count == 0 {
						next = append(next[:i], next[i+1:]...)
					}
					return "ok", next
				}
			}
		}
		return "not locked", m
	default:
		for _, l := range m {
			if l.blocks(op.r.Offset, op.r.Length, op.kind == "write", false, op.handle) {
				return "conflict", m
			}
		}
		return "ok", m
	}
}

func (m lockModel) key() string {
	s := make([]string, len(m))
	for i, l := range m {
		s[i] = fmt.Sprintf("%d:%d+%d:%v*%d", l.Handle, l.Offset, l.Length, l.Exclusive, l.Count)
	}
	slices.Sort(s)
	return strings.Join(s, ",")
}

// TestLocksLinearizable: clients, each with its own handle on one file,
// lock, unlock, read and write small overlapping ranges at once; the
// recorded history must be explained by one order of atomic operations.
func TestLocksLinearizable(t *testing.T) {
	s, _ := newTestService(t)
	f := mkFile(t, s, "f", 16)
	const clients, ops = 5, 40
	hs := make([]*Handle, clients)
	for i := range hs {
		hs[i] = open(t, s, "f", rw)
	}
	seed := rand.Uint64()
	t.Logf("seed %d", seed)
	var mu sync.Mutex
	var history []porcupine.Operation
	var wg sync.WaitGroup
	for c := range clients {
		wg.Go(func() {
			rng := rand.New(rand.NewPCG(seed, uint64(c)))
			for range ops {
				op := lockOp{kind: []string{"lock", "lock", "unlock", "read", "write"}[rng.IntN(5)], handle: hs[c].ID,
					r: LockRange{Offset: rng.Uint64N(6), Length: rng.Uint64N(4), Exclusive: rng.IntN(2) == 0}}
				call := time.Now().UnixNano()
				var err error
				switch op.kind {
				case "lock":
					err = s.Lock(t.Context(), HandleRef{Account: testAcct, Share: "s", FileID: f.ID, HandleID: op.handle}, op.r)
				case "unlock":
					err = s.Unlock(t.Context(), HandleRef{Account: testAcct, Share: "s", FileID: f.ID, HandleID: op.handle}, op.r.Offset, op.r.Length)
				default:
					err = s.Update(t.Context(), func(tx *Tx) error {
						return tx.CheckRange(HandleRef{Account: testAcct, Share: "s", FileID: f.ID, HandleID: op.handle}, RangeAccess{Offset: op.r.Offset, Length: op.r.Length, Write: op.kind == "write"})
					})
				}
				ret := time.Now().UnixNano()
				out := "ok"
				switch {
				case errors.Is(err, ErrLockConflict):
					out = "conflict"
				case errors.Is(err, ErrRangeNotLocked):
					out = "not locked"
				case err != nil:
					t.Errorf("%+v: %v", op, err)
				}
				mu.Lock()
				history = append(history, porcupine.Operation{ClientId: c, Input: op, Call: call, Output: out, Return: ret})
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	model := porcupine.Model{
		Init: func() any { return lockModel(nil) },
		Step: func(state, input, output any) (bool, any) {
			got, next := state.(lockModel).step(input.(lockOp))
			return got == output.(string), next
		},
		Equal: func(a, b any) bool { return a.(lockModel).key() == b.(lockModel).key() },
	}
	if res := porcupine.CheckOperationsTimeout(model, history, time.Minute); res != porcupine.Ok {
		t.Fatalf("history of %d lock operations is not linearizable (%v); replay with seed %d", len(history), res, seed)
	}
	for _, h := range hs {
		closeH(t, s, h)
	}
}
