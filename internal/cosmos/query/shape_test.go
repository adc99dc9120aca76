package query

import (
	"reflect"
	"testing"
)

// TestShape: a query's Shape names the properties of the objects it
// builds in the order its text writes them, and nothing for results it
// does not build.
func TestShape(t *testing.T) {
	obj := func(keys ...string) *Shape { return &Shape{Keys: keys} }
	for _, c := range []struct {
		text string
		want *Shape
	}{
		{"SELECT * FROM c", nil},
		{"SELECT VALUE c FROM c", nil},
		{"SELECT VALUE c.a FROM c", nil},
		{"SELECT c.b, c.a FROM c", obj("b", "a")},
		{"SELECT c.b AS y, c.x.a FROM c", obj("y", "a")},
		{`SELECT VALUE {"z": 1, "y": {"x": 2, "w": 3}} FROM c`, &Shape{Keys: []string{"z", "y"}, Fields: map[string]*Shape{"y": obj("x", "w")}}},
		{`SELECT c._rid, [{"item": c.n}] AS orderByItems, c AS payload FROM c ORDER BY c.n`,
			&Shape{Keys: []string{"_rid", "orderByItems", "payload"}, Fields: map[string]*Shape{"orderByItems": {Elems: []*Shape{obj("item")}}}}},
		{"SELECT c.id, ARRAY(SELECT t.b, t.a FROM t IN c.tags) AS tags FROM c", &Shape{Keys: []string{"id", "tags"}, Fields: map[string]*Shape{"tags": {Elem: obj("b", "a")}}}},
		{"SELECT VALUE [1, c.a] FROM c", nil},
		{"SELECT EXISTS(SELECT t.a FROM t IN c.tags) AS e FROM c", obj("e")},
	} {
		q, err := Parse(c.text)
		if err != nil {
			t.Fatal(err)
		}
		if got := q.Shape(); !reflect.DeepEqual(got, c.want) {
			t.Errorf("%s: shape %+v, want %+v", c.text, got, c.want)
		}
	}
}
