package cosmos

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
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
