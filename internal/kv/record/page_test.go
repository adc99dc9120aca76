package record

import (
	"context"
	"reflect"
	"testing"

	"github.com/cerulean-db/cerulean/internal/kv"
	"github.com/cerulean-db/cerulean/internal/kv/memory"
	"github.com/cerulean-db/cerulean/internal/kv/tuple"
)

func TestPage(t *testing.T) {
	store := memory.Open()
	defer func() { _ = store.Close() }()
	base := tuple.New("L").Str("acct")
	ctx := context.Background()
	err := store.Update(ctx, func(tx kv.Txn) error {
		for i, n := range []string{"a1", "a2", "a3", "b1"} {
			if err := Store(tx, base.Str(n), struct{ N int }{i}); err != nil {
				return err
			}
		}
		// A neighbour's key just past base must never be listed.
		return Store(tx, tuple.New("L").Str("acct2").Str("a9"), struct{ N int }{9})
	})
	if err != nil {
		t.Fatal(err)
	}
	page := func(prefix, marker string, max int) ([]string, []int, string) {
		var names []string
		var ns []int
		var next string
		err := store.View(ctx, func(r kv.Reader) error {
			var err error
			next, err = Page(r, base, prefix, marker, max, func(name string, v *struct{ N int }) {
				names, ns = append(names, name), append(ns, v.N)
			})
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
		return names, ns, next
	}
	for _, c := range []struct {
		prefix, marker string
		max            int
		names          []string
		next           string
	}{
		{"", "", 10, []string{"a1", "a2", "a3", "b1"}, ""},
		{"a", "", 2, []string{"a1", "a2"}, "a3"},
		{"a", "a3", 2, []string{"a3"}, ""},
		{"", "a2", 2, []string{"a2", "a3"}, "b1"},
		{"b", "a2", 5, []string{"b1"}, ""}, // a marker before the prefix is ignored
	} {
		names, _, next := page(c.prefix, c.marker, c.max)
		if !reflect.DeepEqual(names, c.names) || next != c.next {
			t.Errorf("prefix %q marker %q max %d: %v next %q, want %v next %q", c.prefix, c.marker, c.max, names, next, c.names, c.next)
		}
	}
	if _, ns, _ := page("", "", 10); !reflect.DeepEqual(ns, []int{0, 1, 2, 3}) {
		t.Errorf("decoded %v", ns)
	}
}
