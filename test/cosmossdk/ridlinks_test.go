package cosmossdk

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/Azure/azure-sdk-for-go/sdk/data/azcosmos"
)

// TestRIDAddressing: every resource answers at its _self (dbs/{rid}/
// colls/{rid}/docs/{rid} and so on) as at its link by names, signed the
// way SDKs sign rid-based requests (the resource's _rid, lower case), and
// _rid values stay the same across replaces.
func TestRIDAddressing(t *testing.T) {
	env, c, cc := setup(t)
	ctx := context.Background()
	pk := azcosmos.NewPartitionKeyString("a")
	created, err := cc.CreateItem(ctx, pk, mustJSON(t, map[string]any{"id": "doc1", "pk": "a", "v": 1}), &azcosmos.ItemOptions{EnableContentResponseOnWrite: true})
	if err != nil {
		t.Fatal(err)
	}
	item := decode(t, created.Value)
	replaced, err := cc.ReplaceItem(ctx, pk, "doc1", mustJSON(t, map[string]any{"id": "doc1", "pk": "a", "v": 2}), &azcosmos.ItemOptions{EnableContentResponseOnWrite: true})
	if err != nil {
		t.Fatal(err)
	}
	if r := decode(t, replaced.Value); r["_rid"] != item["_rid"] || r["_self"] != item["_self"] {
		t.Fatalf("_rid changed on replace: %v → %v", item["_rid"], r["_rid"])
	}
	dbResp, err := c.NewDatabase("db")
	if err != nil {
		t.Fatal(err)
	}
	dbProps, err := dbResp.Read(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	collProps, err := cc.Read(ctx, nil)
	if err != nil {
		t.Fatal(err)
	}
	_, body := send(t, env, rawRequest{method: "POST", path: "/dbs/db/colls/items/sprocs", resourceType: "sprocs", link: "dbs/db/colls/items",
		body: []byte(`{"id":"sp","body":"function(){ getContext().getResponse().setBody(1); }"}`)})
	sproc := decode(t, body)
	_, body = send(t, env, rawRequest{method: "POST", path: "/dbs/db/users", resourceType: "users", link: "dbs/db", body: []byte(`{"id":"u1"}`)})
	user := decode(t, body)

	dbSelf := dbProps.DatabaseProperties.SelfLink
	collSelf := collProps.ContainerProperties.SelfLink
	for _, tc := range []struct {
		name, self, resourceType, wantID string
		header                           map[string]string
	}{
		{"database", dbSelf, "dbs", "db", nil},
		{"container", collSelf, "colls", "items", nil},
		{"item", item["_self"].(string), "docs", "doc1", map[string]string{"x-ms-documentdb-partitionkey": `["a"]`}},
		{"stored procedure", sproc["_self"].(string), "sprocs", "sp", nil},
		{"user", user["_self"].(string), "users", "u1", nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			segs := strings.Split(strings.Trim(tc.self, "/"), "/")
			rid := segs[len(segs)-1]
			for _, link := range []string{strings.ToLower(rid), rid} {
				resp, body := send(t, env, rawRequest{method: "GET", path: "/" + strings.Trim(tc.self, "/"), resourceType: tc.resourceType, link: link, header: tc.header})
				if resp.StatusCode != http.StatusOK {
					t.Fatalf("GET %s signed over %q: %d %s", tc.self, link, resp.StatusCode, body)
				}
				if got := decode(t, body); got["id"] != tc.wantID || got["_rid"] != rid {
					t.Fatalf("GET %s = %s", tc.self, body)
				}
			}
			// A wrong signature is still refused.
			resp, _ := send(t, env, rawRequest{method: "GET", path: "/" + strings.Trim(tc.self, "/"), resourceType: tc.resourceType, link: "dbs/nope", header: tc.header})
			if resp.StatusCode != http.StatusUnauthorized {
				t.Fatalf("badly signed GET %s: %d", tc.self, resp.StatusCode)
			}
		})
	}

	// A feed under a rid-based link, signed over its owner's _rid.
	collRID := collProps.ContainerProperties.ResourceID
	resp, body := send(t, env, rawRequest{method: "GET", path: "/" + strings.Trim(collSelf, "/") + "/docs", resourceType: "docs", link: strings.ToLower(collRID)})
	var feed struct {
		Documents []map[string]any
		RID       string `json:"_rid"`
	}
	if err := json.Unmarshal(body, &feed); err != nil || resp.StatusCode != http.StatusOK || len(feed.Documents) != 1 || feed.RID != collRID {
		t.Fatalf("docs feed by rid: %d %s", resp.StatusCode, body)
	}
	// Writing through a rid-based link: replace the item at its _self.
	resp, body = send(t, env, rawRequest{method: "PUT", path: "/" + strings.Trim(item["_self"].(string), "/"), resourceType: "docs", link: strings.ToLower(item["_rid"].(string)),
		header: map[string]string{"x-ms-documentdb-partitionkey": `["a"]`}, body: mustJSON(t, map[string]any{"id": "doc1", "pk": "a", "v": 3})})
	if resp.StatusCode != http.StatusOK || decode(t, body)["_rid"] != item["_rid"] {
		t.Fatalf("replace by rid: %d %s", resp.StatusCode, body)
	}
	// An unknown rid is 404, as an unknown name is.
	resp, _ = send(t, env, rawRequest{method: "GET", path: "/dbs/AAAAAA==", resourceType: "dbs", link: "aaaaaa=="})
	if resp.StatusCode != http.StatusNotFound {
		t.Fatalf("unknown database rid: %d", resp.StatusCode)
	}
}
