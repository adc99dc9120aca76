package search

import (
	"context"
	"testing"

	"github.com/cerulean-db/cerulean/internal/kv"
	"github.com/cerulean-db/cerulean/internal/testkit"
)

// TestCheckInvariantsCatchesCorruption: each record a test writes behind
// the service's back, breaking one invariant, makes CheckInvariants fail.
func TestCheckInvariantsCatchesCorruption(t *testing.T) {
	testkit.CheckCatches(t, func(t *testing.T) (kv.Store, func(context.Context) error) {
		s := newService(t)
		mustPut(t, s, Indexes, "hotels", hotels, PutOptions{})
		if _, err := s.IndexDocuments(context.Background(), "hotels", []IndexAction{
			{Action: "upload", Doc: map[string]any{"id": "1", "title": "Sea view"}},
			{Action: "upload", Doc: map[string]any{"id": "2", "title": "Old town"}},
		}); err != nil {
			t.Fatal(err)
		}
		return s.store, s.CheckInvariants
	}, []testkit.Corruption{
		{Name: "document that does not decode", Corrupt: func(tx kv.Txn) error {
			return tx.Set(DocumentKey("hotels", "1"), []byte("{"))
		}, Want: "does not decode"},
		{Name: "document under another key", Corrupt: func(tx kv.Txn) error {
			return tx.Set(DocumentKey("hotels", "1"), []byte(`{"id":"2"}`))
		}, Want: "in its key field"},
		{Name: "document of an index that does not exist", Corrupt: func(tx kv.Txn) error {
			return tx.Set(DocumentKey("motels", "1"), []byte(`{"id":"1"}`))
		}, Want: `index "motels", which does not exist`},
		{Name: "document written without a change", Corrupt: func(tx kv.Txn) error {
			return tx.Set(DocumentKey("hotels", "3"), []byte(`{"id":"3"}`))
		}, Want: "the caught-up bleve index holds 2 documents, the store 3"},
		{Name: "change log past the sequence", Corrupt: func(tx kv.Txn) error {
			return tx.Set(changeLogPrefix("hotels").Uint(99).Str("1"), nil)
		}, Want: "past the change sequence"},
		{Name: "index definition that does not parse", Corrupt: func(tx kv.Txn) error {
			return storeDefinition(tx, Indexes, "hotels", tx.Version(), []byte(`{"name":"hotels","fields":[]}`))
		}, Want: "does not parse"},
		{Name: "definition chunks of a resource that does not exist", Corrupt: func(tx kv.Txn) error {
			return tx.Set(definitionChunks(SynonymMaps, "gone").Uint(0), []byte("x"))
		}, Want: `synonym map "gone", which does not exist`},
		{Name: "run state of an indexer that does not exist", Corrupt: func(tx kv.Txn) error {
			return tx.Set(IndexerStatePrefix("gone").Str("s"), []byte("{}"))
		}, Want: `indexer "gone", which does not exist`},
	})
}
