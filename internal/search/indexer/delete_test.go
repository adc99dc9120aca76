package indexer

import (
	"context"
	"errors"
	"testing"

	"github.com/cerulean-db/cerulean/internal/kv"
	"github.com/cerulean-db/cerulean/internal/kv/keyspace"
	"github.com/cerulean-db/cerulean/internal/kv/tuple"
	"github.com/cerulean-db/cerulean/internal/search"
	"github.com/cerulean-db/cerulean/internal/testkit"
)

// blobIndexer defines, over the container "docs" holding one blob, the
// index "docs", the data source "blobs" and the indexer "blobix".
func (e *env) blobIndexer(t *testing.T) {
	t.Helper()
	e.docsContainer(t)
	e.putBlob(t, "a.json", `{"id":"a","title":"Alpha"}`, nil)
	e.blobIndex(t)
	e.put(t, search.Indexers, `{"name":"blobix","dataSourceName":"blobs","targetIndexName":"docs","parameters":{"configuration":{"parsingMode":"json"}}}`)
}

// indexerStateKeys counts the keys of the indexer's run state.
func indexerStateKeys(t *testing.T, e *env, name string) int {
	t.Helper()
	return testkit.CountKeys(t, e.store, tuple.New(keyspace.SearchIndexerStates).Str(name))
}

// TestDeletedIndexerLeavesNoState: deleting an indexer deletes its run
// state and history with its definition, whoever deletes it, so that a
// new indexer of the name starts from nothing and reports no run of the
// old one.
func TestDeletedIndexerLeavesNoState(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	e.blobIndexer(t)
	if res := e.run(t, "blobix"); res.Status != "success" {
		t.Fatalf("run: %+v", res)
	}
	if indexerStateKeys(t, e, "blobix") == 0 {
		t.Fatal("the run left no state")
	}
	if err := e.search.Delete(ctx, search.Indexers, "blobix", search.Preconditions{}); err != nil {
		t.Fatal(err)
	}
	if n := indexerStateKeys(t, e, "blobix"); n != 0 {
		t.Fatalf("the deleted indexer left %d keys of run state", n)
	}
	if err := e.search.CheckInvariants(ctx); err != nil {
		t.Fatal(err)
	}
}

// TestIndexerDeletedMidRunLeavesNoState: an indexer deleted while it
// runs leaves nothing once the run ends: the run's last save finds its
// state gone and records no result.
func TestIndexerDeletedMidRunLeavesNoState(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	e.blobIndexer(t)
	deleting := func(ctx context.Context, index string, actions []Action) ([]ItemResult, error) {
		if err := e.search.Delete(ctx, search.Indexers, "blobix", search.Preconditions{}); err != nil {
			t.Error(err)
		}
		return e.sink.write(ctx, index, actions)
	}
	eng := e.newEngineWithSink(t, "engine-2", deleting)
	if _, err := eng.Run(ctx, "blobix"); err != nil {
		t.Fatal(err)
	}
	if n := indexerStateKeys(t, e, "blobix"); n != 0 {
		t.Fatalf("the indexer deleted mid-run left %d keys of run state", n)
	}
	if err := e.search.CheckInvariants(ctx); err != nil {
		t.Fatal(err)
	}
}

// TestClaimOfDeletedIndexerWritesNothing: a run claimed after the
// indexer's deletion (a scheduler that listed it before, a Start that
// read it before) is refused in the claim's own transaction and writes
// no state.
func TestClaimOfDeletedIndexerWritesNothing(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	e.blobIndexer(t)
	if err := e.search.Delete(ctx, search.Indexers, "blobix", search.Preconditions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := e.engine.claim(ctx, "blobix", nil); err == nil {
		t.Fatal("claimed a deleted indexer")
	}
	if n := indexerStateKeys(t, e, "blobix"); n != 0 {
		t.Fatalf("the claim left %d keys of run state", n)
	}
}

// TestRunOfDeletedIndexerLeavesItsNamesakeAlone: an indexer deleted and
// created anew under its name while a run of the old one goes on starts
// its run numbers again, so the new indexer's first claim has the old
// run's owner and number. The old run must still not take that claim for
// its own: finishing, it records nothing in the new indexer's state or
// history and leaves its claim held.
func TestRunOfDeletedIndexerLeavesItsNamesakeAlone(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	e.blobIndexer(t)
	var eng *Engine
	var namesake *claim
	recreating := func(ctx context.Context, index string, actions []Action) ([]ItemResult, error) {
		if namesake == nil {
			if err := e.search.Delete(ctx, search.Indexers, "blobix", search.Preconditions{}); err != nil {
				t.Error(err)
			}
			e.put(t, search.Indexers, `{"name":"blobix","dataSourceName":"blobs","targetIndexName":"docs","parameters":{"configuration":{"parsingMode":"json"}}}`)
			c, err := eng.claim(ctx, "blobix", nil)
			if err != nil {
				t.Error(err)
			}
			namesake = c
		}
		return e.sink.write(ctx, index, actions)
	}
	eng = e.newEngineWithSink(t, "engine-2", recreating)
	if _, err := eng.Run(ctx, "blobix"); err != nil && !errors.Is(err, errClaimLost) {
		t.Fatal(err)
	}
	if namesake == nil || namesake.Run != 1 {
		t.Fatalf("the new indexer's claim %+v, want its first run", namesake)
	}
	var st *state
	var history int
	err := e.store.View(ctx, func(r kv.Reader) error {
		var err error
		if st, err = loadState(r, "blobix"); err != nil {
			return err
		}
		return r.Scan(historyPrefix("blobix"), kv.PrefixEnd(historyPrefix("blobix")), func(_, _ []byte) error { history++; return nil })
	})
	if err != nil {
		t.Fatal(err)
	}
	if !st.Claim.is(namesake) || st.HasMark || history != 0 {
		t.Fatalf("the new indexer after the old run: claim %+v (want %+v), mark %v, %d history entries", st.Claim, namesake, st.HasMark, history)
	}
}
