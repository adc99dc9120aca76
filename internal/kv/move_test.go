package kv_test

import (
	"bytes"
	"fmt"
	"testing"

	"github.com/cerulean-db/cerulean/internal/kv"
	"github.com/cerulean-db/cerulean/internal/kv/memory"
)

// TestMovePrefix: every key under the source prefix moves, value
// unchanged, to the destination prefix, over several transactions when
// the keys outgrow one MoveBatch; each sees every moved key once; keys
// beside the prefix stay; moving again finds nothing to do.
func TestMovePrefix(t *testing.T) {
	store := memory.Open()
	t.Cleanup(func() { _ = store.Close() })
	ctx := t.Context()
	value := bytes.Repeat([]byte("v"), 60_000)
	const n = 100 // 6 MB of values: at least three batches
	err := store.Update(ctx, func(tx kv.Txn) error {
		for i := range n {
			if err := tx.Set(fmt.Appendf(nil, "from/%03d", i), value); err != nil {
				return err
			}
		}
		return tx.Set([]byte("fromage"), []byte("stays"))
	})
	if err != nil {
		t.Fatal(err)
	}
	seen := map[string]int{}
	each := func(_ kv.Txn, rest, v []byte) error {
		if !bytes.Equal(v, value) {
			return fmt.Errorf("moved %q with another value", rest)
		}
		seen[string(rest)]++
		return nil
	}
	if err := kv.MovePrefix(ctx, store, []byte("from/"), []byte("to/"), each); err != nil {
		t.Fatal(err)
	}
	if err := kv.MovePrefix(ctx, store, []byte("from/"), []byte("to/"), each); err != nil {
		t.Fatal(err)
	}
	if len(seen) != n {
		t.Fatalf("each saw %d keys, want %d", len(seen), n)
	}
	for k, c := range seen {
		if c != 1 {
			t.Errorf("each saw %q %d times", k, c)
		}
	}
	err = store.View(ctx, func(r kv.Reader) error {
		count := func(p string) (c int) {
			_ = r.Scan([]byte(p), kv.PrefixEnd([]byte(p)), func(_, _ []byte) error { c++; return nil })
			return c
		}
		if got := count("from/"); got != 0 {
			t.Errorf("%d keys left under the source", got)
		}
		if got := count("to/"); got != n {
			t.Errorf("%d keys under the destination, want %d", got, n)
		}
		if v, err := r.Get([]byte("fromage")); err != nil || string(v) != "stays" {
			t.Errorf("a key beside the prefix: %q %v", v, err)
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
