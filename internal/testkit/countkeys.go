package testkit

import (
	"context"
	"sync/atomic"
	"testing"
	"time"

	"github.com/cerulean-db/cerulean/internal/kv"
)

// CountKeys counts the keys of store under prefix (nil: the whole store).
func CountKeys(t testing.TB, store kv.Store, prefix []byte) int {
	t.Helper()
	n := 0
	err := store.View(context.Background(), func(r kv.Reader) error {
		return r.Scan(prefix, kv.PrefixEnd(prefix), func(_, _ []byte) error { n++; return nil })
	})
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// RangeDeletes wraps a store and counts the range deletions its
// transactions issue, for tests that pin a write path to point writes (a
// range tombstone costs every later read and write of the memtable it
// lands in).
type RangeDeletes struct {
	kv.Store
	n atomic.Int64
}

// Count is the number of DeleteRange calls made so far.
func (s *RangeDeletes) Count() int64 { return s.n.Load() }

// Update runs fn with a transaction that counts its range deletions.
func (s *RangeDeletes) Update(ctx context.Context, fn func(kv.Txn) error) error {
	return s.Store.Update(ctx, func(tx kv.Txn) error { return fn(rangeCountingTxn{tx, &s.n}) })
}

type rangeCountingTxn struct {
	kv.Txn
	n *atomic.Int64
}

func (t rangeCountingTxn) DeleteRange(start, end []byte) error {
	t.n.Add(1)
	return t.Txn.DeleteRange(start, end)
}

// Conflicts counts the commit attempts a store's transactions lost to
// concurrent commits: observe a store with it (kv.Observable) to pin a
// write path free of a shared conflict point.
type Conflicts struct{ n atomic.Int64 }

// Count is the number of attempts lost so far.
func (c *Conflicts) Count() int64 { return c.n.Load() }

// Committed implements kv.Observer.
func (c *Conflicts) Committed(time.Duration, int) {}

// Conflicted implements kv.Observer.
func (c *Conflicts) Conflicted() { c.n.Add(1) }

// Synced implements kv.Observer.
func (c *Conflicts) Synced(int) {}

// ObserveConflicts makes store, which must be kv.Observable, report its
// lost attempts to the returned counter.
func ObserveConflicts(t testing.TB, store kv.Store) *Conflicts {
	t.Helper()
	o, ok := store.(kv.Observable)
	if !ok {
		t.Fatalf("%T reports no conflicts", store)
	}
	c := &Conflicts{}
	o.Observe(c)
	return c
}
