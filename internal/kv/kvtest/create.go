package kvtest

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/cerulean-db/cerulean/internal/kv"
	"github.com/cerulean-db/cerulean/internal/testkit"
)

// testCreateRules: kv.Create writes a key that holds nothing, and the
// transaction reads it back; on a key that holds a value the Update
// fails with ErrExists and nothing of the transaction is applied, on
// every engine, whether it checks at the call or at the commit.
func testCreateRules(t *testing.T, o Opener) {
	s := o.Open(t)
	ctx := context.Background()
	set(t, s, "taken", "old")
	err := s.Update(ctx, func(tx kv.Txn) error {
		if err := kv.Create(tx, []byte("new"), []byte("1")); err != nil {
			return err
		}
		if v, err := tx.Get([]byte("new")); err != nil || string(v) != "1" {
			t.Errorf("a created key read back in its transaction: %q, %v", v, err)
		}
		return tx.Set([]byte("other"), []byte("2"))
	})
	if err != nil {
		t.Fatal(err)
	}
	equal(t, "after a create", scanStore(t, s, "", ""), []string{"new=1", "other=2", "taken=old"})

	err = s.Update(ctx, func(tx kv.Txn) error {
		if err := tx.Set([]byte("before"), []byte("x")); err != nil {
			return err
		}
		if err := kv.Create(tx, []byte("taken"), []byte("mine")); err != nil {
			return err
		}
		return tx.Set([]byte("after"), []byte("y"))
	})
	if !errors.Is(err, kv.ErrExists) {
		t.Fatalf("a create of a key holding a value: %v, want ErrExists", err)
	}
	equal(t, "after a refused create", scanStore(t, s, "", ""), []string{"new=1", "other=2", "taken=old"})

	// A key deleted earlier can be created again.
	set(t, s, "gone", "x")
	if err := s.Update(ctx, func(tx kv.Txn) error { return tx.Delete([]byte("gone")) }); err != nil {
		t.Fatal(err)
	}
	if err := s.Update(ctx, func(tx kv.Txn) error { return kv.Create(tx, []byte("gone"), []byte("again")) }); err != nil {
		t.Fatalf("create of a deleted key: %v", err)
	}
	if v, ok := get(t, s, "gone"); !ok || v != "again" {
		t.Fatalf("gone = %q, %v", v, ok)
	}
}

// testCreatorsDoNotConflict: sixteen writers create interleaved keys
// of one range (each its own): none retried, on the engines that check
// at the commit because nothing was read, on the others because what was
// read differs. Then eight writers create one key: exactly one wins, the
// others get ErrExists.
func testCreatorsDoNotConflict(t *testing.T, o Opener) {
	s := o.Open(t)
	ctx := context.Background()
	for i := range 200 {
		set(t, s, fmt.Sprintf("c/%04d", i*16), "old")
	}
	conflicts := testkit.ObserveConflicts(t, s)
	const workers, each = 16, 12
	var writers sync.WaitGroup
	for w := range workers {
		writers.Go(func() {
			for i := range each {
				key := fmt.Appendf(nil, "c/%04d", i*16*16+w*16+1+w%15)
				err := s.Update(ctx, func(tx kv.Txn) error { return kv.Create(tx, key, []byte("new")) })
				if err != nil {
					t.Error(err)
					return
				}
			}
		})
	}
	writers.Wait()
	if n := conflicts.Count(); n != 0 {
		t.Errorf("%d conflicts among writers creating keys of their own", n)
	}
	if got := len(scanStore(t, s, "c/", "c0")); got != 200+workers*each {
		t.Fatalf("%d keys after the creates, want %d", got, 200+workers*each)
	}

	var won, refused atomic.Int32
	var racers sync.WaitGroup
	for range 8 {
		racers.Go(func() {
			err := s.Update(ctx, func(tx kv.Txn) error { return kv.Create(tx, []byte("one"), []byte("x")) })
			switch {
			case err == nil:
				won.Add(1)
			case errors.Is(err, kv.ErrExists):
				refused.Add(1)
			default:
				t.Error(err)
			}
		})
	}
	racers.Wait()
	if won.Load() != 1 || refused.Load() != 7 {
		t.Fatalf("eight creates of one key: %d won, %d refused", won.Load(), refused.Load())
	}
}

// testInsertOwned: values handed over with kv.InsertOwned (here slices of
// one buffer, as an upload's chunks are) read back as written, in the
// transaction and after it, and the engine leaves the caller's bytes as
// they were, whether it keeps them or copies them.
func testInsertOwned(t *testing.T, o Opener) {
	s := o.Open(t)
	ctx := context.Background()
	buf := []byte("aaaa|bbbb|cccc")
	want := string(buf)
	err := s.Update(ctx, func(tx kv.Txn) error {
		for i, key := range []string{"o1", "o2", "o3"} {
			if err := kv.InsertOwned(tx, []byte(key), buf[5*i:5*i+4]); err != nil {
				return err
			}
		}
		equal(t, "in the transaction", scan(t, tx, "o", "p"), []string{"o1=aaaa", "o2=bbbb", "o3=cccc"})
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	equal(t, "committed", scanStore(t, s, "o", "p"), []string{"o1=aaaa", "o2=bbbb", "o3=cccc"})
	// A later write of one key leaves the others' values whole.
	set(t, s, "o2", "replaced")
	equal(t, "after a rewrite", scanStore(t, s, "o", "p"), []string{"o1=aaaa", "o2=replaced", "o3=cccc"})
	if string(buf) != want {
		t.Fatalf("the engine changed the bytes it was handed: %q, want %q", buf, want)
	}
}
