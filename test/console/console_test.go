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
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/data/aztables"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azfile/service"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azqueue"
	"github.com/cerulean-db/cerulean/internal/azauth"
	"github.com/cerulean-db/cerulean/internal/console"
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
	// typedPK/typedRK name the entity with a property of every EDM type
	// that the browser saves unchanged; preciseItem is the Cosmos DB item
	// with numbers a browser's JSON.parse would change.
	typedPK     = "types"
	typedRK     = "every"
	preciseItem = "precise"
)

// typedEntity has a property of every EDM type the Table service stores,
// with the values a careless editor changes: doubles written 1.0 (an
// Int32 if re-encoded as 1), -0.0, NaN and the infinities (strings on
// the wire), an Int64 beyond 2^53 (a string), a DateTime with seven
// fractional digits, and a String that looks like a number.
const typedEntity = `{"PartitionKey":"` + typedPK + `","RowKey":"` + typedRK + `",
	"DoubleOne@odata.type":"Edm.Double","DoubleOne":1.0,
	"DoubleTenth":0.1,
	"DoubleNegZero@odata.type":"Edm.Double","DoubleNegZero":-0.0,
	"DoubleHuge":1e300,
	"DoubleNaN@odata.type":"Edm.Double","DoubleNaN":"NaN",
	"DoubleInf@odata.type":"Edm.Double","DoubleInf":"Infinity",
	"DoubleNegInf@odata.type":"Edm.Double","DoubleNegInf":"-Infinity",
	"Int32":7,
	"Int32Min":-2147483648,
	"Int64@odata.type":"Edm.Int64","Int64":"9007199254740993",
	"Int64Small@odata.type":"Edm.Int64","Int64Small":"1",
	"Bool":true,
	"When@odata.type":"Edm.DateTime","When":"2026-11-27T18:30:02.1234567Z",
	"Id@odata.type":"Edm.Guid","Id":"c9da6455-213d-42c9-9a79-3e9149a57833",
	"Bytes@odata.type":"Edm.Binary","Bytes":"AAEC/w==",
	"Text":"1.0",
	"Empty":""}`

// typedWant is each property of typedEntity after the browser's save, as
// its EDM type and value text; Picked is the property the browser adds,
// choosing its type.
var typedWant = map[string][2]string{
	"DoubleOne":     {"Edm.Double", "1"},
	"DoubleTenth":   {"Edm.Double", "0.1"},
	"DoubleNegZero": {"Edm.Double", "-0"},
	"DoubleHuge":    {"Edm.Double", "1e+300"},
	"DoubleNaN":     {"Edm.Double", "NaN"},
	"DoubleInf":     {"Edm.Double", "+Inf"},
	"DoubleNegInf":  {"Edm.Double", "-Inf"},
	"Int32":         {"Edm.Int32", "7"},
	"Int32Min":      {"Edm.Int32", "-2147483648"},
	"Int64":         {"Edm.Int64", "9007199254740993"},
	"Int64Small":    {"Edm.Int64", "1"},
	"Bool":          {"Edm.Boolean", "true"},
	"When":          {"Edm.DateTime", "2026-11-27T18:30:02.1234567Z"},
	"Id":            {"Edm.Guid", "c9da6455-213d-42c9-9a79-3e9149a57833"},
	"Bytes":         {"Edm.Binary", "AAEC/w=="},
	"Text":          {"Edm.String", "1.0"},
	"Empty":         {"Edm.String", ""},
	"Picked":        {"Edm.Int64", "42"},
}

// preciseJSON is a Cosmos DB item whose numbers a browser's JSON.parse
// would change: 1.0 (read back as 1), -0.0, and integers beyond 2^53.
const preciseJSON = `{"id":"` + preciseItem + `","category":"precision","ratio":1.0,"negzero":-0.0,"big":12345678901234567891,"nested":{"weight":2.50,"ids":[9007199254740993,1.0]}}`

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
		blobs       *azblob.Client
		entities    *aztables.Client
		upload      []byte
		cosmosURL   string
		cosmosKey   string
		preciseETag string
		secondBlobs *azblob.Client
		tableURL    string
		account     string
		accountKey  string
	)
	testkit.NodeTests(t, "playwright-core", func() []string {
		// Blob versioning on, so that the console's versions view has
		// versions to list.
		env := servertest.Start(t, servertest.WithDataDir(t.TempDir()), servertest.WithBlobDataProtection(true, 0), servertest.WithAccountsEnv(func(name string) string {
			if name == "CERULEAN_ACCOUNTS" {
				return secondAccount + ":" + base64.StdEncoding.EncodeToString(secondKey)
			}
			return ""
		}))
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
		_, err = entities.AddEntity(ctx, testkit.JSON(t, map[string]any{"PartitionKey": entityPK, "RowKey": entityRK, "Status": "new", "Quantity": 3}), nil)
		testkit.Must(t, err, "add entity")
		_, err = entities.AddEntity(ctx, []byte(typedEntity), nil)
		testkit.Must(t, err, "add the entity of every EDM type")
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
		cosmosURL, cosmosKey = env.CosmosURL, env.CosmosKey
		tableURL, account, accountKey = env.TableURL, env.Account, env.Key
		preciseETag = seedCosmos(t, env.CosmosURL, env.CosmosKey)
		seedSearch(t, env.SearchURL, env.SearchAdminKey)

		hooks := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if r.URL.Path != "/change-entity" {
				http.NotFound(w, r)
				return
			}
			// Someone else changes the entity the console has open.
			_, err := entities.UpdateEntity(r.Context(), testkit.JSON(t, map[string]any{"PartitionKey": entityPK, "RowKey": entityRK, "Status": "changed-by-go-sdk"}), &aztables.UpdateEntityOptions{UpdateMode: aztables.UpdateModeMerge})
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
		// A console over both Storage accounts, for the account switcher.
		multi, err := console.New(console.Config{
			BlobURL: env.BlobURL, QueueURL: env.QueueURL, TableURL: env.TableURL, FileURL: env.FileURL,
			Account: env.Account, Key: env.Key,
			MoreAccounts: []console.StorageAccount{{Name: secondAccount, Key: secondKey}},
			CosmosURL:    env.CosmosURL, CosmosKey: env.CosmosKey,
			SearchURL: env.SearchURL, SearchAdminKey: env.SearchAdminKey,
		})
		testkit.Must(t, err, "console over two accounts")
		multiSite := httptest.NewServer(multi)
		t.Cleanup(multiSite.Close)
		secondCred, err := azblob.NewSharedKeyCredential(secondAccount, base64.StdEncoding.EncodeToString(secondKey))
		testkit.Must(t, err, "second account's credential")
		secondBlobs, err = azblob.NewClientWithSharedKeyCredential(strings.Replace(env.BlobURL, "/"+env.Account+"/", "/"+secondAccount+"/", 1), secondCred, nil)
		testkit.Must(t, err, "second account's blob client")

		return []string{
			"CERULEAN_CONSOLE_URL=" + env.AdminURL + "/",
			"CERULEAN_CONSOLE_MULTI_URL=" + multiSite.URL + "/",
			"CERULEAN_CONSOLE_ACCOUNTS=" + env.Account + "," + secondAccount,
			"CERULEAN_CONSOLE_HOOKS=" + hooks.URL,
			"CERULEAN_CONSOLE_UPLOAD=" + file,
			"CERULEAN_CONSOLE_CONTAINER=" + sdkContainer,
			"CERULEAN_CONSOLE_TABLE=" + tableName,
			"CERULEAN_CONSOLE_PK=" + entityPK,
			"CERULEAN_CONSOLE_RK=" + entityRK,
			"CERULEAN_CONSOLE_TYPED=" + typedPK + "/" + typedRK,
			"CERULEAN_CONSOLE_PRECISE=" + preciseItem,
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

	checkTypedEntity(t, tableURL, account, accountKey)
	checkPreciseItem(t, cosmosURL, cosmosKey, preciseETag)

	// The container made after switching accounts is the second
	// account's, not the default one's.
	if _, err := secondBlobs.ServiceClient().NewContainerClient(secondContainer).GetProperties(ctx, nil); err != nil {
		t.Errorf("the container made in the console's second account: %v", err)
	}
	if _, err := blobs.ServiceClient().NewContainerClient(secondContainer).GetProperties(ctx, nil); err == nil {
		t.Errorf("the container made in the console's second account is in the default account too")
	}
}

// secondAccount is a further Storage account the account switcher offers.
const (
	secondAccount   = "consoletwo"
	secondContainer = "made-in-second-account"
)

var secondKey = []byte("the second account's 32-byte key")

// checkTypedEntity reads the entity the browser saved unchanged (but for
// the one property it added) in full metadata, and checks that every
// property kept its EDM type and value. It reads over REST: the Go SDK's
// GetEntity decodes the body into a map[string]any and encodes it again,
// so a Double 1.0 that reached it unannotated would come out as 1.
func checkTypedEntity(t *testing.T, tableURL, account, key string) {
	t.Helper()
	body := getTableEntity(t, tableURL, account, key, tableName, typedPK, typedRK)
	got, err := edmProperties(body)
	testkit.Must(t, err, "read the entity of every EDM type")
	for name, want := range typedWant {
		if g, ok := got[name]; !ok {
			t.Errorf("%s: missing after the console's save", name)
		} else if g != want {
			t.Errorf("%s after the console's save = %s %q, want %s %q", name, g[0], g[1], want[0], want[1])
		}
	}
	for name := range got {
		if _, ok := typedWant[name]; !ok {
			t.Errorf("%s: a property the console's save added", name)
		}
	}
	// The SDK's own reading of these bytes: 1.0 is a float64, 7 an int32.
	var sdk aztables.EDMEntity
	testkit.Must(t, json.Unmarshal(body, &sdk), "EDMEntity")
	for name, want := range map[string]any{"DoubleOne": float64(1), "DoubleTenth": 0.1, "Int32": int32(7), "Int64": aztables.EDMInt64(9007199254740993), "Bool": true} {
		if g := sdk.Properties[name]; g != want {
			t.Errorf("the SDK reads %s as %T %v, want %T %v", name, g, g, want, want)
		}
	}
}

// getTableEntity reads one entity over REST in full metadata, signed
// with the account key.
func getTableEntity(t *testing.T, tableURL, account, key, table, pk, rk string) []byte {
	t.Helper()
	quote := func(s string) string { return url.PathEscape(strings.ReplaceAll(s, "'", "''")) }
	req, err := http.NewRequest(http.MethodGet, strings.TrimSuffix(tableURL, "/")+"/"+table+"(PartitionKey='"+quote(pk)+"',RowKey='"+quote(rk)+"')", nil)
	testkit.Must(t, err, "request")
	req.Header.Set("Accept", "application/json;odata=fullmetadata")
	req.Header.Set("x-ms-version", "2020-12-06")
	req.Header.Set("DataServiceVersion", "3.0")
	raw, err := base64.StdEncoding.DecodeString(key)
	testkit.Must(t, err, "account key")
	azauth.SignSharedKey(req, "table", account, raw, time.Now())
	resp, err := http.DefaultClient.Do(req)
	testkit.Must(t, err, "get entity")
	body, _ := io.ReadAll(resp.Body)
	_ = resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("get entity %s/%s: %s %s", pk, rk, resp.Status, body)
	}
	return body
}

// edmProperties reads an entity's JSON by the Table service's rules: a
// property's type is its annotation, or else String for a string,
// Boolean for a bool, Int32 for an integer that fits and Double for any
// other number. A Double's value is given as Go formats the float64 (so
// -0.0 is "-0", 1.0 is "1"), an Int32's as written, and any other's as
// its string.
func edmProperties(body []byte) (map[string][2]string, error) {
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber()
	var raw map[string]any
	if err := dec.Decode(&raw); err != nil {
		return nil, err
	}
	out := map[string][2]string{}
	for name, v := range raw {
		if strings.HasPrefix(name, "odata.") || strings.Contains(name, "@odata.type") || name == "PartitionKey" || name == "RowKey" || name == "Timestamp" {
			continue
		}
		typ, _ := raw[name+"@odata.type"].(string)
		text := fmt.Sprint(v)
		if typ == "" {
			switch v := v.(type) {
			case string:
				typ = "Edm.String"
			case bool:
				typ = "Edm.Boolean"
			case json.Number:
				typ = "Edm.Double"
				if _, err := strconv.ParseInt(string(v), 10, 32); err == nil {
					typ = "Edm.Int32"
				}
			default:
				return nil, fmt.Errorf("%s: a %T", name, v)
			}
		}
		if typ == "Edm.Double" {
			s := text
			if special, ok := map[string]string{"NaN": "NaN", "Infinity": "+Inf", "-Infinity": "-Inf"}[text]; ok {
				s = special
			}
			f, err := strconv.ParseFloat(s, 64)
			if err != nil {
				return nil, fmt.Errorf("%s: %q is not a Double", name, text)
			}
			text = strconv.FormatFloat(f, 'g', -1, 64)
		}
		out[name] = [2]string{typ, text}
	}
	return out, nil
}

// checkPreciseItem reads the Cosmos DB item the browser replaced
// unchanged and checks that its numbers are the ones written, as text.
func checkPreciseItem(t *testing.T, endpoint, key, seededETag string) {
	t.Helper()
	link := "dbs/" + cosmosDB + "/colls/" + cosmosColl + "/docs/" + preciseItem
	req, err := http.NewRequest(http.MethodGet, strings.TrimSuffix(endpoint, "/")+"/"+link, nil)
	testkit.Must(t, err, "request")
	req.Header.Set("x-ms-documentdb-partitionkey", `["precision"]`)
	testkit.Must(t, testkit.CosmosSign(req, key, "docs", link, time.Now()), "sign")
	resp, err := http.DefaultClient.Do(req)
	testkit.Must(t, err, "read the precise item")
	body, _ := io.ReadAll(resp.Body)
	_ = resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		t.Fatalf("read the precise item: %s %s", resp.Status, body)
	}
	var item map[string]json.RawMessage
	testkit.Must(t, json.Unmarshal(body, &item), "precise item")
	var etag string
	if json.Unmarshal(item["_etag"], &etag) != nil || etag == seededETag {
		t.Errorf("the precise item's _etag is %s, as before the console's replace: the replace never happened", item["_etag"])
	}
	var nested map[string]json.RawMessage
	if err := json.Unmarshal(item["nested"], &nested); err != nil {
		t.Fatalf("the precise item's nested after the console's replace: %s: %v", item["nested"], err)
	}
	for name, raw := range map[string]json.RawMessage{
		"ratio": item["ratio"], "negzero": item["negzero"], "big": item["big"],
		"nested.weight": nested["weight"], "nested.ids": nested["ids"],
	} {
		want := map[string]string{"ratio": "1.0", "negzero": "-0.0", "big": "12345678901234567891",
			"nested.weight": "2.50", "nested.ids": "[9007199254740993,1.0]"}[name]
		var compact bytes.Buffer
		if err := json.Compact(&compact, raw); err != nil || compact.String() != want {
			t.Errorf("the precise item's %s after the console's replace = %s, want %s", name, raw, want)
		}
	}
}

// seedCosmos makes a database, a container partitioned on /category with
// a few items, and a stored procedure, over the REST protocol. It returns
// the _etag of the item preciseJSON.
func seedCosmos(t *testing.T, endpoint, key string) string {
	t.Helper()
	base := strings.TrimSuffix(endpoint, "/")
	coll := "dbs/" + cosmosDB + "/colls/" + cosmosColl
	do := func(path, resourceType, link, body string, header map[string]string) []byte {
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
		return b
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
	do(coll+"/sprocs", "sprocs", coll, string(testkit.JSON(t, sproc)), nil)
	var precise struct {
		ETag string `json:"_etag"`
	}
	if err := json.Unmarshal(do(coll+"/docs", "docs", coll, preciseJSON, map[string]string{"x-ms-documentdb-partitionkey": `["precision"]`}), &precise); err != nil {
		t.Fatal(err)
	}
	return precise.ETag
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
