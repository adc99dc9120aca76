package search

import (
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"
)

type wire struct {
	t   *testing.T
	srv *httptest.Server
	// client is the server's own client when set (to trust a TLS test
	// server), http.DefaultClient otherwise.
	client *http.Client
}

func newWire(t *testing.T) *wire {
	t.Helper()
	srv := httptest.NewServer(NewHandler(newService(t)))
	t.Cleanup(srv.Close)
	return &wire{t: t, srv: srv}
}

// call sends one request; hdr holds extra headers ("api-key" defaults to
// the admin key).
func (w *wire) call(method, path, body string, hdr map[string]string) (*http.Response, map[string]any) {
	w.t.Helper()
	resp, b := w.send(method, path, body, hdr)
	var m map[string]any
	if len(b) > 0 {
		if err := json.Unmarshal(b, &m); err != nil {
			w.t.Fatalf("%s %s: body is not JSON: %s", method, path, b)
		}
	}
	return resp, m
}

// send sends one request as call does and returns the answer's body as
// sent.
func (w *wire) send(method, path, body string, hdr map[string]string) (*http.Response, []byte) {
	w.t.Helper()
	req, err := http.NewRequest(method, w.srv.URL+path, strings.NewReader(body))
	if err != nil {
		w.t.Fatal(err)
	}
	req.Header.Set("api-key", DefaultAdminKey)
	req.Header.Set("Content-Type", "application/json")
	for k, v := range hdr {
		req.Header.Set(k, v)
	}
	client := w.client
	if client == nil {
		client = http.DefaultClient
	}
	resp, err := client.Do(req)
	if err != nil {
		w.t.Fatal(err)
	}
	b, err := io.ReadAll(resp.Body)
	_ = resp.Body.Close()
	if err != nil {
		w.t.Fatal(err)
	}
	return resp, b
}

// count reads docs/$count, whose body is a bare number.
func (w *wire) count(index string, hdr map[string]string) int {
	w.t.Helper()
	req, err := http.NewRequest("GET", w.srv.URL+"/indexes('"+index+"')/docs/$count"+v, nil)
	if err != nil {
		w.t.Fatal(err)
	}
	req.Header.Set("api-key", DefaultAdminKey)
	for k, val := range hdr {
		req.Header.Set(k, val)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		w.t.Fatal(err)
	}
	defer func() { _ = resp.Body.Close() }()
	b, _ := io.ReadAll(resp.Body)
	n, err := strconv.Atoi(string(b))
	if resp.StatusCode != 200 || err != nil {
		w.t.Fatalf("count: %d %s", resp.StatusCode, b)
	}
	return n
}

func errorOf(body map[string]any) (code, message string) {
	e, _ := body["error"].(map[string]any)
	code, _ = e["code"].(string)
	message, _ = e["message"].(string)
	return code, message
}

const v = "?api-version=2024-07-01"

const smallIndex = `{"name":"hotels","fields":[{"name":"id","type":"Edm.String","key":true},{"name":"title","type":"Edm.String"}]}`

// TestAPIVersions: every version the service answers is accepted — the
// stable and preview versions the REST reference lists ("API versions"),
// the deprecated 2023-07-01-Preview included, 2016-09-01 and 2017-11-11
// that its earlier editions list and were never retired, and previews
// newer than the list — and the retired ones (2015-02-28 and the 2014/2015
// previews, "Discontinued versions") and versions that never existed are
// refused as the service refuses them.
func TestAPIVersions(t *testing.T) {
	w := newWire(t)
	for _, path := range []string{"/indexes", "/indexes?api-version="} {
		resp, body := w.call("GET", path, "", nil)
		if code, msg := errorOf(body); resp.StatusCode != 400 || code != "" || msg != "Invalid or missing api-version query string parameter." {
			t.Errorf("%s: %d %v", path, resp.StatusCode, body)
		}
	}
	for _, version := range []string{"2015-02-28", "2015-02-28-Preview", "2014-07-31-Preview", "2014-10-20-Preview", "2016-01-01",
		"2024-13-01-preview", "2023-08-15-preview", "latest", "2024-07-01-beta"} {
		resp, body := w.call("GET", "/indexes?api-version="+version, "", nil)
		if code, msg := errorOf(body); resp.StatusCode != 400 || code != "" || msg != "The version indicated by the api-version query string parameter does not exist." {
			t.Errorf("api-version %s: %d %v", version, resp.StatusCode, body)
		}
	}
	for _, version := range []string{"2016-09-01", "2017-11-11", "2016-09-01-Preview", "2017-11-11-Preview", "2019-05-06", "2020-06-30", "2023-11-01", "2024-07-01", "2025-09-01", "2026-04-01",
		"2019-05-06-Preview", "2020-06-30-Preview", "2021-04-30-Preview", "2023-07-01-Preview", "2023-10-01-Preview",
		"2024-03-01-preview", "2024-05-01-Preview", "2024-09-01-preview", "2024-11-01-preview", "2025-03-01-preview",
		"2025-05-01-preview", "2025-08-01-preview", "2025-11-01-preview", "2026-05-01-preview"} {
		if resp, body := w.call("GET", "/indexes?api-version="+version, "", nil); resp.StatusCode != 200 {
			t.Errorf("api-version %s: %d %v", version, resp.StatusCode, body)
		}
	}
}

func TestAPIKeys(t *testing.T) {
	w := newWire(t)
	if resp, body := w.call("POST", "/indexes"+v, smallIndex, nil); resp.StatusCode != 201 {
		t.Fatalf("create: %d %v", resp.StatusCode, body)
	}
	for _, key := range []string{"", "wrong", strings.ToUpper(DefaultAdminKey)} {
		resp, body := w.call("GET", "/indexes"+v, "", map[string]string{"api-key": key})
		if _, msg := errorOf(body); resp.StatusCode != 403 || msg == "" {
			t.Errorf("key %q: %d %v", key, resp.StatusCode, body)
		}
	}
	query := map[string]string{"api-key": DefaultQueryKey}
	for _, c := range []struct{ method, path, body string }{
		{"GET", "/indexes" + v, ""},
		{"GET", "/indexes('hotels')" + v, ""},
		{"PUT", "/indexes('hotels')" + v, smallIndex},
		{"DELETE", "/indexes/hotels" + v, ""},
		{"GET", "/servicestats" + v, ""},
		{"GET", "/indexes('hotels')/search.stats" + v, ""},
		{"POST", "/indexes('hotels')/docs/search.index" + v, `{"value":[]}`},
		{"POST", "/indexes/hotels/docs/index" + v, `{"value":[]}`},
		{"GET", "/nowhere" + v, ""},
	} {
		resp, body := w.call(c.method, c.path, c.body, query)
		if resp.StatusCode != 403 {
			t.Errorf("query key %s %s: %d %v", c.method, c.path, resp.StatusCode, body)
		}
	}
	// Query operations pass the key check and reach the document layer.
	for _, c := range []struct {
		method, path string
		status       int
	}{
		{"POST", "/indexes('hotels')/docs/search.post.search", 200},
		{"GET", "/indexes('hotels')/docs", 200},
		{"GET", "/indexes/hotels/docs/search", 200},
		{"POST", "/indexes('hotels')/docs/search.post.suggest", 400},
		{"GET", "/indexes('hotels')/docs/search.autocomplete", 400},
		{"GET", "/indexes('hotels')/docs('1')", 404},
		{"GET", "/indexes/hotels/docs/1", 404},
	} {
		resp, body := w.call(c.method, c.path+v, "{}", query)
		if resp.StatusCode != c.status {
			t.Errorf("query key %s %s: %d %v", c.method, c.path, resp.StatusCode, body)
		}
	}
	if n := w.count("hotels", query); n != 0 {
		t.Errorf("count with the query key: %d", n)
	}
	if resp, _ := w.call("GET", "/indexes('nope')/docs/$count"+v, "", query); resp.StatusCode != 404 {
		t.Errorf("documents of a missing index: %d", resp.StatusCode)
	}
}

// TestPreferAndStatuses: 201 on create, 204 on an update unless a
// representation is asked for, 204 on delete; ETag header and body agree.
func TestPreferAndStatuses(t *testing.T) {
	w := newWire(t)
	resp, body := w.call("PUT", "/indexes('hotels')"+v, smallIndex, nil)
	if resp.StatusCode != 201 || body["@odata.etag"] != resp.Header.Get("ETag") || resp.Header.Get("ETag") == "" {
		t.Fatalf("create by PUT: %d %v %v", resp.StatusCode, resp.Header, body)
	}
	first := resp.Header.Get("ETag")
	resp, body = w.call("PUT", "/indexes('hotels')"+v, smallIndex, nil)
	if resp.StatusCode != 204 || body != nil || resp.Header.Get("ETag") == first {
		t.Errorf("update without Prefer: %d %v", resp.StatusCode, body)
	}
	resp, body = w.call("PUT", "/indexes/hotels"+v, smallIndex, map[string]string{"Prefer": "return=representation"})
	if resp.StatusCode != 200 || body["name"] != "hotels" || resp.Header.Get("Preference-Applied") != appliedPreference {
		t.Errorf("update with representation: %d %v", resp.StatusCode, body)
	}
	resp, _ = w.call("PUT", "/synonymmaps('s')"+v, `{"name":"s","format":"solr","synonyms":"a,b"}`, map[string]string{"Prefer": "return=minimal"})
	if resp.StatusCode != 204 || resp.Header.Get("ETag") == "" {
		t.Errorf("minimal create: %d", resp.StatusCode)
	}
	resp, body = w.call("PUT", "/indexes('hotels')"+v, smallIndex, map[string]string{"If-Match": first})
	if code, msg := errorOf(body); resp.StatusCode != 412 || code != "" || !strings.HasPrefix(msg, "The precondition given in one of the request headers evaluated to false.") {
		t.Errorf("stale If-Match: %d %v", resp.StatusCode, body)
	}
	resp, _ = w.call("PUT", "/indexes('hotels')"+v, smallIndex, map[string]string{"If-None-Match": "*"})
	if resp.StatusCode != 412 {
		t.Errorf("If-None-Match * on an existing index: %d", resp.StatusCode)
	}
	resp, body = w.call("GET", "/indexes"+v+"&$select=name", "", nil)
	values, _ := body["value"].([]any)
	if resp.StatusCode != 200 || len(values) != 1 || len(values[0].(map[string]any)) != 1 || values[0].(map[string]any)["name"] != "hotels" {
		t.Errorf("list $select=name: %d %v", resp.StatusCode, body)
	}
	resp, body = w.call("GET", "/indexes('hotels')/search.stats"+v, "", nil)
	if resp.StatusCode != 200 || body["documentCount"] != float64(0) || body["storageSize"] != float64(0) {
		t.Errorf("stats: %d %v", resp.StatusCode, body)
	}
	resp, body = w.call("GET", "/servicestats"+v, "", nil)
	counters, _ := body["counters"].(map[string]any)
	if resp.StatusCode != 200 || counters["indexesCount"].(map[string]any)["usage"] != float64(1) {
		t.Errorf("service stats: %d %v", resp.StatusCode, body)
	}
	if resp, _ := w.call("DELETE", "/indexes('hotels')"+v, "", nil); resp.StatusCode != 204 {
		t.Errorf("delete: %d", resp.StatusCode)
	}
	resp, body = w.call("GET", "/indexes('hotels')"+v, "", nil)
	if _, msg := errorOf(body); resp.StatusCode != 404 || !strings.Contains(msg, "No index with the name 'hotels' was found") {
		t.Errorf("get after delete: %d %v", resp.StatusCode, body)
	}
}

// TestBadInput: malformed bodies, paths and parameters are 400 (or 404
// for unknown resources), never 500.
func TestBadInput(t *testing.T) {
	w := newWire(t)
	for _, c := range []struct {
		method, path, body string
		status             int
	}{
		{"POST", "/indexes" + v, `{"name":`, 400},
		{"POST", "/indexes" + v, `[1,2]`, 400},
		{"POST", "/indexes" + v, `{"name":"a1","fields":[]} trailing`, 400},
		{"POST", "/indexes" + v, `{"name":7,"fields":[]}`, 400},
		{"POST", "/indexes" + v, `{"name":"ok-name","fields":"nope"}`, 400},
		{"POST", "/indexes" + v, `{"name":"ok-name","fields":[1]}`, 400},
		{"PUT", "/indexes('hotels')" + v + "&allowIndexDowntime=maybe", smallIndex, 400},
		{"PUT", "/indexes('HOTELS')" + v, smallIndex, 400},
		{"GET", "/indexes('a')/x/y" + v, "", 404},
		{"GET", "/widgets" + v, "", 404},
		{"PATCH", "/indexes('hotels')" + v, smallIndex, 405},
		{"POST", "/indexers('none')/search.run" + v, "", 404},
	} {
		resp, body := w.call(c.method, c.path, c.body, nil)
		if _, msg := errorOf(body); resp.StatusCode != c.status || msg == "" {
			t.Errorf("%s %s %s: %d %v, want %d", c.method, c.path, c.body, resp.StatusCode, body, c.status)
		}
	}
}

func TestParseSegment(t *testing.T) {
	for in, want := range map[string]segment{
		"indexes":            {name: "indexes"},
		"indexes('a')":       {name: "indexes", key: "a", hasKey: true},
		"docs('it''s')":      {name: "docs", key: "it's", hasKey: true},
		"docs('')":           {name: "docs", key: "", hasKey: true},
		"search.post.search": {name: "search.post.search"},
		"$count":             {name: "$count"},
	} {
		if got := parseSegment(in); got != want {
			t.Errorf("%q: %+v, want %+v", in, got, want)
		}
	}
}

// TestErrorKeyOrder: an error answer writes code, message, then details,
// as Azure writes them (the Java SDK's recording
// AutocompleteTests.canAutocompleteThrowsWhenGivenBadSuggesterNameSync);
// encoding a map would sort details before message.
func TestErrorKeyOrder(t *testing.T) {
	rec := httptest.NewRecorder()
	req := httptest.NewRequest(http.MethodGet, "/indexes('none')?api-version=2023-11-01", nil)
	h := &handler{}
	h.writeError(rec, req, &Error{Status: http.StatusBadRequest, Code: "MissingRequiredParameter", Message: "m", Details: []ErrorDetail{{Code: "MissingSuggesterName", Message: "d"}}})
	want := `{"error":{"code":"MissingRequiredParameter","message":"m","details":[{"code":"MissingSuggesterName","message":"d"}]}}`
	if got := rec.Body.String(); got != want {
		t.Errorf("error body\n got %s\nwant %s", got, want)
	}
}

// TestResultKeyOrder: an indexing result writes key, status,
// errorMessage, statusCode and an Autocomplete item text before
// queryPlusText, as Azure does (the Java SDK's IndexingTests and
// AutocompleteTests recordings).
func TestResultKeyOrder(t *testing.T) {
	msg := "m"
	for _, c := range []struct {
		v    any
		want string
	}{
		{indexingResult{Key: "1", Status: true, StatusCode: 201}, `{"key":"1","status":true,"errorMessage":null,"statusCode":201}`},
		{indexingResult{Key: "2", ErrorMessage: &msg, StatusCode: 404}, `{"key":"2","status":false,"errorMessage":"m","statusCode":404}`},
		{Completion{Text: "point", QueryPlusText: "po point"}, `{"text":"point","queryPlusText":"po point"}`},
	} {
		got, err := json.Marshal(c.v)
		if err != nil || string(got) != c.want {
			t.Errorf("got %s (%v), want %s", got, err, c.want)
		}
	}
}
