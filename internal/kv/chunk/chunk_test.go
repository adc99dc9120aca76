package chunk

import (
	"bytes"
	"context"
	"errors"
	"testing"

	"github.com/cerulean-db/cerulean/internal/kv"
	"github.com/cerulean-db/cerulean/internal/kv/memory"
	"github.com/cerulean-db/cerulean/internal/kv/tuple"
)

func TestWriteReadAcrossChunks(t *testing.T) {
	store := memory.Open()
	defer func() { _ = store.Close() }()
	obj := tuple.New("T").Uint(7)
	data := make([]byte, 3*Size+123)
	for i := range data {
		data[i] = byte(i * 7)
	}
	ctx := context.Background()
	if err := store.Update(ctx, func(tx kv.Txn) error { return Write(tx, obj, 0, data) }); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct{ from, n int64 }{{0, int64(len(data))}, {Size - 1, 2}, {5, 0}, {2*Size + 10, Size + 100}, {int64(len(data)) - 1, 1}} {
		var out bytes.Buffer
		err := store.View(ctx, func(r kv.Reader) error { return Read(r, obj, c.from, c.n, &out) })
		if err != nil || !bytes.Equal(out.Bytes(), data[c.from:c.from+c.n]) {
			t.Fatalf("read [%d,+%d): %v, %d bytes", c.from, c.n, err, out.Len())
		}
	}
	// A freed chunk in the middle is reported, never read past.
	if err := store.Update(ctx, func(tx kv.Txn) error { return tx.Delete(Key(obj, 1)) }); err != nil {
		t.Fatal(err)
	}
	err := store.View(ctx, func(r kv.Reader) error { return Read(r, obj, 0, int64(len(data)), &bytes.Buffer{}) })
	if !errors.Is(err, ErrGone) {
		t.Fatalf("read over a missing chunk: %v", err)
	}
	var z bytes.Buffer
	if err := Zeros(&z, 2*Size+1); err != nil || z.Len() != 2*Size+1 || bytes.Count(z.Bytes(), []byte{0}) != z.Len() {
		t.Fatalf("zeros: %v, %d", err, z.Len())
	}
}
