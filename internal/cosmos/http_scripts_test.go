package cosmos

import (
	"encoding/base64"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"
	"time"
)

// gateway serves s over HTTP and sends master-key signed requests to it.
type gateway struct {
	t   *testing.T
	srv *httptest.Server
}

func newGateway(t *testing.T, s *Service) *gateway {
	srv := httptest.NewServer(NewHandler(s))
	t.Cleanup(srv.Close)
	return &gateway{t: t, srv: srv}
}

// do sends a signed request; path has no leading slash.
func (g *gateway) do(method, path, body string, hdr map[string]string) (*http.Response, string) {
	g.t.Helper()
	resp, err := http.DefaultClient.Do(g.request(method, path, body, hdr))
	if err != nil {
		g.t.Fatal(err)
	}
	defer func() { _ = resp.Body.Close() }()
	b, _ := io.ReadAll(resp.Body)
	return resp, string(b)
}

// request builds a signed request; path has no leading slash.
func (g *gateway) request(method, path, body string, hdr map[string]string) *http.Request {
	g.t.Helper()
	req, err := http.NewRequest(method, g.srv.URL+"/"+path, strings.NewReader(body))
	if err != nil {
		g.t.Fatal(err)
	}
	segs, _ := splitPath("/" + path)
	rt, link := resourceOf(segs)
	date := time.Now().UTC().Format(http.TimeFormat)
	key, _ := base64.StdEncoding.DecodeString(EmulatorKey)
	sig := base64.StdEncoding.EncodeToString(sign(key, stringToSign(method, rt, link, date)))
	req.Header.Set("Authorization", url.QueryEscape("type=master&ver=1.0&sig="+sig))
	req.Header.Set("x-ms-date", date)
	req.Header.Set("Content-Type", "application/json")
	for k, v := range hdr {
		req.Header.Set(k, v)
	}
	return req
}

func (g *gateway) expect(status int, method, path, body string, hdr map[string]string) (*http.Response, string) {
	g.t.Helper()
	resp, b := g.do(method, path, body, hdr)
	if resp.StatusCode != status {
		g.t.Fatalf("%s /%s: %d %s, want %d", method, path, resp.StatusCode, b, status)
	}
	return resp, b
}

func TestScriptsOverHTTP(t *testing.T) {
	g := newGateway(t, newScriptService(t, 0))
	const coll = "dbs/db/colls/items"
	_, b := g.expect(http.StatusCreated, "POST", coll+"/sprocs", `{"id":"hello","body":"function hello(name) { console.log('hi ' + name); getContext().getResponse().setBody({greeting: 'hello ' + name}); }"}`, nil)
	var sp map[string]any
	if err := json.Unmarshal([]byte(b), &sp); err != nil || sp["_etag"] == nil || !strings.Contains(sp["_self"].(string), "/sprocs/") {
		t.Fatalf("created sproc: %s", b)
	}
	g.expect(http.StatusConflict, "POST", coll+"/sprocs", `{"id":"hello","body":"function(){}"}`, nil)
	g.expect(http.StatusOK, "GET", coll+"/sprocs/hello", "", nil)
	_, b = g.expect(http.StatusOK, "GET", coll+"/sprocs", "", nil)
	if !strings.Contains(b, `"StoredProcedures":[{`) || !strings.Contains(b, `"_count":1`) {
		t.Fatalf("sproc feed: %s", b)
	}
	_, b = g.expect(http.StatusOK, "POST", coll+"/sprocs", `{"query":"SELECT * FROM s WHERE s.id = 'hello'"}`, map[string]string{"Content-Type": "application/query+json", "x-ms-documentdb-isquery": "true"})
	if !strings.Contains(b, `"_count":1`) {
		t.Fatalf("sproc query: %s", b)
	}
	g.expect(http.StatusPreconditionFailed, "PUT", coll+"/sprocs/hello", `{"id":"hello","body":"function(){}"}`, map[string]string{"If-Match": `"stale"`})
	resp, b := g.expect(http.StatusOK, "POST", coll+"/sprocs/hello", `["world"]`, map[string]string{
		"x-ms-documentdb-partitionkey": `["a"]`, "x-ms-documentdb-script-enable-logging": "true"})
	if b != `{"greeting":"hello world"}` {
		t.Fatalf("execute: %s", b)
	}
	if l := resp.Header.Get("x-ms-documentdb-script-log-results"); l != "hi%20world" {
		t.Fatalf("log header %q", l)
	}
	g.expect(http.StatusCreated, "POST", coll+"/triggers", `{"id":"v","triggerType":"pre","triggerOperation":"create","body":"function v() { if (!getContext().getRequest().getBody().name) throw new Error('name required'); }"}`, nil)
	g.expect(http.StatusBadRequest, "POST", coll+"/triggers", `{"id":"w","triggerType":"Pre","triggerOperation":"Sometimes","body":"function(){}"}`, nil)
	_, b = g.expect(http.StatusBadRequest, "POST", coll+"/docs", `{"id":"1","pk":"a"}`, map[string]string{
		"x-ms-documentdb-partitionkey": `["a"]`, "x-ms-documentdb-pre-trigger-include": "v"})
	var e struct{ Code, Message string }
	if err := json.Unmarshal([]byte(b), &e); err != nil || e.Code != "BadRequest" || !strings.HasPrefix(e.Message, `Message: {"Errors":["Encountered exception while executing function. Exception = Error: name required`) {
		t.Fatalf("rejected by a trigger: %s", b)
	}
	g.expect(http.StatusCreated, "POST", coll+"/docs", `{"id":"1","pk":"a","name":"n"}`, map[string]string{
		"x-ms-documentdb-partitionkey": `["a"]`, "x-ms-documentdb-pre-trigger-include": "v"})
	g.expect(http.StatusCreated, "POST", coll+"/udfs", `{"id":"up","body":"function up(s) { return s.toUpperCase(); }"}`, nil)
	_, b = g.expect(http.StatusOK, "POST", coll+"/docs", `{"query":"SELECT VALUE udf.up(c.name) FROM c"}`, map[string]string{
		"Content-Type": "application/query+json", "x-ms-documentdb-isquery": "true", "x-ms-documentdb-partitionkey": `["a"]`})
	if !strings.Contains(b, `"Documents":["N"]`) {
		t.Fatalf("udf query: %s", b)
	}
	g.expect(http.StatusNoContent, "DELETE", coll+"/udfs/up", "", nil)
	g.expect(http.StatusNotFound, "GET", coll+"/udfs/up", "", nil)
	g.expect(http.StatusMethodNotAllowed, "POST", coll+"/udfs/up", "", nil)
}
