package file

import (
	"bytes"
	"errors"
	"testing"

	"github.com/cerulean-db/cerulean/internal/azerr"
	"github.com/cerulean-db/cerulean/internal/azhttp"
	"github.com/cerulean-db/cerulean/internal/conditions"
	"github.com/cerulean-db/cerulean/internal/kv"
	"github.com/cerulean-db/cerulean/internal/kv/memory"
	"github.com/cerulean-db/cerulean/internal/testkit"
)

const testAcct = "acct"

// newTestService opens a Service over a fresh in-memory store with one
// share, "s".
func newTestService(t *testing.T) (*Service, kv.Store) {
	t.Helper()
	store := memory.Open()
	s := New(Config{Store: store})
	if _, err := s.CreateShare(t.Context(), ShareRef{Account: testAcct, Share: "s"}, ShareSpec{}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := store.Close(); err != nil {
			t.Error(err)
		}
	})
	testkit.CheckAfter(t, store, CheckInvariants)
	return s, store
}

// countKeys counts the keys under prefix.
func countKeys(t *testing.T, store kv.Store, prefix []byte) int {
	t.Helper()
	n := 0
	err := store.View(t.Context(), func(r kv.Reader) error {
		return r.Scan(prefix, kv.PrefixEnd(prefix), func(_, _ []byte) error { n++; return nil })
	})
	if err != nil {
		t.Fatal(err)
	}
	return n
}

func read(t *testing.T, s *Service, path string, rng *Range) []byte {
	t.Helper()
	var buf bytes.Buffer
	err := s.GetFile(t.Context(), Ref{Account: testAcct, Share: "s", Path: path}, GetFileOptions{Range: rng}, func(d *Download) error { return d.Stream(&buf) })
	if err != nil {
		t.Fatal(err)
	}
	return buf.Bytes()
}

func put(t *testing.T, s *Service, path string, off int64, data []byte) *Node {
	t.Helper()
	w, err := s.PutRange(t.Context(), Ref{Account: testAcct, Share: "s", Path: path}, off, Content{Body: bytes.NewReader(data), Length: int64(len(data))}, Preconditions{})
	if err != nil {
		t.Fatal(err)
	}
	return w.File
}

func TestTreeRules(t *testing.T) {
	s, _ := newTestService(t)
	ctx := t.Context()
	if _, err := s.CreateDirectory(ctx, Ref{Account: testAcct, Share: "s", Path: "a/b"}, SMBChange{}, nil); !errors.Is(err, azerr.ErrParentNotFound) {
		t.Fatalf("create under a missing parent: %v, want ParentNotFound", err)
	}
	if _, err := s.CreateDirectory(ctx, Ref{Account: testAcct, Share: "s", Path: "a"}, SMBChange{}, nil); err != nil {
		t.Fatal(err)
	}
	if _, err := s.CreateDirectory(ctx, Ref{Account: testAcct, Share: "s", Path: "a"}, SMBChange{}, nil); !errors.Is(err, azerr.ErrResourceAlreadyExists) {
		t.Fatalf("second create: %v, want ResourceAlreadyExists", err)
	}
	f, err := s.CreateFile(ctx, Ref{Account: testAcct, Share: "s", Path: "a/f"}, CreateFileOptions{Size: 10})
	if err != nil {
		t.Fatal(err)
	}
	if f.SMB.Attributes != "Archive" || f.ParentID == rootID {
		t.Errorf("file record %+v: want Archive under a's ID", f)
	}
	if err := s.DeleteDirectory(ctx, Ref{Account: testAcct, Share: "s", Path: "a"}, Preconditions{}); !errors.Is(err, azerr.ErrDirectoryNotEmpty) {
		t.Fatalf("delete non-empty: %v, want DirectoryNotEmpty", err)
	}
	if _, err := s.GetDirectory(ctx, Ref{Account: testAcct, Share: "s", Path: "a/f"}, Preconditions{}); !errors.Is(err, azerr.ErrResourceNotFound) {
		t.Fatalf("a file read as a directory: %v, want ResourceNotFound", err)
	}
	if _, err := s.CreateShare(ctx, ShareRef{Account: testAcct, Share: "s"}, ShareSpec{}); !errors.Is(err, azerr.ErrShareAlreadyExists) {
		t.Fatalf("second share: %v", err)
	}
	if err := s.DeleteFile(ctx, Ref{Account: testAcct, Share: "s", Path: "a/f"}, Preconditions{}); err != nil {
		t.Fatal(err)
	}
	if err := s.DeleteDirectory(ctx, Ref{Account: testAcct, Share: "s", Path: "a"}, Preconditions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.GetDirectory(ctx, Ref{Account: testAcct, Share: "nope"}, Preconditions{}); !errors.Is(err, azerr.ErrShareNotFound) {
		t.Fatalf("missing share: %v", err)
	}
}

// TestRangesSplitAndFree: writes and clears that overlap keep the outer
// parts of what they cut, read back as the model says, and leave no data
// object that no extent references.
func TestRangesSplitAndFree(t *testing.T) {
	s, store := newTestService(t)
	ctx := t.Context()
	const size = 300_000
	if _, err := s.CreateFile(ctx, Ref{Account: testAcct, Share: "s", Path: "f"}, CreateFileOptions{Size: size}); err != nil {
		t.Fatal(err)
	}
	model := make([]byte, size)
	write := func(off int, b byte, n int) {
		data := bytes.Repeat([]byte{b}, n)
		put(t, s, "f", int64(off), data)
		copy(model[off:], data)
	}
	write(0, 'a', 200_000)
	write(50_000, 'b', 10)
	if _, err := s.ClearRange(ctx, Ref{Account: testAcct, Share: "s", Path: "f"}, 100_000, 149_999, Preconditions{}); err != nil {
		t.Fatal(err)
	}
	clear(model[100_000:150_000])
	write(250_000, 'c', 50_000)
	if got := read(t, s, "f", nil); !bytes.Equal(got, model) {
		t.Fatal("content differs from the model")
	}
	if got := read(t, s, "f", &Range{Start: 49_990, End: 50_019}); !bytes.Equal(got, model[49_990:50_020]) {
		t.Fatalf("ranged read %q", got)
	}
	l, err := s.ListRanges(ctx, Ref{Account: testAcct, Share: "s", Path: "f"}, nil, Preconditions{})
	if err != nil {
		t.Fatal(err)
	}
	// Whole 512-byte pages, cut at the file's end (rangePage).
	want := []Range{{Start: 0, End: 100_351}, {Start: 149_504, End: 200_191}, {Start: 249_856, End: 299_999}}
	if len(l.Ranges) != len(want) {
		t.Fatalf("ranges %v, want %v", l.Ranges, want)
	}
	for i := range want {
		if l.Ranges[i] != want[i] {
			t.Fatalf("ranges %v, want %v", l.Ranges, want)
		}
	}
	// Clearing everything frees every data object.
	if _, err := s.ClearRange(ctx, Ref{Account: testAcct, Share: "s", Path: "f"}, 0, size-1, Preconditions{}); err != nil {
		t.Fatal(err)
	}
	if n := countKeys(t, store, accountKey(testAcct).Raw("d")); n != 0 {
		t.Errorf("%d payload chunks left after clearing the whole file", n)
	}
	if _, err := s.PutRange(ctx, Ref{Account: testAcct, Share: "s", Path: "f"}, size-5, Content{Body: bytes.NewReader(make([]byte, 10)), Length: 10}, Preconditions{}); !errors.Is(err, azerr.ErrInvalidRange) {
		t.Errorf("write past the end: %v, want InvalidRange", err)
	}
	if _, err := s.PutRange(ctx, Ref{Account: testAcct, Share: "s", Path: "f"}, 0, Content{Body: bytes.NewReader([]byte("x")), Length: 1, MD5: make([]byte, 16)}, Preconditions{}); !errors.Is(err, azerr.ErrMd5Mismatch) {
		t.Errorf("bad MD5: %v, want Md5Mismatch", err)
	}
}

// TestIfMatch: a write naming a stale ETag fails, one naming the current
// ETag succeeds and yields a new one.
func TestIfMatch(t *testing.T) {
	s, _ := newTestService(t)
	ctx := t.Context()
	f, err := s.CreateFile(ctx, Ref{Account: testAcct, Share: "s", Path: "f"}, CreateFileOptions{Size: 10})
	if err != nil {
		t.Fatal(err)
	}
	etag := azhttp.ETag(f.Version)
	g, err := s.SetFileMetadata(ctx, Ref{Account: testAcct, Share: "s", Path: "f"}, azhttp.Metadata{{"k", "v"}}, Preconditions{Conditions: conditions.Conditions{IfMatch: []string{etag}}})
	if err != nil {
		t.Fatal(err)
	}
	if azhttp.ETag(g.Version) == etag {
		t.Error("the ETag did not change")
	}
	_, err = s.SetFileMetadata(ctx, Ref{Account: testAcct, Share: "s", Path: "f"}, nil, Preconditions{Conditions: conditions.Conditions{IfMatch: []string{etag}}})
	if !errors.Is(err, azerr.ErrConditionNotMet) {
		t.Errorf("stale If-Match: %v, want ConditionNotMet", err)
	}
}

// TestUpdateIsAtomic: two operations in one caller-owned transaction
// commit together, and a failure rolls both back.
func TestUpdateIsAtomic(t *testing.T) {
	s, _ := newTestService(t)
	ctx := t.Context()
	err := s.Update(ctx, func(tx *Tx) error {
		if _, err := tx.CreateDirectory(Ref{Account: testAcct, Share: "s", Path: "d"}, SMBChange{}, nil); err != nil {
			return err
		}
		if _, err := tx.CreateFile(Ref{Account: testAcct, Share: "s", Path: "d/f"}, CreateFileOptions{Size: 4}); err != nil {
			return err
		}
		_, err := tx.PutRange(Ref{Account: testAcct, Share: "s", Path: "d/f"}, 0, []byte("abcd"), Preconditions{})
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	if got := read(t, s, "d/f", nil); string(got) != "abcd" {
		t.Fatalf("read %q", got)
	}
	boom := errors.New("boom")
	err = s.Update(ctx, func(tx *Tx) error {
		if _, err := tx.CreateDirectory(Ref{Account: testAcct, Share: "s", Path: "e"}, SMBChange{}, nil); err != nil {
			return err
		}
		if err := tx.DeleteFile(Ref{Account: testAcct, Share: "s", Path: "d/f"}, Preconditions{}); err != nil {
			return err
		}
		return boom
	})
	if !errors.Is(err, boom) {
		t.Fatalf("update: %v", err)
	}
	if _, err := s.GetDirectory(ctx, Ref{Account: testAcct, Share: "s", Path: "e"}, Preconditions{}); !errors.Is(err, azerr.ErrResourceNotFound) {
		t.Errorf("rolled-back directory: %v, want ResourceNotFound", err)
	}
	if got := read(t, s, "d/f", nil); string(got) != "abcd" {
		t.Errorf("rolled-back delete: read %q", got)
	}
}

// TestListingPages: a listing pages by marker in name order, directories
// and files together.
func TestListingPages(t *testing.T) {
	s, _ := newTestService(t)
	ctx := t.Context()
	for _, n := range []string{"b", "d"} {
		if _, err := s.CreateDirectory(ctx, Ref{Account: testAcct, Share: "s", Path: n}, SMBChange{}, nil); err != nil {
			t.Fatal(err)
		}
	}
	for _, n := range []string{"a", "c", "e"} {
		if _, err := s.CreateFile(ctx, Ref{Account: testAcct, Share: "s", Path: n}, CreateFileOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	var names []string
	marker := ""
	for {
		l, err := s.ListDirectory(ctx, Ref{Account: testAcct, Share: "s"}, ListDirectoryOptions{Marker: marker, Max: 2})
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range l.Entries {
			names = append(names, e.Name)
		}
		if marker = l.NextMarker; marker == "" {
			break
		}
	}
	if got := string(bytes.Join(toBytes(names), nil)); got != "abcde" {
		t.Errorf("listed %v", names)
	}
}

func toBytes(ss []string) [][]byte {
	out := make([][]byte, len(ss))
	for i, s := range ss {
		out[i] = []byte(s)
	}
	return out
}
