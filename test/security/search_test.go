package security

import (
	"bytes"
	"net/http"
	"testing"

	"github.com/cerulean-db/cerulean/internal/testkit"
)

const searchAPIVersion = "2024-07-01"

// searchCall is one Search request: path after the endpoint, with the
// api-version added.
type searchCall struct {
	name         string
	method, path string
	body         string
	query        bool // a query key may perform it
}

func (f *fixture) search(t testing.TB, c searchCall, key string) testkit.Response {
	t.Helper()
	sep := "?"
	if bytes.ContainsRune([]byte(c.path), '?') {
		sep = "&"
	}
	r, err := http.NewRequestWithContext(t.Context(), c.method, f.env.SearchURL+"/"+c.path+sep+"api-version="+searchAPIVersion,
		bytes.NewReader([]byte(c.body)))
	if err != nil {
		t.Fatalf("build %s %s: %v", c.method, c.path, err)
	}
	r.Header.Set("Content-Type", "application/json")
	if key != "" {
		r.Header.Set("api-key", key)
	}
	return do(t, r)
}

// TestSearchKeys: an admin key may do everything; a query key only reads
// the documents of an index (search, suggest, autocomplete, lookup, count)
// and is refused the rest with 403; a missing or unknown key is refused
// everything.
func TestSearchKeys(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	index := searchCall{method: http.MethodPost, path: "indexes", body: `{"name":"hotels","fields":[` +
		`{"name":"id","type":"Edm.String","key":true},{"name":"name","type":"Edm.String","searchable":true}],` +
		`"suggesters":[{"name":"sg","searchMode":"analyzingInfixMatching","sourceFields":["name"]}]}`}
	must2xx(t, f.search(t, index, f.env.SearchAdminKey), "create index")
	upload := searchCall{name: "Index Documents", method: http.MethodPost, path: "indexes/hotels/docs/index",
		body: `{"value":[{"@search.action":"upload","id":"1","name":"harbour view"}]}`}
	must2xx(t, f.search(t, upload, f.env.SearchAdminKey), "upload")

	ops := []searchCall{
		{name: "Search (GET)", method: http.MethodGet, path: "indexes/hotels/docs?search=harbour", query: true},
		{name: "Search (POST)", method: http.MethodPost, path: "indexes/hotels/docs/search.post.search", body: `{"search":"harbour"}`, query: true},
		{name: "Suggest", method: http.MethodPost, path: "indexes/hotels/docs/search.post.suggest", body: `{"search":"harb","suggesterName":"sg"}`, query: true},
		{name: "Autocomplete", method: http.MethodPost, path: "indexes/hotels/docs/search.post.autocomplete", body: `{"search":"harb","suggesterName":"sg"}`, query: true},
		{name: "Lookup", method: http.MethodGet, path: "indexes/hotels/docs/1", query: true},
		{name: "Count", method: http.MethodGet, path: "indexes/hotels/docs/$count", query: true},
		upload,
		{name: "Get Index", method: http.MethodGet, path: "indexes/hotels"},
		{name: "List Indexes", method: http.MethodGet, path: "indexes"},
		{name: "Get Index Statistics", method: http.MethodGet, path: "indexes/hotels/stats"},
		{name: "Get Service Statistics", method: http.MethodGet, path: "servicestats"},
		{name: "Create Index", method: http.MethodPut, path: "indexes/other", body: `{"name":"other","fields":[{"name":"id","type":"Edm.String","key":true}]}`},
		{name: "List Indexers", method: http.MethodGet, path: "indexers"},
		{name: "List Data Sources", method: http.MethodGet, path: "datasources"},
	}
	for _, op := range ops {
		if resp := f.search(t, op, f.env.SearchQueryKey); op.query {
			wantOK(t, resp, op.name+" with the query key")
		} else {
			wantStatus(t, resp, http.StatusForbidden, op.name+" with the query key")
		}
		wantStatus(t, f.search(t, op, ""), http.StatusForbidden, op.name+" without api-key")
		wantStatus(t, f.search(t, op, f.env.SearchAdminKey+"x"), http.StatusForbidden, op.name+" with an unknown key")
		wantStatus(t, f.search(t, op, f.env.Key), http.StatusForbidden, op.name+" with the Storage account key")
		wantOK(t, f.search(t, op, f.env.SearchAdminKey), op.name+" with the admin key")
	}
	delete := searchCall{method: http.MethodDelete, path: "indexes/hotels"}
	wantStatus(t, f.search(t, delete, f.env.SearchQueryKey), http.StatusForbidden, "Delete Index with the query key")
	wantOK(t, f.search(t, delete, f.env.SearchAdminKey), "Delete Index with the admin key")
}
