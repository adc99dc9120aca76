package query

import (
	"encoding/json"
	"testing"
	"time"
)

// planDocs vary the types at the paths queries filter on, so that a plan
// that narrows on the wrong type or bound shows.
func planDocs() []map[string]any {
	return append(fuzzDocs(),
		map[string]any{"id": "4", "a": "5", "n": 2.5, "s": "abd", "g": true, "x": nil, "pk": "p1"},
		map[string]any{"id": "5", "a": map[string]any{"b": 1.0}, "n": -1.0, "s": "", "g": "x", "pk": 7.0, "arr": []any{1.0, "a", nil}},
		map[string]any{"id": "é", "n": 1e300, "s": "ab", "tags": []any{"a"}, "pk": nil},
	)
}

// FuzzIndexPlan: what the planner reads off a query that parses is only
// ever a narrowing the query itself implies. Every document a
// per-document query returns results for satisfies each filter of its
// IndexPlan and equals the value PinnedValue pins (the gateway reads only
// such documents, and only the partition the pin names); and when
// RootProperties names the properties a query reads, running it over
// documents cut down to them gives the same results.
func FuzzIndexPlan(f *testing.F) {
	for _, s := range fuzzSeeds {
		f.Add(s, "x")
	}
	for _, s := range []string{
		"SELECT * FROM c WHERE c.n > 1 AND c.n <= 2.5 AND c.s >= 'ab'",
		"SELECT c.id FROM c WHERE c.pk = @p AND c.s IN ('abc', 'ab', 1)",
		"SELECT * FROM c WHERE 2 < c.n AND c.n BETWEEN -1 AND 1e301 ORDER BY c.n DESC",
		"SELECT VALUE c.a FROM c WHERE c.a = 5 OR c.a = '5'",
		"SELECT * FROM c WHERE c.x = null AND c.g = true",
		"SELECT t FROM c JOIN t IN c.tags WHERE c.s < 'b' AND t = 'a'",
		"SELECT * FROM root r WHERE r['pk'] = 'p1'",
	} {
		f.Add(s, "p1")
	}
	docs := planDocs()
	now := time.Date(2026, 11, 23, 0, 0, 0, 0, time.UTC)
	f.Fuzz(func(t *testing.T, text, param string) {
		q, err := Parse(text)
		if err != nil {
			return
		}
		params := map[string]any{"@p": param, "n": 2.0}
		plan := q.IndexPlan(params)
		if plan.PerDocument && len(plan.Filters) > 0 {
			for _, d := range docs {
				res, err := q.RunAt([]map[string]any{d}, params, now)
				if err != nil || len(res) == 0 {
					continue
				}
				for _, pf := range plan.Filters {
					v, found := valueAt(d, pf.Path)
					if !found || !admits(pf, v) {
						t.Fatalf("%q: document %v has results, but the plan's filter %+v excludes its value %v", text, d["id"], pf, v)
					}
					if pin, ok := q.PinnedValue(pf.Path, params); ok && !sameJSON(pin, v) {
						t.Fatalf("%q: document %v has results, but %v is pinned to %v", text, d["id"], pf.Path, pin)
					}
				}
			}
		}
		names, ok := q.RootProperties()
		if !ok {
			return
		}
		full, err := q.RunAt(docs, params, now)
		if err != nil {
			return
		}
		cut := make([]map[string]any, len(docs))
		for i, d := range docs {
			cut[i] = map[string]any{}
			for _, n := range names {
				if v, ok := d[n]; ok {
					cut[i][n] = v
				}
			}
		}
		part, err := q.RunAt(cut, params, now)
		if err != nil || !sameJSON(full, part) {
			t.Fatalf("%q reads %v, yet over just those it gives %v (%v) instead of %v", text, names, part, err, full)
		}
	})
}

func valueAt(d map[string]any, path []string) (any, bool) {
	var v any = d
	for _, p := range path {
		m, ok := v.(map[string]any)
		if !ok {
			return nil, false
		}
		if v, ok = m[p]; !ok {
			return nil, false
		}
	}
	return v, true
}

// admits reports whether a path filter lets a document with value v
// through.
func admits(pf PathFilter, v any) bool {
	if pf.Values != nil {
		for _, want := range pf.Values {
			if sameJSON(want, v) {
				return true
			}
		}
		return false
	}
	for _, bound := range []struct {
		b    any
		incl bool
		sign int // the comparison's required sign: v above Lo, below Hi
	}{{pf.Lo, pf.LoIncl, 1}, {pf.Hi, pf.HiIncl, -1}} {
		if bound.b == nil {
			continue
		}
		c, ok := compareScalars(v, bound.b)
		if !ok || c == -bound.sign || c == 0 && !bound.incl {
			return false
		}
	}
	return true
}

// compareScalars orders two numbers or two strings.
func compareScalars(a, b any) (int, bool) {
	switch x := a.(type) {
	case float64:
		return compareSame(x, b)
	case string:
		return compareSame(x, b)
	}
	return 0, false
}

// compareSame orders x against b, which must be of x's type.
func compareSame[T float64 | string](x T, b any) (int, bool) {
	y, ok := b.(T)
	if !ok {
		return 0, false
	}
	switch {
	case x < y:
		return -1, true
	case x > y:
		return 1, true
	}
	return 0, true
}

func sameJSON(a, b any) bool {
	x, err1 := json.Marshal(a)
	y, err2 := json.Marshal(b)
	return err1 == nil && err2 == nil && string(x) == string(y)
}
