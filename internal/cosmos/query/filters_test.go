package query

import (
	"reflect"
	"testing"
)

func TestFilterPaths(t *testing.T) {
	for _, tc := range []struct {
		q    string
		want []string
	}{
		{"SELECT * FROM c", nil},
		{"SELECT * FROM c WHERE c.name = 'x' AND c.address.city > 'a' OR c.name = 'y'", []string{"/name/?", "/address/city/?"}},
		{"SELECT * FROM root r WHERE r.n > 1 AND CONTAINS(r.s, 'x')", []string{"/n/?", "/s/?"}},
		{"SELECT * FROM c.children ch WHERE ch.n > 1", nil},
	} {
		q, err := Parse(tc.q)
		if err != nil {
			t.Fatal(err)
		}
		if got := q.FilterPaths(); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%s: %v, want %v", tc.q, got, tc.want)
		}
	}
}

func TestPinnedValue(t *testing.T) {
	params := map[string]any{"@p": "b"}
	for _, tc := range []struct {
		q    string
		path []string
		want any
		ok   bool
	}{
		{"SELECT * FROM c WHERE c.pk = 'a'", []string{"pk"}, "a", true},
		{"SELECT * FROM c WHERE c.n > 1 AND @p = c.pk", []string{"pk"}, "b", true},
		{"SELECT c.id FROM c JOIN t IN c.tags WHERE c.a.b = 3 AND t = 'x'", []string{"a", "b"}, 3.0, true},
		{"SELECT * FROM c WHERE c.pk = 'a' OR c.pk = 'b'", []string{"pk"}, nil, false},
		{"SELECT * FROM c WHERE c.pk > 'a'", []string{"pk"}, nil, false},
		{"SELECT * FROM c WHERE c.pk = @missing", []string{"pk"}, nil, false},
		{"SELECT * FROM c WHERE c.other = 'a'", []string{"pk"}, nil, false},
		{"SELECT * FROM c", []string{"pk"}, nil, false},
	} {
		q, err := Parse(tc.q)
		if err != nil {
			t.Fatal(err)
		}
		got, ok := q.PinnedValue(tc.path, params)
		if ok != tc.ok || !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%s: %v %v, want %v %v", tc.q, got, ok, tc.want, tc.ok)
		}
	}
}
