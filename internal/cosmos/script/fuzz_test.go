package script

import (
	"context"
	"encoding/json"
	"errors"
	"testing"
	"time"
)

// FuzzRunSproc: any script text with any parameters runs to one of the
// documented outcomes — a result whose body is JSON, a compile error, a
// thrown error or a timeout — and never panics or fails inside the
// runtime.
func FuzzRunSproc(f *testing.F) {
	for _, seed := range [][2]string{
		{counterSproc, `["c"]`},
		{bulkImport, `[[{"id":"x"},{"n":1},{"id":"x"}]]`},
		{`function () { while (true) {} }`, `[]`},
		{`function (a) { throw new Error(ErrorCodes.Conflict, a); }`, `["m"]`},
		{`function () { __.chain().filter(function (d) { return d.n > 0; }).pluck("id").value(); }`, ``},
		{`function () { var c = getContext().getCollection(); c.queryDocuments(c.getSelfLink(), "SELECT * FROM c", function (e, d, o) { getContext().getResponse().setBody(o); }); }`, `[]`},
		{`function () { var c = getContext().getCollection(); c.replaceDocument(c.getSelfLink() + "docs/rid1/", {id: "a"}, {etag: "x"}); }`, `[]`},
		{`function f() { f(); }`, `[]`},
		{`function () { var o = {}; o.o = o; getContext().getResponse().setBody(o); }`, `[]`},
		{`function () { getContext().getResponse().setBody({toJSON: function () { for (;;) {} }}); }`, `[]`},
		{`(x) => { console.log("%s%s", x); getContext().getResponse().appendBody(x); }`, `[1]`},
		{`function (`, `[`},
		{`function () { Error = null; JSON.stringify = null; throw {get message() { for (;;) {} }}; }`, `[]`},
	} {
		f.Add(seed[0], seed[1])
	}
	e := NewEngine()
	f.Fuzz(func(t *testing.T, body, params string) {
		coll := newFakeCollection()
		coll.seed(t, `{"id":"a","n":1}`, `{"id":"b","n":2,"arr":[1,[2,[3]]]}`)
		start := time.Now()
		res, err := e.RunSproc(context.Background(), Script{ID: "fuzz", Body: body}, []byte(params), coll,
			Options{Budget: 50 * time.Millisecond, EnableLogging: true, MaxResponse: 1 << 16})
		if elapsed := time.Since(start); elapsed > 5*time.Second {
			t.Fatalf("ran for %v on a 50ms budget", elapsed)
		}
		var te *ThrownError
		switch {
		case err == nil:
			if res.Body != nil && !json.Valid(res.Body) {
				t.Fatalf("body is not JSON: %q", res.Body)
			}
			if len(res.Log) > maxLog {
				t.Fatalf("log of %d bytes", len(res.Log))
			}
		case errors.Is(err, ErrCompile), errors.Is(err, ErrTimeout):
		case errors.As(err, &te):
			if te.Status < 400 || te.Status > 599 {
				t.Fatalf("thrown status %d", te.Status)
			}
		default:
			t.Fatalf("unexpected error %T: %v", err, err)
		}
	})
}
