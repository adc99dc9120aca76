package search

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/cerulean-db/cerulean/internal/kv/memory"
	"github.com/cerulean-db/cerulean/internal/testkit"
)

// FuzzDefinitions: whatever the validators accept is stored, parses back,
// and is accepted again unchanged when sent back (the normalised shape is
// a fixed point, as an SDK's read-modify-write relies on); whatever they
// refuse is a 400 or 409, never a panic or a 500.
func FuzzDefinitions(f *testing.F) {
	for _, seed := range []string{
		hotels,
		smallIndex,
		`{"name":"x1","fields":[{"name":"id","type":"Edm.String","key":true,"normalizer":"lowercase"},{"name":"d","type":"Edm.DateTimeOffset"},{"name":"n","type":"Edm.Int64"}],"scoringProfiles":[{"name":"p","text":{"weights":{"id":2}},"functions":[{"type":"freshness","fieldName":"d","boost":2,"freshness":{"boostingDuration":"P7D"}},{"type":"magnitude","fieldName":"n","boost":3,"magnitude":{"boostingRangeStart":1,"boostingRangeEnd":9}}]}],"defaultScoringProfile":"p","corsOptions":{"allowedOrigins":["*"]},"suggesters":[{"name":"sg","sourceFields":["id"]}]}`,
		`{"name":"x1","fields":[{"name":"id","type":"Edm.String","key":true,"analyzer":"folded"}],"analyzers":[{"@odata.type":"#Microsoft.Azure.Search.CustomAnalyzer","name":"folded","tokenizer":"standard_v2","tokenFilters":["lowercase"]}]}`,
		`{"name":"syn","format":"solr","synonyms":"a, b => c"}`,
		`{"name":"ds","type":"azureblob","credentials":{"connectionString":"UseDevelopmentStorage=true"},"container":{"name":"c"}}`,
		`{"name":"sk","skills":[{"@odata.type":"#Microsoft.Skills.Util.ShaperSkill","inputs":[{"name":"a"}],"outputs":[{"name":"b"}]}]}`,
		`{"name":7}`, `{}`, `{"fields":[{"name":"id","type":"Collection(Edm.ComplexType)","fields":[{"name":"a","type":"Edm.String"}]}]}`,
	} {
		for kind := range len(Kinds) {
			f.Add(uint8(kind), seed)
		}
	}
	f.Fuzz(func(t *testing.T, kindByte uint8, body string) {
		kind := Kinds[int(kindByte)%len(Kinds)]
		d, err := ParseDefinition([]byte(body))
		if err != nil {
			return
		}
		s := newService(t)
		ctx := context.Background()
		// References for indexers and aliases.
		mustPut(t, s, Indexes, "", smallIndex, PutOptions{CreateOnly: true})
		mustPut(t, s, DataSources, "ds", `{"type":"azureblob","credentials":{"connectionString":"x"},"container":{"name":"c"}}`, PutOptions{})
		res, _, err := s.Put(ctx, kind, "", d, PutOptions{CreateOnly: true})
		if err != nil {
			var e *Error
			if !errors.As(err, &e) || (e.Status != http.StatusBadRequest && e.Status != http.StatusConflict) {
				t.Fatalf("%s %s: %v, want a 400 or 409", kind, body, err)
			}
			return
		}
		if kind == Indexes {
			if _, err := ParseIndex(res.Definition); err != nil {
				t.Fatalf("stored index does not parse: %v", err)
			}
		}
		again, err := ParseDefinition(testkit.JSON(t, res.Body()))
		if err != nil {
			t.Fatal(err)
		}
		if kind == DataSources {
			again["credentials"] = jsonObject(res.Definition)["credentials"]
		}
		res2, created, err := s.Put(ctx, kind, res.Name, again, PutOptions{})
		if err != nil || created {
			t.Fatalf("%s sent back refused (%v, created %v): %s", kind, err, created, testkit.JSON(t, res.Body()))
		}
		if !sameJSON(res.Definition, res2.Definition) {
			t.Fatalf("normalised %s is not a fixed point:\n%s\n%s", kind, testkit.JSON(t, res.Definition), testkit.JSON(t, res2.Definition))
		}
	})
}

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
