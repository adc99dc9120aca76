package file

import (
	"bytes"
	"testing"

	"github.com/cerulean-db/cerulean/internal/kv/keyspace"
	"github.com/cerulean-db/cerulean/internal/kv/memory"
	kvusage "github.com/cerulean-db/cerulean/internal/kv/usage"
	"github.com/cerulean-db/cerulean/internal/kv/usage/usagetest"
	"github.com/cerulean-db/cerulean/internal/testkit"
)

// TestRangeWritesKeepStoredCounts: range writes, clears, SMB writes and
// truncations, with and without a snapshot sharing the data, delete the
// extents and data objects they replace saying what each key held
// (kv.Remove), so the store's stored-bytes counts read nothing back.
// After every write the counts must equal a recount of the store: a
// wrong size passed for a chunk or an extent shows here.
func TestRangeWritesKeepStoredCounts(t *testing.T) {
	counted, recount := usagetest.Open(t, memory.Open(), kvusage.Space{Name: "file", Prefix: []byte(keyspace.FileSpace), Object: ObjectKey})
	testkit.CheckAfter(t, counted, CheckInvariants)
	s := New(Config{Store: counted})
	ctx := t.Context()
	if _, err := s.CreateShare(ctx, ShareRef{Account: testAcct, Share: "s"}, ShareSpec{}); err != nil {
		t.Fatal(err)
	}
	const size = 512 << 10
	ref := Ref{Account: testAcct, Share: "s", Path: "f"}
	if _, err := s.CreateFile(ctx, ref, CreateFileOptions{Size: size}); err != nil {
		t.Fatal(err)
	}
	want := make([]byte, size)
	for i := range 120 {
		// 4 KiB pages; every fifth write 6 KiB, cutting into its
		// neighbours; now and then 100 KiB (two chunks, the last one
		// short) or 300 KiB (past the objects freed key by key).
		off, n := int64(i*7%60)*4096, 4096
		switch {
		case i%29 == 0:
			off, n = 32<<10, 300<<10
		case i%13 == 0:
			off, n = 64<<10+512, 100<<10
		case i%5 == 0:
			n = 6144
		}
		data := bytes.Repeat([]byte{byte('a' + i%26)}, n)
		put(t, s, "f", off, data)
		copy(want[off:], data)
		recount("a range write")
		if i%11 == 3 {
			// A clear that cuts one extent in two and drops others.
			from, to := off+1000, off+int64(n)+9000
			if _, err := s.ClearRange(ctx, ref, from, to-1, Preconditions{}); err != nil {
				t.Fatal(err)
			}
			clear(want[from:to])
			recount("a clear")
		}
		if i == 60 {
			// A snapshot shares every data object: the writes after it
			// must free none of them.
			if _, _, err := s.SnapshotShare(ctx, ShareRef{Account: testAcct, Share: "s"}, nil); err != nil {
				t.Fatal(err)
			}
			recount("a snapshot")
		}
	}
	if got := read(t, s, "f", nil); !bytes.Equal(got, want) {
		t.Fatal("content differs from the writes")
	}
	// An SMB write through a handle takes the same path.
	h, err := s.OpenHandle(ctx, ref, HandleOptions{Access: AccessRead | AccessWrite, ShareAccess: AccessAll})
	if err != nil {
		t.Fatal(err)
	}
	for i := range 10 {
		data := bytes.Repeat([]byte{'z'}, 5000)
		off := int64(i * 3000)
		if _, err := s.WriteHandle(ctx, HandleRef{Account: testAcct, Share: "s", FileID: h.FileID, HandleID: h.ID}, off, data); err != nil {
			t.Fatal(err)
		}
		copy(want[off:], data)
		recount("an SMB write")
	}
	if err := s.CloseHandle(ctx, HandleRef{Account: testAcct, Share: "s", FileID: h.FileID, HandleID: h.ID}); err != nil {
		t.Fatal(err)
	}
	// Truncations through the middle of extents, then to nothing.
	for _, n := range []int64{size - 3000, 200<<10 + 17, 4096 + 1, 0} {
		if _, err := s.SetFileProperties(ctx, ref, FileProperties{Size: &n}, Preconditions{}); err != nil {
			t.Fatal(err)
		}
		want = want[:n]
		recount("a truncation")
	}
	if got := read(t, s, "f", nil); !bytes.Equal(got, want) {
		t.Fatal("content differs after the truncations")
	}
}
