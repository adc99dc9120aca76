package console_test

import (
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/cerulean-db/cerulean/internal/console"
	"github.com/cerulean-db/cerulean/internal/servertest"
)

// startConsole serves a console for a fresh server on a test server.
func startConsole(t *testing.T) (*httptest.Server, *servertest.Env) {
	t.Helper()
	env := servertest.Start(t)
	h, err := console.New(console.Config{
		BlobURL: env.BlobURL, QueueURL: env.QueueURL, TableURL: env.TableURL, FileURL: env.FileURL,
		Account: env.Account, Key: env.Key,
		CosmosURL: env.CosmosURL, CosmosKey: env.CosmosKey,
		SearchURL: env.SearchURL, SearchAdminKey: env.SearchAdminKey,
	})
	if err != nil {
		t.Fatal(err)
	}
	site := httptest.NewServer(h)
	t.Cleanup(site.Close)
	return site, env
}

// consoleCall is one request as the page sends it.
func consoleCall(t *testing.T, site *httptest.Server, method, path string, header map[string]string, body string) (*http.Response, string) {
	t.Helper()
	req := newRequest(t, method, site.URL+path, strings.NewReader(body))
	req.Header.Set(console.ConsoleHeader, "1")
	return exchange(t, site, req, header)
}

func TestProxySignsEachService(t *testing.T) {
	site, _ := startConsole(t)
	steps := []struct {
		name, method, path string
		header             map[string]string
		body               string
		want               int
		contains           string
	}{
		{"blob create container", "PUT", "/console/api/blob/photos?restype=container", nil, "", 201, ""},
		{"blob put", "PUT", "/console/api/blob/photos/a%20dir/b.txt", map[string]string{"x-ms-blob-type": "BlockBlob", "Content-Type": "text/plain"}, "hello", 201, ""},
		{"blob put, an awkward name", "PUT", "/console/api/blob/photos/odd%20%2B%C3%BC%25%23%3F.txt", map[string]string{"x-ms-blob-type": "BlockBlob"}, "x", 201, ""},
		{"blob list", "GET", "/console/api/blob/photos?restype=container&comp=list&include=metadata", nil, "", 200, "<Name>a dir/b.txt</Name>"},
		{"blob list, the awkward name", "GET", "/console/api/blob/photos?restype=container&comp=list&prefix=odd", nil, "", 200, "<Name>odd +ü%#?.txt</Name>"},
		{"blob get", "GET", "/console/api/blob/photos/a%20dir/b.txt", nil, "", 200, "hello"},
		{"queue create", "PUT", "/console/api/queue/jobs", nil, "", 201, ""},
		{"queue put", "POST", "/console/api/queue/jobs/messages", nil, "<QueueMessage><MessageText>hi</MessageText></QueueMessage>", 201, ""},
		{"queue peek", "GET", "/console/api/queue/jobs/messages?peekonly=true", nil, "", 200, "<MessageText>hi</MessageText>"},
		{"table create", "POST", "/console/api/table/Tables", map[string]string{"Content-Type": "application/json"}, `{"TableName":"people"}`, 201, ""},
		{"table query", "GET", "/console/api/table/people()?$filter=PartitionKey%20eq%20'x'", nil, "", 200, `"value":[]`},
		{"file create share", "PUT", "/console/api/file/docs?restype=share", nil, "", 201, ""},
		{"file list", "GET", "/console/api/file/docs?restype=directory&comp=list", nil, "", 200, "<Entries"},
		{"cosmos create database", "POST", "/console/api/cosmos/dbs", map[string]string{"Content-Type": "application/json"}, `{"id":"shop"}`, 201, ""},
		{"cosmos list databases", "GET", "/console/api/cosmos/dbs", nil, "", 200, `"id":"shop"`},
		{"search list indexes", "GET", "/console/api/search/indexes?api-version=2024-07-01", nil, "", 200, `"value":[]`},
	}
	for _, s := range steps {
		resp, body := consoleCall(t, site, s.method, s.path, s.header, s.body)
		if resp.StatusCode != s.want || !strings.Contains(body, s.contains) {
			t.Fatalf("%s: got %d %s, want %d containing %q", s.name, resp.StatusCode, body, s.want, s.contains)
		}
	}
}
