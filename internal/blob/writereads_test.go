package blob

import (
	"bytes"
	"testing"

	"github.com/cerulean-db/cerulean/internal/kv/kvtest"
	"github.com/cerulean-db/cerulean/internal/kv/memory"
)

// TestPutBlobLookups pins what a small Put Blob of a new blob reads from
// the store: the container (ordering the write against Delete Container),
// the blob (conditions, overwrite) and its uncommitted blocks (discarded
// by the put). The container's record, read again for its encryption
// scope, is held by the transaction.
func TestPutBlobLookups(t *testing.T) {
	store := kvtest.NewCounting(memory.Open())
	s := New(Config{Store: store})
	if _, err := s.CreateContainer(t.Context(), ContainerRef{Account: testAcct, Container: "c"}, CreateContainerOptions{}); err != nil {
		t.Fatal(err)
	}
	store.Reset()
	data := bytes.Repeat([]byte("x"), 1024)
	c := Content{Body: bytes.NewReader(data), Length: int64(len(data))}
	if _, err := s.PutBlob(t.Context(), Ref{Account: testAcct, Container: "c", Name: "b"}, c, PutBlobOptions{Conditions: Preconditions{Encryption: &Encryption{}}}); err != nil {
		t.Fatal(err)
	}
	if got := store.Lookups(); len(got) != 3 {
		t.Errorf("Put Blob looked up %d keys or ranges, want 3: %q (all reads: %q)", len(got), got, store.Reads())
	}
}
