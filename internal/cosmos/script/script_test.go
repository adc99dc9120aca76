package script

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/cerulean-db/cerulean/internal/testkit"
)

func sproc(id, body string) Script { return Script{ID: id, ETag: `"1"`, Body: body} }

// run executes a stored procedure over coll with default options.
func run(t *testing.T, coll *fakeCollection, body string, params string) (*Result, error) {
	t.Helper()
	return NewEngine().RunSproc(context.Background(), sproc("sp", body), []byte(params), coll, Options{})
}

// mustBody runs a stored procedure that must succeed and decodes its body.
func mustBody(t *testing.T, coll *fakeCollection, body, params string) any {
	t.Helper()
	res, err := run(t, coll, body, params)
	if err != nil {
		t.Fatalf("run: %v", err)
	}
	var v any
	if res.Body != nil {
		if err := json.Unmarshal(res.Body, &v); err != nil {
			t.Fatalf("body %q: %v", res.Body, err)
		}
	}
	return v
}

func asThrown(t *testing.T, err error) *ThrownError {
	t.Helper()
	var te *ThrownError
	if !errors.As(err, &te) {
		t.Fatalf("error %T %v, want a *ThrownError", err, err)
	}
	return te
}

const counterSproc = `
function increment(id) {
	var coll = getContext().getCollection();
	var link = coll.getAltLink() + "/docs/" + id;
	coll.readDocument(link, function (err, doc) {
		if (err && err.number === ErrorCodes.NotFound) {
			coll.createDocument(coll.getSelfLink(), {id: id, n: 1}, function (err, created) {
				if (err) throw err;
				getContext().getResponse().setBody(created.n);
			});
			return;
		}
		if (err) throw err;
		doc.n++;
		// By self link: the runtime maps the _rid back to the id.
		coll.replaceDocument(doc._self, doc, {etag: doc._etag}, function (err, replaced) {
			if (err) throw err;
			getContext().getResponse().setBody(replaced.n);
		});
	});
}`

func TestCounter(t *testing.T) {
	coll := newFakeCollection()
	e := NewEngine()
	for want := 1; want <= 3; want++ {
		res, err := e.RunSproc(context.Background(), sproc("increment", counterSproc), []byte(`["counter"]`), coll, Options{})
		if err != nil {
			t.Fatalf("run %d: %v", want, err)
		}
		if string(res.Body) != fmt.Sprint(want) {
			t.Fatalf("run %d: body %s", want, res.Body)
		}
	}
	if got := coll.docs["counter"]["n"]; got != 3.0 {
		t.Fatalf("stored n = %v", got)
	}
}

func TestThrowAfterWrites(t *testing.T) {
	coll := newFakeCollection()
	_, err := run(t, coll, `function () {
		var coll = getContext().getCollection();
		for (var i = 0; i < 100; i++) {
			if (!coll.createDocument(coll.getSelfLink(), {id: "d" + i})) throw new Error("not accepted");
		}
		throw new Error("changed my mind");
	}`, "")
	te := asThrown(t, err)
	if te.Status != 400 || te.Message != "changed my mind" || te.Exception != "Error: changed my mind" {
		t.Fatalf("thrown %+v", te)
	}
	// Rolling back is the caller's business: the operations did run.
	if n := coll.count("create"); n != 100 {
		t.Fatalf("%d creates, want 100", n)
	}
}

func TestErrorCodes(t *testing.T) {
	for _, tc := range []struct {
		throw  string
		status int
		msg    string
	}{
		{`new Error(ErrorCodes.Conflict, "dup")`, 409, "dup"},
		{`new Error(ErrorCodes.RetryWith, "again")`, 449, "again"},
		{`new Error("plain")`, 400, "plain"},
		{`new Error(12345, "odd number")`, 400, "odd number"},
		{`"a string"`, 400, "a string"},
		{`{number: 404, body: "gone"}`, 404, "gone"},
		{`new TypeError("typed")`, 400, "typed"},
	} {
		_, err := run(t, newFakeCollection(), `function () { throw `+tc.throw+`; }`, "")
		te := asThrown(t, err)
		if te.Status != tc.status || te.Message != tc.msg {
			t.Errorf("throw %s: %+v, want %d %q", tc.throw, te, tc.status, tc.msg)
		}
	}
	got := mustBody(t, newFakeCollection(), `function () {
		var e = new Error(ErrorCodes.Conflict, "m");
		class Mine extends Error {}
		getContext().getResponse().setBody([e instanceof Error, e.number, e.message,
			new Mine("x") instanceof Mine, new Mine("x") instanceof Error, Error("y").message,
			Object.isFrozen(ErrorCodes)]);
	}`, "")
	want := []any{true, 409.0, "m", true, true, "y", true}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("got %v, want %v", got, want)
	}
}

func TestStaleETag(t *testing.T) {
	coll := newFakeCollection()
	coll.seed(t, `{"id":"a","v":1}`)
	got := mustBody(t, coll, `function () {
		var coll = getContext().getCollection();
		coll.replaceDocument(coll.getAltLink() + "/docs/a", {id: "a", v: 2}, {etag: "\"stale\""}, function (err) {
			getContext().getResponse().setBody({number: err.number, hasBody: typeof err.body === "string", isError: err instanceof Error});
		});
	}`, "")
	if want := map[string]any{"number": 412.0, "hasBody": true, "isError": true}; !reflect.DeepEqual(got, want) {
		t.Fatalf("callback saw %v", got)
	}
	_, err := run(t, coll, `function () {
		var coll = getContext().getCollection();
		coll.replaceDocument(coll.getAltLink() + "/docs/a", {id: "a", v: 2}, {etag: "\"stale\""}, function (err) {
			if (err) throw err;
		});
	}`, "")
	if te := asThrown(t, err); te.Status != 412 {
		t.Fatalf("rethrown: %+v", te)
	}
	// Without a callback the failure ends the script with its status.
	_, err = run(t, coll, `function () {
		var coll = getContext().getCollection();
		coll.deleteDocument(coll.getAltLink() + "/docs/a", {etag: "\"stale\""});
		getContext().getResponse().setBody("not reached");
	}`, "")
	if te := asThrown(t, err); te.Status != 412 {
		t.Fatalf("uncaught: %+v", te)
	}
	if coll.docs["a"]["v"] != 1.0 {
		t.Fatal("a stale etag replaced the document")
	}
}

func TestPreTrigger(t *testing.T) {
	e := NewEngine()
	req := &Request{Body: []byte(`{"id":"x","big":12345678901234567890}`), OperationType: "Create", Headers: map[string]string{"x-ms-foo": "bar"}}
	err := e.RunPreTrigger(context.Background(), Script{ID: "stamp", Body: `function stamp() {
		var r = getContext().getRequest();
		var item = r.getBody();
		if (r.getOperationType() !== "Create") throw new Error("op " + r.getOperationType());
		item.stamped = r.getValue("x-ms-foo");
		r.setBody(item);
		r.setValue("x-ms-extra", "1");
	}`}, req, newFakeCollection(), Options{})
	if err != nil {
		t.Fatal(err)
	}
	var doc map[string]any
	if err := json.Unmarshal(req.Body, &doc); err != nil || doc["stamped"] != "bar" || doc["id"] != "x" {
		t.Fatalf("body %s (%v)", req.Body, err)
	}
	if req.Headers["x-ms-extra"] != "1" {
		t.Fatalf("headers %v", req.Headers)
	}

	// Changing the object getBody returned counts too; only reading it
	// leaves the bytes (and their number precision) alone.
	req = &Request{Body: []byte(`{"id":"y"}`), OperationType: "Upsert"}
	if err := e.RunPreTrigger(context.Background(), Script{ID: "t2", Body: `function () { getContext().getRequest().getBody().touched = 1; }`}, req, newFakeCollection(), Options{}); err != nil {
		t.Fatal(err)
	}
	if string(req.Body) != `{"id":"y","touched":1}` {
		t.Fatalf("mutated body %s", req.Body)
	}
	orig := `{"id":"z","big":12345678901234567890}`
	req = &Request{Body: []byte(orig), OperationType: "Replace"}
	if err := e.RunPreTrigger(context.Background(), Script{ID: "t3", Body: `function () { if (!getContext().getRequest().getBody().id) throw "no id"; }`}, req, newFakeCollection(), Options{}); err != nil {
		t.Fatal(err)
	}
	if string(req.Body) != orig {
		t.Fatalf("read-only trigger rewrote the body: %s", req.Body)
	}

	// A pre-trigger has no response; a throw leaves the request as it was.
	req = &Request{Body: []byte(`{"id":"w"}`), OperationType: "Create"}
	err = e.RunPreTrigger(context.Background(), Script{ID: "t4", Body: `function () {
		getContext().getRequest().setBody({id: "changed"});
		if (typeof getContext().getResponse !== "undefined") throw new Error("has a response");
		throw new Error(ErrorCodes.BadRequest, "invalid item");
	}`}, req, newFakeCollection(), Options{})
	if te := asThrown(t, err); te.Message != "invalid item" {
		t.Fatalf("thrown %+v", te)
	}
	if string(req.Body) != `{"id":"w"}` {
		t.Fatalf("failed trigger changed the request: %s", req.Body)
	}
}

func TestPostTrigger(t *testing.T) {
	coll := newFakeCollection()
	written, _ := coll.CreateDocument([]byte(`{"id":"order1","total":30}`), DocOptions{})
	req := &Request{Body: []byte(`{"id":"order1","total":30}`), OperationType: "Create"}
	resp := &Response{Body: written}
	err := NewEngine().RunPostTrigger(context.Background(), Script{ID: "audit", Body: `function audit() {
		var item = getContext().getResponse().getBody();
		var coll = getContext().getCollection();
		var ok = coll.createDocument(coll.getSelfLink(), {id: item.id + "-audit", of: item.id, total: item.total}, function (err, doc) {
			if (err) throw err;
			var r = getContext().getResponse();
			var body = r.getBody();
			body.auditedBy = doc.id;
			r.setBody(body);
		});
		if (!ok) throw new Error("not accepted");
	}`}, req, resp, coll, Options{})
	if err != nil {
		t.Fatal(err)
	}
	audit := coll.docs["order1-audit"]
	if audit == nil || audit["of"] != "order1" || audit["total"] != 30.0 {
		t.Fatalf("audit document %v", audit)
	}
	var body map[string]any
	if err := json.Unmarshal(resp.Body, &body); err != nil || body["auditedBy"] != "order1-audit" || body["_etag"] == nil {
		t.Fatalf("response %s (%v)", resp.Body, err)
	}
}

func TestUDF(t *testing.T) {
	e := NewEngine()
	tax := Script{ID: "tax", ETag: "1", Body: `function rate(income) { return income < 1000 ? 0.1 : 0.2; }
function tax(income) {
	if (income === undefined || income === null) throw "no input";
	return {due: income * rate(income), at: rate(income)};
}`}
	got, err := e.CallUDF(context.Background(), tax, []any{2000.0}, Options{})
	if err != nil {
		t.Fatal(err)
	}
	if want := map[string]any{"due": 400.0, "at": 0.2}; !reflect.DeepEqual(got, want) {
		t.Fatalf("tax(2000) = %v", got)
	}
	if _, err := e.CallUDF(context.Background(), tax, []any{nil}, Options{}); asThrown(t, err).Message != "no input" {
		t.Fatalf("tax(null): %v", err)
	}
	got, err = e.CallUDF(context.Background(), Script{ID: "concat", Body: `function (a, b) { return a + b.join("-") + typeof getContext; }`},
		[]any{"x:", []any{"p", json.Number("2")}}, Options{})
	if err != nil || got != "x:p-2undefined" {
		t.Fatalf("anonymous udf: %v %v", got, err)
	}
	got, err = e.CallUDF(context.Background(), Script{ID: "nothing", Body: `function nothing() {}`}, nil, Options{})
	if err != nil || got != nil {
		t.Fatalf("undefined result: %v %v", got, err)
	}
}

func TestInfiniteLoopTimesOut(t *testing.T) {
	const budget = 200 * time.Millisecond
	for name, body := range map[string]string{
		"loop":      `function () { while (true) {} }`,
		"caught":    `function () { for (;;) { try { while (true) {} } catch (e) {} finally { continue; } } }`,
		"callback":  `function () { var c = getContext().getCollection(); c.readDocuments(c.getSelfLink(), function () { for (;;) {} }); }`,
		"recursion": `function f() { try { f(); } catch (e) { f(); } }`,
	} {
		t.Run(name, func(t *testing.T) {
			start := time.Now()
			_, err := NewEngine().RunSproc(context.Background(), sproc(name, body), nil, newFakeCollection(), Options{Budget: budget})
			elapsed := time.Since(start)
			if name == "recursion" {
				// Either the depth limit or the budget stops it.
				var te *ThrownError
				if !errors.Is(err, ErrTimeout) && !errors.As(err, &te) {
					t.Fatalf("err %v", err)
				}
			} else if !errors.Is(err, ErrTimeout) {
				t.Fatalf("err %v, want ErrTimeout", err)
			}
			if elapsed > budget+time.Second {
				t.Fatalf("stopped after %v", elapsed)
			}
		})
	}
}

func TestContextCanceled(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	time.AfterFunc(50*time.Millisecond, cancel)
	_, err := NewEngine().RunSproc(ctx, sproc("spin", `function () { for (;;) {} }`), nil, newFakeCollection(), Options{Budget: 10 * time.Second})
	if !errors.Is(err, context.Canceled) {
		t.Fatalf("err %v, want context.Canceled", err)
	}
}

// bulkImport is Microsoft's bulk-import sample: it creates documents one
// after another from each callback and, when a call is not accepted,
// returns how many it created so that the client calls again with the
// rest.
const bulkImport = `
function bulkImport(docs) {
	var collection = getContext().getCollection();
	var collectionLink = collection.getSelfLink();
	var count = 0;
	if (!docs) throw new Error("The array is undefined or null.");
	var docsLength = docs.length;
	if (docsLength == 0) {
		getContext().getResponse().setBody(0);
		return;
	}
	tryCreate(docs[count], callback);

	function tryCreate(doc, callback) {
		var isAccepted = collection.createDocument(collectionLink, doc, callback);
		if (!isAccepted) getContext().getResponse().setBody(count);
	}

	function callback(err, doc, options) {
		if (err) throw err;
		count++;
		if (count >= docsLength) {
			getContext().getResponse().setBody(count);
		} else {
			tryCreate(docs[count], callback);
		}
	}
}`

func TestNotAcceptedNearBudget(t *testing.T) {
	coll := newFakeCollection()
	clock := testkit.NewClock(time.Unix(1700000000, 0))
	// Each create takes 100ms of the 5s budget: calls stop being accepted
	// at 4s, after 40 creates.
	coll.onCall = func(string) { clock.Advance(100 * time.Millisecond) }
	var docs []map[string]any
	for i := range 100 {
		docs = append(docs, map[string]any{"id": fmt.Sprintf("doc%03d", i)})
	}
	e := NewEngine()
	s := Script{ID: "bulkImport", ETag: "1", Body: bulkImport}
	var rounds []int
	for done := 0; done < len(docs); {
		params, _ := json.Marshal([]any{docs[done:]})
		clock = testkit.NewClock(time.Unix(1700000000, 0))
		res, err := e.RunSproc(context.Background(), s, params, coll, Options{Now: clock.Now})
		if err != nil {
			t.Fatalf("round %d: %v", len(rounds), err)
		}
		var n int
		if err := json.Unmarshal(res.Body, &n); err != nil || n == 0 {
			t.Fatalf("round %d: body %s", len(rounds), res.Body)
		}
		rounds = append(rounds, n)
		done += n
	}
	if !reflect.DeepEqual(rounds, []int{40, 40, 20}) {
		t.Fatalf("rounds %v, want [40 40 20]", rounds)
	}
	if len(coll.docs) != 100 || coll.count("create") != 100 {
		t.Fatalf("%d documents from %d creates", len(coll.docs), coll.count("create"))
	}

	// A refused call does not run, though an accepted one still calls back.
	coll = newFakeCollection()
	coll.seed(t, `{"id":"a"}`)
	clock = testkit.NewClock(time.Unix(1700000000, 0))
	coll.onCall = func(op string) {
		if op == "read" {
			clock.Advance(4100 * time.Millisecond)
		}
	}
	res, err := e.RunSproc(context.Background(), sproc("late", `function () {
		var c = getContext().getCollection();
		var results = [];
		c.readDocument(c.getAltLink() + "/docs/a", function (err, doc) { results.push(doc.id); });
		results.push(c.createDocument(c.getSelfLink(), {id: "late"}));
		results.push(__.chain().filter(function () { return true; }).value().isAccepted);
		results.push(__.filter(function () { return true; }).isAccepted);
		getContext().getResponse().setBody(results);
	}`), nil, coll, Options{Now: clock.Now})
	if err != nil {
		t.Fatal(err)
	}
	// The callback runs after the function returned, into the same array.
	if string(res.Body) != `[false,false,false,"a"]` || coll.count("create") != 0 || coll.count("readFeed") != 0 {
		t.Fatalf("body %s, calls %v", res.Body, coll.calls)
	}

	// Past the budget on the script's clock the script is stopped.
	clock = testkit.NewClock(time.Unix(1700000000, 0))
	coll.onCall = func(string) { clock.Advance(6 * time.Second) }
	_, err = e.RunSproc(context.Background(), sproc("over", `function () {
		var c = getContext().getCollection();
		c.readDocuments(c.getSelfLink());
		c.readDocuments(c.getSelfLink());
		getContext().getResponse().setBody("not reached");
	}`), nil, coll, Options{Now: clock.Now})
	if !errors.Is(err, ErrTimeout) {
		t.Fatalf("err %v, want ErrTimeout", err)
	}
}

func TestQueryAPI(t *testing.T) {
	coll := newFakeCollection()
	for i := range 250 {
		coll.seed(t, fmt.Sprintf(`{"id":"d%03d","type":"%s","n":%d,"tags":["t%d","u"]}`, i, []string{"a", "b"}[i%2], i%7, i%3))
	}
	got := mustBody(t, coll, `function () {
		var result = __.chain()
			.filter(function (d) { return d.type === "a" && d.n > 4; })
			.map(function (d) { return {id: d.id, n: d.n}; })
			.sortByDescending(function (d) { return d.n; })
			.value({pageSize: 10}, function (err, feed, options) {
				if (err) throw err;
				getContext().getResponse().setBody({count: feed.length, first: feed[0], continuation: options.continuation});
			});
		if (!result.isAccepted) throw new Error("not accepted");
	}`, "")
	// 125 documents of type a (even i), of which 35 have i%7 > 4.
	if g := got.(map[string]any); g["count"] != 35.0 || g["continuation"] != "" {
		t.Fatalf("chain: %v", got)
	}
	if first := got.(map[string]any)["first"].(map[string]any); first["n"] != 6.0 {
		t.Fatalf("descending order starts with %v", first)
	}
	if coll.count("readFeed") != 1 {
		t.Fatalf("reads %v: 250 documents take one 1000-document page", coll.count("readFeed"))
	}

	got = mustBody(t, coll, `function () {
		var r = getContext().getResponse();
		__.chain().filter(function (d) { return d.id < "d004"; }).pluck("tags").flatten(true).value(function (err, feed) {
			r.setBody(feed);
		});
	}`, "")
	if want := []any{"t0", "u", "t1", "u", "t2", "u", "t0", "u"}; !reflect.DeepEqual(got, want) {
		t.Fatalf("pluck+flatten: %v", got)
	}

	// Without a callback the results are appended to the response body.
	res, err := run(t, coll, `function () {
		__.filter(function (d) { return d.id === "d001"; });
		__.map(function (d) { return d.id === "d002" ? d.n : undefined; });
	}`, "")
	if err != nil {
		t.Fatal(err)
	}
	var text string
	if err := json.Unmarshal(res.Body, &text); err != nil || !strings.HasPrefix(text, `[{`) || !strings.Contains(text, `"id":"d001"`) || !strings.Contains(text, `][null,null,2,`) {
		t.Fatalf("appended body %s (%v)", res.Body, err)
	}

	got = mustBody(t, coll, `function () {
		__.sortBy("n", function (err, feed) {
			var out = feed.slice(0, 3).map(function (d) { return d.n; });
			__.unwind(function (d) { return d.id === "d000" ? d.tags : []; }, function (d, tag) { return d.id + ":" + tag; }, function (err, feed2) {
				getContext().getResponse().setBody(out.concat(feed2));
			});
		});
	}`, "")
	if want := []any{0.0, 0.0, 0.0, "d000:t0", "d000:u"}; !reflect.DeepEqual(got, want) {
		t.Fatalf("sortBy/unwind: %v", got)
	}

	_, err = run(t, coll, `function () { __.chain().filter(function () { return true; }, function () {}).value(); }`, "")
	if te := asThrown(t, err); te.Status != 400 || !strings.Contains(te.Message, "callback") {
		t.Fatalf("callback inside a chain: %+v", te)
	}
	_, err = run(t, coll, `function () { __.filter(function () { throw new Error(ErrorCodes.Forbidden, "no"); }); }`, "")
	if te := asThrown(t, err); te.Status != 403 {
		t.Fatalf("predicate throw: %+v", te)
	}
	got = mustBody(t, coll, `function () {
		__.filter(function () { throw new Error("in predicate"); }, function (err) { getContext().getResponse().setBody(err.message); });
	}`, "")
	if got != "in predicate" {
		t.Fatalf("predicate error to callback: %v", got)
	}
}

func TestDocumentOperations(t *testing.T) {
	coll := newFakeCollection()
	coll.seed(t, `{"id":"a","type":"x"}`, `{"id":"b","type":"y"}`, `{"id":"c","type":"x"}`)
	got := mustBody(t, coll, `function (prefix) {
		var c = getContext().getCollection(), out = {};
		var doc = {name: "no id"};
		c.createDocument(c.getSelfLink(), doc, function (err, created) {
			out.generated = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/.test(created.id);
			out.untouched = doc.id === undefined;
		});
		c.createDocument(c.getAltLink(), {name: "none"}, {disableAutomaticIdGeneration: true}, function (err) { out.noID = err.number; });
		c.createDocument(c.getAltLink() + "/", JSON.stringify({id: prefix + "s", from: "string"}), function (err, d) { out.fromString = d.from; });
		c.upsertDocument(c.getSelfLink(), {id: "a", type: "z"}, function (err, d) { out.upserted = d.type; });
		c.queryDocuments(c.getSelfLink(), {query: "SELECT * FROM c WHERE c.type = @t", parameters: [{name: "@t", value: "x"}]}, function (err, docs, opts) {
			out.queried = docs.map(function (d) { return d.id; });
			out.queryContinuation = opts.continuation;
		});
		c.readDocuments(c.getSelfLink(), {pageSize: 2}, function (err, docs, opts) {
			out.page = docs.length;
			c.readDocuments(c.getSelfLink(), {pageSize: 2, continuation: opts.continuation}, function (err, docs2, opts2) {
				out.page2 = docs2.length;
				out.end = opts2.continuation;
			});
		});
		c.readDocument(c.getAltLink() + "/docs/b", function (err, b) {
			c.deleteDocument(b._self, function (err, options) {
				out.deleted = err === undefined && typeof options === "object";
				c.readDocument(c.getAltLink() + "/docs/b", function (err) { out.gone = err.number; });
			});
		});
		c.deleteDocument(c.getSelfLink() + "docs/unknownrid/", function (err) { out.unknownRID = err.number; });
		getContext().getResponse().setBody(out);
	}`, `["p-"]`)
	want := map[string]any{
		"generated": true, "untouched": true, "noID": 400.0, "fromString": "string", "upserted": "z",
		"queried": []any{"c"}, "queryContinuation": "", "page": 2.0, "page2": 2.0, "end": "4",
		"deleted": true, "gone": 404.0, "unknownRID": 404.0,
	}
	// Operations run in order: the query sees the upsert that turned a
	// into type z, and the feed the five documents there are by then.
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("got  %v\nwant %v", got, want)
	}
	if coll.docs["p-s"] == nil {
		t.Fatal("the string document was not created")
	}

	for name, body := range map[string]string{
		"other collection": `function () { var c = getContext().getCollection(); c.createDocument("dbs/db1/colls/other", {id: "q"}); }`,
		"bad link":         `function () { getContext().getCollection().readDocument("nonsense"); }`,
		"bad options":      `function () { var c = getContext().getCollection(); c.readDocuments(c.getSelfLink(), 5); }`,
		"bad callback":     `function () { var c = getContext().getCollection(); c.readDocuments(c.getSelfLink(), {}, "cb"); }`,
		"number body":      `function () { var c = getContext().getCollection(); c.createDocument(c.getSelfLink(), 5); }`,
		"too few":          `function () { getContext().getCollection().createDocument(); }`,
	} {
		_, err := run(t, coll, body, "")
		if te := asThrown(t, err); te.Status != 400 {
			t.Errorf("%s: %+v", name, te)
		}
	}
}

func TestStoreFailureEndsScript(t *testing.T) {
	coll := newFakeCollection()
	cause := errors.New("kv: transaction conflict")
	coll.fail = cause
	_, err := run(t, coll, `function () {
		var c = getContext().getCollection();
		c.createDocument(c.getSelfLink(), {id: "x"}, function (err) { /* swallowed? */ });
		getContext().getResponse().setBody("went on");
	}`, "")
	var te *ThrownError
	if !errors.Is(err, cause) || errors.As(err, &te) {
		t.Fatalf("err %v, want the store's error", err)
	}
}

func TestBodiesAndParameters(t *testing.T) {
	for name, tc := range map[string]struct{ body, params, want string }{
		"declaration":   {`function add(a, b) { getContext().getResponse().setBody(a + b); }`, `[1, 2]`, `3`},
		"anonymous":     {"function (a) {\n getContext().getResponse().setBody(a.x);\n} // trailing comment", `[{"x":"y"}]`, `"y"`},
		"arrow":         {`(a, b) => { getContext().getResponse().setBody([a, b]); }`, `["p"]`, `["p",null]`},
		"single param":  {`function (a) { getContext().getResponse().setBody(a); }`, `{"k":1}`, `{"k":1}`},
		"no params":     {`function () { getContext().getResponse().setBody(arguments.length); }`, ``, `0`},
		"no body":       {`function () {}`, `[]`, ``},
		"two functions": {"function main() { getContext().getResponse().setBody(second()); }\nfunction second() { return 'h'; }", `[]`, `"h"`},
		"append":        {`function () { var r = getContext().getResponse(); r.appendBody("a"); r.appendBody("b"); }`, `[]`, `"ab"`},
		// The JavaScript SDK's stored procedure test (run against Azure)
		// appends 0 to 9 to "Body" and reads back 0123456789.
		"appendValue":        {`function () { for (var i = 0; i < 10; i++) getContext().getResponse().appendValue("Body", i); }`, `[]`, `"0123456789"`},
		"appendValue header": {`function () { var r = getContext().getResponse(); r.appendValue("x-a", 1); r.appendValue("x-a", "b"); r.appendValue("body", r.getValue("x-a")); }`, `[]`, `"1b"`},
		"setValue Body":      {`function () { getContext().getResponse().setValue("Body", 5); }`, `[]`, `5`},
		"request body":       {`function () { getContext().getResponse().setBody(getContext().getRequest().getBody()); }`, `[7]`, `[7]`},
		"max size":           {`function () { var r = getContext().getResponse(); r.setBody(r.getMaxResponseBodySize()); }`, `[]`, `2097152`},
		"__ has request":     {`function () { __.response.setBody(typeof __.request.getBody); }`, `[]`, `"function"`},
	} {
		res, err := run(t, newFakeCollection(), tc.body, tc.params)
		if err != nil {
			t.Errorf("%s: %v", name, err)
			continue
		}
		if string(res.Body) != tc.want {
			t.Errorf("%s: body %s, want %s", name, res.Body, tc.want)
		}
	}
	_, err := run(t, newFakeCollection(), `function () {}`, `[1,`)
	if te := asThrown(t, err); te.Status != 400 {
		t.Fatalf("bad params: %+v", te)
	}
}

func TestCompileErrors(t *testing.T) {
	for _, body := range []string{
		`function (a { }`,
		`function f() { return; `,
		`var x = 1;`,
		``,
		`let a = 1; let a = 2; function f() {}`,
	} {
		_, err := run(t, newFakeCollection(), body, "")
		if !errors.Is(err, ErrCompile) {
			t.Errorf("%q: err %v, want ErrCompile", body, err)
		}
	}
}

func TestSandbox(t *testing.T) {
	got := mustBody(t, newFakeCollection(), `function () {
		getContext().getResponse().setBody([typeof require, typeof setTimeout, typeof setInterval, typeof process,
			typeof fetch, typeof XMLHttpRequest, typeof Math.random(), typeof new Date().getTime()]);
	}`, "")
	want := []any{"undefined", "undefined", "undefined", "undefined", "undefined", "undefined", "number", "number"}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("globals %v", got)
	}
	_, err := run(t, newFakeCollection(), `function () { require("fs"); }`, "")
	if te := asThrown(t, err); !strings.Contains(te.Exception, "ReferenceError") {
		t.Fatalf("require: %+v", te)
	}
	// Nothing leaks from one execution into the next.
	e := NewEngine()
	s := sproc("leak", `function () { var seen = typeof leaked; leaked = 1; getContext().getResponse().setBody(seen); }`)
	for range 2 {
		res, err := e.RunSproc(context.Background(), s, nil, newFakeCollection(), Options{})
		if err != nil || string(res.Body) != `"undefined"` {
			t.Fatalf("second run saw %s (%v)", res.Body, err)
		}
	}
}

func TestLimits(t *testing.T) {
	_, err := NewEngine().RunSproc(context.Background(), sproc("big", `function () {
		getContext().getResponse().setBody(new Array(200).join("x"));
	}`), nil, newFakeCollection(), Options{MaxResponse: 100})
	if te := asThrown(t, err); te.Status != 413 {
		t.Fatalf("oversized body: %+v", te)
	}
	// Growing a body after setBody is caught at the end.
	_, err = NewEngine().RunSproc(context.Background(), sproc("grow", `function () {
		var b = []; getContext().getResponse().setBody(b);
		for (var i = 0; i < 100; i++) b.push(i);
	}`), nil, newFakeCollection(), Options{MaxResponse: 100})
	if te := asThrown(t, err); te.Status != 413 {
		t.Fatalf("grown body: %+v", te)
	}
	_, err = NewEngine().RunSproc(context.Background(), sproc("abort", `function () {
		getContext().abort(new Error(ErrorCodes.Conflict, "aborted"));
		getContext().getResponse().setBody("not reached");
	}`), nil, newFakeCollection(), Options{})
	if te := asThrown(t, err); te.Status != 409 || te.Message != "aborted" {
		t.Fatalf("abort: %+v", te)
	}
}

func TestConsoleLog(t *testing.T) {
	body := `function () {
		console.log("a");
		console.log("n=%s, s=%s, %%", 1, "two");
		console.log({});
	}`
	res, err := NewEngine().RunSproc(context.Background(), sproc("log", body), nil, newFakeCollection(), Options{EnableLogging: true})
	if err != nil {
		t.Fatal(err)
	}
	if res.Log != "an=1, s=two, %[object Object]" {
		t.Fatalf("log %q", res.Log)
	}
	res, err = NewEngine().RunSproc(context.Background(), sproc("log", body), nil, newFakeCollection(), Options{})
	if err != nil || res.Log != "" {
		t.Fatalf("logging off: %q %v", res.Log, err)
	}
	res, err = NewEngine().RunSproc(context.Background(), sproc("flood", `function () {
		for (var i = 0; i < 10000; i++) console.log("é123456789");
	}`), nil, newFakeCollection(), Options{EnableLogging: true})
	if err != nil || len(res.Log) > maxLog || len(res.Log) < maxLog-1 || !utf8.ValidString(res.Log) {
		t.Fatalf("flood: %d bytes %v", len(res.Log), err)
	}
}

func TestProgramCache(t *testing.T) {
	e := NewEngine()
	s := Script{ID: "sp", ETag: `"1"`, Body: `function () {}`}
	p1, err := e.program(s)
	if err != nil {
		t.Fatal(err)
	}
	p2, _ := e.program(s)
	if p1 != p2 {
		t.Fatal("the same (ID, ETag) compiled twice")
	}
	s2 := s
	s2.ETag, s2.Body = `"2"`, `function () { getContext().getResponse().setBody(2); }`
	p3, _ := e.program(s2)
	if p3 == p1 {
		t.Fatal("a new ETag reused the old program")
	}
	res, err := e.RunSproc(context.Background(), s2, nil, newFakeCollection(), Options{})
	if err != nil || string(res.Body) != "2" {
		t.Fatalf("new version ran %s (%v)", res.Body, err)
	}
	// Another container's script with the same id and ETag text.
	s3 := s
	s3.Body = `function () { getContext().getResponse().setBody(3); }`
	if p4, _ := e.program(s3); p4 == p1 {
		t.Fatal("a different body under the same (ID, ETag) reused the program")
	}
	for i := range maxCached + 10 {
		if _, err := e.program(Script{ID: fmt.Sprint(i), Body: `function () {}`}); err != nil {
			t.Fatal(err)
		}
	}
	if e.lru.Len() != maxCached || len(e.entries) != maxCached {
		t.Fatalf("cache holds %d/%d programs", e.lru.Len(), len(e.entries))
	}
}

func TestConcurrentExecutions(t *testing.T) {
	e := NewEngine()
	s := Script{ID: "sum", ETag: "1", Body: `function (n) { var s = 0; for (var i = 0; i < n; i++) s += i; getContext().getResponse().setBody(s); }`}
	errs := make(chan error, 16)
	for range 16 {
		go func() {
			res, err := e.RunSproc(context.Background(), s, []byte(`[1000]`), newFakeCollection(), Options{})
			if err == nil && string(res.Body) != "499500" {
				err = fmt.Errorf("body %s", res.Body)
			}
			errs <- err
		}()
	}
	for range 16 {
		if err := <-errs; err != nil {
			t.Fatal(err)
		}
	}
}

func BenchmarkRunSproc(b *testing.B) {
	e := NewEngine()
	s := sproc("hello", `function (name) { getContext().getResponse().setBody("Hello, " + name); }`)
	coll := newFakeCollection()
	for b.Loop() {
		if _, err := e.RunSproc(context.Background(), s, []byte(`["world"]`), coll, Options{}); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkCallUDF(b *testing.B) {
	e := NewEngine()
	s := Script{ID: "tax", ETag: "1", Body: `function tax(income) { return income * 0.2; }`}
	for b.Loop() {
		if _, err := e.CallUDF(context.Background(), s, []any{1000.0}, Options{}); err != nil {
			b.Fatal(err)
		}
	}
}
