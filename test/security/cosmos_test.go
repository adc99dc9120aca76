package security

import (
	"bytes"
	"encoding/json"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/cerulean-db/cerulean/internal/testkit"
)

// cosmosCall is one request to the Cosmos DB gateway: path is the
// resource path ("dbs/d/colls/c/docs/x"); resourceType and link are what
// a master-key signature covers.
type cosmosCall struct {
	method, path, resourceType, link string
	pk                               string // x-ms-documentdb-partitionkey
	body                             string
	header                           map[string]string
}

func (f *fixture) cosmosRequest(t testing.TB, c cosmosCall) *http.Request {
	t.Helper()
	var body *bytes.Reader
	if c.body != "" {
		body = bytes.NewReader([]byte(c.body))
	} else {
		body = bytes.NewReader(nil)
	}
	r, err := http.NewRequestWithContext(t.Context(), c.method, f.env.CosmosURL+c.path, body)
	if err != nil {
		t.Fatalf("build %s %s: %v", c.method, c.path, err)
	}
	r.Header.Set("Content-Type", "application/json")
	if c.pk != "" {
		r.Header.Set("x-ms-documentdb-partitionkey", c.pk)
	}
	for k, v := range c.header {
		r.Header.Set(k, v)
	}
	return r
}

// cosmosMaster sends c signed with key, dated date.
func (f *fixture) cosmosMaster(t testing.TB, c cosmosCall, key string, date time.Time) testkit.Response {
	t.Helper()
	r := f.cosmosRequest(t, c)
	if err := testkit.CosmosSign(r, key, c.resourceType, c.link, date); err != nil {
		t.Fatal(err)
	}
	return do(t, r)
}

// cosmosToken sends c carrying a resource token.
func (f *fixture) cosmosToken(t testing.TB, c cosmosCall, token string) testkit.Response {
	t.Helper()
	r := f.cosmosRequest(t, c)
	r.Header.Set("x-ms-date", f.clock.Now().UTC().Format(http.TimeFormat))
	r.Header.Set("x-ms-version", "2020-11-05")
	r.Header.Set("Authorization", url.QueryEscape(token))
	return do(t, r)
}

func (f *fixture) cosmosPrepare(t testing.TB, c cosmosCall) testkit.Response {
	t.Helper()
	resp := f.cosmosMaster(t, c, f.env.CosmosKey, f.clock.Now())
	must2xx(t, resp, "prepare "+c.method+" "+c.path)
	return resp
}

func docCall(method, coll, id, pk string) cosmosCall {
	link := "dbs/d/colls/" + coll
	c := cosmosCall{method: method, pk: `["` + pk + `"]`, resourceType: "docs"}
	switch method {
	case http.MethodPost:
		c.path, c.link = link+"/docs", link
		c.body = `{"id":"` + id + `","pk":"` + pk + `"}`
	default:
		c.path, c.link = link+"/docs/"+id, link+"/docs/"+id
		if method == http.MethodPut {
			c.body = `{"id":"` + id + `","pk":"` + pk + `","v":2}`
		}
	}
	return c
}

func wantStatus(t testing.TB, resp testkit.Response, status int, what string) {
	t.Helper()
	if resp.StatusCode != status {
		t.Errorf("%s: got HTTP %d, want %d\n%s", what, resp.StatusCode, status, resp.Body)
	}
}

// cosmosSetup makes database d with containers c1 and c2 (partitioned on
// /pk), documents x in partitions a and b of each, and user u.
func cosmosSetup(t testing.TB, f *fixture) {
	f.cosmosPrepare(t, cosmosCall{method: http.MethodPost, path: "dbs", resourceType: "dbs", body: `{"id":"d"}`})
	for _, coll := range []string{"c1", "c2"} {
		f.cosmosPrepare(t, cosmosCall{method: http.MethodPost, path: "dbs/d/colls", resourceType: "colls", link: "dbs/d",
			body: `{"id":"` + coll + `","partitionKey":{"paths":["/pk"],"kind":"Hash"}}`})
		for _, pk := range []string{"a", "b"} {
			f.cosmosPrepare(t, docCall(http.MethodPost, coll, "x"+pk, pk))
		}
	}
	f.cosmosPrepare(t, cosmosCall{method: http.MethodPost, path: "dbs/d/users", resourceType: "users", link: "dbs/d", body: `{"id":"u"}`})
}

// permission creates permission id for user u and returns its token.
func (f *fixture) permission(t testing.TB, id, mode, resource, pk string, header map[string]string) string {
	t.Helper()
	def := map[string]any{"id": id, "permissionMode": mode, "resource": resource}
	if pk != "" {
		def["resourcePartitionKey"] = []string{pk}
	}
	b, _ := json.Marshal(def)
	resp := f.cosmosPrepare(t, cosmosCall{method: http.MethodPost, path: "dbs/d/users/u/permissions", resourceType: "permissions",
		link: "dbs/d/users/u", body: string(b), header: header})
	var out struct {
		Token string `json:"_token"`
	}
	if err := json.Unmarshal(resp.Body, &out); err != nil || !strings.HasPrefix(out.Token, "type=resource") {
		t.Fatalf("permission %s: no resource token in %s", id, resp.Body)
	}
	return out.Token
}

// TestCosmosMasterKey: a master-key signature covers the verb, the
// resource type and link and x-ms-date: it is refused (401) under a wrong
// key, on another resource or verb, and when its date is more than 15
// minutes from the server's clock.
func TestCosmosMasterKey(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	cosmosSetup(t, f)
	now := f.clock.Now()
	read := docCall(http.MethodGet, "c1", "xa", "a")
	wantStatus(t, f.cosmosMaster(t, read, f.env.CosmosKey, now), http.StatusOK, "master key")
	wantStatus(t, f.cosmosMaster(t, read, f.env.Key, now), http.StatusUnauthorized, "another key")
	wantStatus(t, f.cosmosMaster(t, read, f.env.CosmosKey, now.Add(-14*time.Minute)), http.StatusOK, "dated 14 minutes ago")
	wantStatus(t, f.cosmosMaster(t, read, f.env.CosmosKey, now.Add(-16*time.Minute)), http.StatusUnauthorized, "dated 16 minutes ago")
	wantStatus(t, f.cosmosMaster(t, read, f.env.CosmosKey, now.Add(16*time.Minute)), http.StatusUnauthorized, "dated 16 minutes ahead")

	// A signature over one resource or verb, replayed on another.
	replay := func(what string, signedFor, sent cosmosCall) {
		t.Helper()
		r := f.cosmosRequest(t, signedFor)
		if err := testkit.CosmosSign(r, f.env.CosmosKey, signedFor.resourceType, signedFor.link, now); err != nil {
			t.Fatal(err)
		}
		s := f.cosmosRequest(t, sent)
		for _, h := range []string{"Authorization", "x-ms-date", "x-ms-version"} {
			s.Header.Set(h, r.Header.Get(h))
		}
		wantStatus(t, do(t, s), http.StatusUnauthorized, what)
	}
	replay("signature of a read on another container", read, docCall(http.MethodGet, "c2", "xa", "a"))
	replay("signature of a read on another document", read, docCall(http.MethodGet, "c1", "xb", "b"))
	replay("signature of a read on a delete", read, docCall(http.MethodDelete, "c1", "xa", "a"))
	replay("signature of a document read on the container", read,
		cosmosCall{method: http.MethodGet, path: "dbs/d/colls/c1", resourceType: "colls", link: "dbs/d/colls/c1"})

	missing := f.cosmosRequest(t, read)
	missing.Header.Set("x-ms-version", "2020-11-05")
	wantStatus(t, do(t, missing), http.StatusUnauthorized, "no Authorization header")
}

// TestCosmosResourceTokens: a permission's token grants its mode (Read or
// All) on its resource and what lies under it, within its partition key
// when it names one; beyond that it is refused with 403, and a token that
// is tampered with, expired or whose permission is gone with 401.
func TestCosmosResourceTokens(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	cosmosSetup(t, f)
	readC1 := f.permission(t, "read-c1", "Read", "dbs/d/colls/c1", "", nil)
	allC1a := f.permission(t, "all-c1-a", "All", "dbs/d/colls/c1", "a", nil)
	allDB := f.permission(t, "all-db", "All", "dbs/d", "", nil)
	readDoc := f.permission(t, "read-doc", "Read", "dbs/d/colls/c1/docs/xb", "", nil)

	cases := []struct {
		what   string
		token  string
		call   cosmosCall
		status int
	}{
		{"Read: read a document", readC1, docCall(http.MethodGet, "c1", "xa", "a"), http.StatusOK},
		{"Read: read the container", readC1, cosmosCall{method: http.MethodGet, path: "dbs/d/colls/c1"}, http.StatusOK},
		{"Read: create a document", readC1, docCall(http.MethodPost, "c1", "new-r", "a"), http.StatusForbidden},
		{"Read: replace a document", readC1, docCall(http.MethodPut, "c1", "xa", "a"), http.StatusForbidden},
		{"Read: delete a document", readC1, docCall(http.MethodDelete, "c1", "xa", "a"), http.StatusForbidden},
		{"Read: read another container's document", readC1, docCall(http.MethodGet, "c2", "xa", "a"), http.StatusForbidden},
		{"Read: delete the container", readC1, cosmosCall{method: http.MethodDelete, path: "dbs/d/colls/c1"}, http.StatusForbidden},
		{"All+pk: read in its partition", allC1a, docCall(http.MethodGet, "c1", "xa", "a"), http.StatusOK},
		{"All+pk: replace in its partition", allC1a, docCall(http.MethodPut, "c1", "xa", "a"), http.StatusOK},
		{"All+pk: create in its partition", allC1a, docCall(http.MethodPost, "c1", "new-a", "a"), http.StatusCreated},
		{"All+pk: read in another partition", allC1a, docCall(http.MethodGet, "c1", "xb", "b"), http.StatusForbidden},
		{"All+pk: create in another partition", allC1a, docCall(http.MethodPost, "c1", "new-b", "b"), http.StatusForbidden},
		{"All+pk: another container", allC1a, docCall(http.MethodGet, "c2", "xa", "a"), http.StatusForbidden},
		{"document token: its document", readDoc, docCall(http.MethodGet, "c1", "xb", "b"), http.StatusOK},
		{"document token: a sibling", readDoc, docCall(http.MethodGet, "c1", "xa", "a"), http.StatusForbidden},
		{"database token: a document of any container", allDB, docCall(http.MethodPut, "c2", "xb", "b"), http.StatusOK},
		{"database token: users are the master key's", allDB, cosmosCall{method: http.MethodGet, path: "dbs/d/users"}, http.StatusForbidden},
		{"database token: permissions are the master key's", allDB,
			cosmosCall{method: http.MethodPost, path: "dbs/d/users/u/permissions", body: `{"id":"mine","permissionMode":"All","resource":"dbs/d"}`}, http.StatusForbidden},
		{"database token: another database", allDB, cosmosCall{method: http.MethodPost, path: "dbs", body: `{"id":"e"}`}, http.StatusForbidden},
		{"tampered token", flipSignature(readC1), docCall(http.MethodGet, "c1", "xa", "a"), http.StatusUnauthorized},
		{"token with a forged payload", forgePayload(t, readC1), docCall(http.MethodGet, "c1", "xa", "a"), http.StatusUnauthorized},
	}
	for _, c := range cases {
		wantStatus(t, f.cosmosToken(t, c.call, c.token), c.status, c.what)
	}

	// Expiry runs on the server's clock; deleting the permission revokes.
	short := f.permission(t, "short", "Read", "dbs/d/colls/c1", "", map[string]string{"x-ms-documentdb-expiry-seconds": "10"})
	read := docCall(http.MethodGet, "c1", "xa", "a")
	wantStatus(t, f.cosmosToken(t, read, short), http.StatusOK, "token before its expiry")
	f.clock.Advance(11 * time.Second)
	wantStatus(t, f.cosmosToken(t, read, short), http.StatusUnauthorized, "token after its expiry")
	wantStatus(t, f.cosmosToken(t, read, readC1), http.StatusOK, "hour-long token after 11s")
	f.cosmosPrepare(t, cosmosCall{method: http.MethodDelete, path: "dbs/d/users/u/permissions/read-c1", resourceType: "permissions", link: "dbs/d/users/u/permissions/read-c1"})
	wantStatus(t, f.cosmosToken(t, read, readC1), http.StatusUnauthorized, "token of a deleted permission")
}

// flipSignature changes the first character of a resource token's
// signature.
func flipSignature(token string) string {
	i := strings.Index(token, "sig=") + len("sig=")
	c := byte('A')
	if token[i] == 'A' {
		c = 'B'
	}
	return token[:i] + string(c) + token[i+1:]
}

// forgePayload keeps a token's signature but widens its payload to
// another permission (the database-wide one).
func forgePayload(t testing.TB, token string) string {
	sig, payload, ok := strings.Cut(token, ";")
	if !ok {
		t.Fatalf("resource token %q has no payload", token)
	}
	return sig + ";" + strings.ToUpper(payload[:1]) + strings.ToLower(payload[1:])
}
