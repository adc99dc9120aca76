package kvtest

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"testing"

	"github.com/cerulean-db/cerulean/internal/kv"
	"github.com/cerulean-db/cerulean/internal/testkit"
)

// count reads the count at key on a snapshot.
func count(t *testing.T, s kv.Store, key string) int64 {
	t.Helper()
	var n int64
	err := s.View(context.Background(), func(r kv.Reader) (err error) {
		n, err = kv.Count(r, []byte(key))
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// testAddConcurrently: sixteen writers add to two counts while each
// writes keys of its own; every add is in the sums, and on the engines
// whose adds read nothing no writer ever retried.
func testAddConcurrently(t *testing.T, o Opener) {
	s := o.Open(t)
	conflicts := testkit.ObserveConflicts(t, s)
	const workers, each = 16, 20
	var writers sync.WaitGroup
	for w := range workers {
		writers.Go(func() {
			for i := range each {
				err := s.Update(context.Background(), func(tx kv.Txn) error {
					if err := tx.Set(fmt.Appendf(nil, "own/%02d/%02d", w, i), []byte("x")); err != nil {
						return err
					}
					if err := tx.Add([]byte("count/a"), 1); err != nil {
						return err
					}
					return tx.Add([]byte("count/b"), int64(-w))
				})
				if err != nil {
					t.Error(err)
					return
				}
			}
		})
	}
	writers.Wait()
	if n := count(t, s, "count/a"); n != workers*each {
		t.Errorf("count/a = %d, want %d", n, workers*each)
	}
	if n, want := count(t, s, "count/b"), int64(-each*workers*(workers-1)/2); n != want {
		t.Errorf("count/b = %d, want %d", n, want)
	}
	if n := conflicts.Count(); n != 0 && !o.AddsConflict {
		t.Errorf("%d conflicts among writers that only add to shared counts", n)
	}
}

// testAddRules: an add applies after the transaction's own writes and is
// not seen by its own reads; a rolled-back add adds nothing; Delete
// clears a count; a count survives a reopen; an append's Created adds
// are made for the append that creates its sequence only (at its commit
// or its Settle).
func testAddRules(t *testing.T, o Opener) {
	s := o.Open(t)
	ctx := context.Background()
	update := func(fn func(tx kv.Txn) error) {
		t.Helper()
		if err := s.Update(ctx, fn); err != nil {
			t.Fatal(err)
		}
	}
	update(func(tx kv.Txn) error {
		if err := tx.Add([]byte("n"), 5); err != nil {
			return err
		}
		if err := tx.Add([]byte("n"), -2); err != nil {
			return err
		}
		if _, err := tx.Get([]byte("n")); !errors.Is(err, kv.ErrNotFound) {
			return fmt.Errorf("a transaction's own add is visible to it: %w", err)
		}
		return nil
	})
	if n := count(t, s, "n"); n != 3 {
		t.Fatalf("n = %d, want 3", n)
	}
	boom := errors.New("boom")
	if err := s.Update(ctx, func(tx kv.Txn) error {
		if err := tx.Add([]byte("n"), 100); err != nil {
			return err
		}
		return boom
	}); !errors.Is(err, boom) {
		t.Fatalf("rolled back: %v", err)
	}
	if n := count(t, s, "n"); n != 3 {
		t.Fatalf("after a rollback n = %d, want 3", n)
	}
	update(func(tx kv.Txn) error {
		if err := kv.DeletePrefixes(tx, []byte("n")); err != nil {
			return err
		}
		return tx.Add([]byte("n"), 7)
	})
	if n := count(t, s, "n"); n != 7 {
		t.Fatalf("an add after a deletion in one transaction: n = %d, want 7", n)
	}
	update(func(tx kv.Txn) error { return kv.DeletePrefixes(tx, []byte("n")) })
	if n := count(t, s, "n"); n != 0 {
		t.Fatalf("after a delete n = %d, want 0", n)
	}
	created := []kv.Addition{{Key: []byte("made"), Delta: 1}}
	appendTo := func(tx kv.Txn) error {
		return tx.Append(kv.Sequenced{Seq: []byte("s"), Key: func(n uint64, i int) []byte { return fmt.Appendf(nil, "s/%016x", n) },
			Values: [][]byte{[]byte("v")}, Created: created})
	}
	update(func(tx kv.Txn) error {
		if err := appendTo(tx); err != nil {
			return err
		}
		return appendTo(tx)
	})
	update(appendTo)
	if err := kv.Settle(ctx, s, []byte("s"), func(n uint64, i int) []byte { return fmt.Appendf(nil, "s/%016x", n) }); err != nil {
		t.Fatal(err)
	}
	if n := count(t, s, "made"); n != 1 {
		t.Fatalf("Created added %d times over three appends, want once", n)
	}
	update(func(tx kv.Txn) error { return tx.Add([]byte("kept"), -9) })
	if o.Reopen != nil {
		s = o.Reopen(t, s)
	}
	if n := count(t, s, "kept"); n != -9 {
		t.Fatalf("kept = %d, want -9", n)
	}
}

// testAddConflictsWithReader: a transaction that read a count cannot
// commit as if it came before an add that itself read what the
// transaction writes (write skew): one of them runs again.
func testAddConflictsWithReader(t *testing.T, o Opener) {
	s := o.Open(t)
	ctx := context.Background()
	attempts := 0
	err := s.Update(ctx, func(tx kv.Txn) error {
		attempts++
		n, err := kv.Count(tx, []byte("c"))
		if err != nil {
			return err
		}
		if attempts == 1 {
			err := s.Update(ctx, func(other kv.Txn) error {
				if _, err := other.Get([]byte("x")); !errors.Is(err, kv.ErrNotFound) {
					return fmt.Errorf("x: %w", err)
				}
				return other.Add([]byte("c"), 1)
			})
			if err != nil {
				return err
			}
		}
		return tx.Set([]byte("x"), fmt.Append(nil, n))
	})
	if err != nil {
		t.Fatal(err)
	}
	if v, _ := get(t, s, "x"); v != "1" {
		t.Fatalf("x = %q: a reader of a count committed over an add that read x as absent, want x = 1", v)
	}
}
