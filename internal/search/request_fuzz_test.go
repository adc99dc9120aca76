package search

import (
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/cerulean-db/cerulean/internal/kv/memory"
)

// FuzzQueryRequest sends any path and query string (and, for POST, any
// body) with the query key to an index of hotels: the GET form of
// search, suggest, autocomplete, lookup and count reads every parameter
// ($filter, $orderby, $select, facet, highlight, searchFields,
// scoringProfile, $top, …) from the URL. Every answer is a success or a
// Search error in its JSON shape (501 for what is not served), never a
// 500, and a query key changes nothing.
func FuzzQueryRequest(f *testing.F) {
	for _, seed := range []struct {
		post         bool
		target, body string
	}{
		{false, "/indexes('hotels')/docs?search=hotel&$filter=rating ge 4&$orderby=rating desc&$select=id,name&facet=category,count:2&facet=rating,interval:1&highlight=description&$count=true&$top=2&$skip=1", ""},
		{false, "/indexes('hotels')/docs?search=name:(sea* OR inn)^2 AND /c.ty/&queryType=full&searchMode=all&searchFields=name,description&scoringProfile=boostName", ""},
		{false, "/indexes/hotels/docs/search.suggest?search=sea&suggesterName=sg&fuzzy=true&$select=name&highlightPreTag=<b>&highlightPostTag=</b>", ""},
		{false, "/indexes/hotels/docs/search.autocomplete?search=mo&suggesterName=sg&autocompleteMode=oneTermWithContext", ""},
		{false, "/indexes('hotels')/docs('1')?$select=rooms/type,location", ""},
		{false, "/indexes('hotels')/docs/2", ""},
		{false, "/indexes('hotels')/docs/$count", ""},
		{false, "/indexes('hotels')/docs?search=*&$filter=rooms/any(r: r/price lt 90) and geo.distance(location, geography'POINT(-122 47)') le 100&$orderby=geo.distance(location, geography'POINT(-122 47)')", ""},
		{false, "/indexes('hotels')/docs?search=*&facet=opened,interval:year&facet=tags,sort:-value&minimumCoverage=80&sessionId=s", ""},
		{true, "/indexes('hotels')/docs/search.post.search", `{"search":"pool","facets":["tags"],"select":"id","vectorQueries":[{"kind":"vector","vector":[1,0,0],"fields":"vec","k":2}]}`},
		{true, "/indexes('hotels')/docs/search", `{"search":"wifi","top":1,"skip":-1}`},
		{false, "/indexes('hotels')", ""},
		{false, "/indexes('ho''tels')/docs?search=a", ""},
		{false, "/servicestats", ""},
	} {
		target, query, _ := strings.Cut(seed.target, "?")
		if query != "" {
			query = "&" + query
		}
		f.Add(seed.post, target+v+query, seed.body)
	}
	store := memory.Open()
	f.Cleanup(func() { _ = store.Close() })
	svc := New(Config{Store: store, Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	h := NewHandler(svc)
	admin := func(method, path, body string) {
		req := httptest.NewRequest(method, path, strings.NewReader(body))
		req.Header.Set("api-key", DefaultAdminKey)
		req.Header.Set("Content-Type", "application/json")
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		if rec.Code >= 300 {
			f.Fatalf("%s %s: %d %s", method, path, rec.Code, rec.Body.Bytes())
		}
	}
	admin("PUT", "/synonymmaps('syn')"+v, `{"name":"syn","format":"solr","synonyms":"inn, hotel"}`)
	admin("PUT", "/indexes('hotels')"+v, hotelsIndex)
	admin("POST", "/indexes('hotels')/docs/index"+v, strings.Replace(hotelDocs, `{"@search.action":"upload","id":"bad key!","name":"x"},`, "", 1))
	count, err := svc.CountDocuments(f.Context(), "hotels")
	if err != nil || count == 0 {
		f.Fatalf("hotels: %d documents, %v", count, err)
	}
	f.Fuzz(func(t *testing.T, post bool, target, body string) {
		method := http.MethodGet
		if post {
			method = http.MethodPost
		}
		req, err := http.NewRequest(method, "http://127.0.0.1"+target, strings.NewReader(body))
		if err != nil || !strings.HasPrefix(target, "/") {
			return
		}
		req.Header.Set("api-key", DefaultQueryKey)
		req.Header.Set("Content-Type", "application/json")
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		if rec.Code >= 500 && rec.Code != http.StatusNotImplemented {
			t.Fatalf("%s %s %q: %d %s", method, target, body, rec.Code, rec.Body.Bytes())
		}
		if rec.Code >= 400 {
			var e struct {
				Error struct{ Code, Message string }
			}
			if err := json.Unmarshal(rec.Body.Bytes(), &e); err != nil || e.Error.Message == "" {
				t.Fatalf("%s %s: %d with body %s", method, target, rec.Code, rec.Body.Bytes())
			}
		}
		if n, err := svc.CountDocuments(t.Context(), "hotels"); err != nil || n != count {
			t.Fatalf("%s %s with the query key: %d documents (was %d), %v", method, target, n, count, err)
		}
	})
}
