package file

import (
	"bytes"
	"testing"

	"github.com/cerulean-db/cerulean/internal/kv/memory"
	"github.com/cerulean-db/cerulean/internal/testkit"
)

// TestSmallRangeWritesDeleteNoRange: overwriting small ranges of a file,
// whole or in part, frees the data they replace key by key, never by a
// range deletion (each would leave a range tombstone in the store's
// memtable that every later write pays for), and the content and the
// store's invariants stay right.
func TestSmallRangeWritesDeleteNoRange(t *testing.T) {
	counted := &testkit.RangeDeletes{Store: memory.Open()}
	t.Cleanup(func() { _ = counted.Close() })
	testkit.CheckAfter(t, counted, CheckInvariants)
	s := New(Config{Store: counted})
	ctx := t.Context()
	if _, err := s.CreateShare(ctx, ShareRef{Account: testAcct, Share: "s"}, ShareSpec{}); err != nil {
		t.Fatal(err)
	}
	const size = 256 << 10
	if _, err := s.CreateFile(ctx, Ref{Account: testAcct, Share: "s", Path: "f"}, CreateFileOptions{Size: size}); err != nil {
		t.Fatal(err)
	}
	want := make([]byte, size)
	before := counted.Count()
	for i := range 200 {
		// 4 KiB pages, and every fifth write a 6 KiB one that cuts into
		// its neighbours; a 128 KiB write now and then spans chunks.
		off, n := int64(i*7%60)*4096, 4096
		switch {
		case i%5 == 0:
			n = 6144
		case i%37 == 0:
			off, n = 64<<10, 128<<10
		}
		data := bytes.Repeat([]byte{byte('a' + i%26)}, n)
		put(t, s, "f", off, data)
		copy(want[off:], data)
	}
	if got := read(t, s, "f", nil); !bytes.Equal(got, want) {
		t.Fatal("content differs from the writes")
	}
	if n := counted.Count() - before; n != 0 {
		t.Fatalf("%d range deletions for range writes, want 0", n)
	}
}
