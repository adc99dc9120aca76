package indexer

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"sort"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cerulean-db/cerulean/internal/azauth"
	"github.com/cerulean-db/cerulean/internal/azhttp"
	"github.com/cerulean-db/cerulean/internal/blob"
	"github.com/cerulean-db/cerulean/internal/cosmos"
	"github.com/cerulean-db/cerulean/internal/kv"
	"github.com/cerulean-db/cerulean/internal/kv/memory"
	"github.com/cerulean-db/cerulean/internal/search"
	"github.com/cerulean-db/cerulean/internal/table"
	"github.com/cerulean-db/cerulean/internal/table/odata"
	"github.com/cerulean-db/cerulean/internal/testkit"
)

// sink is an in-test document store: it keeps documents by key and
// records every batch; keys in fail are refused.
type sink struct {
	mu      sync.Mutex
	docs    map[string]map[string]any
	batches [][]Action
	fail    map[string]bool
	keyName string
}

func (s *sink) write(_ context.Context, index string, actions []Action) ([]ItemResult, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if index != "docs" {
		return nil, fmt.Errorf("no index %q", index)
	}
	s.batches = append(s.batches, append([]Action(nil), actions...))
	out := make([]ItemResult, 0, len(actions))
	for _, a := range actions {
		key, _ := a.Doc[s.keyName].(string)
		if s.fail[key] {
			out = append(out, ItemResult{Key: key, StatusCode: 400, ErrorMessage: "refused by the test"})
			continue
		}
		switch a.Action {
		case "mergeOrUpload":
			s.docs[key] = a.Doc
		case "delete":
			delete(s.docs, key)
		}
		out = append(out, ItemResult{Key: key, Status: true, StatusCode: 200})
	}
	return out, nil
}

// actions returns the actions of the batches written since the last
// call, as "action key" sorted.
func (s *sink) actions() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []string
	for _, b := range s.batches {
		for _, a := range b {
			key, _ := a.Doc[s.keyName].(string)
			out = append(out, a.Action+" "+key)
		}
	}
	s.batches = nil
	sort.Strings(out)
	return out
}

type env struct {
	store  kv.Store
	clock  *testkit.Clock
	search *search.Service
	blobs  *blob.Service
	tables *table.Service
	cosmos *cosmos.Service
	accts  *azauth.Accounts
	sink   *sink
	engine *Engine
}

func newEnv(t *testing.T) *env {
	t.Helper()
	store := memory.Open()
	t.Cleanup(func() { _ = store.Close() })
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	key, err := base64.StdEncoding.DecodeString(azauth.DevKey)
	if err != nil {
		t.Fatal(err)
	}
	e := &env{store: store, clock: testkit.NewClock(time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC)),
		accts: azauth.NewAccounts(azauth.Account{Name: azauth.DevAccount, Keys: [][]byte{key}})}
	e.search = search.New(search.Config{Store: store, Now: e.clock.Now, Logger: log})
	e.blobs = blob.New(blob.Config{Store: store, Accounts: e.accts, Now: e.clock.Now, Logger: log})
	e.tables = table.New(table.Config{Store: store, Accounts: e.accts, Now: e.clock.Now, Logger: log})
	if e.cosmos, err = cosmos.New(cosmos.Config{Store: store, Now: e.clock.Now, Logger: log}); err != nil {
		t.Fatal(err)
	}
	e.sink = &sink{docs: map[string]map[string]any{}, fail: map[string]bool{}, keyName: "id"}
	e.engine = e.newEngine(t, "engine-1")
	return e
}

func (e *env) newEngine(t *testing.T, owner string) *Engine {
	t.Helper()
	return e.newEngineWithSink(t, owner, e.sink.write)
}

// newEngineWithSink is newEngine writing its batches through sink.
func (e *env) newEngineWithSink(t *testing.T, owner string, sink Sink) *Engine {
	t.Helper()
	eng, err := New(Config{Store: e.store, Search: e.search, Blob: e.blobs, Table: e.tables, Cosmos: e.cosmos,
		Accounts: e.accts, Sink: sink, Now: e.clock.Now, Owner: owner,
		Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(eng.Close)
	return eng
}

func (e *env) put(t *testing.T, kind search.Kind, body string) {
	t.Helper()
	def, err := search.ParseDefinition([]byte(body))
	if err != nil {
		t.Fatal(err)
	}
	if _, _, err := e.search.Put(context.Background(), kind, "", def, search.PutOptions{}); err != nil {
		t.Fatalf("put %s: %v", kind, err)
	}
}

const docsIndex = `{"name":"docs","fields":[
	{"name":"id","type":"Edm.String","key":true},
	{"name":"title","type":"Edm.String"},
	{"name":"rating","type":"Edm.Int32"},
	{"name":"path","type":"Edm.String"},
	{"name":"metadata_storage_name","type":"Edm.String"},
	{"name":"metadata_storage_size","type":"Edm.Int64"},
	{"name":"content","type":"Edm.String"},
	{"name":"summary","type":"Edm.String"}]}`

const storageConn = "DefaultEndpointsProtocol=http;AccountName=devstoreaccount1;AccountKey=" + azauth.DevKey + ";BlobEndpoint=http://127.0.0.1:10000/devstoreaccount1;"

func (e *env) putBlob(t *testing.T, name, body string, meta azhttp.Metadata) {
	t.Helper()
	_, err := e.blobs.PutBlob(context.Background(), blob.Ref{Account: azauth.DevAccount, Container: "docs", Name: name}, blob.Content{Body: strings.NewReader(body), Length: int64(len(body))}, blob.PutBlobOptions{Headers: blob.ContentHeaders{ContentType: "application/json"}, Metadata: meta})
	if err != nil {
		t.Fatalf("put blob %s: %v", name, err)
	}
}

// shopItems creates the Cosmos DB database "shop" with the container
// "items", partitioned by /pk.
func (e *env) shopItems(t *testing.T) {
	t.Helper()
	ctx := context.Background()
	if _, err := e.cosmos.CreateDatabase(ctx, []byte(`{"id":"shop"}`)); err != nil {
		t.Fatal(err)
	}
	if _, err := e.cosmos.CreateContainer(ctx, "shop", []byte(`{"id":"items","partitionKey":{"paths":["/pk"]}}`)); err != nil {
		t.Fatal(err)
	}
}

// docsContainer creates the blob container "docs".
func (e *env) docsContainer(t *testing.T) {
	t.Helper()
	if _, err := e.blobs.CreateContainer(context.Background(), blob.ContainerRef{Account: azauth.DevAccount, Container: "docs"}, blob.CreateContainerOptions{}); err != nil {
		t.Fatal(err)
	}
}

// blobDataSource defines the data source "blobs" over the container
// "docs".
func (e *env) blobDataSource(t *testing.T) {
	t.Helper()
	e.put(t, search.DataSources, `{"name":"blobs","type":"azureblob","credentials":{"connectionString":"`+storageConn+`"},"container":{"name":"docs"}}`)
}

// blobIndex defines the index "docs" and the data source "blobs".
func (e *env) blobIndex(t *testing.T) {
	t.Helper()
	e.put(t, search.Indexes, docsIndex)
	e.blobDataSource(t)
}

func (e *env) run(t *testing.T, name string) *ExecutionResult {
	t.Helper()
	res, err := e.engine.Run(context.Background(), name)
	if err != nil {
		t.Fatalf("run %s: %v", name, err)
	}
	return res
}

func equal(t *testing.T, what string, got, want []string) {
	t.Helper()
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Fatalf("%s:\n got  %q\n want %q", what, got, want)
	}
}

func TestBlobJSONIndexerIndexesOnlyChanges(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	e.docsContainer(t)
	e.putBlob(t, "a.json", `{"id":"a","title":"Alpha","rating":5}`, nil)
	e.clock.Advance(time.Millisecond)
	e.putBlob(t, "b.json", `{"id":"b","title":"Beta","rating":3}`, nil)
	e.put(t, search.Indexes, docsIndex)
	e.put(t, search.DataSources, `{"name":"blobs","type":"azureblob","credentials":{"connectionString":"`+storageConn+`"},
		"container":{"name":"docs"},
		"dataDeletionDetectionPolicy":{"@odata.type":"#Microsoft.Azure.Search.SoftDeleteColumnDeletionDetectionPolicy","softDeleteColumnName":"IsDeleted","softDeleteMarkerValue":"true"}}`)
	e.put(t, search.Indexers, `{"name":"blobix","dataSourceName":"blobs","targetIndexName":"docs",
		"parameters":{"configuration":{"parsingMode":"json"}},
		"fieldMappings":[{"sourceFieldName":"metadata_storage_path","targetFieldName":"path"}]}`)

	res := e.run(t, "blobix")
	if res.Status != "success" || res.ItemsProcessed != 2 || res.ItemsFailed != 0 {
		t.Fatalf("first run: %+v", res)
	}
	equal(t, "first run", e.sink.actions(), []string{"mergeOrUpload a", "mergeOrUpload b"})
	a := e.sink.docs["a"]
	if a["title"] != "Alpha" || a["path"] != "http://127.0.0.1:10000/devstoreaccount1/docs/a.json" || a["metadata_storage_name"] != "a.json" {
		t.Fatalf("document a: %v", a)
	}
	if n, _ := a["rating"].(json.Number); n.String() != "5" {
		t.Fatalf("rating of a: %#v", a["rating"])
	}
	if _, has := a["metadata_storage_content_type"]; has {
		t.Fatalf("a field the index lacks was indexed: %v", a)
	}

	// Nothing changed: nothing is indexed.
	if res := e.run(t, "blobix"); res.ItemsProcessed != 0 {
		t.Fatalf("idle run processed %d", res.ItemsProcessed)
	}
	equal(t, "idle run", e.sink.actions(), nil)

	e.clock.Advance(time.Second)
	e.putBlob(t, "a.json", `{"id":"a","title":"Alpha 2"}`, nil)
	e.putBlob(t, "c.json", `{"id":"c","title":"Gamma"}`, nil)
	res = e.run(t, "blobix")
	equal(t, "second run", e.sink.actions(), []string{"mergeOrUpload a", "mergeOrUpload c"})
	if res.ItemsProcessed != 2 || e.sink.docs["a"]["title"] != "Alpha 2" {
		t.Fatalf("second run: %+v, a = %v", res, e.sink.docs["a"])
	}

	// Soft delete by blob metadata.
	e.clock.Advance(time.Second)
	if _, err := e.blobs.SetBlobMetadata(ctx, blob.Ref{Account: azauth.DevAccount, Container: "docs", Name: "b.json"}, azhttp.Metadata{{"IsDeleted", "true"}}, blob.Preconditions{}); err != nil {
		t.Fatal(err)
	}
	e.run(t, "blobix")
	equal(t, "soft delete", e.sink.actions(), []string{"delete b"})
	if _, ok := e.sink.docs["b"]; ok {
		t.Fatal("b survived its soft delete")
	}

	// Reset: everything again.
	if err := e.engine.Reset(ctx, "blobix"); err != nil {
		t.Fatal(err)
	}
	e.run(t, "blobix")
	equal(t, "after reset", e.sink.actions(), []string{"delete b", "mergeOrUpload a", "mergeOrUpload c"})

	st, err := e.engine.Status(ctx, "blobix")
	if err != nil {
		t.Fatal(err)
	}
	var statuses []string
	for _, r := range st.ExecutionHistory {
		statuses = append(statuses, r.Status)
	}
	equal(t, "history", statuses, []string{"success", "reset", "success", "success", "success", "success"})
	if st.LastResult == nil || st.LastResult.ItemsProcessed != 3 || st.LastResult.EndTime == nil {
		t.Fatalf("last result: %+v", st.LastResult)
	}
}

// TestBlobDefaultKeyAndParsingModes: without a key field in the source,
// the key is metadata_storage_path in base64 (one document per blob) or
// AzureSearch_DocumentKey (several per blob); CSV and JSON lines parse.
func TestBlobDefaultKeyAndParsingModes(t *testing.T) {
	ctx := context.Background()
	cases := []struct {
		mode, config, body string
		want               []string
	}{
		{"default", `{}`, "plain words", []string{"mergeOrUpload " + base64Encode([]byte("http://127.0.0.1:10000/devstoreaccount1/docs/f.txt"), true)}},
		{"delimitedText", `{"parsingMode":"delimitedText","firstLineContainsHeaders":true}`, "id,title\nx1,One\nx2,\"Two, too\"\n", []string{"mergeOrUpload x1", "mergeOrUpload x2"}},
		{"delimitedTextSemicolon", `{"parsingMode":"delimitedText","delimitedTextDelimiter":";","firstLineContainsHeaders":false,"delimitedTextHeaders":"id,title"}`, "y1;One\ny2;Two\n", []string{"mergeOrUpload y1", "mergeOrUpload y2"}},
		{"jsonLines", `{"parsingMode":"jsonLines"}`, "{\"title\":\"L1\"}\n\n{\"title\":\"L2\"}\n", []string{
			"mergeOrUpload " + base64Encode([]byte("http://127.0.0.1:10000/devstoreaccount1/docs/f.txt;1"), true),
			"mergeOrUpload " + base64Encode([]byte("http://127.0.0.1:10000/devstoreaccount1/docs/f.txt;2"), true)}},
		{"jsonArray", `{"parsingMode":"jsonArray","documentRoot":"/items"}`, `{"items":[{"id":"j1"},{"id":"j2"}]}`, []string{"mergeOrUpload j1", "mergeOrUpload j2"}},
	}
	for _, c := range cases {
		t.Run(c.mode, func(t *testing.T) {
			e := newEnv(t)
			if _, err := e.blobs.CreateContainer(ctx, blob.ContainerRef{Account: azauth.DevAccount, Container: "docs"}, blob.CreateContainerOptions{}); err != nil {
				t.Fatal(err)
			}
			e.putBlob(t, "f.txt", c.body, nil)
			e.put(t, search.Indexes, docsIndex)
			e.put(t, search.DataSources, `{"name":"blobs","type":"azureblob","credentials":{"connectionString":"UseDevelopmentStorage=true"},"container":{"name":"docs"}}`)
			e.put(t, search.Indexers, `{"name":"ix","dataSourceName":"blobs","targetIndexName":"docs","parameters":{"configuration":`+c.config+`}}`)
			res := e.run(t, "ix")
			if res.Status != "success" || res.ItemsFailed != 0 {
				t.Fatalf("run: %+v", res)
			}
			equal(t, c.mode, e.sink.actions(), c.want)
		})
	}
}

func TestCosmosIndexerIndexesOnlyChanges(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	e.shopItems(t)
	upsert := func(doc string) {
		t.Helper()
		var m map[string]any
		if err := json.Unmarshal([]byte(doc), &m); err != nil {
			t.Fatal(err)
		}
		pk, err := cosmos.NewPartitionKey(m["pk"])
		if err != nil {
			t.Fatal(err)
		}
		if _, _, err := e.cosmos.UpsertItem(ctx, cosmos.CollectionRef{DB: "shop", Coll: "items"}, pk, []byte(doc), cosmos.ItemOptions{}); err != nil {
			t.Fatalf("upsert %s: %v", doc, err)
		}
	}
	upsert(`{"id":"1","pk":"p","title":"One"}`)
	upsert(`{"id":"2","pk":"q","title":"Two"}`)
	e.put(t, search.Indexes, docsIndex)
	e.put(t, search.DataSources, `{"name":"cosmos","type":"cosmosdb",
		"credentials":{"connectionString":"AccountEndpoint=https://127.0.0.1:8081/;AccountKey=`+cosmos.EmulatorKey+`;Database=shop"},
		"container":{"name":"items"},
		"dataChangeDetectionPolicy":{"@odata.type":"#Microsoft.Azure.Search.HighWaterMarkChangeDetectionPolicy","highWaterMarkColumnName":"_ts"},
		"dataDeletionDetectionPolicy":{"@odata.type":"#Microsoft.Azure.Search.SoftDeleteColumnDeletionDetectionPolicy","softDeleteColumnName":"isDeleted","softDeleteMarkerValue":"true"}}`)
	e.put(t, search.Indexers, `{"name":"cosmosix","dataSourceName":"cosmos","targetIndexName":"docs"}`)

	e.run(t, "cosmosix")
	equal(t, "first run", e.sink.actions(), []string{"mergeOrUpload 1", "mergeOrUpload 2"})

	// A write in the same second as the mark is still seen; the items
	// already indexed at that second are not indexed again.
	upsert(`{"id":"3","pk":"p","title":"Three"}`)
	e.run(t, "cosmosix")
	equal(t, "same-second run", e.sink.actions(), []string{"mergeOrUpload 3"})

	e.clock.Advance(10 * time.Second)
	upsert(`{"id":"1","pk":"p","title":"One again"}`)
	upsert(`{"id":"4","pk":"q","title":"Four"}`)
	e.run(t, "cosmosix")
	equal(t, "second run", e.sink.actions(), []string{"mergeOrUpload 1", "mergeOrUpload 4"})
	if e.sink.docs["1"]["title"] != "One again" {
		t.Fatalf("document 1: %v", e.sink.docs["1"])
	}

	e.clock.Advance(10 * time.Second)
	upsert(`{"id":"2","pk":"q","title":"Two","isDeleted":true}`)
	e.run(t, "cosmosix")
	equal(t, "soft delete", e.sink.actions(), []string{"delete 2"})

	if err := e.engine.Reset(ctx, "cosmosix"); err != nil {
		t.Fatal(err)
	}
	e.run(t, "cosmosix")
	equal(t, "after reset", e.sink.actions(), []string{"delete 2", "mergeOrUpload 1", "mergeOrUpload 3", "mergeOrUpload 4"})
}

func TestTableIndexerIndexesOnlyChanges(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	if _, err := e.tables.CreateTable(ctx, azauth.DevAccount, "people"); err != nil {
		t.Fatal(err)
	}
	write := func(pk, rk string, props ...table.Property) {
		t.Helper()
		e.clock.Advance(time.Millisecond)
		if _, err := e.tables.WriteEntity(ctx, azauth.DevAccount, "people", table.EntityWrite{Kind: table.WriteInsertOrReplace, PartitionKey: pk, RowKey: rk, Properties: props}); err != nil {
			t.Fatal(err)
		}
	}
	str := func(name, v string) table.Property { return table.Property{Name: name, Value: odata.StringValue(v)} }
	write("p", "1", str("title", "Ann"), table.Property{Name: "rating", Value: odata.Int32Value(4)})
	write("p", "2", str("title", "Bob"))
	write("x", "9", str("title", "Filtered out"))
	e.put(t, search.Indexes, docsIndex)
	e.put(t, search.DataSources, `{"name":"tables","type":"azuretable","credentials":{"connectionString":"`+storageConn+`"},
		"container":{"name":"people","query":"PartitionKey eq 'p'"},
		"dataDeletionDetectionPolicy":{"@odata.type":"#Microsoft.Azure.Search.SoftDeleteColumnDeletionDetectionPolicy","softDeleteColumnName":"gone","softDeleteMarkerValue":"yes"}}`)
	e.put(t, search.Indexers, `{"name":"tableix","dataSourceName":"tables","targetIndexName":"docs",
		"fieldMappings":[{"sourceFieldName":"Key","targetFieldName":"id"},{"sourceFieldName":"title","targetFieldName":"summary","mappingFunction":{"name":"urlEncode"}}]}`)

	e.run(t, "tableix")
	equal(t, "first run", e.sink.actions(), []string{"mergeOrUpload p1", "mergeOrUpload p2"})
	if d := e.sink.docs["p1"]; d["title"] != "Ann" || d["summary"] != "Ann" || fmt.Sprint(d["rating"]) != "4" {
		t.Fatalf("document p1: %v", d)
	}
	write("p", "2", str("title", "Bob Jr"))
	write("p", "3", str("title", "Cy"))
	e.run(t, "tableix")
	equal(t, "second run", e.sink.actions(), []string{"mergeOrUpload p2", "mergeOrUpload p3"})
	if e.sink.docs["p2"]["summary"] != "Bob+Jr" {
		t.Fatalf("urlEncode: %v", e.sink.docs["p2"])
	}
	write("p", "1", str("title", "Ann"), str("gone", "yes"))
	e.run(t, "tableix")
	equal(t, "soft delete", e.sink.actions(), []string{"delete p1"})
}

// TestStatusShape: the status serialises as Azure's SearchIndexerStatus,
// failures (within maxFailedItems) listed with key and status code.
func TestStatusShape(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	e.docsContainer(t)
	e.putBlob(t, "a.json", `{"id":"a"}`, nil)
	e.putBlob(t, "b.json", `{"id":"b"}`, nil)
	e.putBlob(t, "bad.json", `{"id":`, nil)
	e.sink.fail["b"] = true
	e.blobIndex(t)
	e.put(t, search.Indexers, `{"name":"ix","dataSourceName":"blobs","targetIndexName":"docs","parameters":{"maxFailedItems":5,"maxFailedItemsPerBatch":5,"configuration":{"parsingMode":"json"}}}`)
	e.run(t, "ix")
	st, err := e.engine.Status(ctx, "ix")
	if err != nil {
		t.Fatal(err)
	}
	b, err := json.Marshal(st)
	if err != nil {
		t.Fatal(err)
	}
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	for _, k := range []string{"name", "status", "lastResult", "executionHistory", "limits"} {
		if _, ok := m[k]; !ok {
			t.Fatalf("status lacks %s: %s", k, b)
		}
	}
	last := m["lastResult"].(map[string]any)
	for _, k := range []string{"status", "errorMessage", "startTime", "endTime", "errors", "warnings", "itemsProcessed", "itemsFailed", "initialTrackingState", "finalTrackingState"} {
		if _, ok := last[k]; !ok {
			t.Fatalf("lastResult lacks %s: %s", k, b)
		}
	}
	if last["status"] != "success" || last["itemsProcessed"] != 3.0 || last["itemsFailed"] != 2.0 {
		t.Fatalf("lastResult: %s", b)
	}
	errs := last["errors"].([]any)
	keys := []string{}
	for _, x := range errs {
		em := x.(map[string]any)
		if _, ok := em["statusCode"].(float64); !ok || em["errorMessage"] == "" {
			t.Fatalf("error entry: %v", em)
		}
		keys = append(keys, fmt.Sprint(em["key"]))
	}
	sort.Strings(keys)
	equal(t, "error keys", keys, []string{"b", "http://127.0.0.1:10000/devstoreaccount1/docs/bad.json"})
	if _, err := time.Parse(time.RFC3339Nano, last["startTime"].(string)); err != nil {
		t.Fatalf("startTime: %v", err)
	}
}

// TestMaxFailedItems: past the limit the run fails and its mark stays,
// so the next run retries.
func TestMaxFailedItems(t *testing.T) {
	e := newEnv(t)
	e.docsContainer(t)
	e.putBlob(t, "a.json", `{"id":"a"}`, nil)
	e.sink.fail["a"] = true
	e.blobIndex(t)
	e.put(t, search.Indexers, `{"name":"ix","dataSourceName":"blobs","targetIndexName":"docs","parameters":{"configuration":{"parsingMode":"json"}}}`)
	res := e.run(t, "ix")
	if res.Status != "transientFailure" || res.ErrorMessage == nil || !strings.Contains(*res.ErrorMessage, "maxFailedItems") {
		t.Fatalf("run: %+v", res)
	}
	e.sink.actions()
	delete(e.sink.fail, "a")
	if res := e.run(t, "ix"); res.Status != "success" {
		t.Fatalf("retry: %+v", res)
	}
	equal(t, "retry", e.sink.actions(), []string{"mergeOrUpload a"})
}

// TestRunErrors: an unsupported skill and a wrong account key fail the
// run with a clear message in its status.
func TestRunErrors(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	e.docsContainer(t)
	e.blobIndex(t)
	e.put(t, search.DataSources, `{"name":"badkey","type":"azureblob","credentials":{"connectionString":"AccountName=devstoreaccount1;AccountKey=`+base64.StdEncoding.EncodeToString([]byte("nope"))+`"},"container":{"name":"docs"}}`)
	e.put(t, search.Skillsets, `{"name":"ai","skills":[{"@odata.type":"#Microsoft.Skills.Text.V3.EntityRecognitionSkill","inputs":[{"name":"text","source":"/document/content"}],"outputs":[{"name":"persons"}]}]}`)
	e.put(t, search.Indexers, `{"name":"withai","dataSourceName":"blobs","targetIndexName":"docs","skillsetName":"ai"}`)
	e.put(t, search.Indexers, `{"name":"badkey","dataSourceName":"badkey","targetIndexName":"docs"}`)
	for name, want := range map[string]string{"withai": "needs Azure AI services", "badkey": "is not a key of the storage account"} {
		res := e.run(t, name)
		if res.Status != "transientFailure" || res.ErrorMessage == nil || !strings.Contains(*res.ErrorMessage, want) {
			t.Fatalf("%s: %+v", name, res)
		}
	}
	if _, err := e.engine.Run(ctx, "missing"); !errors.Is(err, search.ErrNotFound) {
		t.Fatalf("missing indexer: %v", err)
	}
}

// TestUtilitySkills: Split, Merge, Shaper and Conditional run, and
// output field mappings place their results.
func TestUtilitySkills(t *testing.T) {
	e := newEnv(t)
	e.docsContainer(t)
	e.putBlob(t, "a.json", `{"id":"a","title":"Hello there. Second one!","lang":null}`, nil)
	e.blobIndex(t)
	e.put(t, search.Skillsets, `{"name":"util","skills":[
		{"@odata.type":"#Microsoft.Skills.Text.SplitSkill","name":"split","textSplitMode":"sentences","inputs":[{"name":"text","source":"/document/title"}],"outputs":[{"name":"textItems","targetName":"sentences"}]},
		{"@odata.type":"#Microsoft.Skills.Text.MergeSkill","name":"merge","insertPreTag":"[","insertPostTag":"]","inputs":[{"name":"text","source":"/document/id"},{"name":"itemsToInsert","source":"/document/sentences"}],"outputs":[{"name":"mergedText"}]},
		{"@odata.type":"#Microsoft.Skills.Util.ConditionalSkill","name":"cond","inputs":[{"name":"condition","source":"= $(/document/lang) == null"},{"name":"whenTrue","source":"= 'en'"},{"name":"whenFalse","source":"/document/lang"}],"outputs":[{"name":"output","targetName":"language"}]},
		{"@odata.type":"#Microsoft.Skills.Util.ShaperSkill","name":"shape","inputs":[{"name":"lang","source":"/document/language"}],"outputs":[{"name":"output","targetName":"shaped"}]}]}`)
	e.put(t, search.Indexers, `{"name":"ix","dataSourceName":"blobs","targetIndexName":"docs","skillsetName":"util",
		"parameters":{"configuration":{"parsingMode":"json"}},
		"outputFieldMappings":[{"sourceFieldName":"/document/mergedText","targetFieldName":"summary"},{"sourceFieldName":"/document/shaped/lang","targetFieldName":"content"}]}`)
	if res := e.run(t, "ix"); res.Status != "success" || res.ItemsFailed != 0 {
		t.Fatalf("run: %+v", res)
	}
	d := e.sink.docs["a"]
	if d["summary"] != "a[Hello there.][Second one!]" || d["content"] != "en" {
		t.Fatalf("enriched document: %v", d)
	}
}

// TestScheduleClaim: two engines on one store check the schedule at
// once; exactly one runs the due indexer, and neither runs it again
// before the next interval.
func TestScheduleClaim(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	e.docsContainer(t)
	e.putBlob(t, "a.json", `{"id":"a"}`, nil)
	e.blobIndex(t)
	e.put(t, search.Indexers, `{"name":"ix","dataSourceName":"blobs","targetIndexName":"docs","schedule":{"interval":"PT5M","startTime":"2026-03-01T11:00:00Z"},"parameters":{"configuration":{"parsingMode":"json"}}}`)
	e.put(t, search.Indexers, `{"name":"unscheduled","dataSourceName":"blobs","targetIndexName":"docs"}`)
	other := e.newEngine(t, "engine-2")

	for round := range 3 {
		var wg sync.WaitGroup
		ran := make([][]string, 2)
		for i, eng := range []*Engine{e.engine, other} {
			wg.Go(func() {
				names, err := eng.RunDue(ctx)
				if err != nil {
					t.Errorf("round %d engine %d: %v", round, i, err)
				}
				ran[i] = names
			})
		}
		wg.Wait()
		if total := len(ran[0]) + len(ran[1]); total != 1 {
			t.Fatalf("round %d: runs %v, want exactly one", round, ran)
		}
		// Not due again within the interval.
		e.clock.Advance(time.Minute)
		for _, eng := range []*Engine{e.engine, other} {
			if names, err := eng.RunDue(ctx); err != nil || len(names) != 0 {
				t.Fatalf("round %d: ran %v (%v) before the interval passed", round, names, err)
			}
		}
		e.clock.Advance(4 * time.Minute)
	}
	st, err := e.engine.Status(ctx, "ix")
	if err != nil {
		t.Fatal(err)
	}
	if len(st.ExecutionHistory) != 3 {
		t.Fatalf("history has %d runs, want 3", len(st.ExecutionHistory))
	}
}

// TestRunInProgressIsClaimed: a second run while one holds the claim is
// refused; an expired claim (a crashed process) is taken over and its
// run recorded as failed.
func TestRunInProgressIsClaimed(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	e.docsContainer(t)
	e.blobIndex(t)
	e.put(t, search.Indexers, `{"name":"ix","dataSourceName":"blobs","targetIndexName":"docs"}`)
	// A claim taken by a process that then stopped.
	crashed := e.newEngine(t, "crashed")
	if _, err := crashed.claim(ctx, "ix", nil); err != nil {
		t.Fatal(err)
	}
	if _, err := e.engine.Run(ctx, "ix"); !errors.Is(err, ErrInProgress) {
		t.Fatalf("run during another's claim: %v", err)
	}
	st, err := e.engine.Status(ctx, "ix")
	if err != nil {
		t.Fatal(err)
	}
	if st.LastResult == nil || st.LastResult.Status != "inProgress" {
		t.Fatalf("status during a run: %+v", st.LastResult)
	}
	e.clock.Advance(DefaultClaimTTL + time.Second)
	if res := e.run(t, "ix"); res.Status != "success" {
		t.Fatalf("run after the claim expired: %+v", res)
	}
	st, err = e.engine.Status(ctx, "ix")
	if err != nil {
		t.Fatal(err)
	}
	var statuses []string
	for _, r := range st.ExecutionHistory {
		statuses = append(statuses, r.Status)
	}
	equal(t, "history", statuses, []string{"success", "transientFailure"})
}

func TestStartRunsInBackground(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	e.docsContainer(t)
	e.putBlob(t, "a.json", `{"id":"a"}`, nil)
	e.blobIndex(t)
	e.put(t, search.Indexers, `{"name":"ix","dataSourceName":"blobs","targetIndexName":"docs","parameters":{"configuration":{"parsingMode":"json"}}}`)
	if err := e.engine.Start(ctx, "ix"); err != nil {
		t.Fatal(err)
	}
	e.engine.wg.Wait()
	equal(t, "background run", e.sink.actions(), []string{"mergeOrUpload a"})
}

func TestMappingFunctions(t *testing.T) {
	for _, c := range []struct {
		name   string
		params map[string]any
		in     any
		want   string
	}{
		{"base64Encode", nil, "abc", "YWJj0"},
		{"base64Encode", nil, "ab", "YWI1"},
		{"base64Encode", map[string]any{"useHttpServerUtilityUrlTokenEncode": false}, "ab?", "YWI_"},
		{"base64Decode", nil, "YWI1", "ab"},
		{"extractTokenAtPosition", map[string]any{"delimiter": " ", "position": json.Number("1")}, "Jane Doe", "Doe"},
		{"jsonArrayToStringCollection", nil, `["a","b"]`, "[a b]"},
		{"urlEncode", nil, "a b/é", "a+b%2f%c3%a9"},
		{"urlDecode", nil, "a+b%2F", "a b/"},
	} {
		fn, err := mappingFunction(c.name, c.params)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		got, err := fn(c.in)
		if err != nil || fmt.Sprint(got) != c.want {
			t.Errorf("%s(%v) = %v, %v; want %s", c.name, c.in, got, err, c.want)
		}
	}
	if _, err := mappingFunction("fixedLengthEncode", nil); err == nil {
		t.Error("fixedLengthEncode was accepted")
	}
}

func TestConnectionStrings(t *testing.T) {
	key, _ := base64.StdEncoding.DecodeString(azauth.DevKey)
	accts := azauth.NewAccounts(azauth.Account{Name: azauth.DevAccount, Keys: [][]byte{key}})
	for _, c := range []struct {
		conn, endpoint, err string
	}{
		{"UseDevelopmentStorage=true", "http://127.0.0.1:10000/devstoreaccount1", ""},
		{"AccountName=devstoreaccount1;AccountKey=" + azauth.DevKey, "https://devstoreaccount1.blob.core.windows.net", ""},
		{storageConn, "http://127.0.0.1:10000/devstoreaccount1", ""},
		{"AccountName=other;AccountKey=" + azauth.DevKey, "", "does not exist"},
		{"AccountName=devstoreaccount1;AccountKey=bm9wZQ==", "", "is not a key"},
		{"ResourceId=/subscriptions/x", "", "not supported"},
		{"BlobEndpoint=http://x;SharedAccessSignature=sv=1", "", "not supported"},
		{"garbage", "", "malformed"},
	} {
		got, err := parseStorage(c.conn, accts)
		switch {
		case c.err != "" && (err == nil || !strings.Contains(err.Error(), c.err)):
			t.Errorf("%q: error %v, want one containing %q", c.conn, err, c.err)
		case c.err == "" && (err != nil || got.blobEndpoint != c.endpoint):
			t.Errorf("%q: %+v, %v; want endpoint %s", c.conn, got, err, c.endpoint)
		}
	}
	keys := [][]byte{[]byte("k")}
	if db, err := parseCosmos("AccountEndpoint=https://h:8081/;AccountKey="+base64.StdEncoding.EncodeToString([]byte("k"))+";Database=d", keys); err != nil || db != "d" {
		t.Errorf("cosmos: %q, %v", db, err)
	}
	if _, err := parseCosmos("AccountEndpoint=https://h:8081/;AccountKey=bm9wZQ==;Database=d", keys); err == nil {
		t.Error("a wrong Cosmos key was accepted")
	}
	if _, err := parseCosmos("AccountEndpoint=https://h:8081/;AccountKey=aw==", keys); err == nil {
		t.Error("a Cosmos connection string without Database was accepted")
	}
}

// FuzzParseContent: any bytes in any mode parse or fail cleanly.
func FuzzParseContent(f *testing.F) {
	f.Add([]byte(`{"a":1}`), uint8(0))
	f.Add([]byte("a,b\n1,\"2\n"), uint8(5))
	f.Add([]byte("{\"x\":[1,2]}\n{"), uint8(4))
	modes := []string{"default", "text", "json", "jsonArray", "jsonLines", "delimitedText"}
	f.Fuzz(func(t *testing.T, data []byte, mode uint8) {
		cfg := &blobConfig{parsingMode: modes[int(mode)%len(modes)], delimiter: ',', firstLineHeaders: true, documentRoot: "/items"}
		docs, _, err := parseContent(cfg, data)
		if err == nil && cfg.parsingMode != "delimitedText" && cfg.parsingMode != "jsonArray" && cfg.parsingMode != "jsonLines" && len(docs) != 1 {
			t.Fatalf("mode %s made %d documents", cfg.parsingMode, len(docs))
		}
	})
}

// blobEnv is an env with container "docs", index "docs", data source
// "blobs" and the JSON indexer "ix".
func blobEnv(t *testing.T, indexerExtra string) *env {
	t.Helper()
	e := newEnv(t)
	if _, err := e.blobs.CreateContainer(context.Background(), blob.ContainerRef{Account: azauth.DevAccount, Container: "docs"}, blob.CreateContainerOptions{}); err != nil {
		t.Fatal(err)
	}
	e.blobIndex(t)
	e.put(t, search.Indexers, `{"name":"ix","dataSourceName":"blobs","targetIndexName":"docs","parameters":{"configuration":{"parsingMode":"json"}}`+indexerExtra+`}`)
	return e
}

// TestMarkSurvivesRestart: a new Engine (a restarted process) continues
// from the mark kept in kv.
func TestMarkSurvivesRestart(t *testing.T) {
	e := blobEnv(t, "")
	e.putBlob(t, "a.json", `{"id":"a"}`, nil)
	e.run(t, "ix")
	e.sink.actions()
	e.engine.Close()
	e.engine = e.newEngine(t, "after-restart")
	e.clock.Advance(time.Second)
	e.putBlob(t, "b.json", `{"id":"b"}`, nil)
	e.run(t, "ix")
	equal(t, "after restart", e.sink.actions(), []string{"mergeOrUpload b"})
}

// TestResetDuringRunWins: a run that was in progress when the indexer was
// reset does not put its mark back.
func TestResetDuringRunWins(t *testing.T) {
	e := blobEnv(t, "")
	ctx := context.Background()
	e.putBlob(t, "a.json", `{"id":"a"}`, nil)
	c, err := e.engine.claim(ctx, "ix", nil)
	if err != nil {
		t.Fatal(err)
	}
	if err := e.engine.Reset(ctx, "ix"); err != nil {
		t.Fatal(err)
	}
	// The run began before the reset, so its mark is discarded…
	if res := e.engine.execute(ctx, "ix", c); res.Status != "success" {
		t.Fatalf("run: %+v", res)
	}
	e.sink.actions()
	// …and the next run indexes everything again.
	e.run(t, "ix")
	equal(t, "after reset", e.sink.actions(), []string{"mergeOrUpload a"})
}

// TestHistoryIsBounded: the history keeps the newest fifty results.
func TestHistoryIsBounded(t *testing.T) {
	e := blobEnv(t, "")
	ctx := context.Background()
	for range maxHistory + 7 {
		if err := e.engine.Reset(ctx, "ix"); err != nil {
			t.Fatal(err)
		}
	}
	e.run(t, "ix")
	st, err := e.engine.Status(ctx, "ix")
	if err != nil {
		t.Fatal(err)
	}
	if len(st.ExecutionHistory) != maxHistory || st.ExecutionHistory[0].Status != "success" || st.ExecutionHistory[1].Status != "reset" {
		t.Fatalf("history: %d entries, first %s", len(st.ExecutionHistory), st.ExecutionHistory[0].Status)
	}
	n := 0
	err = e.store.View(ctx, func(rd kv.Reader) error {
		p := historyPrefix("ix")
		return rd.Scan(p, kv.PrefixEnd(p), func(_, _ []byte) error { n++; return nil })
	})
	if err != nil || n != maxHistory {
		t.Fatalf("stored history entries: %d (%v)", n, err)
	}
}

// TestBatchSize: batchSize cuts the sink's batches.
func TestBatchSize(t *testing.T) {
	e := blobEnv(t, `,"fieldMappings":[]`)
	def, _ := search.ParseDefinition([]byte(`{"name":"ix","dataSourceName":"blobs","targetIndexName":"docs","parameters":{"batchSize":2,"configuration":{"parsingMode":"json"}}}`))
	if _, _, err := e.search.Put(context.Background(), search.Indexers, "ix", def, search.PutOptions{}); err != nil {
		t.Fatal(err)
	}
	for _, n := range []string{"a", "b", "c", "d", "e"} {
		e.putBlob(t, n+".json", `{"id":"`+n+`"}`, nil)
	}
	e.run(t, "ix")
	e.sink.mu.Lock()
	var sizes []string
	for _, b := range e.sink.batches {
		sizes = append(sizes, fmt.Sprint(len(b)))
	}
	e.sink.mu.Unlock()
	equal(t, "batch sizes", sizes, []string{"2", "2", "1"})
}

func TestCheckDataSource(t *testing.T) {
	e := newEnv(t)
	good := decodeDataSource(t, map[string]any{"type": "azureblob", "credentials": map[string]any{"connectionString": storageConn}, "container": map[string]any{"name": "docs"}})
	if err := e.engine.CheckDataSource(good); err != nil {
		t.Fatal(err)
	}
	bad := decodeDataSource(t, map[string]any{"type": "cosmosdb", "credentials": map[string]any{"connectionString": "AccountEndpoint=https://x/;AccountKey=bm9wZQ==;Database=d"}, "container": map[string]any{"name": "c"}})
	err := e.engine.CheckDataSource(bad)
	var se *search.Error
	if !errors.As(err, &se) || se.Status != 400 || !strings.Contains(se.Message, "not a key") {
		t.Fatalf("bad key: %v", err)
	}
}

// decodeDataSource decodes a data source definition as the service does.
func decodeDataSource(t *testing.T, def map[string]any) *search.DataSource {
	t.Helper()
	b, err := json.Marshal(def)
	if err != nil {
		t.Fatal(err)
	}
	var ds search.DataSource
	if err := json.Unmarshal(b, &ds); err != nil {
		t.Fatal(err)
	}
	return &ds
}

// TestCosmosCustomQuery: the data source's query runs with
// @HighWaterMark, and its projection decides what is indexed.
func TestCosmosCustomQuery(t *testing.T) {
	e := newEnv(t)
	ctx := context.Background()
	e.shopItems(t)
	for _, doc := range []string{`{"id":"1","pk":"p","name":"One","kind":"a"}`, `{"id":"2","pk":"p","name":"Two","kind":"b"}`} {
		if _, err := e.cosmos.CreateItem(ctx, cosmos.CollectionRef{DB: "shop", Coll: "items"}, cosmos.PartitionKey(`["p"]`), []byte(doc), cosmos.ItemOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	e.put(t, search.Indexes, docsIndex)
	e.put(t, search.DataSources, `{"name":"cosmos","type":"cosmosdb",
		"credentials":{"connectionString":"AccountEndpoint=https://127.0.0.1:8081/;AccountKey=`+cosmos.EmulatorKey+`;Database=shop"},
		"container":{"name":"items","query":"SELECT c.id, c.name AS title, c._ts, c._rid, c._etag FROM c WHERE c.kind = 'a' AND c._ts >= @HighWaterMark ORDER BY c._ts"},
		"dataChangeDetectionPolicy":{"@odata.type":"#Microsoft.Azure.Search.HighWaterMarkChangeDetectionPolicy","highWaterMarkColumnName":"_ts"}}`)
	e.put(t, search.Indexers, `{"name":"ix","dataSourceName":"cosmos","targetIndexName":"docs"}`)
	if res := e.run(t, "ix"); res.Status != "success" || len(res.Warnings) != 0 {
		t.Fatalf("run: %+v", res)
	}
	equal(t, "custom query", e.sink.actions(), []string{"mergeOrUpload 1"})
	if e.sink.docs["1"]["title"] != "One" {
		t.Fatalf("document 1: %v", e.sink.docs["1"])
	}
	e.run(t, "ix")
	equal(t, "rerun", e.sink.actions(), nil)
}

// TestDisabledIndexerIsNotScheduled: a disabled indexer's schedule does
// not run it.
func TestDisabledIndexerIsNotScheduled(t *testing.T) {
	e := blobEnv(t, `,"disabled":true,"schedule":{"interval":"PT5M"}`)
	names, err := e.engine.RunDue(context.Background())
	if err != nil || len(names) != 0 {
		t.Fatalf("ran %v (%v)", names, err)
	}
}
