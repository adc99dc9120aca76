package counter

import (
	"fmt"
	"testing"

	"github.com/cerulean-db/cerulean/internal/kv"
	"github.com/cerulean-db/cerulean/internal/kv/memory"
	"github.com/cerulean-db/cerulean/internal/kv/tuple"
)

func TestCounter(t *testing.T) {
	ctx, store := t.Context(), memory.Open()
	defer func() { _ = store.Close() }()
	c, other := At(tuple.New("Tc").Str("a")), At(tuple.New("Tc").Str("b"))
	sum := func(c Counter) int64 {
		t.Helper()
		var n int64
		if err := store.View(ctx, func(r kv.Reader) (err error) { n, err = c.Sum(r); return err }); err != nil {
			t.Fatal(err)
		}
		return n
	}
	if n := sum(c); n != 0 {
		t.Fatalf("empty counter sums to %d", n)
	}
	// Grow through many shards, shrink through others: only the sum counts.
	err := store.Update(ctx, func(tx kv.Txn) error {
		for i := range 200 {
			if err := c.Add(tx, fmt.Appendf(nil, "up-%d", i), 3); err != nil {
				return err
			}
		}
		for i := range 100 {
			if err := c.Add(tx, fmt.Appendf(nil, "down-%d", i), -2); err != nil {
				return err
			}
		}
		return other.Add(tx, []byte("x"), 7)
	})
	if err != nil {
		t.Fatal(err)
	}
	if n := sum(c); n != 400 {
		t.Fatalf("sum %d, want 400", n)
	}
	if n := sum(other); n != 7 {
		t.Fatalf("a neighbouring counter sums to %d, want 7", n)
	}
	if err := store.Update(ctx, func(tx kv.Txn) error { return c.Clear(tx) }); err != nil {
		t.Fatal(err)
	}
	if n, m := sum(c), sum(other); n != 0 || m != 7 {
		t.Fatalf("after Clear: %d and %d, want 0 and 7", n, m)
	}
	if Decode([]byte{1, 2}) != 0 {
		t.Fatal("a malformed shard counts")
	}
}
