// Package console drives the web console in Debian's headless Chromium
// through playwright-core (console.test.mjs), against a server started
// here whose data the Go SDKs write before the browser runs and check
// after it: a container made by the SDK appears in the console, a blob
// uploaded in the console is downloaded by the SDK byte for byte, and an
// entity the SDK changes while the console edits it comes back as a
// conflict. Without /usr/bin/chromium or node_modules (make debtools,
// make jsdeps) the test skips, except in CI (CI=true), where it fails.
//
// With CERULEAN_CONSOLE_SCREENSHOTS=<dir> the browser writes screenshots
// of the main pages there (docs/console holds the committed ones).
package console

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/data/aztables"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azfile/service"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azqueue"
	"github.com/cerulean-db/cerulean/internal/servertest"
	"github.com/cerulean-db/cerulean/internal/testkit"
)

// chromium is where Debian's package puts the browser.
const chromium = "/usr/bin/chromium"

// Names the browser test looks for (console.test.mjs reads them from its
// environment).
const (
	sdkContainer = "made-by-go-sdk"
	uploadName   = "uploaded-in-console.bin"
	tableName    = "consoleconflict"
	entityPK     = "orders"
	entityRK     = "42"
	cosmosDB     = "shop"
	cosmosColl   = "products"
	searchIndex  = "hotels"
)

func TestConsoleInBrowser(t *testing.T) {
	for _, need := range []struct{ path, how string }{
		{chromium, "install Debian's chromium (make debtools)"},
		{filepath.Join("node_modules", "playwright-core"), "run `npm ci` here (make jsdeps)"},
	} {
		if _, err := os.Stat(need.path); err != nil {
			if os.Getenv("CI") == "true" {
				t.Fatalf("%s is missing: %s", need.path, need.how)
			}
			t.Skipf("%s is missing: %s", need.path, need.how)
		}
	}
	ctx := context.Background()
	var (
		blobs    *azblob.Client
		entities *aztables.Client
		upload   []byte
	)
	testkit.NodeTests(t, "playwright-core", func() []string {
		env := servertest.Start(t, servertest.WithDataDir(t.TempDir()))
		var err error
		blobs, err = azblob.NewClientFromConnectionString(env.ConnectionString, nil)
		testkit.Must(t, err, "blob client")
		_, err = blobs.CreateContainer(ctx, sdkContainer, nil)
		testkit.Must(t, err, "create container")
		tables, err := aztables.NewServiceClientFromConnectionString(env.ConnectionString, nil)
		testkit.Must(t, err, "table client")
		_, err = tables.CreateTable(ctx, tableName, nil)
		testkit.Must(t, err, "create table")
		entities = tables.NewClient(tableName)
		_, err = entities.AddEntity(ctx, mustJSON(t, map[string]any{"PartitionKey": entityPK, "RowKey": entityRK, "Status": "new", "Quantity": 3}), nil)
		testkit.Must(t, err, "add entity")
		qcred, err := azqueue.NewSharedKeyCredential(env.Account, env.Key)
		testkit.Must(t, err, "queue credential")
		queues, err := azqueue.NewServiceClientWithSharedKeyCredential(env.QueueURL, qcred, nil)
		testkit.Must(t, err, "queue client")
		_, err = queues.CreateQueue(ctx, "orders-to-ship", nil)
		testkit.Must(t, err, "create queue")
		fcred, err := service.NewSharedKeyCredential(env.Account, env.Key)
		testkit.Must(t, err, "file credential")
		shares, err := service.NewClientWithSharedKeyCredential(env.FileURL, fcred, nil)
		testkit.Must(t, err, "file client")
		_, err = shares.NewShareClient("team-docs").Create(ctx, nil)
		testkit.Must(t, err, "create share")
		seedCosmos(t, env.CosmosURL, env.CosmosKey)
		seedSearch(t, env.SearchURL, env.SearchAdminKey)

		hooks := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.URL.Path != "/change-entity" {
				http.NotFound(w, r)
				return
			}
			// Someone else changes the entity the console has open.
			_, err := entities.UpdateEntity(r.Context(), mustJSON(t, map[string]any{"PartitionKey": entityPK, "RowKey": entityRK, "Status": "changed-by-go-sdk"}), &aztables.UpdateEntityOptions{UpdateMode: aztables.UpdateModeMerge})
			if err != nil {
				http.Error(w, err.Error(), http.StatusInternalServerError)
				return
			}
			w.WriteHeader(http.StatusNoContent)
		}))
		t.Cleanup(hooks.Close)

		upload = make([]byte, 300<<10+7)
		_, _ = rand.Read(upload)
		file := filepath.Join(t.TempDir(), uploadName)
		if err := os.WriteFile(file, upload, 0o600); err != nil {
			t.Fatal(err)
		}
		return []string{
			"CERULEAN_CONSOLE_URL=" + env.AdminURL + "/",
			"CERULEAN_CONSOLE_HOOKS=" + hooks.URL,
			"CERULEAN_CONSOLE_UPLOAD=" + file,
			"CERULEAN_CONSOLE_CONTAINER=" + sdkContainer,
			"CERULEAN_CONSOLE_TABLE=" + tableName,
			"CERULEAN_CONSOLE_PK=" + entityPK,
			"CERULEAN_CONSOLE_RK=" + entityRK,
			"CERULEAN_CONSOLE_COSMOS=" + cosmosDB + "/" + cosmosColl,
			"CERULEAN_CONSOLE_SEARCH_INDEX=" + searchIndex,
			"CERULEAN_CHROMIUM=" + chromium,
		}
	})
	if t.Failed() {
		return
	}

	// The blob the browser uploaded, read back by the SDK.
	resp, err := blobs.DownloadStream(ctx, sdkContainer, uploadName, nil)
	testkit.Must(t, err, "download the blob uploaded in the console")
	got, err := io.ReadAll(resp.Body)
	_ = resp.Body.Close()
	testkit.Must(t, err, "read the blob uploaded in the console")
	if !bytes.Equal(got, upload) {
		t.Errorf("the blob uploaded in the console reads back as %d bytes that differ from the %d uploaded", len(got), len(upload))
	}

	// After the conflict the browser reloaded and saved again: the entity
	// holds that save, made over the SDK's change.
	ent, err := entities.GetEntity(ctx, entityPK, entityRK, nil)
	testkit.Must(t, err, "get entity")
	var props map[string]any
	if err := json.Unmarshal(ent.Value, &props); err != nil {
		t.Fatal(err)
	}
	if props["Status"] != "saved-after-reload" {
		t.Errorf("entity Status = %v, want the console's save after its reload", props["Status"])
	}
}

func mustJSON(t *testing.T, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// seedCosmos makes a database, a container partitioned on /category with
// a few items, and a stored procedure, over the REST protocol.
func seedCosmos(t *testing.T, endpoint, key string) {
	t.Helper()
	base := strings.TrimSuffix(endpoint, "/")
	coll := "dbs/" + cosmosDB + "/colls/" + cosmosColl
	do := func(path, resourceType, link, body string, header map[string]string) {
		t.Helper()
		req, err := http.NewRequest(http.MethodPost, base+"/"+path, strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Content-Type", "application/json")
		for k, v := range header {
			req.Header.Set(k, v)
		}
		if err := testkit.CosmosSign(req, key, resourceType, link, time.Now()); err != nil {
			t.Fatal(err)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		_ = resp.Body.Close()
		if resp.StatusCode != http.StatusCreated {
			t.Fatalf("cosmos POST %s: %s %s", path, resp.Status, b)
		}
	}
	do("dbs", "dbs", "", `{"id":"`+cosmosDB+`"}`, nil)
	do("dbs/"+cosmosDB+"/colls", "colls", "dbs/"+cosmosDB, `{"id":"`+cosmosColl+`","partitionKey":{"paths":["/category"],"kind":"Hash"}}`, nil)
	for i, item := range []string{
		`{"id":"hammer","category":"tools","price":12.5,"stock":40}`,
		`{"id":"saw","category":"tools","price":23,"stock":7}`,
		`{"id":"kettle","category":"kitchen","price":31,"stock":12}`,
	} {
		pk := []string{`["tools"]`, `["tools"]`, `["kitchen"]`}[i]
		do(coll+"/docs", "docs", coll, item, map[string]string{"x-ms-documentdb-partitionkey": pk})
	}
	sproc := map[string]string{"id": "restock", "body": `function restock(id, amount) {
  var c = getContext().getCollection();
  c.readDocument(c.getAltLink() + "/docs/" + id, {}, function (err, doc) {
    if (err) throw err;
    doc.stock += amount;
    c.replaceDocument(doc._self, doc, function (err2, saved) {
      if (err2) throw err2;
      getContext().getResponse().setBody({ id: saved.id, stock: saved.stock });
    });
  });
}`}
	do(coll+"/sprocs", "sprocs", coll, string(mustJSON(t, sproc)), nil)
}

// seedSearch makes an index and uploads a few documents over REST.
func seedSearch(t *testing.T, endpoint, adminKey string) {
	t.Helper()
	do := func(method, path, body string, want int) {
		t.Helper()
		req, err := http.NewRequest(method, endpoint+path+"?api-version=2024-07-01", strings.NewReader(body))
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("api-key", adminKey)
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		_ = resp.Body.Close()
		if resp.StatusCode != want {
			t.Fatalf("search %s %s: %s %s", method, path, resp.Status, b)
		}
	}
	do(http.MethodPut, "/indexes/"+searchIndex, `{"name":"`+searchIndex+`","fields":[
		{"name":"id","type":"Edm.String","key":true,"filterable":true},
		{"name":"name","type":"Edm.String","searchable":true,"sortable":true},
		{"name":"description","type":"Edm.String","searchable":true},
		{"name":"city","type":"Edm.String","filterable":true,"facetable":true},
		{"name":"rating","type":"Edm.Double","filterable":true,"sortable":true}]}`, http.StatusCreated)
	docs := []string{
		`{"@search.action":"upload","id":"1","name":"Harbour View","description":"Quiet rooms by the sea, with a view of the harbour","city":"Lisbon","rating":4.6}`,
		`{"@search.action":"upload","id":"2","name":"Old Town Inn","description":"A small inn in the old town, near the cathedral","city":"Porto","rating":4.1}`,
		`{"@search.action":"upload","id":"3","name":"Seaside Budget","description":"Simple rooms near the beach","city":"Lisbon","rating":3.2}`,
	}
	do(http.MethodPost, "/indexes/"+searchIndex+"/docs/index", fmt.Sprintf(`{"value":[%s]}`, strings.Join(docs, ",")), http.StatusOK)
}
