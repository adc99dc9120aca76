package cosmos

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"
)

// newScriptService is newTestService with a script budget of its own.
func newScriptService(t *testing.T, budget time.Duration) *Service {
	t.Helper()
	s, _ := newItemsService(t, Config{ScriptBudget: budget}, "")
	return s
}

func mustCreateScript(t *testing.T, s *Service, kind ScriptKind, props map[string]any) {
	t.Helper()
	b, _ := json.Marshal(props)
	if _, err := s.CreateScript(context.Background(), CollectionRef{DB: "db", Coll: "items"}, kind, b); err != nil {
		t.Fatalf("create %s %v: %v", kind, props["id"], err)
	}
}

func execute(t *testing.T, s *Service, id, pk, params string) (*ExecuteResult, error) {
	t.Helper()
	return s.ExecuteStoredProcedure(context.Background(), CollectionRef{DB: "db", Coll: "items"}, pkOf(t, pk), id, ExecuteOptions{Params: []byte(params), EnableLogging: true})
}

func countItems(t *testing.T, s *Service, pk string) int {
	t.Helper()
	f, err := s.ReadItemFeed(context.Background(), CollectionRef{DB: "db", Coll: "items"}, pkOf(t, pk), FeedOptions{MaxItemCount: 1000})
	if err != nil {
		t.Fatal(err)
	}
	return len(f.Items)
}

const counterSproc = `function counter(id) {
	var coll = getContext().getCollection();
	var link = coll.getAltLink() + "/docs/" + id;
	coll.readDocument(link, {}, function (err, doc) {
		if (err && err.number == 404) {
			coll.createDocument(coll.getSelfLink(), {id: id, pk: "a", n: 1}, function (err, d) {
				if (err) throw err;
				getContext().getResponse().setBody(d.n);
			});
			return;
		}
		if (err) throw err;
		doc.n++;
		coll.replaceDocument(link, doc, {etag: doc._etag}, function (err, d) {
			if (err) throw err;
			getContext().getResponse().setBody(d.n);
		});
	});
}`

func TestStoredProcedureCounter(t *testing.T) {
	s := newScriptService(t, 0)
	mustCreateScript(t, s, StoredProcedures, map[string]any{"id": "counter", "body": counterSproc})
	const workers, runs = 8, 5
	var wg sync.WaitGroup
	errs := make(chan error, workers*runs)
	for range workers {
		wg.Go(func() {
			for range runs {
				if _, err := execute(t, s, "counter", "a", `["c"]`); err != nil {
					errs <- err
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Fatalf("execute: %v", err)
	}
	it, err := s.ReadItem(context.Background(), ItemRef{CollectionRef: CollectionRef{DB: "db", Coll: "items"}, PartitionKey: pkOf(t, "a"), ID: "c"}, ItemOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if n := field(t, it, "n"); n != float64(workers*runs) {
		t.Fatalf("counter = %v after %d runs: an increment was lost or doubled", n, workers*runs)
	}
	res, err := execute(t, s, "counter", "a", `["c"]`)
	if err != nil || string(res.Body) != fmt.Sprint(workers*runs+1) {
		t.Fatalf("one more run: %+v, %v", res, err)
	}
}

func TestStoredProcedureThrowRollsBack(t *testing.T) {
	s := newScriptService(t, 0)
	mustCreateScript(t, s, StoredProcedures, map[string]any{"id": "bulk", "body": `function bulk(n, fail) {
		var coll = getContext().getCollection();
		var done = 0;
		for (var i = 0; i < n; i++) {
			coll.createDocument(coll.getSelfLink(), {id: "d" + i, pk: "a"}, function (err) {
				if (err) throw err;
				if (++done == n) {
					if (fail) throw new Error("refused after " + done);
					getContext().getResponse().setBody(done);
				}
			});
		}
	}`})
	_, err := execute(t, s, "bulk", "a", `[100, true]`)
	var e *Error
	if !errors.As(err, &e) || e.Status != http.StatusBadRequest || !strings.Contains(e.Message, "refused after 100") ||
		!strings.Contains(e.Message, "Encountered exception while executing function") {
		t.Fatalf("throwing sproc: %v, want 400 with the thrown message", err)
	}
	if n := countItems(t, s, "a"); n != 0 {
		t.Fatalf("%d items left by a sproc that threw", n)
	}
	res, err := execute(t, s, "bulk", "a", `[100, false]`)
	if err != nil || string(res.Body) != "100" {
		t.Fatalf("completing sproc: %+v, %v", res, err)
	}
	if n := countItems(t, s, "a"); n != 100 {
		t.Fatalf("%d items after a sproc that created 100", n)
	}
}

func TestStoredProcedureCallbackErrors(t *testing.T) {
	s := newScriptService(t, 0)
	if _, err := s.CreateItem(context.Background(), CollectionRef{DB: "db", Coll: "items"}, pkOf(t, "a"), []byte(`{"id":"x","pk":"a"}`), ItemOptions{}); err != nil {
		t.Fatal(err)
	}
	mustCreateScript(t, s, StoredProcedures, map[string]any{"id": "stale", "body": `function stale() {
		var coll = getContext().getCollection();
		coll.replaceDocument(coll.getAltLink() + "/docs/x", {id: "x", pk: "a", v: 1}, {etag: '"00000000-0000-0000-0000-000000000000"'}, function (err) {
			getContext().getResponse().setBody(err ? err.number : 0);
		});
	}`})
	res, err := execute(t, s, "stale", "a", "")
	if err != nil || string(res.Body) != "412" {
		t.Fatalf("replace with a stale etag: %+v, %v, want the callback to see 412", res, err)
	}
	mustCreateScript(t, s, StoredProcedures, map[string]any{"id": "otherpk", "body": `function otherpk() {
		var coll = getContext().getCollection();
		coll.createDocument(coll.getSelfLink(), {id: "y", pk: "b"}, function (err) {
			getContext().getResponse().setBody(err ? err.number : 0);
		});
	}`})
	res, err = execute(t, s, "otherpk", "a", "")
	if err != nil || string(res.Body) != "400" {
		t.Fatalf("create in another partition: %+v, %v, want the callback to see 400", res, err)
	}
	if n := countItems(t, s, "b"); n != 0 {
		t.Fatalf("a sproc wrote %d items outside its partition", n)
	}
	mustCreateScript(t, s, StoredProcedures, map[string]any{"id": "rethrow", "body": `function rethrow() {
		var coll = getContext().getCollection();
		coll.createDocument(coll.getSelfLink(), {id: "x", pk: "a"}, function (err) { if (err) throw err; });
	}`})
	if _, err := execute(t, s, "rethrow", "a", ""); err == nil {
		t.Fatal("a rethrown conflict succeeded")
	}
	// A script with a syntax error is refused when it is stored, as Azure
	// compiles scripts then, whether created or replaced.
	broken, _ := json.Marshal(map[string]any{"id": "broken", "body": `function broken( {`})
	if _, err := s.CreateScript(context.Background(), CollectionRef{DB: "db", Coll: "items"}, StoredProcedures, broken); !errors.Is(err, ErrBadRequest) {
		t.Fatalf("creating a script that does not compile: %v, want ErrBadRequest", err)
	}
	mustCreateScript(t, s, StoredProcedures, map[string]any{"id": "broken", "body": `function broken() {}`})
	if _, err := s.ReplaceScript(context.Background(), ScriptRef{CollectionRef: CollectionRef{DB: "db", Coll: "items"}, Kind: StoredProcedures, ID: "broken"}, broken, Preconditions{}); !errors.Is(err, ErrBadRequest) {
		t.Fatalf("replacing a script with one that does not compile: %v, want ErrBadRequest", err)
	}
	for kind, body := range map[ScriptKind]string{UserDefinedFunctions: `function (x) { return x +; }`, Triggers: `function t() { var }`} {
		b, _ := json.Marshal(map[string]any{"id": "bad", "body": body, "triggerType": "Pre", "triggerOperation": "All"})
		if _, err := s.CreateScript(context.Background(), CollectionRef{DB: "db", Coll: "items"}, kind, b); !errors.Is(err, ErrBadRequest) {
			t.Fatalf("creating a %s that does not compile: %v, want ErrBadRequest", kind, err)
		}
	}
	if _, err := execute(t, s, "missing", "a", ""); !errors.Is(err, ErrNotFound) {
		t.Fatalf("a missing sproc: %v, want ErrNotFound", err)
	}
	if _, err := execute(t, s, "stale", "a", `{"not":"an array"}`); !errors.Is(err, ErrBadRequest) {
		t.Fatalf("parameters that are not an array: %v, want ErrBadRequest", err)
	}
}

func TestStoredProcedureLogAndQuery(t *testing.T) {
	s := newScriptService(t, 0)
	ctx := context.Background()
	for i, pk := range []string{"a", "a", "b"} {
		if _, err := s.CreateItem(ctx, CollectionRef{DB: "db", Coll: "items"}, pkOf(t, pk), fmt.Appendf(nil, `{"id":"%d","pk":"%s","n":%d}`, i, pk, i), ItemOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	mustCreateScript(t, s, StoredProcedures, map[string]any{"id": "sum", "body": `function sum(min) {
		var coll = getContext().getCollection();
		console.log("min=" + min);
		coll.queryDocuments(coll.getSelfLink(), {query: "SELECT VALUE c.n FROM c WHERE c.n >= @min", parameters: [{name: "@min", value: min}]}, {}, function (err, ns) {
			if (err) throw err;
			var total = 0;
			ns.forEach(function (n) { total += n; });
			getContext().getResponse().setBody({total: total, count: ns.length});
		});
	}`})
	res, err := execute(t, s, "sum", "a", `[0]`)
	if err != nil {
		t.Fatal(err)
	}
	var got struct{ Total, Count int }
	if err := json.Unmarshal(res.Body, &got); err != nil || got.Total != 1 || got.Count != 2 {
		t.Fatalf("query in partition a: %s, %v (the other partition must not be seen)", res.Body, err)
	}
	if res.Log != "min=0" {
		t.Fatalf("log %q", res.Log)
	}
	if enc := encodeURIComponent("a b/é;"); enc != "a%20b%2F%C3%A9%3B" {
		t.Fatalf("encodeURIComponent: %s", enc)
	}
}

func TestStoredProcedureTimeout(t *testing.T) {
	s := newScriptService(t, 300*time.Millisecond)
	mustCreateScript(t, s, StoredProcedures, map[string]any{"id": "spin", "body": `function spin() {
		var coll = getContext().getCollection();
		coll.createDocument(coll.getSelfLink(), {id: "before", pk: "a"});
		while (true) {}
	}`})
	done := make(chan error, 1)
	start := time.Now()
	go func() {
		_, err := execute(t, s, "spin", "a", "")
		done <- err
	}()
	// Another request is served while the script spins.
	time.Sleep(50 * time.Millisecond)
	if _, err := s.CreateItem(context.Background(), CollectionRef{DB: "db", Coll: "items"}, pkOf(t, "b"), []byte(`{"id":"other","pk":"b"}`), ItemOptions{}); err != nil {
		t.Fatalf("a request during a spinning script: %v", err)
	}
	if time.Since(start) > 250*time.Millisecond {
		t.Fatalf("a request waited %v for a spinning script", time.Since(start))
	}
	err := <-done
	var e *Error
	if !errors.As(err, &e) || e.Status != http.StatusRequestTimeout {
		t.Fatalf("spinning sproc: %v, want 408", err)
	}
	if n := countItems(t, s, "a"); n != 0 {
		t.Fatalf("a timed-out sproc left %d items", n)
	}
}

func TestTriggers(t *testing.T) {
	s := newScriptService(t, 0)
	ctx := context.Background()
	mustCreateScript(t, s, Triggers, map[string]any{"id": "stamp", "triggerType": "Pre", "triggerOperation": "All", "body": `function stamp() {
		var req = getContext().getRequest();
		var doc = req.getBody();
		if (doc.reject) throw new Error("rejected by stamp");
		doc.stamped = true;
		var by = req.getValue("X-Ms-Client-Tag");
		if (by !== undefined) doc.by = by;
		req.setBody(doc);
	}`})
	mustCreateScript(t, s, Triggers, map[string]any{"id": "audit", "triggerType": "Post", "triggerOperation": "Create", "body": `function audit() {
		var coll = getContext().getCollection();
		var doc = getContext().getResponse().getBody();
		if (doc.failAfter) throw new Error("audit failed");
		var ok = coll.createDocument(coll.getSelfLink(), {id: "audit-" + doc.id, pk: doc.pk, of: doc._etag}, function (err) { if (err) throw err; });
		if (!ok) throw new Error("not accepted");
	}`})
	pre := ItemOptions{Triggers: TriggerNames{Pre: []string{"stamp"}}}
	it, err := s.CreateItem(ctx, CollectionRef{DB: "db", Coll: "items"}, pkOf(t, "a"), []byte(`{"id":"1","pk":"a"}`), pre)
	if err != nil || field(t, it, "stamped") != true {
		t.Fatalf("create with a pre-trigger: %+v, %v", it, err)
	}
	tagged := ItemOptions{Triggers: TriggerNames{Pre: []string{"stamp"}, Headers: map[string]string{"x-ms-client-tag": "tests"}}}
	if it, err := s.CreateItem(ctx, CollectionRef{DB: "db", Coll: "items"}, pkOf(t, "a"), []byte(`{"id":"1h","pk":"a"}`), tagged); err != nil || field(t, it, "by") != "tests" {
		t.Fatalf("a pre-trigger reading a request header (any case): %+v, %v", it, err)
	}
	if _, err := s.CreateItem(ctx, CollectionRef{DB: "db", Coll: "items"}, pkOf(t, "a"), []byte(`{"id":"2","pk":"a","reject":true}`), pre); !errors.Is(err, ErrBadRequest) || !strings.Contains(err.Error(), "rejected by stamp") {
		t.Fatalf("create rejected by a pre-trigger: %v", err)
	}
	if _, err := s.ReadItem(ctx, ItemRef{CollectionRef: CollectionRef{DB: "db", Coll: "items"}, PartitionKey: pkOf(t, "a"), ID: "2"}, ItemOptions{}); !errors.Is(err, ErrNotFound) {
		t.Fatalf("a rejected item exists: %v", err)
	}
	if _, err := s.CreateItem(ctx, CollectionRef{DB: "db", Coll: "items"}, pkOf(t, "a"), []byte(`{"id":"3","pk":"a"}`), ItemOptions{}); err != nil {
		t.Fatal(err)
	}
	if it, _ := s.ReadItem(ctx, ItemRef{CollectionRef: CollectionRef{DB: "db", Coll: "items"}, PartitionKey: pkOf(t, "a"), ID: "3"}, ItemOptions{}); field(t, it, "stamped") != nil {
		t.Fatal("a trigger ran without being named")
	}

	post := ItemOptions{Triggers: TriggerNames{Post: []string{"audit"}}}
	it, err = s.CreateItem(ctx, CollectionRef{DB: "db", Coll: "items"}, pkOf(t, "a"), []byte(`{"id":"4","pk":"a"}`), post)
	if err != nil {
		t.Fatalf("create with a post-trigger: %v", err)
	}
	audit, err := s.ReadItem(ctx, ItemRef{CollectionRef: CollectionRef{DB: "db", Coll: "items"}, PartitionKey: pkOf(t, "a"), ID: "audit-4"}, ItemOptions{})
	if err != nil || field(t, audit, "of") != it.ETag {
		t.Fatalf("post-trigger's item: %+v, %v (written item etag %s)", audit, err, it.ETag)
	}
	if _, err := s.CreateItem(ctx, CollectionRef{DB: "db", Coll: "items"}, pkOf(t, "a"), []byte(`{"id":"5","pk":"a","failAfter":true}`), post); !errors.Is(err, ErrBadRequest) {
		t.Fatalf("a post-trigger that throws: %v", err)
	}
	if _, err := s.ReadItem(ctx, ItemRef{CollectionRef: CollectionRef{DB: "db", Coll: "items"}, PartitionKey: pkOf(t, "a"), ID: "5"}, ItemOptions{}); !errors.Is(err, ErrNotFound) {
		t.Fatalf("a post-trigger's throw left the item: %v", err)
	}

	// Triggers on replace, upsert and delete.
	if _, err := s.ReplaceItem(ctx, ItemRef{CollectionRef: CollectionRef{DB: "db", Coll: "items"}, PartitionKey: pkOf(t, "a"), ID: "3"}, []byte(`{"id":"3","pk":"a"}`), pre); err != nil {
		t.Fatal(err)
	}
	if _, _, err := s.UpsertItem(ctx, CollectionRef{DB: "db", Coll: "items"}, pkOf(t, "a"), []byte(`{"id":"6","pk":"a"}`), pre); err != nil {
		t.Fatal(err)
	}
	for _, id := range []string{"3", "6"} {
		if it, _ := s.ReadItem(ctx, ItemRef{CollectionRef: CollectionRef{DB: "db", Coll: "items"}, PartitionKey: pkOf(t, "a"), ID: id}, ItemOptions{}); field(t, it, "stamped") != true {
			t.Fatalf("item %s was not stamped", id)
		}
	}
	if _, err := s.DeleteItem(ctx, ItemRef{CollectionRef: CollectionRef{DB: "db", Coll: "items"}, PartitionKey: pkOf(t, "a"), ID: "6"}, post); !errors.Is(err, ErrBadRequest) || !strings.Contains(err.Error(), "invalid for 'Delete'") {
		t.Fatalf("delete naming a Create trigger: %v", err)
	}
	if _, err := s.CreateItem(ctx, CollectionRef{DB: "db", Coll: "items"}, pkOf(t, "a"), []byte(`{"id":"7","pk":"a"}`), ItemOptions{Triggers: TriggerNames{Pre: []string{"audit"}}}); !errors.Is(err, ErrBadRequest) {
		t.Fatalf("a post-trigger named as a pre-trigger: %v", err)
	}
	if _, err := s.CreateItem(ctx, CollectionRef{DB: "db", Coll: "items"}, pkOf(t, "a"), []byte(`{"id":"7","pk":"a"}`), ItemOptions{Triggers: TriggerNames{Pre: []string{"nope"}}}); !errors.Is(err, ErrNotFound) {
		t.Fatalf("a missing trigger: %v", err)
	}
	if _, err := s.ReadItem(ctx, ItemRef{CollectionRef: CollectionRef{DB: "db", Coll: "items"}, PartitionKey: pkOf(t, "a"), ID: "7"}, ItemOptions{}); !errors.Is(err, ErrNotFound) {
		t.Fatalf("an operation refused for its triggers wrote: %v", err)
	}
}

func TestUDFs(t *testing.T) {
	s := newScriptService(t, 300*time.Millisecond)
	ctx := context.Background()
	for i := range 4 {
		if _, err := s.CreateItem(ctx, CollectionRef{DB: "db", Coll: "items"}, pkOf(t, "a"), fmt.Appendf(nil, `{"id":"%d","pk":"a","price":%d}`, i, i*10), ItemOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	mustCreateScript(t, s, UserDefinedFunctions, map[string]any{"id": "tax", "body": `function tax(p) { return p * 1.5; }`})
	mustCreateScript(t, s, UserDefinedFunctions, map[string]any{"id": "fail", "body": `function fail() { throw new Error("udf failed"); }`})
	mustCreateScript(t, s, UserDefinedFunctions, map[string]any{"id": "spin", "body": `function spin() { while (true) {} }`})
	q, err := ParseQuery("SELECT VALUE udf.tax(c.price) FROM c WHERE udf.tax(c.price) > 20 ORDER BY c.price")
	if err != nil {
		t.Fatal(err)
	}
	f, err := s.QueryItems(ctx, CollectionRef{DB: "db", Coll: "items"}, pkOf(t, "a"), q, nil)
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, it := range f.Items {
		got = append(got, string(it))
	}
	if strings.Join(got, ",") != "30,45" {
		t.Fatalf("udf in SELECT and WHERE: %v", got)
	}
	for name, want := range map[string]int{"missing": http.StatusBadRequest, "fail": http.StatusBadRequest, "spin": http.StatusRequestTimeout} {
		q, _ := ParseQuery("SELECT VALUE udf." + name + "() FROM c")
		_, err := s.QueryItems(ctx, CollectionRef{DB: "db", Coll: "items"}, pkOf(t, "a"), q, nil)
		var e *Error
		if !errors.As(err, &e) || e.Status != want {
			t.Errorf("udf.%s: %v, want %d", name, err, want)
		}
	}
}

// A script whose writes near what one transaction may hold is told its
// calls are no longer accepted, exactly as near the end of its time, and
// what it wrote until then commits: it never fails with 413.
func TestStoredProcedureWriteQuota(t *testing.T) {
	s := newScriptService(t, time.Minute)
	mustCreateScript(t, s, StoredProcedures, map[string]any{"id": "fill", "body": `function fill(n) {
		var coll = getContext().getCollection(), done = 0;
		var pad = new Array(2001).join("x");
		while (done < n && coll.createDocument(coll.getSelfLink(), {id: "f" + done, pk: "a", pad: pad})) done++;
		getContext().getResponse().setBody(done);
	}`})
	res, err := execute(t, s, "fill", "a", `[100000]`)
	if err != nil {
		t.Fatal(err)
	}
	var done int
	if err := json.Unmarshal(res.Body, &done); err != nil {
		t.Fatalf("body %s: %v", res.Body, err)
	}
	// 2 kB documents, each stored twice (the item and its change
	// record), against a 5 MB quota: about 1,100 accepted.
	if done < 800 || done > 1500 {
		t.Fatalf("%d creates accepted, want about %d", done, scriptWriteQuota/(2*2000+writeOverhead))
	}
	q, err := ParseQuery("SELECT VALUE COUNT(1) FROM c")
	if err != nil {
		t.Fatal(err)
	}
	f, err := s.QueryItems(context.Background(), CollectionRef{DB: "db", Coll: "items"}, pkOf(t, "a"), q, nil)
	if err != nil {
		t.Fatal(err)
	}
	if len(f.Items) != 1 || string(f.Items[0]) != fmt.Sprint(done) {
		t.Fatalf("count %s, want %d committed", f.Items, done)
	}
}

// upsertWithEtag upserts {id, pk: "a", v} with the etag given and reports
// what happened.
const upsertWithEtag = `function upsertWithEtag(id, v, etag) {
	var coll = getContext().getCollection();
	var ok = coll.upsertDocument(coll.getSelfLink(), {id: id, pk: "a", v: v}, {etag: etag}, function (err, doc) {
		if (err) {
			getContext().getResponse().setBody({failed: true, number: err.number});
			return;
		}
		getContext().getResponse().setBody({failed: false, v: doc.v});
	});
	if (!ok) throw new Error("not accepted");
}`

// TestStoredProcedureUpsertWithEtag: upsertDocument with an etag creates
// a missing item and applies the etag to an existing one (412 in the
// callback when stale), as an upsert request does: the .NET SDK documents
// IfMatchEtag as ignored when an upsert is "materialized as Create".
func TestStoredProcedureUpsertWithEtag(t *testing.T) {
	s := newScriptService(t, 0)
	mustCreateScript(t, s, StoredProcedures, map[string]any{"id": "up", "body": upsertWithEtag})
	stale := `"00000000-0000-0000-0000-000000000000"`
	for i, c := range []struct {
		v    int
		etag string
		want string
	}{
		{1, stale, `{"failed":false,"v":1}`},
		{2, stale, `{"failed":true,"number":412}`},
	} {
		params, _ := json.Marshal([]any{"y", c.v, c.etag})
		r, err := execute(t, s, "up", "a", string(params))
		if err != nil {
			t.Fatalf("run %d: %v", i, err)
		}
		if string(r.Body) != c.want {
			t.Fatalf("run %d: %s, want %s", i, r.Body, c.want)
		}
	}
}
