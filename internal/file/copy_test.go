package file

import (
	"bytes"
	"errors"
	"testing"

	"github.com/cerulean-db/cerulean/internal/azerr"
	"github.com/cerulean-db/cerulean/internal/azhttp"
)

// TestCopyBatches: pieces never exceed a batch, batches never exceed
// copyBatch bytes, and together they cover the extents exactly.
func TestCopyBatches(t *testing.T) {
	exts := []extent{
		{Data: 1, Offset: 0, Size: 3 << 20, DataSize: 3 << 20},
		{Data: 2, DataOff: 100, Offset: 5 << 20, Size: 9 << 20, DataSize: 10 << 20},
		{Data: 3, Offset: 20 << 20, Size: 1, DataSize: 1},
	}
	covered := map[uint64]int64{}
	for _, b := range copyBatches(exts) {
		total := int64(0)
		for _, p := range b {
			total += p.Size
			covered[p.Data] += p.Size
			src := exts[p.Data-1]
			if p.Offset-src.Offset != p.DataOff-src.DataOff || p.Offset < src.Offset || p.Offset+p.Size > src.Offset+src.Size {
				t.Errorf("piece %+v does not lie within its extent %+v", p, src)
			}
		}
		if total > copyBatch || total == 0 {
			t.Errorf("batch of %d bytes", total)
		}
	}
	for _, e := range exts {
		if covered[e.Data] != e.Size {
			t.Errorf("extent %d: %d of %d bytes copied", e.Data, covered[e.Data], e.Size)
		}
	}
	var many []extent
	for i := range int64(3000) {
		many = append(many, extent{Data: uint64(i + 1), Offset: 2 * i, Size: 1, DataSize: 1})
	}
	if got := copyBatches(many); len(got) != 3 || len(got[0]) != copyBatchPieces || len(got[2]) != 3000-2*copyBatchPieces {
		t.Errorf("3000 one-byte extents: %d batches", len(got))
	}
	if got := copyBatches(nil); len(got) != 0 {
		t.Errorf("no extents: %d batches", len(got))
	}
}

// TestAbortPendingCopy: a copy a crash left pending is aborted only by
// its ID, which leaves the destination with zero length and its
// metadata; later batches of that copy then find it ended.
func TestAbortPendingCopy(t *testing.T) {
	s, _ := newTestService(t)
	ctx := t.Context()
	if _, err := s.CreateFile(ctx, Ref{Account: testAcct, Share: "s", Path: "src"}, CreateFileOptions{Size: 100}); err != nil {
		t.Fatal(err)
	}
	put(t, s, "src", 0, bytes.Repeat([]byte("x"), 100))
	req := CopyRequest{SourceURL: "http://host/acct/s/src", SrcAcct: testAcct, SrcShare: "s", SrcPath: "src",
		Acct: testAcct, Share: "s", Path: "dst", Metadata: azhttp.Metadata{{"k", "v"}}}
	var src *Node
	err := s.Update(ctx, func(t *Tx) error {
		var err error
		if src, err = t.GetFileProperties(Ref{Account: testAcct, Share: "s", Path: "src"}, Preconditions{}); err != nil {
			return err
		}
		// The first transaction of a copy, as a crash would leave it.
		_, err = t.startCopy(req, src, "copy-1", false)
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	n, err := s.GetFileProperties(ctx, Ref{Account: testAcct, Share: "s", Path: "dst"}, Preconditions{})
	if err != nil || n.Copy.Status != CopyPending || n.Size != 100 {
		t.Fatalf("pending copy: %+v %v", n, err)
	}
	if err := s.AbortCopy(ctx, Ref{Account: testAcct, Share: "s", Path: "dst"}, "copy-2", Preconditions{}); !errors.Is(err, azerr.ErrCopyIdMismatch) {
		t.Fatalf("abort by another ID: %v", err)
	}
	if err := s.AbortCopy(ctx, Ref{Account: testAcct, Share: "s", Path: "dst"}, "copy-1", Preconditions{}); err != nil {
		t.Fatal(err)
	}
	n, err = s.GetFileProperties(ctx, Ref{Account: testAcct, Share: "s", Path: "dst"}, Preconditions{})
	if err != nil || n.Copy.Status != CopyAborted || n.Size != 0 || len(n.Metadata) != 1 {
		t.Fatalf("aborted copy: %+v %v", n, err)
	}
	if err := s.AbortCopy(ctx, Ref{Account: testAcct, Share: "s", Path: "dst"}, "copy-1", Preconditions{}); !errors.Is(err, azerr.ErrNoPendingCopyOperation) {
		t.Fatalf("second abort: %v", err)
	}
	err = s.Update(ctx, func(t *Tx) error {
		_, err := t.copyBatch(req, t.r, src, "copy-1", nil, true)
		return err
	})
	if !errors.Is(err, errCopyEnded) {
		t.Fatalf("a batch after the abort: %v", err)
	}
}

// TestFailedCopyDropsContent: a copy that fails half-way is marked
// failed and leaves no content behind.
func TestFailedCopyDropsContent(t *testing.T) {
	s, _ := newTestService(t)
	ctx := t.Context()
	if _, err := s.CreateFile(ctx, Ref{Account: testAcct, Share: "s", Path: "src"}, CreateFileOptions{Size: 10}); err != nil {
		t.Fatal(err)
	}
	put(t, s, "src", 0, []byte("0123456789"))
	req := CopyRequest{SrcAcct: testAcct, SrcShare: "s", SrcPath: "src", Acct: testAcct, Share: "s", Path: "dst"}
	err := s.view(ctx, func(v *Tx) error {
		src, err := v.GetFileProperties(Ref{Account: testAcct, Share: "s", Path: "src"}, Preconditions{})
		if err != nil {
			return err
		}
		exts, err := overlapping(v.r, testAcct, "s", src.ID, 0, src.Size)
		if err != nil {
			return err
		}
		return s.Update(ctx, func(t *Tx) error {
			if _, err := t.startCopy(req, src, "c", false); err != nil {
				return err
			}
			_, err := t.copyBatch(req, v.r, src, "c", exts, false)
			return err
		})
	})
	if err != nil {
		t.Fatal(err)
	}
	s.failCopy(ctx, req, "c", errors.New("disk on fire"))
	n, err := s.GetFileProperties(ctx, Ref{Account: testAcct, Share: "s", Path: "dst"}, Preconditions{})
	if err != nil || n.Copy.Status != CopyFailed || n.Size != 0 || n.Copy.Description == "" {
		t.Fatalf("failed copy: %+v %v", n, err)
	}
}
