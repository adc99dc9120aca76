package file

import (
	"bytes"
	"fmt"
	"sync"
	"testing"

	"github.com/cerulean-db/cerulean/internal/kv/memory"
	"github.com/cerulean-db/cerulean/internal/testkit"
)

// TestRangeWritersOfDifferentFilesDoNotConflict: sixteen writers putting
// ranges into files of their own in one share never lose a commit to
// each other: nothing a range write reads (the share's usage, its
// quota, the directory) is written by a writer of another file.
func TestRangeWritersOfDifferentFilesDoNotConflict(t *testing.T) {
	store := memory.Open()
	t.Cleanup(func() { _ = store.Close() })
	conflicts := testkit.ObserveConflicts(t, store)
	s := New(Config{Store: store})
	ctx := t.Context()
	if _, err := s.CreateShare(ctx, ShareRef{Account: testAcct, Share: "s"}, ShareSpec{}); err != nil {
		t.Fatal(err)
	}
	const writers, each = 16, 30
	for w := range writers {
		if _, err := s.CreateFile(ctx, Ref{Account: testAcct, Share: "s", Path: fmt.Sprint("f", w)}, CreateFileOptions{Size: 1 << 20}); err != nil {
			t.Fatal(err)
		}
	}
	before := conflicts.Count()
	data := bytes.Repeat([]byte("x"), 4096)
	var wg sync.WaitGroup
	for w := range writers {
		wg.Go(func() {
			for i := range each {
				ref := Ref{Account: testAcct, Share: "s", Path: fmt.Sprint("f", w)}
				if _, err := s.PutRange(ctx, ref, int64(i%64)*4096, Content{Body: bytes.NewReader(data), Length: 4096}, Preconditions{}); err != nil {
					t.Error(err)
					return
				}
			}
		})
	}
	wg.Wait()
	if n := conflicts.Count() - before; n != 0 {
		t.Errorf("%d commits lost to a writer of another file", n)
	}
}
