package query

import (
	"fmt"
	"time"
)

// What a range index can do for a query, read off its text without
// running it: which top-level AND terms of the WHERE clause bound one
// document path (so that only documents whose indexed value lies in the
// bounds can match), what ORDER BY sorts on, and whether each document's
// results depend on that document alone (so that a page can stop after
// any document). The gateway chooses from this how to read; the query is
// still run in full over what it reads, so a plan may only ever narrow
// the documents, never decide a result.

// IndexPlan is the index-relevant shape of a query.
type IndexPlan struct {
	// Filters are the top-level AND terms that bound a document path to
	// scalar values.
	Filters []PathFilter
	// OrderBy holds the ORDER BY keys when every one of them is a document
	// path; nil when the query has no ORDER BY or a key is computed.
	OrderBy []OrderPath
	// HasOrderBy is true when the query has an ORDER BY clause at all.
	HasOrderBy bool
	// PerDocument is true when the results are the concatenation of each
	// document's own results in the order the documents are read: no
	// aggregate, GROUP BY, DISTINCT, TOP or OFFSET/LIMIT.
	PerDocument bool
}

// PathFilter bounds the value at Path (property names from the document
// root). Either Values lists the values the path must equal (= or IN),
// or Lo/Hi bound it (nil for no bound; both bounds, when present, of one
// type: number or string), inclusive as LoIncl/HiIncl say.
type PathFilter struct {
	Path           []string
	Values         []any
	Lo, Hi         any
	LoIncl, HiIncl bool
}

// OrderPath is one ORDER BY key on a document path.
type OrderPath struct {
	Path []string
	Desc bool
}

// IndexPlan describes the query for the index; params are the query's
// parameters (a term whose parameter is missing is left out). A query
// whose documents are not the root source (FROM c.children, a subquery)
// has an empty plan.
func (q *Query) IndexPlan(params map[string]any) IndexPlan {
	s := q.sel
	p := IndexPlan{HasOrderBy: len(s.orderBy) > 0}
	alias := q.rootAlias()
	if alias == "" {
		return p
	}
	// A JOIN that rebinds the root's name makes later paths mean the
	// joined values, not the document's.
	for _, src := range s.from.sources[1:] {
		if src.alias == alias {
			return p
		}
	}
	p.PerDocument = !s.aggregate && len(s.groupBy) == 0 && !s.distinct && s.top == nil && s.offset == nil && s.limit == nil
	for _, term := range conjuncts(s.where) {
		if f, ok := pathFilter(term, alias, params); ok {
			p.Filters = append(p.Filters, f)
		}
	}
	for _, it := range s.orderBy {
		path, ok := rootPath(it.e, alias)
		if !ok || len(path) == 0 {
			p.OrderBy = nil
			break
		}
		p.OrderBy = append(p.OrderBy, OrderPath{Path: path, Desc: it.desc})
	}
	return p
}

// pathFilter reads one WHERE term as a bound on a path.
func pathFilter(term expr, alias string, params map[string]any) (PathFilter, bool) {
	switch x := term.(type) {
	case *binaryExpr:
		op := x.op
		path, isPath := rootPath(x.left, alias)
		other := x.right
		if !isPath {
			if path, isPath = rootPath(x.right, alias); !isPath {
				return PathFilter{}, false
			}
			other = x.left
			op = flipComparison(op)
		}
		if len(path) == 0 {
			return PathFilter{}, false
		}
		v, ok := constantValue(other, params)
		if !ok {
			return PathFilter{}, false
		}
		switch op {
		case "=":
			return PathFilter{Path: path, Values: []any{v}}, true
		case ">", ">=":
			if !rangeValue(v) {
				return PathFilter{}, false
			}
			return PathFilter{Path: path, Lo: v, LoIncl: op == ">="}, true
		case "<", "<=":
			if !rangeValue(v) {
				return PathFilter{}, false
			}
			return PathFilter{Path: path, Hi: v, HiIncl: op == "<="}, true
		}
	case *inExpr:
		path, ok := rootPath(x.e, alias)
		if !ok || x.not || len(path) == 0 || len(x.list) == 0 {
			return PathFilter{}, false
		}
		f := PathFilter{Path: path}
		for _, e := range x.list {
			v, ok := constantValue(e, params)
			if !ok {
				return PathFilter{}, false
			}
			f.Values = append(f.Values, v)
		}
		return f, true
	case *betweenExpr:
		path, ok := rootPath(x.e, alias)
		if !ok || x.not || len(path) == 0 {
			return PathFilter{}, false
		}
		lo, ok1 := constantValue(x.lo, params)
		hi, ok2 := constantValue(x.hi, params)
		if !ok1 || !ok2 || !rangeValue(lo) || !rangeValue(hi) || rank(lo) != rank(hi) {
			return PathFilter{}, false
		}
		return PathFilter{Path: path, Lo: lo, Hi: hi, LoIncl: true, HiIncl: true}, true
	}
	return PathFilter{}, false
}

// constantValue is the scalar value of a literal or given parameter
// (null, a boolean, a number or a string).
func constantValue(e expr, params map[string]any) (any, bool) {
	var v any
	switch x := e.(type) {
	case *literalExpr:
		v = x.v
	case *paramExpr:
		pv, ok := params["@"+x.name]
		if !ok {
			if pv, ok = params[x.name]; !ok {
				return nil, false
			}
		}
		v = pv
	default:
		return nil, false
	}
	switch x := v.(type) {
	case nil, bool, string:
		return v, true
	case float64:
		return x, true
	case int:
		return float64(x), true
	}
	return nil, false
}

// rangeValue reports whether v can bound a range: comparisons order
// numbers among numbers and strings among strings.
func rangeValue(v any) bool {
	switch v.(type) {
	case float64, string:
		return true
	}
	return false
}

func flipComparison(op string) string {
	switch op {
	case ">":
		return "<"
	case ">=":
		return "<="
	case "<":
		return ">"
	case "<=":
		return ">="
	}
	return op
}

// HasWhere reports whether the query filters its documents.
func (q *Query) HasWhere() bool { return q.sel.where != nil }

// RootProperties returns the top-level document properties the query
// reads, when it reads documents only through them (c.a, c["b"].x): a
// run over documents holding just those properties gives the same
// results. ok is false when the query uses a document whole (SELECT *,
// SELECT c, udf.f(c), c[expr]) or has a subquery, which may.
func (q *Query) RootProperties() (names []string, ok bool) {
	s := q.sel
	alias := q.rootAlias()
	if alias == "" || s.star {
		return nil, false
	}
	var exprs []expr
	if s.value != nil {
		exprs = append(exprs, s.value)
	}
	for _, it := range s.items {
		exprs = append(exprs, it.e)
	}
	for _, src := range s.from.sources[1:] {
		if src.alias == alias {
			return nil, false
		}
		exprs = append(exprs, src.e)
	}
	exprs = append(exprs, s.where)
	exprs = append(exprs, s.groupBy...)
	for _, it := range s.orderBy {
		exprs = append(exprs, it.e)
	}
	seen := map[string]bool{}
	ok = true
	for _, e := range exprs {
		// Identifiers met as the target of a constant property access
		// are fine; any other use of the root is a use of it whole.
		allowed := map[expr]bool{}
		walk(e, func(x expr) {
			switch y := x.(type) {
			case *subqueryExpr:
				ok = false
			case *propertyExpr:
				if id, isIdent := y.target.(*identExpr); isIdent && id.name == alias {
					if y.index != nil || y.name == "" {
						ok = false
						return
					}
					allowed[id] = true
					if !seen[y.name] {
						seen[y.name] = true
						names = append(names, y.name)
					}
				}
			case *identExpr:
				if y.name == alias && !allowed[y] {
					ok = false
				}
			}
		})
	}
	if !ok {
		return nil, false
	}
	return names, true
}

// DocRunner runs a query over one document at a time, as a reader that
// stops after any document does; each Run is Run over that document
// alone, and for a plan that is PerDocument the concatenated results
// equal one Run over all of them in order. The clock is read once, for
// every document. A DocRunner is not safe for concurrent use.
type DocRunner struct {
	q   *Query
	ctx *runContext
	one []map[string]any
}

// NewDocRunner returns a runner of q with params and o.
func (q *Query) NewDocRunner(params map[string]any, o Options) *DocRunner {
	now := o.Now
	if now.IsZero() {
		now = time.Now()
	}
	r := &DocRunner{q: q, one: make([]map[string]any, 1)}
	r.ctx = &runContext{params: params, now: now.UTC(), udfs: o.UDFs}
	return r
}

// Run evaluates the query over doc.
func (r *DocRunner) Run(doc map[string]any) (results []any, err error) {
	defer func() {
		if p := recover(); p != nil {
			if re, ok := p.(runtimeError); ok {
				results, err = nil, re.err
				return
			}
			results, err = nil, &Error{Message: fmt.Sprintf("%s: %v", internalErrorPrefix, p)}
		}
	}()
	r.one[0] = doc
	r.ctx.docs = r.one
	r.ctx.rowBudget = maxRows
	return execSelect(r.q.sel, &env{run: r.ctx}), nil
}
