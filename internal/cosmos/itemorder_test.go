package cosmos

import (
	"context"
	"encoding/json"
	"reflect"
	"strings"
	"testing"

	"github.com/cerulean-db/cerulean/internal/testkit"
)

// TestItemPropertyOrder pins the order of an item's properties: the
// client's, as it sent them (nested ones too), then Azure's own _rid,
// _self, _etag, _attachments and _ts, as the REST reference's Create
// Document answer shows them, in a point read and in a query's results
// alike. System properties the client sent back (as the SDKs do on a
// replace) are replaced, not repeated.
func TestItemPropertyOrder(t *testing.T) {
	s, _ := newTestService(t, "")
	ctx := context.Background()
	ref := CollectionRef{DB: "db", Coll: "items"}
	it, err := s.CreateItem(ctx, ref, "", []byte(`{ "zeta": 1, "id": "a", "pk": "p",
		"nested": {"b": [2, {"y": 1, "x": 0}], "a": "é"}, "alpha": 1.5 }`), ItemOptions{})
	if err != nil {
		t.Fatal(err)
	}
	want := `{"zeta":1,"id":"a","pk":"p","nested":{"b":[2,{"y":1,"x":0}],"a":"é"},"alpha":1.5,"_rid":`
	if !strings.HasPrefix(string(it.Body), want) {
		t.Fatalf("create answered %s, want it to start %s", it.Body, want)
	}
	if got := systemOrder(t, it.Body); got != "_rid,_self,_etag,_attachments,_ts" {
		t.Errorf("system properties in the order %s", got)
	}
	read, err := s.ReadItem(ctx, ItemRef{CollectionRef: ref, PartitionKey: pkOf(t, "p"), ID: "a"}, ItemOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if string(read.Body) != string(it.Body) {
		t.Errorf("read %s, want what create answered, %s", read.Body, it.Body)
	}

	// A query answering the items themselves answers them as stored, in
	// the partition (read by its index or scanned) and across partitions.
	for _, text := range []string{"SELECT * FROM c", "SELECT VALUE c FROM c", "SELECT * FROM c WHERE c.id = 'a'", "SELECT * FROM c ORDER BY c.id"} {
		q, err := ParseQuery(text)
		if err != nil {
			t.Fatal(err)
		}
		for _, pk := range []PartitionKey{pkOf(t, "p"), ""} {
			f, err := s.QueryItems(ctx, ref, pk, q, nil)
			if err != nil {
				t.Fatalf("%s: %v", text, err)
			}
			if len(f.Items) != 1 || string(f.Items[0]) != string(it.Body) {
				t.Errorf("%s (pk %q) answered %s, want %s", text, pk, f.Items, it.Body)
			}
		}
		// Scoped to a feed range (the whole key space) too.
		f, err := s.QueryItemsInRange(ctx, ref, EPKRange{Min: "", Max: "FF"}, q, nil)
		if err != nil {
			t.Fatalf("%s in a feed range: %v", text, err)
		}
		if len(f.Items) != 1 || string(f.Items[0]) != string(it.Body) {
			t.Errorf("%s in a feed range answered %s, want %s", text, f.Items, it.Body)
		}
	}

	// A replace that carries the old system properties first.
	replaced, err := s.ReplaceItem(ctx, ItemRef{CollectionRef: ref, PartitionKey: pkOf(t, "p"), ID: "a"},
		[]byte(`{"_ts":1,"_rid":"x","id":"a","pk":"p","_etag":"\"e\"","b":true,"_self":"s","_attachments":"a/"}`), ItemOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(string(replaced.Body), `{"id":"a","pk":"p","b":true,"_rid":`) {
		t.Errorf("replace answered %s", replaced.Body)
	}
	if got := systemOrder(t, replaced.Body); got != "_rid,_self,_etag,_attachments,_ts" {
		t.Errorf("system properties after a replace in the order %s", got)
	}
	var m map[string]any
	if err := json.Unmarshal(replaced.Body, &m); err != nil {
		t.Fatal(err)
	}
	if m["_rid"] != field(t, it, "_rid") || m["_etag"] == `"e"` || m["_ts"] == float64(1) {
		t.Errorf("the client's system properties were kept: %s", replaced.Body)
	}
}

// systemOrder lists the system properties in body in the order they come.
func systemOrder(t *testing.T, body []byte) string {
	t.Helper()
	dec := json.NewDecoder(strings.NewReader(string(body)))
	if _, err := dec.Token(); err != nil {
		t.Fatal(err)
	}
	var names []string
	for dec.More() {
		tok, err := dec.Token()
		if err != nil {
			t.Fatal(err)
		}
		var skip json.RawMessage
		if err := dec.Decode(&skip); err != nil {
			t.Fatal(err)
		}
		if k := tok.(string); strings.HasPrefix(k, "_") {
			names = append(names, k)
		}
	}
	return strings.Join(names, ",")
}

// TestOrderedBodyFallsBack checks the bodies kept as they came are only
// those whose text decoding did not change: a property named twice or
// invalid UTF-8 is encoded from its decoded form instead.
func TestOrderedBodyFallsBack(t *testing.T) {
	it := &Item{RID: "r", Self: "s", ETag: `"e"`, TS: 7}
	for _, raw := range []string{`{"id":"a","id":"b"}`, "{\"id\":\"a\xff\"}"} {
		if b, ok := orderedBody([]byte(raw), it); ok {
			t.Errorf("orderedBody(%q) = %s, want a fallback", raw, b)
		}
	}
	b, ok := orderedBody([]byte(`{"a\"b":"x,}]","c":[{},[]],"d":null}`), it)
	if want := `{"a\"b":"x,}]","c":[{},[]],"d":null,"_rid":"r","_self":"s","_etag":"\"e\"","_attachments":"attachments/","_ts":7}`; !ok || string(b) != want {
		t.Errorf("orderedBody = %s, %v; want %s", b, ok, want)
	}
}

// TestProjectionPropertyOrder pins the order of the properties of the
// objects a query builds: an object literal's as written, as the SELECT
// reference's example answers SELECT VALUE {name, team, phone} (its
// query and result files in Azure-Samples/cosmos-db-nosql-query-samples,
// scripts/select-fields), and a select list's in the order the query
// names them, the reference defining a select list as that literal;
// nested ones too. An item nested in a result (the payload of the ORDER
// BY queries the SDKs send across partitions), and an object or array
// taken whole from one, are as the item stores them, as SELECT * answers
// it and as the FROM reference's example answers a nested object.
// Before, every object but a whole item was answered sorted by name.
func TestProjectionPropertyOrder(t *testing.T) {
	s, _ := newTestService(t, "")
	ctx := context.Background()
	ref := CollectionRef{DB: "db", Coll: "items"}
	it, err := s.CreateItem(ctx, ref, "", []byte(`{"zeta":1,"id":"a","pk":"p","nested":{"b":2,"a":1},"alpha":"x","list":[{"y":1,"x":[2, 10]},3]}`), ItemOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.CreateItem(ctx, ref, "", []byte(`{"id":"e","pk":"q","identity":{"name":"Parker McLean"},"team":"Field sales","contact":["206-555-0147"]}`), ItemOptions{}); err != nil {
		t.Fatal(err)
	}
	q, err := ParseQuery(`SELECT VALUE { name: e.identity.name, team: e.team, phone: e.contact[0] } FROM employees e WHERE e.team = "Field sales"`)
	if err != nil {
		t.Fatal(err)
	}
	f, err := s.QueryItems(ctx, ref, pkOf(t, "q"), q, nil)
	if want := `{"name":"Parker McLean","team":"Field sales","phone":"206-555-0147"}`; err != nil || len(f.Items) != 1 || string(f.Items[0]) != want {
		t.Errorf("the reference's example answered %s, %v; want %s", f.Items, err, want)
	}
	// An object taken whole from an item keeps the item's order: the FROM
	// reference's example answers SELECT * FROM employees.employment e
	// with hireDateTime, weeklyHours, team, as its items store them
	// (Azure-Samples/cosmos-db-nosql-query-samples, scripts/from-field).
	if _, err := s.CreateItem(ctx, ref, "", []byte(`{"id":"6339549442","pk":"r","name":"Cris Barros","employment":{"hireDateTime":"2023-01-01T06:30:00.000Z","weeklyHours":40,"team":"Retail support"}}`), ItemOptions{}); err != nil {
		t.Fatal(err)
	}
	q, err = ParseQuery(`SELECT * FROM employees.employment e WHERE e.team = "Retail support"`)
	if err != nil {
		t.Fatal(err)
	}
	f, err = s.QueryItems(ctx, ref, pkOf(t, "r"), q, nil)
	if want := `{"hireDateTime":"2023-01-01T06:30:00.000Z","weeklyHours":40,"team":"Retail support"}`; err != nil || len(f.Items) != 1 || string(f.Items[0]) != want {
		t.Errorf("the FROM reference's example answered %s, %v; want %s", f.Items, err, want)
	}
	for _, c := range []struct{ text, want string }{
		{"SELECT c.zeta, c.alpha, c.id FROM c WHERE c.pk = 'p'", `{"zeta":1,"alpha":"x","id":"a"}`},
		{"SELECT c.id, c.nested.b AS b, c.nested.a FROM c WHERE c.pk = 'p'", `{"id":"a","b":2,"a":1}`},
		{`SELECT VALUE {"z": c.zeta, "y": {"w": c.alpha, "v": [{"u": 1, "t": 2}]}} FROM c WHERE c.pk = 'p'`, `{"z":1,"y":{"w":"x","v":[{"u":1,"t":2}]}}`},
		{"SELECT c.id, ARRAY(SELECT VALUE {\"k\": 1, \"j\": 2} FROM c) AS list FROM c WHERE c.pk = 'p'", `{"id":"a","list":[{"k":1,"j":2}]}`},
		{"SELECT COUNT(1) AS n, MIN(c.zeta) AS m FROM c WHERE c.pk = 'p'", `{"n":1,"m":1}`},
		// Objects and arrays taken whole from the item, as it stores them.
		{"SELECT c.nested, c.id FROM c WHERE c.pk = 'p'", `{"nested":{"b":2,"a":1},"id":"a"}`},
		{"SELECT VALUE c.nested FROM c WHERE c.pk = 'p'", `{"b":2,"a":1}`},
		{"SELECT VALUE c.list FROM c WHERE c.pk = 'p'", `[{"y":1,"x":[2,10]},3]`},
		{"SELECT VALUE t FROM c JOIN t IN c.list WHERE c.pk = 'p' AND IS_OBJECT(t)", `{"y":1,"x":[2,10]}`},
		{"SELECT VALUE ARRAY_SLICE(c.list, 0, 1) FROM c WHERE c.pk = 'p'", `[{"y":1,"x":[2,10]}]`},
		{`SELECT VALUE {"n": c.nested, "l": c.list[0].x} FROM c WHERE c.pk = 'p'`, `{"n":{"b":2,"a":1},"l":[2,10]}`},
		{`SELECT c._rid, [{"item": c.id}] AS orderByItems, c AS payload FROM c WHERE c.pk = 'p' ORDER BY c.id`,
			`{"_rid":` + string(testkit.JSON(t, field(t, it, "_rid"))) + `,"orderByItems":[{"item":"a"}],"payload":` + string(it.Body) + `}`},
	} {
		q, err := ParseQuery(c.text)
		if err != nil {
			t.Fatal(err)
		}
		for _, pk := range []PartitionKey{pkOf(t, "p"), ""} {
			f, err := s.QueryItems(ctx, ref, pk, q, nil)
			if err != nil {
				t.Fatalf("%s: %v", c.text, err)
			}
			if len(f.Items) != 1 || string(f.Items[0]) != c.want {
				t.Errorf("%s (pk %q) answered %s, want %s", c.text, pk, f.Items, c.want)
			}
		}
	}
}

// TestWalkBodyMatchesDecodedValues: the text noted for an object or
// array inside an item is the text its decoded value came from (for a
// property named twice, the last), and a body that does not match what
// was decoded from it notes nothing wrong and does not fail.
func TestWalkBodyMatchesDecodedValues(t *testing.T) {
	last := map[string]any{"c": 2.0}
	list := []any{1.0, map[string]any{"y": 1.0}}
	doc := map[string]any{"a": last, "l": list}
	got := map[string]string{}
	add := func(v any, text []byte) {
		switch v.(type) {
		case map[string]any:
			got["map"+string(text)] = string(text)
		case []any:
			got["list"] = string(text)
		}
	}
	body := []byte(`{"a": {"b": 1}, "l": [1, {"y": 1}], "a": {"c": 2}}`)
	if end := walkBody(body, 0, doc, add); end != len(body) {
		t.Fatalf("walk ended at %d of %d", end, len(body))
	}
	b := itemBodies{}
	b[reflect.ValueOf(doc).Pointer()] = notedBody{doc: doc, body: body}
	if text, ok := b.of(last); !ok || string(text) != `{"c": 2}` {
		t.Errorf("the property named twice noted %q, %v", text, ok)
	}
	if text, ok := b.of(list); !ok || string(text) != `[1, {"y": 1}]` {
		t.Errorf("the array noted %q, %v", text, ok)
	}
	if _, ok := b.of(list[:1]); ok {
		t.Error("a shorter slice of the array was answered with the array's text")
	}
	for _, bad := range []string{`{"l": [1]}`, `{"l": [1, {"y": 1}, 3]}`, `{"a": [`, "\x00\x01", `{"a" {"c": 2}}`} {
		walkBody([]byte(bad), 0, doc, func(v any, text []byte) {
			switch v.(type) {
			case map[string]any:
				if string(text) != `{"c": 2}` && string(text) != `{"y": 1}` {
					t.Errorf("%q noted %q for an object", bad, text)
				}
			case []any:
				t.Errorf("%q noted %q for the array", bad, text)
			}
		})
	}
}
