package cosmossdk

import (
	"context"
	"encoding/json"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/data/azcosmos"
	"github.com/cerulean-db/cerulean/internal/servertest"
)

func TestAuthentication(t *testing.T) {
	env := servertest.Start(t)
	ok := rawRequest{method: "GET", path: "/dbs", resourceType: "dbs", link: ""}
	if resp, body := send(t, env, ok); resp.StatusCode != http.StatusOK {
		t.Fatalf("signed request: %d %s", resp.StatusCode, body)
	}
	wrongKey := ok
	wrongKey.key = "dGhpcyBpcyBub3QgdGhlIGtleQ=="
	if resp, body := send(t, env, wrongKey); resp.StatusCode != http.StatusUnauthorized || !strings.Contains(string(body), `"code":"Unauthorized"`) {
		t.Fatalf("wrong key: %d %s", resp.StatusCode, body)
	}
	wrongLink := ok
	wrongLink.link = "dbs/other"
	if resp, _ := send(t, env, wrongLink); resp.StatusCode != http.StatusUnauthorized {
		t.Fatalf("signature over another resource: %d", resp.StatusCode)
	}
	skewed := ok
	skewed.date = time.Now().Add(-20 * time.Minute)
	if resp, _ := send(t, env, skewed); resp.StatusCode != http.StatusUnauthorized {
		t.Fatalf("20 minutes old date: %d", resp.StatusCode)
	}
	// The SDK with a wrong key gets 401 too.
	bad := *env
	bad.CosmosKey = wrongKey.key
	c := newClient(t, &bad)
	// (The SDK first reads the account and reports that failure unwrapped.)
	if _, err := c.CreateDatabase(context.Background(), azcosmos.DatabaseProperties{ID: "x"}, nil); err == nil || !strings.Contains(err.Error(), "401") {
		t.Fatalf("SDK with wrong key: %v", err)
	}
}

func TestDatabaseAccountEchoesHost(t *testing.T) {
	env := servertest.Start(t)
	resp, body := send(t, env, rawRequest{method: "GET", path: "/", resourceType: "", link: ""})
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("GET /: %d %s", resp.StatusCode, body)
	}
	var acct struct {
		Writable []struct {
			Endpoint string `json:"databaseAccountEndpoint"`
		} `json:"writableLocations"`
	}
	if err := json.Unmarshal(body, &acct); err != nil || len(acct.Writable) != 1 || acct.Writable[0].Endpoint != env.CosmosURL {
		t.Fatalf("writable locations %+v (want %s): %v", acct.Writable, env.CosmosURL, err)
	}
}

// TestHTTPSWithGeneratedCertificate: the gateway serves TLS with a
// certificate it generated; the SDK works when it trusts it.
func TestHTTPSWithGeneratedCertificate(t *testing.T) {
	dir := t.TempDir()
	env := servertest.Start(t, servertest.WithDataDir(dir), servertest.WithCosmosTLS())
	if !strings.HasPrefix(env.CosmosURL, "https://") {
		t.Fatalf("endpoint %s is not https", env.CosmosURL)
	}
	if _, err := os.Stat(filepath.Join(dir, "cosmos-cert.pem")); err != nil {
		t.Fatalf("certificate not kept in the data dir: %v", err)
	}
	c := newClient(t, env)
	if _, err := c.CreateDatabase(context.Background(), azcosmos.DatabaseProperties{ID: "tls"}, nil); err != nil {
		t.Fatal(err)
	}
}

// TestItemsPersistAcrossRestart: acknowledged writes are in the durable
// store after a restart (the crash test covers kill -9 for the store).
func TestItemsPersistAcrossRestart(t *testing.T) {
	dir := t.TempDir()
	ctx := context.Background()
	env, _, cc := setup(t, servertest.WithDataDir(dir))
	pk := azcosmos.NewPartitionKeyString("p")
	r, err := cc.CreateItem(ctx, pk, mustJSON(t, map[string]any{"id": "keep", "pk": "p"}), nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := env.Server.Shutdown(ctx); err != nil {
		t.Fatal(err)
	}
	env2 := servertest.Start(t, servertest.WithDataDir(dir))
	cc2, _ := newClient(t, env2).NewContainer("db", "items")
	got, err := cc2.ReadItem(ctx, pk, "keep", nil)
	if err != nil || got.ETag != r.ETag {
		t.Fatalf("after restart: %v etag %q want %q", err, got.ETag, r.ETag)
	}
}

// TestQueryPagingWithOrderBy pages an ORDER BY query over one partition
// with a small page size and gets every item once, in order.
func TestQueryPagingWithOrderBy(t *testing.T) {
	_, _, cc := setup(t)
	ctx := context.Background()
	pk := azcosmos.NewPartitionKeyString("p")
	for i := range 25 {
		if _, err := cc.CreateItem(ctx, pk, mustJSON(t, map[string]any{"id": strconv.Itoa(i), "pk": "p", "rank": (i * 7) % 25}), nil); err != nil {
			t.Fatal(err)
		}
	}
	pager := cc.NewQueryItemsPager("SELECT c.id, c.rank FROM c ORDER BY c.rank", pk, &azcosmos.QueryOptions{PageSizeHint: 4})
	var ranks []float64
	pages := 0
	for pager.More() {
		page, err := pager.NextPage(ctx)
		if err != nil {
			t.Fatal(err)
		}
		pages++
		for _, it := range page.Items {
			ranks = append(ranks, decode(t, it)["rank"].(float64))
		}
	}
	if len(ranks) != 25 || pages != 7 {
		t.Fatalf("got %d results in %d pages", len(ranks), pages)
	}
	for i, r := range ranks {
		if r != float64(i) {
			t.Fatalf("results out of order: %v", ranks)
		}
	}
	// Syntax errors are 400.
	bad := cc.NewQueryItemsPager("SELEKT nonsense", azcosmos.NewPartitionKey(), nil)
	if _, err := bad.NextPage(ctx); statusOf(err) != http.StatusBadRequest {
		t.Fatalf("bad query: %v", err)
	}
}

// TestReadFeedPaging pages GET …/docs with x-ms-max-item-count.
func TestReadFeedPaging(t *testing.T) {
	env, _, cc := setup(t)
	ctx := context.Background()
	pk := azcosmos.NewPartitionKeyString("f")
	for i := range 5 {
		if _, err := cc.CreateItem(ctx, pk, mustJSON(t, map[string]any{"id": strconv.Itoa(i), "pk": "f"}), nil); err != nil {
			t.Fatal(err)
		}
	}
	seen := 0
	cont := ""
	for pages := 0; ; pages++ {
		h := map[string]string{"x-ms-max-item-count": "2", "x-ms-documentdb-partitionkey": `["f"]`}
		if cont != "" {
			h["x-ms-continuation"] = cont
		}
		resp, body := send(t, env, rawRequest{method: "GET", path: "/dbs/db/colls/items/docs", resourceType: "docs", link: "dbs/db/colls/items", header: h})
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("feed: %d %s", resp.StatusCode, body)
		}
		var feed struct {
			Documents []map[string]any
			Count     int `json:"_count"`
		}
		if err := json.Unmarshal(body, &feed); err != nil {
			t.Fatal(err)
		}
		seen += feed.Count
		cont = resp.Header.Get("x-ms-continuation")
		if cont == "" {
			break
		}
		if pages > 5 {
			t.Fatal("feed does not end")
		}
	}
	if seen != 5 {
		t.Fatalf("feed returned %d items, want 5", seen)
	}
}

// TestUnsupportedFeaturesAreRefused: what cerulean does not serve is
// refused with Cosmos DB's 400, never answered by a stub.
func TestUnsupportedFeaturesAreRefused(t *testing.T) {
	env, _, _ := setup(t)
	for _, rr := range []rawRequest{
		{method: "GET", path: "/dbs/db/colls/items/conflicts", resourceType: "conflicts", link: "dbs/db/colls/items"},
		{method: "GET", path: "/dbs/db/colls/items", resourceType: "colls", link: "dbs/db/colls/items", header: map[string]string{"A-IM": "Incremental feed"}},
	} {
		resp, body := send(t, env, rr)
		if resp.StatusCode != http.StatusBadRequest || !strings.Contains(string(body), `"code":"BadRequest"`) {
			t.Errorf("%s %s: %d %s", rr.method, rr.path, resp.StatusCode, body)
		}
	}
	// No Authorization header at all.
	req, _ := http.NewRequest("GET", env.CosmosURL+"dbs", nil)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	_ = resp.Body.Close() // fully read; a close error changes nothing
	if resp.StatusCode != http.StatusUnauthorized {
		t.Fatalf("no Authorization: %d", resp.StatusCode)
	}
	// A date from the future is as bad as one from the past.
	if resp, _ := send(t, env, rawRequest{method: "GET", path: "/dbs", resourceType: "dbs", date: time.Now().Add(20 * time.Minute)}); resp.StatusCode != http.StatusUnauthorized {
		t.Fatalf("future date: %d", resp.StatusCode)
	}
}

// TestQueryPlanRequest: the SDKs' query-plan request gets a plan that
// runs the query as a pass-through of the single range.
func TestQueryPlanRequest(t *testing.T) {
	env, _, _ := setup(t)
	resp, body := send(t, env, rawRequest{method: "POST", path: "/dbs/db/colls/items/docs", resourceType: "docs", link: "dbs/db/colls/items",
		body: []byte(`{"query":"SELECT * FROM c ORDER BY c.x"}`),
		header: map[string]string{"x-ms-cosmos-is-query-plan-request": "True", "Content-Type": "application/query+json",
			"x-ms-cosmos-supported-query-features": "OrderBy,Aggregate,Distinct,OffsetAndLimit,Top"}})
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("plan: %d %s", resp.StatusCode, body)
	}
	var plan struct {
		Version   int            `json:"partitionedQueryExecutionInfoVersion"`
		QueryInfo map[string]any `json:"queryInfo"`
		Ranges    []struct {
			Min, Max string
		} `json:"queryRanges"`
	}
	if err := json.Unmarshal(body, &plan); err != nil || plan.Version != 2 || plan.QueryInfo == nil || len(plan.Ranges) != 1 || plan.Ranges[0].Max != "FF" {
		t.Fatalf("plan %s: %v", body, err)
	}
	resp, _ = send(t, env, rawRequest{method: "POST", path: "/dbs/db/colls/items/docs", resourceType: "docs", link: "dbs/db/colls/items",
		body:   []byte(`{"query":"SELECT FROM WHERE"}`),
		header: map[string]string{"x-ms-cosmos-is-query-plan-request": "True", "Content-Type": "application/query+json"}})
	if resp.StatusCode != http.StatusBadRequest {
		t.Fatalf("plan of a bad query: %d", resp.StatusCode)
	}
}
