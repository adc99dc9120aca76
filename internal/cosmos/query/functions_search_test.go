package query

import (
	"encoding/json"
	"testing"
)

func TestSearchFunctions(t *testing.T) {
	docs := []map[string]any{
		{"id": "a", "v": []any{1.0, 0.0}, "text": "The red Bicycle, parked."},
		{"id": "b", "v": []any{0.0, 1.0}, "text": "A blue car"},
		{"id": "c", "v": []any{1.0, 1.0}, "text": "red car and bicycle"},
	}
	for _, tc := range []struct{ q, want string }{
		{"SELECT VALUE c.id FROM c ORDER BY VectorDistance(c.v, [1, 0]) DESC", `["a","c","b"]`},
		{"SELECT VALUE VectorDistance(c.v, [1, 0], false, {'distanceFunction': 'euclidean'}) FROM c WHERE c.id = 'b'", `[1.4142135623730951]`},
		{"SELECT VALUE VectorDistance(c.v, [2, 3], true, {'distanceFunction': 'dotproduct'}) FROM c WHERE c.id = 'c'", `[5]`},
		{"SELECT VALUE VectorDistance(c.v, [1, 0, 0]) FROM c", `[]`},
		{"SELECT VALUE c.id FROM c WHERE FullTextContains(c.text, 'bicycle')", `["a","c"]`},
		{"SELECT VALUE c.id FROM c WHERE FullTextContains(c.text, 'red bicycle')", `["a"]`},
		{"SELECT VALUE c.id FROM c WHERE FullTextContainsAll(c.text, 'red', 'car')", `["c"]`},
		{"SELECT VALUE c.id FROM c WHERE FullTextContainsAny(c.text, 'blue', 'parked')", `["a","b"]`},
	} {
		q, err := Parse(tc.q)
		if err != nil {
			t.Fatalf("%s: %v", tc.q, err)
		}
		res, err := q.Run(docs, nil)
		if err != nil {
			t.Fatalf("%s: %v", tc.q, err)
		}
		if res == nil {
			res = []any{}
		}
		got, _ := json.Marshal(res)
		if string(got) != tc.want {
			t.Errorf("%s: %s, want %s", tc.q, got, tc.want)
		}
	}
	if _, err := Parse("SELECT VALUE FullTextScore(c.text, 'red') FROM c"); err == nil {
		t.Error("FullTextScore parsed; cerulean does not serve it")
	}
}
