package search

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"github.com/cerulean-db/cerulean/internal/kv"
	"github.com/cerulean-db/cerulean/internal/testkit"
)

// TestDeletingEveryResourceLeavesNothing defines one resource of every
// kind, the indexes holding documents and one definition too large for
// one value, and an indexer with run state; deleting them all, one kind
// at a time with the store checked after each, leaves the store as it
// was before they were made.
func TestDeletingEveryResourceLeavesNothing(t *testing.T) {
	s := newService(t)
	ctx := context.Background()
	before := testkit.Keys(t, s.store, nil)

	var wide strings.Builder
	wide.WriteString(`{"name":"wide","fields":[{"name":"id","type":"Edm.String","key":true}`)
	for i := range 900 {
		fmt.Fprintf(&wide, `,{"name":"field_number_%d","type":"Edm.String","analyzer":"en.lucene"}`, i)
	}
	wide.WriteString(`]}`)
	mustPut(t, s, Indexes, "", wide.String(), PutOptions{CreateOnly: true})
	mustPut(t, s, Indexes, "", hotels, PutOptions{CreateOnly: true})
	for _, index := range []string{"wide", "hotels"} {
		if _, err := s.IndexDocuments(ctx, index, []IndexAction{
			{Action: "upload", Doc: map[string]any{"id": "1"}},
			{Action: "upload", Doc: map[string]any{"id": "2"}},
		}); err != nil {
			t.Fatal(err)
		}
		if _, err := s.IndexDocuments(ctx, index, []IndexAction{{Action: "delete", Doc: map[string]any{"id": "2"}}}); err != nil {
			t.Fatal(err)
		}
	}
	mustPut(t, s, SynonymMaps, "syn", `{"format":"solr","synonyms":"`+strings.Repeat(`alpha, beta\n`, 20000)+`"}`, PutOptions{})
	mustPut(t, s, DataSources, "ds", `{"name":"ds","type":"azureblob","credentials":{"connectionString":"UseDevelopmentStorage=true"},"container":{"name":"c"}}`, PutOptions{})
	mustPut(t, s, Skillsets, "sk", `{"skills":[{"@odata.type":"#Microsoft.Skills.Util.ShaperSkill","inputs":[{"name":"a","source":"/document/a"}],"outputs":[{"name":"o"}]}]}`, PutOptions{})
	mustPut(t, s, Indexers, "ixr", `{"name":"ixr","dataSourceName":"ds","targetIndexName":"hotels","skillsetName":"sk"}`, PutOptions{})
	// The run state an indexer runner keeps.
	if err := s.store.Update(ctx, func(tx kv.Txn) error {
		if err := tx.Set(IndexerStatePrefix("ixr").Str("s"), []byte("{}")); err != nil {
			return err
		}
		return tx.Set(IndexerStatePrefix("ixr").Str("h").Uint(1), []byte("{}"))
	}); err != nil {
		t.Fatal(err)
	}
	mustPut(t, s, Aliases, "", `{"name":"current","indexes":["hotels"]}`, PutOptions{CreateOnly: true})
	if err := s.CheckInvariants(ctx); err != nil {
		t.Fatal(err)
	}

	for _, r := range []struct {
		kind Kind
		name string
	}{
		{Aliases, "current"}, {Indexers, "ixr"}, {Skillsets, "sk"}, {DataSources, "ds"},
		{SynonymMaps, "syn"}, {Indexes, "hotels"}, {Indexes, "wide"},
	} {
		if err := s.Delete(ctx, r.kind, r.name, Preconditions{}); err != nil {
			t.Fatalf("delete %s %s: %v", r.kind, r.name, err)
		}
		if err := s.CheckInvariants(ctx); err != nil {
			t.Fatalf("after deleting %s %s: %v", r.kind, r.name, err)
		}
	}
	if d := testkit.DiffKeys(before, testkit.Keys(t, s.store, nil)); d != "" {
		t.Fatalf("the deleted resources left keys: %s", d)
	}
}
