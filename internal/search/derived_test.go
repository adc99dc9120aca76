package search

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"runtime"
	"sort"
	"sync"
	"testing"
	"time"

	"github.com/cerulean-db/cerulean/internal/kv/memory"
)

const docsIndex = `{"name":"docs","fields":[{"name":"id","type":"Edm.String","key":true},
	{"name":"title","type":"Edm.String"},{"name":"n","type":"Edm.Int32"}]}`

func putIndex(t *testing.T, s *Service, body string) {
	t.Helper()
	d := def(t, body)
	if _, _, err := s.Put(context.Background(), Indexes, d["name"].(string), d, PutOptions{AllowIndexDowntime: true}); err != nil {
		t.Fatalf("put index: %v", err)
	}
}

func upload(t *testing.T, s *Service, index string, docs ...map[string]any) []IndexResult {
	t.Helper()
	actions := make([]IndexAction, len(docs))
	for i, d := range docs {
		actions[i] = IndexAction{Action: "mergeOrUpload", Doc: d}
	}
	res, err := s.IndexDocuments(context.Background(), index, actions)
	if err != nil {
		t.Fatalf("index documents: %v", err)
	}
	return res
}

func searchKeys(t *testing.T, s *Service, index, text, filter string) []string {
	t.Helper()
	top := 1000
	res, err := s.Search(context.Background(), index, &SearchRequest{Search: text, Filter: filter, Top: &top})
	if err != nil {
		t.Fatalf("search %q: %v", text, err)
	}
	var keys []string
	for _, h := range res.Hits {
		keys = append(keys, h.Key)
	}
	sort.Strings(keys)
	return keys
}

// twoProcesses are two Services over one store, as two server processes
// would be.
func twoProcesses(t *testing.T) (a, b *Service) {
	t.Helper()
	store := memory.Open()
	t.Cleanup(func() { _ = store.Close() })
	quiet := slog.New(slog.NewTextHandler(io.Discard, nil))
	return New(Config{Store: store, Logger: quiet}), New(Config{Store: store, Logger: quiet})
}

// TestDerivedIndexFollowsAnotherProcess: two Services over one store
// stand for two server processes; what one writes the other's searches
// see, including deletes, a changed definition and a recreated index.
func TestDerivedIndexFollowsAnotherProcess(t *testing.T) {
	a, b := twoProcesses(t)
	putIndex(t, a, docsIndex)
	upload(t, a, "docs", map[string]any{"id": "1", "title": "red apple"}, map[string]any{"id": "2", "title": "green apple"})
	if got := fmt.Sprint(searchKeys(t, b, "docs", "apple", "")); got != "[1 2]" {
		t.Fatalf("b sees %s", got)
	}
	upload(t, a, "docs", map[string]any{"id": "3", "title": "red cherry"})
	if _, err := a.IndexDocuments(context.Background(), "docs", []IndexAction{{Action: "delete", Doc: map[string]any{"id": "1"}}}); err != nil {
		t.Fatal(err)
	}
	if got := fmt.Sprint(searchKeys(t, b, "docs", "red", "")); got != "[3]" {
		t.Errorf("b after a's upload and delete: %s", got)
	}
	// A changed definition (a new filterable field) rebuilds the index.
	putIndex(t, a, `{"name":"docs","fields":[{"name":"id","type":"Edm.String","key":true},
		{"name":"title","type":"Edm.String"},{"name":"n","type":"Edm.Int32"},{"name":"color","type":"Edm.String"}]}`)
	upload(t, a, "docs", map[string]any{"id": "2", "color": "green"})
	if got := fmt.Sprint(searchKeys(t, b, "docs", "*", "color eq 'green'")); got != "[2]" {
		t.Errorf("b after a definition change: %s", got)
	}
	// Deleted and recreated: nothing of the old documents survives.
	if err := a.Delete(context.Background(), Indexes, "docs", Preconditions{}); err != nil {
		t.Fatal(err)
	}
	putIndex(t, a, docsIndex)
	upload(t, a, "docs", map[string]any{"id": "9", "title": "red plum"})
	if got := fmt.Sprint(searchKeys(t, b, "docs", "red", "")); got != "[9]" {
		t.Errorf("b after the index was recreated: %s", got)
	}
	if err := b.CatchUp(context.Background()); err != nil {
		t.Errorf("catch up: %v", err)
	}
}

// TestDerivedIndexRebuildsWhenLogTrimmed: a reader that fell further
// behind than the change log reaches rebuilds from the documents.
func TestDerivedIndexRebuildsWhenLogTrimmed(t *testing.T) {
	old := logRetention
	logRetention = 4
	t.Cleanup(func() { logRetention = old })
	a, b := twoProcesses(t)
	putIndex(t, a, docsIndex)
	upload(t, a, "docs", map[string]any{"id": "0", "title": "first"})
	if got := fmt.Sprint(searchKeys(t, b, "docs", "first", "")); got != "[0]" {
		t.Fatalf("b: %s", got)
	}
	for i := 1; i <= 200; i++ {
		upload(t, a, "docs", map[string]any{"id": fmt.Sprint(i), "title": "later", "n": i})
	}
	upload(t, a, "docs", map[string]any{"id": "0", "title": "changed"})
	if got := fmt.Sprint(searchKeys(t, b, "docs", "first", "")); got != "[]" {
		t.Errorf("b still finds the changed document: %s", got)
	}
	if got := len(searchKeys(t, b, "docs", "later", "n gt 100")); got != 100 {
		t.Errorf("b finds %d of 100", got)
	}
}

// TestConcurrentBatches: batches racing on one index and a definition
// update all land; every acknowledged document is found.
func TestConcurrentBatches(t *testing.T) {
	s := newService(t)
	putIndex(t, s, docsIndex)
	var wg sync.WaitGroup
	errs := make(chan error, 16)
	for w := 0; w < 8; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; i < 20; i++ {
				_, err := s.IndexDocuments(context.Background(), "docs", []IndexAction{{Action: "upload",
					Doc: map[string]any{"id": fmt.Sprintf("w%d-%d", w, i), "title": "racing"}}})
				if err != nil {
					errs <- err
					return
				}
				if i%5 == 0 {
					top := 1
					if _, err := s.Search(context.Background(), "docs", &SearchRequest{Search: "racing", Top: &top}); err != nil {
						errs <- err
						return
					}
				}
			}
		}()
	}
	wg.Add(1)
	go func() {
		defer wg.Done()
		d := def(t, `{"name":"docs","fields":[{"name":"id","type":"Edm.String","key":true},
			{"name":"title","type":"Edm.String"},{"name":"n","type":"Edm.Int32"},{"name":"extra","type":"Edm.String"}]}`)
		if _, _, err := s.Put(context.Background(), Indexes, "docs", d, PutOptions{}); err != nil {
			errs <- err
		}
	}()
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatal(err)
	}
	if got := len(searchKeys(t, s, "docs", "racing", "")); got != 160 {
		t.Errorf("found %d of 160 acknowledged documents", got)
	}
	if n, err := s.CountDocuments(context.Background(), "docs"); err != nil || n != 160 {
		t.Errorf("count %d %v", n, err)
	}
}

// TestIndexDocumentsResults: the domain API the indexers call reports
// per-document outcomes and refuses what the service refuses.
func TestIndexDocumentsResults(t *testing.T) {
	s := newService(t)
	putIndex(t, s, docsIndex)
	res, err := s.IndexDocuments(context.Background(), "docs", []IndexAction{
		{Action: "upload", Doc: map[string]any{"id": "a", "title": "x"}},
		{Action: "upload", Doc: map[string]any{"id": "a", "title": "y"}},
		{Action: "merge", Doc: map[string]any{"id": "b", "title": "z"}},
		{Action: "upload", Doc: map[string]any{"id": "c/d", "title": "z"}},
		{Action: "delete", Doc: map[string]any{"id": "a"}},
	})
	if err != nil {
		t.Fatal(err)
	}
	got := fmt.Sprint(res)
	want := "[{a true 201 } {a true 200 } {b false 404 Document not found.} {c/d false 400 " + invalidKeyMessage("c/d") + "} {a true 200 }]"
	if got != want {
		t.Errorf("results\n got %s\nwant %s", got, want)
	}
	for _, bad := range [][]IndexAction{
		nil,
		{{Action: "upsert", Doc: map[string]any{"id": "a"}}},
		{{Action: "upload", Doc: map[string]any{"title": "no key"}}},
		{{Action: "upload", Doc: map[string]any{"id": "a", "n": 1.5}}},
	} {
		if _, err := s.IndexDocuments(context.Background(), "docs", bad); !isBadRequest(err) {
			t.Errorf("%v: %v", bad, err)
		}
	}
	if _, err := s.IndexDocuments(context.Background(), "nope", []IndexAction{{Action: "upload", Doc: map[string]any{"id": "a"}}}); !isNotFound(err) {
		t.Errorf("missing index: %v", err)
	}
}

func isBadRequest(err error) bool {
	e, ok := err.(*Error) //nolint:errorlint // the domain returns *Error unwrapped
	return ok && e.Status == 400
}

// TestQueriesLeakNothing: searches of every shape leave no goroutine
// behind (bleve's BooleanQuery.AddFilter leaked one per query, holding an
// index snapshot, which is why filters run as searches of their own).
func TestQueriesLeakNothing(t *testing.T) {
	s := newService(t)
	putIndex(t, s, `{"name":"docs","fields":[{"name":"id","type":"Edm.String","key":true},
		{"name":"title","type":"Edm.String"},{"name":"n","type":"Edm.Int32"},{"name":"tags","type":"Collection(Edm.String)"}],
		"suggesters":[{"name":"sg","sourceFields":["title"]}]}`)
	upload(t, s, "docs", map[string]any{"id": "1", "title": "red apple", "n": 1, "tags": []any{"a"}},
		map[string]any{"id": "2", "title": "green apple", "n": 2})
	ctx := context.Background()
	run := func() {
		for _, req := range []SearchRequest{
			{Search: "apple"}, {Search: "*", Filter: "n ge 2"}, {Filter: "tags/all(t: t eq 'a')"}, {Search: "red", Highlight: "title"},
			{Filter: "search.ismatch('green')"}, {Search: "appl*", QueryType: "full", OrderBy: "n desc", Facets: []string{"n"}},
		} {
			if _, err := s.Search(ctx, "docs", &req); err != nil {
				t.Fatalf("%+v: %v", req, err)
			}
		}
		if _, err := s.Suggest(ctx, "docs", &SuggestRequest{Search: "ap", SuggesterName: "sg", Filter: "n gt 0"}); err != nil {
			t.Fatal(err)
		}
		if _, err := s.Autocomplete(ctx, "docs", &SuggestRequest{Search: "ap", SuggesterName: "sg"}); err != nil {
			t.Fatal(err)
		}
	}
	run()
	before := runtime.NumGoroutine()
	for range 30 {
		run()
	}
	deadline := time.Now().Add(2 * time.Second)
	for runtime.NumGoroutine() > before+2 && time.Now().Before(deadline) {
		time.Sleep(10 * time.Millisecond)
	}
	if after := runtime.NumGoroutine(); after > before+2 {
		t.Errorf("goroutines grew from %d to %d over 240 queries", before, after)
	}
}

// TestDocumentsThroughAlias: an alias names its index for batches,
// lookups, counts and searches alike.
func TestDocumentsThroughAlias(t *testing.T) {
	s := newService(t)
	putIndex(t, s, docsIndex)
	al := def(t, `{"name":"current","indexes":["docs"]}`)
	if _, _, err := s.Put(context.Background(), Aliases, "current", al, PutOptions{}); err != nil {
		t.Fatal(err)
	}
	upload(t, s, "current", map[string]any{"id": "1", "title": "through the alias"})
	if got := fmt.Sprint(searchKeys(t, s, "docs", "alias", "")); got != "[1]" {
		t.Errorf("search of the index: %s", got)
	}
	if got := fmt.Sprint(searchKeys(t, s, "current", "alias", "")); got != "[1]" {
		t.Errorf("search through the alias: %s", got)
	}
	doc, err := s.LookupDocument(context.Background(), "current", "1", []string{"title"})
	if err != nil || doc.Values["title"] != "through the alias" {
		t.Errorf("lookup through the alias: %v %v", doc, err)
	}
	if n, err := s.CountDocuments(context.Background(), "current"); err != nil || n != 1 {
		t.Errorf("count through the alias: %d %v", n, err)
	}
}
