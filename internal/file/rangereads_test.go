package file

import (
	"bytes"
	"context"
	"sync/atomic"
	"testing"

	"github.com/cerulean-db/cerulean/internal/kv"
	"github.com/cerulean-db/cerulean/internal/kv/memory"
)

// scansUnder is a kv.Store whose transactions count the scans that
// start under prefix.
type scansUnder struct {
	kv.Store
	prefix []byte
	n      atomic.Int64
}

func (s *scansUnder) Update(ctx context.Context, fn func(kv.Txn) error) error {
	return s.Store.Update(ctx, func(tx kv.Txn) error { return fn(scanCountingTxn{tx, s}) })
}

type scanCountingTxn struct {
	kv.Txn
	s *scansUnder
}

func (t scanCountingTxn) Scan(start, end []byte, fn func(k, v []byte) error) error {
	if bytes.HasPrefix(start, t.s.prefix) {
		t.s.n.Add(1)
	}
	return t.Txn.Scan(start, end, fn)
}

// TestPutRangeReadsLocksOnlyUnderHandles: every byte-range lock is held
// through a handle open on its file, so a Put Range on a file no handle
// has open does not read the file's locks; with a handle open it does,
// and a lock held through it refuses the write.
func TestPutRangeReadsLocksOnlyUnderHandles(t *testing.T) {
	store := &scansUnder{Store: memory.Open(), prefix: accountKey(testAcct).Raw("l")}
	t.Cleanup(func() { _ = store.Close() })
	s := New(Config{Store: store})
	ctx := t.Context()
	if _, err := s.CreateShare(ctx, ShareRef{Account: testAcct, Share: "s"}, ShareSpec{}); err != nil {
		t.Fatal(err)
	}
	mkFile(t, s, "f", 100)
	before := store.n.Load()
	put(t, s, "f", 0, []byte("ab"))
	if n := store.n.Load() - before; n != 0 {
		t.Errorf("a Put Range on a file without handles read its locks %d times, want 0", n)
	}
	h := open(t, s, "f", rw)
	before = store.n.Load()
	put(t, s, "f", 0, []byte("ab"))
	if n := store.n.Load() - before; n == 0 {
		t.Error("a Put Range on a file with a handle open did not read its locks")
	}
	must(t, lock(t, s, h, 40, 10, false))
	_, err := s.PutRange(ctx, Ref{Account: testAcct, Share: "s", Path: "f"}, 0, contentOf("ab"), Preconditions{})
	wantErr(t, "Put Range under a lock", err, ErrLockConflict)
	closeH(t, s, h)
	// The close dropped the lock with the handle: nothing refuses the
	// write, and nothing is read.
	before = store.n.Load()
	put(t, s, "f", 0, []byte("ab"))
	if n := store.n.Load() - before; n != 0 {
		t.Errorf("a Put Range after the last handle closed read the locks %d times, want 0", n)
	}
}
