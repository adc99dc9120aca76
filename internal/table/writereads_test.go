package table

import (
	"strconv"
	"testing"
	"time"

	"github.com/cerulean-db/cerulean/internal/azauth"
	"github.com/cerulean-db/cerulean/internal/kv/kvtest"
	"github.com/cerulean-db/cerulean/internal/kv/memory"
)

func newCountingService(t *testing.T) (*Service, *kvtest.Counting) {
	t.Helper()
	store := kvtest.NewCounting(memory.Open())
	t.Cleanup(func() {
		if err := store.Close(); err != nil {
			t.Errorf("close store: %v", err)
		}
	})
	accts := azauth.NewAccounts(azauth.Account{Name: azauth.DevAccount, Keys: [][]byte{[]byte("key")}})
	s := New(Config{Store: store, Accounts: accts, Now: func() time.Time { return testTime }})
	if _, err := s.CreateTable(t.Context(), "acct", "tbl"); err != nil {
		t.Fatal(err)
	}
	return s, store
}

// TestInsertEntityLookups pins what Insert Entity reads once the ETag
// watermark is known: the table (ordering the write against Delete Table)
// and the entity (EntityAlreadyExists).
func TestInsertEntityLookups(t *testing.T) {
	s, store := newCountingService(t)
	for i := range 3 { // the first writes read and raise the watermark
		store.Reset()
		if _, err := s.WriteEntity(t.Context(), "acct", "tbl", EntityWrite{Kind: WriteInsert, PartitionKey: "p", RowKey: strconv.Itoa(i)}); err != nil {
			t.Fatal(err)
		}
	}
	if got := store.Lookups(); len(got) != 2 {
		t.Errorf("Insert Entity looked up %d keys or ranges, want 2: %q", len(got), got)
	}
}

// TestBatchLookups pins what a batch of 100 inserts reads: the table once
// (every later check is held by the transaction), each entity once, and
// at most the watermark.
func TestBatchLookups(t *testing.T) {
	s, store := newCountingService(t)
	writes := make([]EntityWrite, 100)
	for i := range writes {
		writes[i] = EntityWrite{Kind: WriteInsert, PartitionKey: "p", RowKey: strconv.Itoa(i)}
	}
	store.Reset()
	if _, err := s.Batch(t.Context(), "acct", "tbl", writes); err != nil {
		t.Fatal(err)
	}
	if got := store.Lookups(); len(got) > 102 {
		t.Errorf("a batch of 100 inserts looked up %d keys or ranges, want at most 102: %q", len(got), got)
	}
}
