package console_test

import (
	"strings"
	"testing"

	"github.com/cerulean-db/cerulean/internal/console"
)

func TestConsoleServesItsPageAndAssets(t *testing.T) {
	site, _ := startConsole(t)
	for _, c := range []struct {
		path, contentType string
		want              int
		contains          string
	}{
		{"/", "text/html", 200, `src="/console/static/js/app.js"`},
		{"/console/", "text/html", 200, `<main id="main">`},
		{"/console/static/js/app.js", "javascript", 200, "hashchange"},
		{"/console/static/console.css", "text/css", 200, ".etag"},
		{"/console/services.json", "application/json", 200, `"blob":true`},
		{"/console/static/nothing.js", "", 404, ""},
		{"/elsewhere", "", 404, ""},
	} {
		resp, body := send(t, site, "GET", site.URL+c.path, "", nil)
		if resp.StatusCode != c.want || !strings.Contains(resp.Header.Get("Content-Type"), c.contentType) || !strings.Contains(body, c.contains) {
			t.Errorf("GET %s: got %d %s %.100q, want %d %s containing %q", c.path, resp.StatusCode, resp.Header.Get("Content-Type"), body, c.want, c.contentType, c.contains)
		}
		if c.want == 200 && !strings.Contains(resp.Header.Get("Content-Security-Policy"), "default-src 'self'") && c.path != "/console/services.json" {
			t.Errorf("GET %s: no Content-Security-Policy", c.path)
		}
	}
}

// TestProxyPassesTheServicesAnswers: conflicts and errors reach the page
// as the services sent them.
func TestProxyPassesTheServicesAnswers(t *testing.T) {
	site, _ := startConsole(t)
	json := map[string]string{"Content-Type": "application/json", "Accept": "application/json;odata=minimalmetadata"}
	for _, step := range []struct {
		method, path string
		header       map[string]string
		body         string
		want         int
		code         string
	}{
		{"GET", "/console/api/blob/missing?restype=container&comp=list", nil, "", 404, "ContainerNotFound"},
		{"POST", "/console/api/table/Tables", json, `{"TableName":"orders"}`, 201, ""},
		{"POST", "/console/api/table/orders", json, `{"PartitionKey":"p","RowKey":"r","Status":"new"}`, 201, ""},
		{"PUT", "/console/api/table/orders(PartitionKey='p',RowKey='r')", withIfMatch(json, `W/"datetime'2000-01-01T00%3A00%3A00Z'"`), `{"Status":"stale"}`, 412, "UpdateConditionNotSatisfied"},
		{"GET", "/console/api/cosmos/dbs/nope", nil, "", 404, "NotFound"},
		{"GET", "/console/api/search/indexes/nope?api-version=2024-07-01", nil, "", 404, ""},
		{"GET", "/console/api/nosuch/x", nil, "", 404, "ServiceNotConfigured"},
	} {
		resp, body := consoleCall(t, site, step.method, step.path, step.header, step.body)
		if resp.StatusCode != step.want || !strings.Contains(body+resp.Header.Get("x-ms-error-code"), step.code) {
			t.Errorf("%s %s: got %d %.300s, want %d %s", step.method, step.path, resp.StatusCode, body, step.want, step.code)
		}
	}
}

// TestProxyResponsesAreNotPages: a blob stored as HTML comes back
// sandboxed, so even a browser that rendered it would not run it as the
// console's origin.
func TestProxyResponsesAreNotPages(t *testing.T) {
	site, _ := startConsole(t)
	consoleCall(t, site, "PUT", "/console/api/blob/web?restype=container", nil, "")
	resp, _ := consoleCall(t, site, "PUT", "/console/api/blob/web/page.html", map[string]string{"x-ms-blob-type": "BlockBlob", "x-ms-blob-content-type": "text/html"}, "<script>alert(1)</script>")
	if resp.StatusCode != 201 {
		t.Fatalf("put blob: %d", resp.StatusCode)
	}
	resp, body := consoleCall(t, site, "GET", "/console/api/blob/web/page.html", nil, "")
	if resp.StatusCode != 200 || resp.Header.Get("Content-Type") != "text/html" || body != "<script>alert(1)</script>" {
		t.Fatalf("get blob: %d %s %q", resp.StatusCode, resp.Header.Get("Content-Type"), body)
	}
	if csp := resp.Header.Get("Content-Security-Policy"); !strings.HasPrefix(csp, "sandbox") || resp.Header.Get("X-Content-Type-Options") != "nosniff" {
		t.Errorf("a proxied body is served with CSP %q, X-Content-Type-Options %q", csp, resp.Header.Get("X-Content-Type-Options"))
	}
}

func withIfMatch(h map[string]string, etag string) map[string]string {
	out := map[string]string{"If-Match": etag}
	for k, v := range h {
		out[k] = v
	}
	return out
}

func TestNewRejectsBadConfig(t *testing.T) {
	for _, cfg := range []console.Config{
		{BlobURL: "http://127.0.0.1:1/a/", Account: "a", Key: "not base64!"},
		{BlobURL: "http://127.0.0.1:1/a/", Key: "a2V5"},
		{BlobURL: "ftp://127.0.0.1:1/a/", Account: "a", Key: "a2V5"},
		{CosmosURL: "http://127.0.0.1:1/", CosmosKey: ""},
		{SearchURL: "http://127.0.0.1:1"},
		{BlobURL: "http://127.0.0.1:1/a/", Account: "a", Key: "a2V5", MoreAccounts: []console.StorageAccount{{Name: "b"}}},
		{BlobURL: "http://127.0.0.1:1/a/", Account: "a", Key: "a2V5", MoreAccounts: []console.StorageAccount{{Name: "a", Key: []byte("k")}}},
		{BlobURL: "http://127.0.0.1:1/a/", Account: "a", Key: "a2V5", MoreAccounts: []console.StorageAccount{{Key: []byte("k")}}},
	} {
		if _, err := console.New(cfg); err == nil {
			t.Errorf("New(%+v) accepted it", cfg)
		}
	}
	// No service at all is a console with nothing to show, not an error.
	if _, err := console.New(console.Config{}); err != nil {
		t.Fatalf("New with no services: %v", err)
	}
}
