package cosmos

import (
	"encoding/json"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/cerulean-db/cerulean/internal/kv/memory"
	"github.com/cerulean-db/cerulean/internal/testkit"
)

// tokenGateway serves a fresh service whose clock starts now, with
// database db, container items and user u.
func tokenGateway(t *testing.T) (*gateway, *testkit.Clock) {
	t.Helper()
	store := memory.Open()
	t.Cleanup(func() { _ = store.Close() })
	clock := testkit.NewClock(time.Now())
	s, err := New(Config{Store: store, Now: clock.Now})
	if err != nil {
		t.Fatal(err)
	}
	g := newGateway(t, s)
	g.expect(201, "POST", "dbs", `{"id":"db"}`, nil)
	g.expect(201, "POST", "dbs/db/colls", `{"id":"items","partitionKey":{"paths":["/pk"]}}`, nil)
	g.expect(201, "POST", "dbs/db/colls/items/docs", `{"id":"a","pk":"p"}`, map[string]string{"x-ms-documentdb-partitionkey": `["p"]`})
	g.expect(201, "POST", "dbs/db/users", `{"id":"u"}`, nil)
	return g, clock
}

// expectWithToken sends method path with token and hdr and fails the
// test, naming what, unless the status is want.
func (g *gateway) expectWithToken(want int, what, token, method, path string, hdr map[string]string) {
	g.t.Helper()
	if got := g.withToken(token, method, path, "", hdr); got != want {
		g.t.Fatalf("%s: %d", what, got)
	}
}

// withToken sends a request authorized by a resource token.
func (g *gateway) withToken(token, method, path, body string, hdr map[string]string) int {
	g.t.Helper()
	req, err := http.NewRequest(method, g.srv.URL+"/"+path, strings.NewReader(body))
	if err != nil {
		g.t.Fatal(err)
	}
	req.Header.Set("Authorization", url.QueryEscape(token))
	req.Header.Set("x-ms-date", time.Now().UTC().Format(http.TimeFormat))
	for k, v := range hdr {
		req.Header.Set(k, v)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		g.t.Fatal(err)
	}
	_ = resp.Body.Close()
	return resp.StatusCode
}

func tokenOf(t *testing.T, body string) string {
	t.Helper()
	var p struct {
		Token string `json:"_token"`
	}
	if err := json.Unmarshal([]byte(body), &p); err != nil || p.Token == "" {
		t.Fatalf("no _token in %s", body)
	}
	return p.Token
}

func TestResourceTokenLifetime(t *testing.T) {
	g, clock := tokenGateway(t)
	pkHdr := map[string]string{"x-ms-documentdb-partitionkey": `["p"]`}
	perm := `{"id":"p1","permissionMode":"Read","resource":"dbs/db/colls/items"}`
	_, body := g.expect(201, "POST", "dbs/db/users/u/permissions", perm, map[string]string{"x-ms-documentdb-expiry-seconds": "60"})
	tok := tokenOf(t, body)
	g.expectWithToken(200, "read with a fresh token", tok, "GET", "dbs/db/colls/items/docs/a", pkHdr)
	g.expectWithToken(403, "delete with a Read token", tok, "DELETE", "dbs/db/colls/items/docs/a", pkHdr)
	g.expectWithToken(403, "list users with a container token", tok, "GET", "dbs/db/users", nil)

	// Tampering with the payload breaks the signature.
	sig, payload, _ := strings.Cut(tok, ";")
	forged := sig + ";" + payload[:len(payload)-2] + "zz"
	g.expectWithToken(401, "forged token", forged, "GET", "dbs/db/colls/items/docs/a", pkHdr)

	clock.Advance(61 * time.Second)
	g.expectWithToken(401, "expired token", tok, "GET", "dbs/db/colls/items/docs/a", pkHdr)

	// A new read mints a new token; deleting and recreating the
	// permission revokes the tokens of the old one.
	_, body = g.expect(200, "GET", "dbs/db/users/u/permissions/p1", "", nil)
	tok = tokenOf(t, body)
	g.expectWithToken(200, "re-minted token", tok, "GET", "dbs/db/colls/items/docs/a", pkHdr)
	g.expect(204, "DELETE", "dbs/db/users/u/permissions/p1", "", nil)
	g.expect(201, "POST", "dbs/db/users/u/permissions", perm, nil)
	g.expectWithToken(401, "token of a deleted permission", tok, "GET", "dbs/db/colls/items/docs/a", pkHdr)

	for _, bad := range []struct {
		body string
		hdr  map[string]string
	}{
		{`{"id":"x","permissionMode":"Read","resource":"dbs/db/colls/items"}`, map[string]string{"x-ms-documentdb-expiry-seconds": "5"}},
		{`{"id":"x","permissionMode":"Read","resource":"dbs/db/colls/items"}`, map[string]string{"x-ms-documentdb-expiry-seconds": "18001"}},
		{`{"id":"x","permissionMode":"Write","resource":"dbs/db/colls/items"}`, nil},
		{`{"id":"x","permissionMode":"All","resource":"colls/items"}`, nil},
		{`{"id":"x","permissionMode":"All","resource":"dbs/other/colls/items"}`, nil},
		{`{"id":"x","permissionMode":"All","resource":"dbs/db/colls/items","resourcePartitionKey":"p"}`, nil},
		{`not json`, nil},
	} {
		if resp, b := g.do("POST", "dbs/db/users/u/permissions", bad.body, bad.hdr); resp.StatusCode != 400 && resp.StatusCode != 404 {
			t.Errorf("create %s %v: %d %s", bad.body, bad.hdr, resp.StatusCode, b)
		}
	}
	g.expect(404, "GET", "dbs/db/users/u/permissions/x", "", nil)

	// A grant given by the container's _self (rid-based) is the same grant.
	_, body = g.expect(200, "GET", "dbs/db/colls/items", "", nil)
	var coll struct {
		Self string `json:"_self"`
	}
	if err := json.Unmarshal([]byte(body), &coll); err != nil {
		t.Fatal(err)
	}
	_, body = g.expect(201, "POST", "dbs/db/users/u/permissions", `{"id":"byself","permissionMode":"All","resource":"`+coll.Self+`"}`, nil)
	g.expectWithToken(204, "token granted by _self deleting an item", tokenOf(t, body), "DELETE", "dbs/db/colls/items/docs/a", pkHdr)
	g.expect(201, "POST", "dbs/db/colls/items/docs", `{"id":"a","pk":"p"}`, pkHdr)

	// A database-wide grant reaches its containers but not its users.
	_, body = g.expect(201, "POST", "dbs/db/users/u/permissions", `{"id":"dbwide","permissionMode":"All","resource":"dbs/db/"}`, nil)
	dbTok := tokenOf(t, body)
	g.expectWithToken(200, "database-wide token reading an item", dbTok, "GET", "dbs/db/colls/items/docs/a", pkHdr)
	g.expectWithToken(403, "database-wide token listing users", dbTok, "GET", "dbs/db/users", nil)
	g.expectWithToken(403, "database-wide token listing offers", dbTok, "GET", "offers", nil)

	// Renaming a user keeps its permissions; deleting it removes them.
	g.expect(200, "PUT", "dbs/db/users/u", `{"id":"v"}`, nil)
	g.expect(200, "GET", "dbs/db/users/v/permissions/p1", "", nil)
	g.expect(404, "GET", "dbs/db/users/u", "", nil)
	g.expect(204, "DELETE", "dbs/db/users/v", "", nil)
	g.expect(201, "POST", "dbs/db/users", `{"id":"v"}`, nil)
	g.expect(404, "GET", "dbs/db/users/v/permissions/p1", "", nil)
}

func TestThroughputHeaders(t *testing.T) {
	g, _ := tokenGateway(t)
	for _, bad := range []map[string]string{
		{"x-ms-offer-throughput": "399"},
		{"x-ms-offer-throughput": "450"},
		{"x-ms-offer-throughput": "many"},
		{"x-ms-cosmos-offer-autopilot-settings": `{"maxThroughput":999}`},
		{"x-ms-cosmos-offer-autopilot-settings": `{"max":4000}`},
		{"x-ms-cosmos-offer-autopilot-settings": `nope`},
		{"x-ms-offer-throughput": "400", "x-ms-cosmos-offer-autopilot-settings": `{"maxThroughput":4000}`},
	} {
		if resp, b := g.do("POST", "dbs/db/colls", `{"id":"c","partitionKey":{"paths":["/pk"]}}`, bad); resp.StatusCode != 400 {
			t.Errorf("create with %v: %d %s", bad, resp.StatusCode, b)
		}
	}
	g.expect(404, "GET", "dbs/db/colls/c", "", nil)
	g.expect(201, "POST", "dbs/db/colls", `{"id":"c","partitionKey":{"paths":["/pk"]}}`, map[string]string{"x-ms-cosmos-offer-autopilot-settings": `{"maxThroughput":4000}`})
	_, body := g.expect(200, "GET", "offers", "", nil)
	var feed struct {
		Offers []map[string]any
	}
	if err := json.Unmarshal([]byte(body), &feed); err != nil || len(feed.Offers) != 1 {
		t.Fatalf("offers: %s", body)
	}
	o := feed.Offers[0]
	content := o["content"].(map[string]any)
	if content["offerThroughput"] != 400.0 || content["offerAutopilotSettings"].(map[string]any)["maxThroughput"] != 4000.0 || o["offerVersion"] != "V2" {
		t.Fatalf("autoscale offer: %s", body)
	}
	_, body = g.expect(200, "POST", "offers", `{"query":"SELECT * FROM c WHERE c.offerResourceId = @r","parameters":[{"name":"@r","value":"nope"}]}`,
		map[string]string{"x-ms-documentdb-isquery": "true", "Content-Type": "application/query+json"})
	if !strings.Contains(body, `"_count":0`) {
		t.Fatalf("offer query: %s", body)
	}
	g.expect(404, "GET", "offers/AAAAAAAA", "", nil)
	g.expect(400, "PUT", "offers/"+o["id"].(string), `{"content":{"offerAutopilotSettings":{"maxThroughput":4000}},"id":"other"}`, nil)
}
