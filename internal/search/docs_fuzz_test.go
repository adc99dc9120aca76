package search

import (
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/cerulean-db/cerulean/internal/kv/memory"
)

// FuzzDocumentsAndQueries: any document batch and any search, suggest or
// autocomplete body gets an answer in the service's shape (200, 207, 400
// or 501), never a 500 or a panic, and a refused batch changes nothing.
func FuzzDocumentsAndQueries(f *testing.F) {
	for _, seed := range []struct{ batch, query string }{
		{hotelDocs, `{"search":"hotel","filter":"rating ge 4","orderby":"rating desc","facets":["category"],"highlight":"description","count":true}`},
		{`{"value":[{"id":"a","rating":"NaN"},{"@search.action":"merge","id":"b"}]}`, `{"search":"name:(a OR b)^2 AND /x.*/","queryType":"full","searchMode":"all"}`},
		{`{"value":[{"id":"z","rooms":[{"type":"x","price":1}],"location":{"type":"Point","coordinates":[1,2]}}]}`, `{"filter":"rooms/all(r: r/price lt 5) and geo.intersects(location, geography'POLYGON((0 0, 3 0, 3 3, 0 3, 0 0))')"}`},
		{`{"value":[]}`, `{"vectorQueries":[{"kind":"vector","vector":[1,2,3],"fields":"vec","k":1}],"search":"inn"}`},
		{`{"value":[{"id":"q","opened":"2020-01-01T00:00:00Z"}]}`, `{"facets":["opened,interval:month","rating,values:1|2"],"top":1,"skip":1}`},
		{`{`, `{"search":"sea","suggesterName":"sg","fuzzy":true}`},
		{`{"value":[null]}`, `{"search":"mo","suggesterName":"sg","autocompleteMode":"twoTerms"}`},
	} {
		f.Add(seed.batch, seed.query)
	}
	store := memory.Open()
	f.Cleanup(func() { _ = store.Close() })
	svc := New(Config{Store: store, Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	srv := httptest.NewServer(NewHandler(svc))
	f.Cleanup(srv.Close)
	do := func(t testing.TB, method, path, body string) int {
		t.Helper()
		req, err := http.NewRequest(method, srv.URL+path, strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("api-key", DefaultAdminKey)
		req.Header.Set("Content-Type", "application/json")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		_ = resp.Body.Close()
		if resp.StatusCode >= 500 && resp.StatusCode != http.StatusNotImplemented {
			t.Fatalf("%s %s with %q: %d %s", method, path, body, resp.StatusCode, b)
		}
		return resp.StatusCode
	}
	if st := do(f, "PUT", "/synonymmaps('syn')"+v, `{"name":"syn","format":"solr","synonyms":"inn, hotel"}`); st != 201 {
		f.Fatalf("synonym map: %d", st)
	}
	if st := do(f, "PUT", "/indexes('hotels')"+v, hotelsIndex); st != 201 {
		f.Fatalf("index: %d", st)
	}
	f.Fuzz(func(t *testing.T, batch, query string) {
		before, err := svc.CountDocuments(t.Context(), "hotels")
		if err != nil {
			t.Fatal(err)
		}
		switch st := do(t, "POST", "/indexes('hotels')/docs/index"+v, batch); st {
		case 200, 207:
		case 400, 413:
			after, err := svc.CountDocuments(t.Context(), "hotels")
			if err != nil || after != before {
				t.Fatalf("a refused batch changed the count from %d to %d (%v)", before, after, err)
			}
		default:
			t.Fatalf("batch %q: %d", batch, st)
		}
		for _, op := range []string{"search.post.search", "search.post.suggest", "search.post.autocomplete"} {
			switch st := do(t, "POST", "/indexes('hotels')/docs/"+op+v, query); st {
			case 200, 400, 501:
			default:
				t.Fatalf("%s %q: %d", op, query, st)
			}
		}
	})
}
