package cosmossdk

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/data/azcosmos"
	"github.com/cerulean-db/cerulean/internal/servertest"
	"github.com/cerulean-db/cerulean/internal/testkit"
)

// rawHeaders sends a signed request and returns the response's header
// names and values exactly as they came over the wire (Go's client would
// canonicalise them), with the status and body.
func rawHeaders(t *testing.T, env *servertest.Env, rr rawRequest) (int, map[string]string, []byte) {
	t.Helper()
	u := strings.TrimSuffix(env.CosmosURL, "/") + rr.path
	if !strings.HasPrefix(u, "http://") {
		t.Fatalf("raw header case is read over plain HTTP, not %s", u)
	}
	req, err := http.NewRequest(rr.method, u, bytes.NewReader(rr.body))
	if err != nil {
		t.Fatal(err)
	}
	if err := testkit.CosmosSign(req, env.CosmosKey, rr.resourceType, rr.link, time.Now()); err != nil {
		t.Fatal(err)
	}
	for k, v := range rr.header {
		req.Header.Set(k, v)
	}
	var mu sync.Mutex
	var wire bytes.Buffer
	dial := func(ctx context.Context, network, addr string) (net.Conn, error) {
		c, err := (&net.Dialer{}).DialContext(ctx, network, addr)
		if err != nil {
			return nil, err
		}
		return &tapConn{Conn: c, mu: &mu, buf: &wire}, nil
	}
	tr := &http.Transport{DialContext: dial, DisableKeepAlives: true}
	resp, err := (&http.Client{Transport: tr}).Do(req)
	if err != nil {
		t.Fatal(err)
	}
	var body bytes.Buffer
	_, _ = body.ReadFrom(resp.Body)
	_ = resp.Body.Close()
	mu.Lock()
	raw := wire.Bytes()
	mu.Unlock()
	end := bytes.Index(raw, []byte("\r\n\r\n"))
	if end < 0 {
		t.Fatalf("no header block in %q", raw)
	}
	names := map[string]string{}
	for _, line := range strings.Split(string(raw[:end]), "\r\n")[1:] {
		k, v, _ := strings.Cut(line, ":")
		names[k] = strings.TrimSpace(v)
	}
	return resp.StatusCode, names, body.Bytes()
}

type tapConn struct {
	net.Conn
	mu  *sync.Mutex
	buf *bytes.Buffer
}

func (c *tapConn) Read(p []byte) (int, error) {
	n, err := c.Conn.Read(p)
	c.mu.Lock()
	c.buf.Write(p[:n])
	c.mu.Unlock()
	return n, err
}

// TestResponseHeaderCase: every x-ms-* header, and etag, goes out in the
// lower case the gateway sends, on successes and on errors alike.
func TestResponseHeaderCase(t *testing.T) {
	env, _, cc := setup(t)
	if _, err := cc.CreateItem(context.Background(), azcosmos.NewPartitionKeyString("a"), mustJSON(t, map[string]any{"id": "1", "pk": "a"}), nil); err != nil {
		t.Fatal(err)
	}
	cases := []struct {
		name   string
		rr     rawRequest
		status int
		want   []string
	}{
		{"read item", rawRequest{method: "GET", path: "/dbs/db/colls/items/docs/1", resourceType: "docs", link: "dbs/db/colls/items/docs/1",
			header: map[string]string{"x-ms-documentdb-partitionkey": `["a"]`, "x-ms-version": "2018-12-31"}},
			200, []string{"x-ms-activity-id", "x-ms-request-charge", "x-ms-session-token", "x-ms-version", "etag", "x-ms-request-id"}},
		{"read database", rawRequest{method: "GET", path: "/dbs/db", resourceType: "dbs", link: "dbs/db"},
			200, []string{"x-ms-activity-id", "x-ms-request-charge", "etag"}},
		{"missing item", rawRequest{method: "GET", path: "/dbs/db/colls/items/docs/nope", resourceType: "docs", link: "dbs/db/colls/items/docs/nope",
			header: map[string]string{"x-ms-documentdb-partitionkey": `["a"]`}},
			404, []string{"x-ms-activity-id", "x-ms-request-charge", "x-ms-session-token"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			status, names, body := rawHeaders(t, env, tc.rr)
			if status != tc.status {
				t.Fatalf("status %d, want %d: %s", status, tc.status, body)
			}
			for _, w := range tc.want {
				if _, ok := names[w]; !ok {
					t.Errorf("header %q not sent in lower case; sent %v", w, keysOf(names))
				}
			}
			for k := range names {
				if strings.HasPrefix(strings.ToLower(k), "x-ms-") && k != strings.ToLower(k) {
					t.Errorf("header %q not in lower case", k)
				}
				if strings.EqualFold(k, "etag") && k != "etag" {
					t.Errorf("header %q, want etag", k)
				}
			}
		})
	}
}

// TestLegacyPagingReadsContinuationCaseSensitively pages 25 items at page
// size 4 the way the legacy Python SDK does: it looks x-ms-continuation up
// in a plain dict of the response headers, so any other case ends paging
// after the first page.
func TestLegacyPagingReadsContinuationCaseSensitively(t *testing.T) {
	env, _, cc := setup(t)
	ctx := context.Background()
	var want []string
	for i := range 25 {
		id := fmt.Sprintf("item-%02d", i)
		want = append(want, id)
		pk := fmt.Sprintf("p%d", i%3)
		if _, err := cc.CreateItem(ctx, azcosmos.NewPartitionKeyString(pk), mustJSON(t, map[string]any{"id": id, "pk": pk}), nil); err != nil {
			t.Fatal(err)
		}
	}
	for _, mode := range []string{"feed", "query"} {
		t.Run(mode, func(t *testing.T) {
			var got []string
			cont, pages := "", 0
			for {
				hdr := map[string]string{"x-ms-max-item-count": "4", "x-ms-documentdb-query-enablecrosspartition": "true"}
				if cont != "" {
					hdr["x-ms-continuation"] = cont
				}
				rr := rawRequest{method: "GET", path: "/dbs/db/colls/items/docs", resourceType: "docs", link: "dbs/db/colls/items", header: hdr}
				if mode == "query" {
					rr.method = "POST"
					rr.body = []byte(`{"query":"SELECT * FROM c","parameters":[]}`)
					hdr["x-ms-documentdb-isquery"] = "true"
					hdr["Content-Type"] = "application/query+json"
				}
				status, names, body := rawHeaders(t, env, rr)
				if status != http.StatusOK {
					t.Fatalf("page %d: status %d: %s", pages, status, body)
				}
				pages++
				var page struct{ Documents []map[string]any }
				if err := json.Unmarshal(body, &page); err != nil {
					t.Fatal(err)
				}
				if len(page.Documents) > 4 {
					t.Fatalf("page %d has %d items", pages, len(page.Documents))
				}
				for _, d := range page.Documents {
					got = append(got, d["id"].(string))
				}
				if names["x-ms-item-count"] != fmt.Sprint(len(page.Documents)) {
					t.Errorf("x-ms-item-count = %q for %d items (headers %v)", names["x-ms-item-count"], len(page.Documents), keysOf(names))
				}
				cont = names["x-ms-continuation"] // case-sensitive, as the legacy SDK reads it
				if cont == "" || pages > 25 {
					break
				}
			}
			sort.Strings(got)
			if strings.Join(got, ",") != strings.Join(want, ",") {
				t.Fatalf("paged %d items in %d pages: %v", len(got), pages, got)
			}
			if pages < 7 {
				t.Fatalf("25 items at 4 per page came in %d pages", pages)
			}
		})
	}
}

func keysOf(m map[string]string) []string {
	var out []string
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}
