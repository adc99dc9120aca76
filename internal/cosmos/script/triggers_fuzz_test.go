package script

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"testing"
	"time"
)

// FuzzTriggersAndUDFs: any script body run as a pre-trigger, a
// post-trigger or a user-defined function, on any item, ends within its
// small budget in one of the documented outcomes — success, a compile
// error, a timeout, the memory bound or a thrown error with an HTTP
// status — and never panics. A trigger that succeeds leaves JSON (or,
// after setBody(undefined), nothing) as the body it changed; one that
// fails leaves the request as it was. A UDF's
// result is JSON again.
func FuzzTriggersAndUDFs(f *testing.F) {
	for _, seed := range []struct {
		kind       uint8 // 0 pre-trigger, 1 post-trigger, 2 UDF
		body, item string
	}{
		{0, `function () { var r = getContext().getRequest(); var b = r.getBody(); b.n = (b.n || 0) + 1; r.setBody(b); r.setValue("x-ms-a", "1"); }`, `{"id":"a","n":1}`},
		{0, `function () { getContext().getRequest().getBody().touched = true; }`, `{"id":"b","big":12345678901234567890}`},
		{0, `function () { throw new Error(ErrorCodes.BadRequest, "no"); }`, `{"id":"c"}`},
		{0, `function () { getContext().getRequest().setBody(undefined); }`, `[1,2]`},
		{1, `function () { var r = getContext().getResponse(); var b = r.getBody(); b.seen = getContext().getRequest().getOperationType(); r.setBody(b); }`, `{"id":"d"}`},
		{1, `function () { getContext().getCollection().createDocument(getContext().getCollection().getSelfLink(), {id: "e2"}); }`, `{"id":"e"}`},
		{1, `function () { for (;;) {} }`, `{}`},
		{2, `function f(x) { return {twice: x * 2, s: String(x)}; }`, `[21]`},
		{2, `function f() { return undefined; }`, `[]`},
		{2, `function f(o) { o.self = o; return o; }`, `[{"a":1}]`},
		{2, `function f(a, b) { throw "bad " + a + b; }`, `["x", null]`},
		{2, `function g() { return 1; }`, `[1]`},
		{2, `function f() { return getContext(); }`, `[]`},
		{0, `function (`, `{`},
	} {
		f.Add(seed.kind, seed.body, seed.item)
	}
	e := NewEngine()
	f.Fuzz(func(t *testing.T, kind uint8, body, item string) {
		coll := newFakeCollection()
		coll.seed(t, `{"id":"a","n":1}`)
		o := Options{Budget: 50 * time.Millisecond, MaxResponse: 1 << 16}
		s := Script{ID: "f", Body: body}
		ctx := context.Background()
		start := time.Now()
		var err error
		switch kind % 3 {
		case 0:
			req := &Request{Body: []byte(item), OperationType: "Create", Headers: map[string]string{"x-ms-a": "0"}}
			err = e.RunPreTrigger(ctx, s, req, coll, o)
			switch {
			case err != nil && (string(req.Body) != item || req.Headers["x-ms-a"] != "0" || len(req.Headers) != 1):
				t.Fatalf("a failed pre-trigger changed the request: %s %v", req.Body, req.Headers)
			case err == nil && string(req.Body) != item && len(req.Body) > 0 && !json.Valid(req.Body):
				t.Fatalf("pre-trigger left a body that is not JSON: %q", req.Body)
			}
		case 1:
			req := &Request{Body: []byte(item), OperationType: "Replace"}
			resp := &Response{Body: []byte(item)}
			err = e.RunPostTrigger(ctx, s, req, resp, coll, o)
			if err == nil && !bytes.Equal(resp.Body, []byte(item)) && len(resp.Body) > 0 && !json.Valid(resp.Body) {
				t.Fatalf("post-trigger left a body that is not JSON: %q", resp.Body)
			}
		default:
			var args []any
			if json.Unmarshal([]byte(item), &args) != nil {
				args = []any{item}
			}
			var out any
			out, err = e.CallUDF(ctx, s, args, o)
			if err == nil {
				if _, merr := json.Marshal(out); merr != nil {
					t.Fatalf("UDF result %#v is not JSON: %v", out, merr)
				}
			}
		}
		if elapsed := time.Since(start); elapsed > 5*time.Second {
			t.Fatalf("ran for %v on a 50ms budget", elapsed)
		}
		var te *ThrownError
		switch {
		case err == nil, errors.Is(err, ErrCompile), errors.Is(err, ErrTimeout), errors.Is(err, ErrMemory):
		case errors.As(err, &te):
			if te.Status < 400 || te.Status > 599 {
				t.Fatalf("thrown status %d", te.Status)
			}
		default:
			t.Fatalf("unexpected error %T: %v", err, err)
		}
	})
}
