package extentstore

import (
	"bytes"
	"math/rand/v2"
	"testing"

	"github.com/cerulean-db/cerulean/internal/kv"
	"github.com/cerulean-db/cerulean/internal/kv/chunk"
	"github.com/cerulean-db/cerulean/internal/kv/memory"
	"github.com/cerulean-db/cerulean/internal/kv/record"
	"github.com/cerulean-db/cerulean/internal/kv/tuple"
	"github.com/cerulean-db/cerulean/internal/kv/usage"
)

// TestCutAndDeleteSizedKeepStoredCounts: Cut and DeleteSized say what
// each key they delete held (kv.Remove) instead of letting a store that
// counts stored bytes read it back. Writes of random ranges, each
// cutting the extents it replaces and freeing the objects no extent
// references any more, over objects of sizes around the chunk
// boundaries, must leave the counts equal to a recount after every
// transaction: a wrong size for an extent or a chunk shows here.
func TestCutAndDeleteSizedKeepStoredCounts(t *testing.T) {
	extents := tuple.New("Xx")
	none := func([]byte) bool { return false }
	counted, err := usage.Open(t.Context(), memory.Open(), []usage.Space{
		{Name: "extents", Prefix: extents, Object: none},
		{Name: "objects", Prefix: testLayout.Objects("o"), Object: none},
	}, nil)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = counted.Close() })
	sizes := []int64{1, 100, chunk.Size - 1, chunk.Size, chunk.Size + 1, 3*chunk.Size + 7, pointDeleteChunks * chunk.Size, pointDeleteChunks*chunk.Size + 1}
	const span = 2 << 20
	objectSize := map[uint64]int64{}
	r := rand.New(rand.NewPCG(7, 8))
	for i := range 150 {
		size := sizes[r.IntN(len(sizes))]
		from := r.Int64N(span - size)
		id := uint64(i + 1)
		err := counted.Update(t.Context(), func(tx kv.Txn) error {
			dropped, err := Cut[piece](tx, extents, from, from+size)
			if err != nil {
				return err
			}
			live, err := Overlapping[piece](tx, extents, 0, span)
			if err != nil {
				return err
			}
			for data := range dropped {
				referenced := false
				for _, p := range live {
					referenced = referenced || p.S.Data == data
				}
				if !referenced {
					if err := testLayout.DeleteSized(tx, "o", data, objectSize[data]); err != nil {
						return err
					}
				}
			}
			if err := testLayout.Write(tx, "o", id, bytes.Repeat([]byte{byte(i)}, int(size))); err != nil {
				return err
			}
			p := piece{S: Span{Data: id, Offset: from, Size: size}, Tag: "t"}
			return kv.Insert(tx, extents.Uint(uint64(from+size)), record.Encode(p))
		})
		if err != nil {
			t.Fatal(err)
		}
		objectSize[id] = size
		if err := counted.Check(t.Context()); err != nil {
			t.Fatalf("after write %d, %d bytes at %d: %v", i, size, from, err)
		}
	}
}
