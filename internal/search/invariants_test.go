package search

import (
	"context"
	"testing"

	"github.com/cerulean-db/cerulean/internal/kv"
	"github.com/cerulean-db/cerulean/internal/kv/memory"
	"github.com/cerulean-db/cerulean/internal/testkit"
)

// TestCheckInvariantsCatchesCorruption: each record a test writes behind
// the service's back, breaking one invariant, makes CheckInvariants fail.
func TestCheckInvariantsCatchesCorruption(t *testing.T) {
	for _, c := range []struct {
		name    string
		corrupt func(kv.Txn) error
		want    string
	}{
		{"document that does not decode", func(tx kv.Txn) error {
			return tx.Set(DocumentKey("hotels", "1"), []byte("{"))
		}, "does not decode"},
		{"document under another key", func(tx kv.Txn) error {
			return tx.Set(DocumentKey("hotels", "1"), []byte(`{"id":"2"}`))
		}, "in its key field"},
		{"document of an index that does not exist", func(tx kv.Txn) error {
			return tx.Set(DocumentKey("motels", "1"), []byte(`{"id":"1"}`))
		}, `index "motels", which does not exist`},
		{"document written without a change", func(tx kv.Txn) error {
			return tx.Set(DocumentKey("hotels", "3"), []byte(`{"id":"3"}`))
		}, "the caught-up bleve index holds 2 documents, the store 3"},
		{"change log past the sequence", func(tx kv.Txn) error {
			return tx.Set(changeLogPrefix("hotels").Uint(99).Str("1"), nil)
		}, "past the change sequence"},
		{"index definition that does not parse", func(tx kv.Txn) error {
			return storeDefinition(tx, Indexes, "hotels", tx.Version(), []byte(`{"name":"hotels","fields":[]}`))
		}, "does not parse"},
	} {
		t.Run(c.name, func(t *testing.T) {
			store := memory.Open()
			t.Cleanup(func() { _ = store.Close() })
			s := New(Config{Store: store})
			mustPut(t, s, Indexes, "hotels", hotels, PutOptions{})
			if _, err := s.IndexDocuments(context.Background(), "hotels", []IndexAction{
				{Action: "upload", Doc: map[string]any{"id": "1", "title": "Sea view"}},
				{Action: "upload", Doc: map[string]any{"id": "2", "title": "Old town"}},
			}); err != nil {
				t.Fatal(err)
			}
			testkit.CheckCatches(t, store, s.CheckInvariants, c.corrupt, c.want)
		})
	}
}
