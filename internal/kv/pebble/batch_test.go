package pebble

import (
	"bytes"
	"context"
	"fmt"
	"testing"

	"github.com/cerulean-db/cerulean/internal/kv"
)

// TestBatchSizeBoundsEncoding: the size a batch is given to start with
// holds everything a transaction's writes encode to, so it is never
// grown: small and large values (one-, two- and three-byte lengths),
// deletions and a range deletion.
func TestBatchSizeBoundsEncoding(t *testing.T) {
	s, err := Open(t.TempDir(), Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = s.Close() }()
	b := s.db.NewBatch()
	defer func() { _ = b.Close() }()
	var size, writes int
	add := func(key, value []byte) {
		k := append(append([]byte(nil), userPrefix...), key...)
		if err := b.Set(k, value, nil); err != nil {
			t.Fatal(err)
		}
		size += len(key) + len(value)
		writes++
	}
	for _, n := range []int{0, 1, 127, 128, 300, 16383, 16384, 70000, 64 << 10} {
		add(fmt.Appendf(nil, "key-%d", n), bytes.Repeat([]byte{'v'}, n))
	}
	if err := b.Delete(append(append([]byte(nil), userPrefix...), "gone"...), nil); err != nil {
		t.Fatal(err)
	}
	size += len("gone")
	writes++
	if err := b.DeleteRange(userKey([]byte("a")), userBound([]byte("b")), nil); err != nil {
		t.Fatal(err)
	}
	size += 2
	writes++
	if got, bound := len(b.Repr()), batchSize(size, writes); got > bound {
		t.Fatalf("the batch encodes to %d bytes, more than the %d it is given", got, bound)
	}
}

// BenchmarkLargeWrite commits one 8 MiB upload's chunks (128 of 64 KiB) in
// one transaction, as staging a large upload does; its allocations show
// what building the batch costs, and (owned) what handing the chunks
// over instead of copying them saves.
func BenchmarkLargeWrite(b *testing.B) {
	for _, tc := range []struct {
		name  string
		write func(tx kv.Txn, key, value []byte) error
	}{
		{"set", func(tx kv.Txn, key, value []byte) error { return tx.Set(key, value) }},
		// An upload's chunks, handed over rather than copied.
		{"owned", kv.InsertOwned},
	} {
		b.Run(tc.name, func(b *testing.B) {
			s, err := Open(b.TempDir(), Options{})
			if err != nil {
				b.Fatal(err)
			}
			defer func() { _ = s.Close() }()
			chunk := bytes.Repeat([]byte{'c'}, 64<<10)
			b.SetBytes(128 * int64(len(chunk)))
			b.ReportAllocs()
			n := 0
			for b.Loop() {
				n++
				err := s.Update(context.Background(), func(tx kv.Txn) error {
					for c := range 128 {
						if err := tc.write(tx, fmt.Appendf(nil, "d%08d-%04d", n, c), chunk); err != nil {
							return err
						}
					}
					return nil
				})
				if err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
