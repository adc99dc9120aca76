package blob

import (
	"bytes"
	"crypto/md5"
	"errors"
	"testing"

	"github.com/cerulean-db/cerulean/internal/azerr"
	"github.com/cerulean-db/cerulean/internal/azhttp"
	"github.com/cerulean-db/cerulean/internal/extentstore"
	"github.com/cerulean-db/cerulean/internal/kv"
	"github.com/cerulean-db/cerulean/internal/kv/memory"
	"github.com/cerulean-db/cerulean/internal/kv/tuple"
	"github.com/cerulean-db/cerulean/internal/testkit"
)

const testAcct = "acct"

// newTestService opens a Service over a fresh in-memory store with one
// container, "c". After the test it checks that no upload was left staged:
// every staged object must have been committed or removed by the call
// that received it.
func newTestService(t *testing.T) (*Service, kv.Store) {
	t.Helper()
	store := memory.Open()
	s := New(Config{Store: store})
	if _, err := s.CreateContainer(t.Context(), ContainerRef{Account: testAcct, Container: "c"}, CreateContainerOptions{}); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if n := testkit.CountKeys(t, store, stagedPrefix()); n != 0 {
			t.Errorf("%d staged uploads left behind", n)
		}
		if err := store.Close(); err != nil {
			t.Error(err)
		}
	})
	return s, store
}

// blobDataKeys counts the payload chunks stored for one blob.
func blobDataKeys(t *testing.T, store kv.Store, container, name string) int {
	return testkit.CountKeys(t, store, objects.Objects(blobID{testAcct, container, name}))
}

// dataPrefix is the key prefix of one data object's chunks.
func dataPrefix(acct, container, name string, data uint64) tuple.Key {
	return objects.Objects(blobID{acct, container, name}).Uint(data)
}

// stageTxnBytes is the content one staging transaction writes.
const stageTxnBytes = extentstore.StageTxnBytes

func contentOf(b []byte) Content {
	return Content{Body: bytes.NewReader(b), Length: int64(len(b))}
}

func readBlob(t *testing.T, s *Service, name string) []byte {
	t.Helper()
	var out bytes.Buffer
	err := s.GetBlob(t.Context(), Ref{Account: testAcct, Container: "c", Name: name}, GetBlobOptions{}, func(d *Download) error {
		return d.Stream(&out)
	})
	if err != nil {
		t.Fatalf("read %s: %v", name, err)
	}
	return out.Bytes()
}

func blobExists(t *testing.T, s *Service, name string) bool {
	t.Helper()
	_, err := s.GetBlobProperties(t.Context(), Ref{Account: testAcct, Container: "c", Name: name}, Preconditions{})
	if errors.Is(err, azerr.ErrBlobNotFound) {
		return false
	}
	if err != nil {
		t.Fatal(err)
	}
	return true
}

func TestServicePutAndReadBack(t *testing.T) {
	s, _ := newTestService(t)
	ctx := t.Context()
	small := []byte("hello, blob")
	large := bytes.Repeat([]byte("0123456789abcdef"), (inlineLimit/16)+10) // staged, not inline
	for name, data := range map[string][]byte{"small": small, "large": large, "empty": nil} {
		sum := md5.Sum(data)
		c := contentOf(data)
		c.MD5 = sum[:]
		w, err := s.PutBlob(ctx, Ref{Account: testAcct, Container: "c", Name: name}, c, PutBlobOptions{Headers: ContentHeaders{ContentType: "text/plain"}, Metadata: azhttp.Metadata{{"k", "v"}}})
		if err != nil {
			t.Fatalf("put %s: %v", name, err)
		}
		if !bytes.Equal(w.ContentMD5, sum[:]) || !bytes.Equal(w.Blob.Headers.ContentMD5, sum[:]) {
			t.Errorf("%s: MD5 %x / stored %x, want %x", name, w.ContentMD5, w.Blob.Headers.ContentMD5, sum)
		}
		b, err := s.GetBlobProperties(ctx, Ref{Account: testAcct, Container: "c", Name: name}, Preconditions{})
		if err != nil {
			t.Fatal(err)
		}
		if b.Size != int64(len(data)) || b.Type != blockBlob || b.Headers.ContentType != "text/plain" || !b.Metadata.Equal(azhttp.Metadata{{"k", "v"}}) {
			t.Errorf("%s: properties %+v", name, b)
		}
		if got := readBlob(t, s, name); !bytes.Equal(got, data) {
			t.Errorf("%s: read %d bytes back, want %d", name, len(got), len(data))
		}
	}
	if _, err := s.PutBlob(ctx, Ref{Account: testAcct, Container: "missing", Name: "x"}, contentOf(small), PutBlobOptions{}); !errors.Is(err, azerr.ErrContainerNotFound) {
		t.Errorf("put into a missing container: %v, want ContainerNotFound", err)
	}
}

// Two item operations in one Update commit together: one version, both
// visible.
func TestUpdateCommitsTogether(t *testing.T) {
	s, _ := newTestService(t)
	ctx := t.Context()
	if _, err := s.PutBlob(ctx, Ref{Account: testAcct, Container: "c", Name: "a"}, contentOf([]byte("old")), PutBlobOptions{}); err != nil {
		t.Fatal(err)
	}
	var meta, put *Blob
	err := s.Update(ctx, func(tx *Tx) error {
		var err error
		if meta, err = tx.SetBlobMetadata(Ref{Account: testAcct, Container: "c", Name: "a"}, azhttp.Metadata{{"state", "moved"}}, Preconditions{}); err != nil {
			return err
		}
		put, err = tx.PutBlob(Ref{Account: testAcct, Container: "c", Name: "b"}, []byte("new"), PutBlobOptions{})
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	if meta.Version != put.Version {
		t.Errorf("versions %d and %d: not one transaction", meta.Version, put.Version)
	}
	a, err := s.GetBlobProperties(ctx, Ref{Account: testAcct, Container: "c", Name: "a"}, Preconditions{})
	if err != nil {
		t.Fatal(err)
	}
	if v, _ := a.Metadata.Get("state"); v != "moved" {
		t.Errorf("metadata of a: %v", a.Metadata)
	}
	if got := readBlob(t, s, "b"); string(got) != "new" {
		t.Errorf("b = %q", got)
	}
}

// When a later operation of a transaction fails, or its function returns
// an error, the earlier ones are rolled back with it.
func TestUpdateRollsBackTogether(t *testing.T) {
	s, store := newTestService(t)
	ctx := t.Context()
	before := testkit.CountKeys(t, store, nil)

	err := s.Update(ctx, func(tx *Tx) error {
		if _, err := tx.PutBlob(Ref{Account: testAcct, Container: "c", Name: "first"}, []byte("1"), PutBlobOptions{}); err != nil {
			return err
		}
		_, err := tx.PutBlob(Ref{Account: testAcct, Container: "no-such-container", Name: "second"}, []byte("2"), PutBlobOptions{})
		return err
	})
	if !errors.Is(err, azerr.ErrContainerNotFound) {
		t.Fatalf("second put: %v, want ContainerNotFound", err)
	}
	if blobExists(t, s, "first") {
		t.Error("first blob survived its transaction's failure")
	}

	errStop := errors.New("stop")
	err = s.Update(ctx, func(tx *Tx) error {
		if _, err := tx.PutBlob(Ref{Account: testAcct, Container: "c", Name: "first"}, []byte("1"), PutBlobOptions{}); err != nil {
			return err
		}
		return errStop
	})
	if !errors.Is(err, errStop) {
		t.Fatalf("Update: %v, want the function's error", err)
	}
	if blobExists(t, s, "first") {
		t.Error("blob survived a transaction whose function failed")
	}
	if after := testkit.CountKeys(t, store, nil); after != before {
		t.Errorf("%d keys before, %d after rolled-back transactions", before, after)
	}
}

// In binds item operations to a transaction the caller runs, which may
// write keys of its own: all of it commits or none of it.
func TestInCallerOwnedTransaction(t *testing.T) {
	s, store := newTestService(t)
	ctx := t.Context()
	own := []byte("caller's own key")
	errLater := errors.New("caller fails after the blob operations")
	err := store.Update(ctx, func(tx kv.Txn) error {
		b := s.In(tx)
		if _, err := b.PutBlob(Ref{Account: testAcct, Container: "c", Name: "x"}, []byte("x"), PutBlobOptions{}); err != nil {
			return err
		}
		if err := tx.Set(own, []byte("v")); err != nil {
			return err
		}
		return errLater
	})
	if !errors.Is(err, errLater) {
		t.Fatal(err)
	}
	if blobExists(t, s, "x") || testkit.CountKeys(t, store, own) != 0 {
		t.Error("a rolled-back caller transaction left writes behind")
	}

	err = store.Update(ctx, func(tx kv.Txn) error {
		b := s.In(tx)
		if _, err := b.PutBlob(Ref{Account: testAcct, Container: "c", Name: "x"}, []byte("x"), PutBlobOptions{}); err != nil {
			return err
		}
		if _, err := b.GetContainer(ContainerRef{Account: testAcct, Container: "c"}); err != nil {
			return err
		}
		// The transaction reads its own writes.
		if _, err := b.GetBlobProperties(Ref{Account: testAcct, Container: "c", Name: "x"}, Preconditions{}); err != nil {
			return err
		}
		if err := b.DeleteBlob(Ref{Account: testAcct, Container: "c", Name: "x"}, KeepSnapshots, Preconditions{}); err != nil {
			return err
		}
		return tx.Set(own, []byte("v"))
	})
	if err != nil {
		t.Fatal(err)
	}
	if blobExists(t, s, "x") || testkit.CountKeys(t, store, own) != 1 {
		t.Error("the committed caller transaction did not apply all its writes")
	}
}

// Content whose MD5 does not match is refused by the call that received
// it, and nothing it staged stays in the store: neither inline content
// nor content large enough to be staged before its commit.
func TestMD5MismatchLeavesNoData(t *testing.T) {
	s, store := newTestService(t)
	ctx := t.Context()
	if _, err := s.CreateEmpty(ctx, Ref{Account: testAcct, Container: "c", Name: "append"}, CreateEmptyOptions{Type: appendBlob}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.CreateEmpty(ctx, Ref{Account: testAcct, Container: "c", Name: "pages"}, CreateEmptyOptions{Type: pageBlob, Size: 8 << 20}); err != nil {
		t.Fatal(err)
	}
	wrong := md5.Sum([]byte("something else"))
	bad := func(data []byte) Content {
		c := contentOf(data)
		c.MD5 = wrong[:]
		return c
	}
	small := []byte("small enough to stay in memory")
	large := bytes.Repeat([]byte{7}, inlineLimit+pageSize) // staged in its own transactions
	pages := bytes.Repeat([]byte{1}, 2*pageSize)
	uploads := map[string]func(name string, c Content) error{
		"PutBlob": func(name string, c Content) error {
			_, err := s.PutBlob(ctx, Ref{Account: testAcct, Container: "c", Name: name}, c, PutBlobOptions{})
			return err
		},
		"PutBlock": func(name string, c Content) error {
			_, err := s.PutBlock(ctx, Ref{Account: testAcct, Container: "c", Name: name}, []byte("block-1"), c, "")
			return err
		},
		"AppendBlock": func(_ string, c Content) error {
			_, err := s.AppendBlock(ctx, Ref{Account: testAcct, Container: "c", Name: "append"}, c, AppendConditions{}, Preconditions{})
			return err
		},
		"PutPages": func(_ string, c Content) error {
			_, err := s.PutPages(ctx, Ref{Account: testAcct, Container: "c", Name: "pages"}, 0, c, PageWriteOptions{})
			return err
		},
	}
	for op, upload := range uploads {
		for size, data := range map[string][]byte{"inline": small, "staged": large} {
			if op == "PutPages" {
				data = pages
				if size == "staged" {
					continue // Put Page writes at most 4 MiB
				}
			}
			name := op + "-" + size
			before := testkit.CountKeys(t, store, nil)
			if err := upload(name, bad(data)); !errors.Is(err, azerr.ErrMd5Mismatch) {
				t.Errorf("%s: %v, want Md5Mismatch", name, err)
			}
			if n := blobDataKeys(t, store, "c", name); n != 0 {
				t.Errorf("%s: %d data keys left under the blob", name, n)
			}
			if after := testkit.CountKeys(t, store, nil); after != before {
				t.Errorf("%s: %d keys before, %d after", name, before, after)
			}
		}
	}
	if blobExists(t, s, "PutBlob-staged") {
		t.Error("a blob was created from content that failed verification")
	}
}

// Staged content is removed by the call that staged it when the commit is
// refused, and when the body ends early.
func TestRefusedUploadLeavesNoData(t *testing.T) {
	s, store := newTestService(t)
	ctx := t.Context()
	large := bytes.Repeat([]byte{9}, inlineLimit+1)
	if _, err := s.PutBlob(ctx, Ref{Account: testAcct, Container: "c", Name: "exists"}, contentOf([]byte("v1")), PutBlobOptions{}); err != nil {
		t.Fatal(err)
	}
	before := testkit.CountKeys(t, store, nil)

	var ifNoneMatch Preconditions
	ifNoneMatch.IfNoneMatch = []string{"*"}
	if _, err := s.PutBlob(ctx, Ref{Account: testAcct, Container: "c", Name: "exists"}, contentOf(large), PutBlobOptions{Conditions: ifNoneMatch}); !errors.Is(err, azerr.ErrBlobAlreadyExists) {
		t.Errorf("conditional put: %v, want BlobAlreadyExists", err)
	}
	// The body ends after one staging transaction has been written.
	short := Content{Body: bytes.NewReader(make([]byte, stageTxnBytes+100)), Length: stageTxnBytes + inlineLimit}
	if _, err := s.PutBlob(ctx, Ref{Account: testAcct, Container: "c", Name: "short"}, short, PutBlobOptions{}); !errors.Is(err, azerr.ErrInvalidInput) {
		t.Errorf("short body: %v, want InvalidInput", err)
	}
	if after := testkit.CountKeys(t, store, nil); after != before {
		t.Errorf("%d keys before, %d after refused uploads", before, after)
	}
	if got := readBlob(t, s, "exists"); string(got) != "v1" {
		t.Errorf("refused overwrite changed the blob to %d bytes", len(got))
	}
}
