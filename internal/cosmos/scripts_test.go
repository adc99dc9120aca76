package cosmos

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
)

func TestScriptResources(t *testing.T) {
	s, _ := newTestService(t, "")
	ctx := context.Background()
	for _, kind := range []ScriptKind{StoredProcedures, Triggers, UserDefinedFunctions} {
		t.Run(string(kind), func(t *testing.T) {
			props := func(id, body string) []byte {
				m := map[string]any{"id": id, "body": body}
				if kind == Triggers {
					m["triggerType"], m["triggerOperation"] = "Pre", "All"
				}
				b, _ := json.Marshal(m)
				return b
			}
			sc, err := s.CreateScript(ctx, CollectionRef{DB: "db", Coll: "items"}, kind, props("s1", "function f() {}"))
			if err != nil {
				t.Fatalf("create: %v", err)
			}
			c, _ := s.GetContainer(ctx, CollectionRef{DB: "db", Coll: "items"}, Preconditions{})
			if sc.ID != "s1" || sc.ETag == "" || sc.RID == "" || sc.TS == 0 || sc.Source != "function f() {}" ||
				sc.Self != c.Self+string(kind)+"/"+sc.RID+"/" {
				t.Fatalf("created script: %+v (container _self %s)", sc, c.Self)
			}
			var body map[string]any
			if err := json.Unmarshal(sc.Body, &body); err != nil || body["body"] != "function f() {}" || body["_etag"] != sc.ETag {
				t.Fatalf("script JSON %s: %v", sc.Body, err)
			}
			if _, err := s.CreateScript(ctx, CollectionRef{DB: "db", Coll: "items"}, kind, props("s1", "x")); !errors.Is(err, ErrConflict) {
				t.Fatalf("duplicate id: %v, want ErrConflict", err)
			}
			got, err := s.GetScript(ctx, ScriptRef{CollectionRef: CollectionRef{DB: "db", Coll: "items"}, Kind: kind, ID: "s1"}, Preconditions{})
			if err != nil || got.ETag != sc.ETag || got.Source != sc.Source {
				t.Fatalf("get: %+v, %v", got, err)
			}
			if _, err := s.GetScript(ctx, ScriptRef{CollectionRef: CollectionRef{DB: "db", Coll: "items"}, Kind: kind, ID: "s1"}, Preconditions{IfNoneMatch: []string{sc.ETag}}); !errors.Is(err, ErrNotModified) {
				t.Fatalf("get If-None-Match: %v, want ErrNotModified", err)
			}
			if _, err := s.ReplaceScript(ctx, ScriptRef{CollectionRef: CollectionRef{DB: "db", Coll: "items"}, Kind: kind, ID: "s1"}, props("s1", "function g() {}"), Preconditions{IfMatch: []string{`"stale"`}}); !errors.Is(err, ErrPreconditionFailed) {
				t.Fatalf("replace with a stale ETag: %v, want ErrPreconditionFailed", err)
			}
			if _, err := s.ReplaceScript(ctx, ScriptRef{CollectionRef: CollectionRef{DB: "db", Coll: "items"}, Kind: kind, ID: "s1"}, props("other", "x"), Preconditions{}); !errors.Is(err, ErrBadRequest) {
				t.Fatalf("replace with another id in the body: %v, want ErrBadRequest", err)
			}
			rep, err := s.ReplaceScript(ctx, ScriptRef{CollectionRef: CollectionRef{DB: "db", Coll: "items"}, Kind: kind, ID: "s1"}, props("s1", "function g() {}"), Preconditions{IfMatch: []string{sc.ETag}})
			if err != nil || rep.ETag == sc.ETag || rep.RID != sc.RID || rep.Self != sc.Self || rep.Source != "function g() {}" {
				t.Fatalf("replace: %+v, %v", rep, err)
			}
			if _, err := s.ReplaceScript(ctx, ScriptRef{CollectionRef: CollectionRef{DB: "db", Coll: "items"}, Kind: kind, ID: "nope"}, props("nope", "x"), Preconditions{}); !errors.Is(err, ErrNotFound) {
				t.Fatalf("replace a missing script: %v, want ErrNotFound", err)
			}
			if _, err := s.CreateScript(ctx, CollectionRef{DB: "db", Coll: "items"}, kind, props("s2", "function h() {}")); err != nil {
				t.Fatal(err)
			}
			f, err := s.ListScripts(ctx, CollectionRef{DB: "db", Coll: "items"}, kind)
			if err != nil || len(f.Items) != 2 || f.ResourceID != c.RID {
				t.Fatalf("list: %+v, %v", f, err)
			}
			q, err := ParseQuery("SELECT VALUE s.id FROM s WHERE s.id = @id")
			if err != nil {
				t.Fatal(err)
			}
			f, err = s.QueryScripts(ctx, CollectionRef{DB: "db", Coll: "items"}, kind, q, map[string]any{"@id": "s2"})
			if err != nil || len(f.Items) != 1 || string(f.Items[0]) != `"s2"` {
				t.Fatalf("query: %+v, %v", f, err)
			}
			if err := s.DeleteScript(ctx, ScriptRef{CollectionRef: CollectionRef{DB: "db", Coll: "items"}, Kind: kind, ID: "s1"}, Preconditions{IfMatch: []string{sc.ETag}}); !errors.Is(err, ErrPreconditionFailed) {
				t.Fatalf("delete with a stale ETag: %v, want ErrPreconditionFailed", err)
			}
			if err := s.DeleteScript(ctx, ScriptRef{CollectionRef: CollectionRef{DB: "db", Coll: "items"}, Kind: kind, ID: "s1"}, Preconditions{IfMatch: []string{rep.ETag}}); err != nil {
				t.Fatalf("delete: %v", err)
			}
			if _, err := s.GetScript(ctx, ScriptRef{CollectionRef: CollectionRef{DB: "db", Coll: "items"}, Kind: kind, ID: "s1"}, Preconditions{}); !errors.Is(err, ErrNotFound) {
				t.Fatalf("get after delete: %v, want ErrNotFound", err)
			}
			if err := s.DeleteScript(ctx, ScriptRef{CollectionRef: CollectionRef{DB: "db", Coll: "items"}, Kind: kind, ID: "s1"}, Preconditions{}); !errors.Is(err, ErrNotFound) {
				t.Fatalf("delete twice: %v, want ErrNotFound", err)
			}
			if _, err := s.CreateScript(ctx, CollectionRef{DB: "db", Coll: "missing"}, kind, props("s1", "x")); !errors.Is(err, ErrNotFound) {
				t.Fatalf("create in a missing container: %v, want ErrNotFound", err)
			}
		})
	}
}

func TestScriptKindsAreSeparate(t *testing.T) {
	s, _ := newTestService(t, "")
	ctx := context.Background()
	if _, err := s.CreateScript(ctx, CollectionRef{DB: "db", Coll: "items"}, StoredProcedures, []byte(`{"id":"x","body":"function(){}"}`)); err != nil {
		t.Fatal(err)
	}
	u, err := s.CreateScript(ctx, CollectionRef{DB: "db", Coll: "items"}, UserDefinedFunctions, []byte(`{"id":"x","body":"function(){}"}`))
	if err != nil {
		t.Fatalf("a udf with a stored procedure's id: %v", err)
	}
	p, _ := s.GetScript(ctx, ScriptRef{CollectionRef: CollectionRef{DB: "db", Coll: "items"}, Kind: StoredProcedures, ID: "x"}, Preconditions{})
	if p.RID == u.RID {
		t.Fatalf("a stored procedure and a udf share the _rid %s", p.RID)
	}
}

func TestScriptValidation(t *testing.T) {
	s, _ := newTestService(t, "")
	ctx := context.Background()
	for _, tc := range []struct {
		kind  ScriptKind
		props string
		want  string // in the message; "" means accepted
	}{
		{StoredProcedures, `{"id":"a"}`, "body"},
		{StoredProcedures, `{"id":"a","body":7}`, "body"},
		{StoredProcedures, `{"body":"function(){}"}`, "id"},
		{StoredProcedures, `{"id":"a/b","body":"function(){}"}`, "invalid character"},
		{StoredProcedures, `[1]`, "JSON object"},
		{Triggers, `{"id":"t","body":"function(){}","triggerOperation":"All"}`, "triggerType"},
		{Triggers, `{"id":"t","body":"function(){}","triggerType":"Pre"}`, "triggerOperation"},
		{Triggers, `{"id":"t","body":"function(){}","triggerType":"During","triggerOperation":"All"}`, `"During"`},
		{Triggers, `{"id":"t","body":"function(){}","triggerType":"Pre","triggerOperation":"Read"}`, `"Read"`},
		{Triggers, `{"id":"t1","body":"function(){}","triggerType":"pre","triggerOperation":"create"}`, ""},
		{Triggers, `{"id":"t2","body":"function(){}","triggerType":"Post","triggerOperation":"Upsert"}`, ""},
	} {
		sc, err := s.CreateScript(ctx, CollectionRef{DB: "db", Coll: "items"}, tc.kind, []byte(tc.props))
		switch {
		case tc.want == "" && err != nil:
			t.Errorf("%s %s: %v", tc.kind, tc.props, err)
		case tc.want == "":
			if sc.TriggerType == "" || sc.TriggerOperation == "" {
				t.Errorf("%s %s: trigger type %q, operation %q", tc.kind, tc.props, sc.TriggerType, sc.TriggerOperation)
			}
		case !errors.Is(err, ErrBadRequest) || !strings.Contains(err.Error(), tc.want):
			t.Errorf("%s %s: %v, want ErrBadRequest mentioning %s", tc.kind, tc.props, err, tc.want)
		}
	}
	if sc, _ := s.GetScript(ctx, ScriptRef{CollectionRef: CollectionRef{DB: "db", Coll: "items"}, Kind: Triggers, ID: "t1"}, Preconditions{}); sc.TriggerType != "Pre" || sc.TriggerOperation != "Create" {
		t.Fatalf("lower-case trigger settings: %+v", sc)
	}
}

func TestDeleteContainerDeletesScripts(t *testing.T) {
	s, _ := newTestService(t, "")
	ctx := context.Background()
	if _, err := s.CreateScript(ctx, CollectionRef{DB: "db", Coll: "items"}, StoredProcedures, []byte(`{"id":"p","body":"function(){}"}`)); err != nil {
		t.Fatal(err)
	}
	if err := s.DeleteContainer(ctx, CollectionRef{DB: "db", Coll: "items"}, Preconditions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.CreateContainer(ctx, "db", []byte(`{"id":"items","partitionKey":{"paths":["/pk"]}}`)); err != nil {
		t.Fatal(err)
	}
	if f, err := s.ListScripts(ctx, CollectionRef{DB: "db", Coll: "items"}, StoredProcedures); err != nil || len(f.Items) != 0 {
		t.Fatalf("scripts of a re-created container: %+v, %v", f, err)
	}
	if _, err := s.GetScript(ctx, ScriptRef{CollectionRef: CollectionRef{DB: "db", Coll: "items"}, Kind: StoredProcedures, ID: "p"}, Preconditions{}); !errors.Is(err, ErrNotFound) {
		t.Fatalf("script of a deleted container: %v, want ErrNotFound", err)
	}
}
