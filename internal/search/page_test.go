package search

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"reflect"
	"strings"
	"testing"
)

// TestPageOnlyMatchesFullOrdering: a search that needs only its page
// (pagedHits: no ordering, facets, profile or highlights, an exact
// filter) answers what the path that collects and orders every match
// answers — the same documents in the same order (score, then key on
// ties), the same @search.score values, @odata.count and next page —
// for pages across the whole ordering, with and without $count and a
// filter. Ordering by search.score() desc takes the full path and, as
// ties keep their score order, must give the same answer.
func TestPageOnlyMatchesFullOrdering(t *testing.T) {
	w := newWire(t)
	def := `{"name":"pages","fields":[{"name":"id","type":"Edm.String","key":true},
		{"name":"title","type":"Edm.String","searchable":true},{"name":"body","type":"Edm.String","searchable":true},
		{"name":"n","type":"Edm.Int32","filterable":true},{"name":"tag","type":"Edm.String","filterable":true}]}`
	if resp, body := w.call("PUT", "/indexes('pages')"+v, def, nil); resp.StatusCode != 201 {
		t.Fatalf("index: %d %v", resp.StatusCode, body)
	}
	// Few words and short texts: many documents score alike, so ties
	// are ordered by key on most pages.
	vocab := []string{"amber", "birch", "cedar", "dune", "elm", "fern"}
	rng := rand.New(rand.NewPCG(7, 11))
	text := func(words int) string {
		var ws []string
		for range words {
			ws = append(ws, vocab[rng.IntN(len(vocab))])
		}
		return strings.Join(ws, " ")
	}
	const docs = 300
	for start := 0; start < docs; start += 100 {
		var batch []string
		for n := start; n < start+100; n++ {
			// Keys out of numeric order ("k7" after "k299") so key
			// order is not the documents' order.
			batch = append(batch, fmt.Sprintf(`{"@search.action":"upload","id":"k%d","n":%d,"tag":%q,"title":%q,"body":%q}`,
				(n*37)%docs, n, []string{"x", "y", "z"}[n%3], text(1+rng.IntN(3)), text(1+rng.IntN(8))))
		}
		if resp, body := w.call("POST", "/indexes('pages')/docs/index"+v, `{"value":[`+strings.Join(batch, ",")+`]}`, nil); resp.StatusCode != 200 {
			t.Fatalf("upload: %d %v", resp.StatusCode, body)
		}
	}
	search := func(req map[string]any) map[string]any {
		t.Helper()
		b, _ := json.Marshal(req)
		resp, res := w.call("POST", "/indexes('pages')/docs/search.post.search"+v, string(b), nil)
		if resp.StatusCode != 200 {
			t.Fatalf("%s: %d %v", b, resp.StatusCode, res)
		}
		return res
	}
	checked := 0
	for _, text := range []string{"amber", "birch cedar", "dune +elm", "*", "nothing"} {
		for _, filter := range []string{"", "n gt 150", "n lt 5", "n eq 7", "n gt 100000", "tag eq 'y' and n ge 20", "n lt 10 or n gt 290"} {
			for _, page := range []struct{ skip, top int }{{0, 10}, {10, 10}, {0, 1}, {3, 4}, {95, 20}, {0, 1000}, {0, 0}, {250, -1}, {0, -1}} {
				for _, count := range []bool{true, false} {
					req := map[string]any{"search": text, "select": "id", "skip": page.skip, "count": count}
					if filter != "" {
						req["filter"] = filter
					}
					if page.top >= 0 {
						req["top"] = page.top
					}
					got := search(req)
					req["orderby"] = "search.score() desc"
					want := search(req)
					if next, ok := want["@search.nextPageParameters"].(map[string]any); ok {
						delete(next, "orderby")
					}
					if !reflect.DeepEqual(got, want) {
						t.Fatalf("search %q filter %q skip %d top %d count %v:\n got %v\nwant %v", text, filter, page.skip, page.top, count, got, want)
					}
					if vs, _ := got["value"].([]any); len(vs) > 0 {
						checked++
					}
				}
			}
		}
	}
	if checked == 0 {
		t.Fatal("no search returned documents")
	}
}
