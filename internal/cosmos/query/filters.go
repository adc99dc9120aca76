package query

import (
	"slices"
	"strings"
)

// What the gateway needs to know about a query's filter without running
// it: which document paths the WHERE clause reads (the index metrics an
// SDK may ask for name them), and whether it pins a path to one value
// (a query whose filter pins every partition-key path runs in one logical
// partition, which the gateway serves without a query plan).

// FilterPaths returns the document paths the WHERE clause reads, as
// index paths ("/name/?", "/address/city/?"), in order of first use.
// Paths below an array index are given up to the array.
func (q *Query) FilterPaths() []string {
	alias := q.rootAlias()
	if alias == "" || q.sel.where == nil {
		return nil
	}
	var out []string
	seen := map[string]bool{}
	walk(q.sel.where, func(e expr) {
		path, ok := rootPath(e, alias)
		if !ok || len(path) == 0 {
			return
		}
		p := "/" + strings.Join(path, "/") + "/?"
		if !seen[p] {
			seen[p] = true
			out = append(out, p)
		}
	})
	// A path that is a prefix of a longer one is the walk passing
	// through it (c.a on the way to c.a.b): keep only the leaves.
	var leaves []string
	for _, p := range out {
		stem := strings.TrimSuffix(p, "?")
		inner := false
		for _, o := range out {
			if o != p && strings.HasPrefix(o, stem) {
				inner = true
				break
			}
		}
		if !inner {
			leaves = append(leaves, p)
		}
	}
	return leaves
}

// PinnedValue reports the value the WHERE clause requires path (property
// names from the document root) to equal: a top-level AND term
// "alias.path = literal" or "= @param" (either way round). ok is false
// when no such term exists or its parameter is not given.
func (q *Query) PinnedValue(path []string, params map[string]any) (v any, ok bool) {
	alias := q.rootAlias()
	if alias == "" {
		return nil, false
	}
	for _, term := range conjuncts(q.sel.where) {
		b, isBin := term.(*binaryExpr)
		if !isBin || b.op != "=" {
			continue
		}
		for _, side := range [2][2]expr{{b.left, b.right}, {b.right, b.left}} {
			p, isPath := rootPath(side[0], alias)
			if !isPath || !slices.Equal(p, path) {
				continue
			}
			switch x := side[1].(type) {
			case *literalExpr:
				if isUndefined(x.v) {
					continue
				}
				return x.v, true
			case *paramExpr:
				if pv, given := params["@"+x.name]; given {
					return pv, true
				}
			}
		}
	}
	return nil, false
}

// rootAlias is the name the query binds each document to ("c" in FROM c,
// FROM root c), or "" when the source is not the documents themselves
// (FROM c.children, a subquery, no FROM); JOINs after it do not matter.
func (q *Query) rootAlias() string {
	f := q.sel.from
	if f == nil || len(f.sources) == 0 || f.sources[0].in {
		return ""
	}
	id, ok := f.sources[0].e.(*identExpr)
	if !ok {
		return ""
	}
	if f.sources[0].alias != "" {
		return f.sources[0].alias
	}
	return id.name
}

func conjuncts(e expr) []expr {
	if b, ok := e.(*binaryExpr); ok && b.op == "AND" {
		return append(conjuncts(b.left), conjuncts(b.right)...)
	}
	if e == nil {
		return nil
	}
	return []expr{e}
}

// rootPath returns the property names of alias.a.b["c"]; ok is false for
// anything else (an index, a computed name, another root).
func rootPath(e expr, alias string) ([]string, bool) {
	switch x := e.(type) {
	case *identExpr:
		return nil, x.name == alias
	case *propertyExpr:
		if x.index != nil || x.name == "" {
			return nil, false
		}
		p, ok := rootPath(x.target, alias)
		if !ok {
			return nil, false
		}
		return append(p, x.name), true
	}
	return nil, false
}

// NeedsQueryPlan reports whether running the query across partitions
// needs state carried between them — TOP, ORDER BY, OFFSET/LIMIT,
// aggregates, DISTINCT or GROUP BY — which the gateway does not serve
// across partitions without the SDK's query plan.
func (q *Query) NeedsQueryPlan() bool {
	s := q.sel
	return s.top != nil || s.offset != nil || s.limit != nil || len(s.orderBy) > 0 ||
		len(s.groupBy) > 0 || s.distinct || s.aggregate
}
