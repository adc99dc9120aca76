package file

import (
	"bytes"
	"strings"
	"testing"

	"github.com/cerulean-db/cerulean/internal/kv"
	"github.com/cerulean-db/cerulean/internal/kv/chunk"
	"github.com/cerulean-db/cerulean/internal/kv/record"
	"github.com/cerulean-db/cerulean/internal/kv/tuple"
)

// layout builds a share with a directory, a file with two ranges (one cut
// in two by a clear) and an empty file, and checks it is consistent.
func layout(t *testing.T) (*Service, kv.Store, *Node) {
	t.Helper()
	s, store := newTestService(t)
	ctx := t.Context()
	if _, err := s.CreateDirectory(ctx, Ref{Account: testAcct, Share: "s", Path: "d"}, SMBChange{}, nil); err != nil {
		t.Fatal(err)
	}
	f, err := s.CreateFile(ctx, Ref{Account: testAcct, Share: "s", Path: "d/f"}, CreateFileOptions{Size: 300 << 10})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.CreateFile(ctx, Ref{Account: testAcct, Share: "s", Path: "empty"}, CreateFileOptions{Size: 10}); err != nil {
		t.Fatal(err)
	}
	put(t, s, "d/f", 0, bytes.Repeat([]byte("x"), 200<<10))
	put(t, s, "d/f", 250<<10, []byte("tail"))
	if _, err := s.ClearRange(ctx, Ref{Account: testAcct, Share: "s", Path: "d/f"}, 10, 20, Preconditions{}); err != nil {
		t.Fatal(err)
	}
	if err := CheckInvariants(ctx, store); err != nil {
		t.Fatalf("a consistent layout fails the check: %v", err)
	}
	return s, store, f
}

// TestCheckInvariantsCatchesCorruption: each kind of damage to a
// consistent layout is reported.
func TestCheckInvariantsCatchesCorruption(t *testing.T) {
	for _, tc := range []struct {
		name, want string
		damage     func(tx kv.Txn, f *Node) error
	}{
		{"missing chunk", "has chunks", func(tx kv.Txn, f *Node) error {
			ext := extentsOf(t, tx, f)
			return tx.Delete(chunk.Key(dataPrefix(testAcct, "s", f.ID, ext[0].Data), 1))
		}},
		{"orphan data", "referenced by nothing", func(tx kv.Txn, f *Node) error {
			return chunk.Write(tx, dataPrefix(testAcct, "s", f.ID, 999), 0, []byte("stray"))
		}},
		{"extent beyond size", "outside size", func(tx kv.Txn, f *Node) error {
			ext := extentsOf(t, tx, f)
			last := ext[len(ext)-1]
			last.Offset += 100 << 10
			if err := tx.Delete(extentKey(testAcct, "s", f.ID, last.Offset+last.Size)); err != nil {
				return err
			}
			return record.Store(tx, extentKey(testAcct, "s", f.ID, last.Offset+last.Size), last)
		}},
		{"missing parent", "does not exist", func(tx kv.Txn, f *Node) error {
			return tx.Delete(nodeKey(testAcct, "s", rootID, "d"))
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, store, f := layout(t)
			wantViolation(t, store, func(tx kv.Txn) error { return tc.damage(tx, f) }, tc.want)
		})
	}
}

func extentsOf(t *testing.T, r kv.Reader, f *Node) []extent {
	t.Helper()
	ext, err := overlapping(r, testAcct, "s", f.ID, 0, f.Size)
	if err != nil || len(ext) == 0 {
		t.Fatalf("extents: %v %v", ext, err)
	}
	return ext
}

// wantViolation applies damage to the store, wants CheckInvariants to
// report a violation mentioning want, then wipes the keyspace so that the
// check every test ends with passes.
func wantViolation(t *testing.T, store kv.Store, damage func(kv.Txn) error, want string) {
	t.Helper()
	if err := store.Update(t.Context(), damage); err != nil {
		t.Fatal(err)
	}
	err := CheckInvariants(t.Context(), store)
	if err == nil || !strings.Contains(err.Error(), want) {
		t.Fatalf("got %v, want a violation mentioning %q", err, want)
	}
	if err := store.Update(t.Context(), wipe); err != nil {
		t.Fatal(err)
	}
}

// wipe deletes the whole File keyspace.
func wipe(tx kv.Txn) error {
	p := accountKey(testAcct)
	return tx.DeleteRange(p, kv.PrefixEnd(p))
}

// dataPrefix is the key prefix of one data object's chunks.
func dataPrefix(acct, share string, file, data uint64) tuple.Key {
	return objects.Objects(dataOwner(acct, share, file)).Uint(data)
}
