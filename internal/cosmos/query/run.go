package query

import (
	"fmt"
	"regexp"
	"strings"
	"time"
)

// runContext is what one Run shares with every row it evaluates.
type runContext struct {
	docs   []map[string]any
	params map[string]any
	now    time.Time
	// regexps caches RegexMatch patterns compiled during this run.
	regexps map[string]*regexp.Regexp
	// rowBudget bounds the rows a Run may materialize (JOIN fan-out,
	// subqueries), so that one request cannot exhaust memory.
	rowBudget int
	udfs      UDFs
}

// UDFs calls the user-defined functions of a container: udf.name(args)
// in a query. The query package only evaluates expressions; what a
// function is and how it runs (and how long it may) is the caller's.
type UDFs interface {
	// CallUDF returns the value of function name (case-sensitive, as
	// written after "udf.") for args, which are query values with an
	// undefined argument passed as nil. The result must be a decoded JSON
	// value (nil, bool, float64, string, []any, map[string]any). An error
	// fails the whole Run with an *Error that wraps it.
	CallUDF(name string, args []any) (any, error)
}

// Options are the optional settings of RunWith.
type Options struct {
	// Now is the clock value GetCurrentDateTime and friends read; zero
	// means time.Now.
	Now time.Time
	// UDFs resolves udf.name(...) calls; nil refuses them.
	UDFs UDFs
}

// internalErrorPrefix starts the message of an *Error that stands for a
// recovered panic: a bug in this package, never the user's fault.
const internalErrorPrefix = "internal error evaluating query"

func isInternal(e *Error) bool { return strings.HasPrefix(e.Message, internalErrorPrefix) }

// maxRows is the rowBudget of a Run; a variable so that tests can lower
// it.
var maxRows = 2_000_000

func (c *runContext) param(name string) any {
	if v, ok := c.params["@"+name]; ok {
		return v
	}
	if v, ok := c.params[name]; ok {
		return v
	}
	failf("Parameter '@%s' is not defined.", name)
	return nil
}

func (c *runContext) spend(n int) {
	c.rowBudget -= n
	if c.rowBudget < 0 {
		failf("query produces too many intermediate rows")
	}
}

// Run evaluates the query over the documents of one container. docs are
// decoded JSON objects (numbers as float64); params maps parameter names,
// with or without the leading '@', to decoded JSON values. The result is
// the complete ordered result list. Results may share structure with docs:
// callers must not modify either. Runtime errors are *Error.
//
// Run is safe to call concurrently on one Query.
func (q *Query) Run(docs []map[string]any, params map[string]any) ([]any, error) {
	return q.RunAt(docs, params, time.Now())
}

// RunAt is Run with the clock read by GetCurrentDateTime and friends fixed
// at now. Every row of one run sees the same time, as in Cosmos.
func (q *Query) RunAt(docs []map[string]any, params map[string]any, now time.Time) (results []any, err error) {
	return q.RunWith(docs, params, Options{Now: now})
}

// RunWith is Run with options: a fixed clock and user-defined functions.
func (q *Query) RunWith(docs []map[string]any, params map[string]any, o Options) (results []any, err error) {
	now := o.Now
	if now.IsZero() {
		now = time.Now()
	}
	defer func() {
		if r := recover(); r != nil {
			if re, ok := r.(runtimeError); ok {
				results, err = nil, re.err
				return
			}
			// Last line of defence: a bug must not take the server down.
			results, err = nil, &Error{Message: fmt.Sprintf("%s: %v", internalErrorPrefix, r)}
		}
	}()
	ctx := &runContext{docs: docs, params: params, now: now.UTC(), rowBudget: maxRows, udfs: o.UDFs}
	root := &env{run: ctx}
	return execSelect(q.sel, root), nil
}

// execSelect runs one SELECT in the context of outer (the row of the
// enclosing query, or an empty row at the top).
func execSelect(sel *selectStmt, outer *env) []any {
	rows := sourceRows(sel, outer)
	if sel.where != nil {
		kept := rows[:0:0]
		for _, r := range rows {
			if eval(sel.where, r) == true {
				kept = append(kept, r)
			}
		}
		rows = kept
	}
	if sel.aggregate {
		rows = groupRows(sel, outer, rows)
	}
	if len(sel.orderBy) > 0 && len(rows) > 1 {
		sortRows(sel.orderBy, rows)
	}
	results := make([]any, 0, len(rows))
	for _, r := range rows {
		if v := project(sel, r); !isUndefined(v) {
			results = append(results, v)
		}
	}
	if sel.distinct {
		results = distinct(results)
	}
	run := outer.run
	if sel.offset != nil {
		off, lim := run.limitValue(sel.offset, "OFFSET"), run.limitValue(sel.limit, "LIMIT")
		results = window(results, off, lim)
	}
	if sel.top != nil {
		results = window(results, 0, run.limitValue(sel.top, "TOP"))
	}
	return results
}

func window(results []any, off, lim int) []any {
	if off > len(results) {
		off = len(results)
	}
	results = results[off:]
	if lim < len(results) {
		results = results[:lim]
	}
	return results
}

func (c *runContext) limitValue(a *limitArg, clause string) int {
	if a.param == "" {
		return a.n
	}
	f, ok := toNumber(c.param(a.param))
	if !ok || f < 0 || f != float64(int(f)) {
		failf("the %s value must be a non-negative integer", clause)
	}
	return int(f)
}

// sourceRows produces the rows of the FROM clause: the cross product of
// the first source with every JOIN.
func sourceRows(sel *selectStmt, outer *env) []*env {
	base := &env{outer: outer, run: outer.run}
	if sel.from == nil {
		return []*env{base}
	}
	rows := firstSourceRows(sel.from.sources[0], base, outer)
	for _, src := range sel.from.sources[1:] {
		var next []*env
		for _, r := range rows {
			vals := sourceValues(src, r)
			outer.run.spend(len(vals))
			for _, v := range vals {
				next = append(next, r.bind(src.alias, v))
			}
		}
		rows = next
	}
	return rows
}

// firstSourceRows binds the first FROM source. Its path is rooted at the
// container (whatever name the query gives it) unless the root
// identifier names a row of an enclosing query, as in a correlated
// subquery "EXISTS(SELECT VALUE t FROM t IN c.tags ...)".
func firstSourceRows(src *fromSource, base, outer *env) []*env {
	run := outer.run
	var rows []*env
	if sub, ok := src.e.(*subqueryExpr); ok {
		for _, v := range execSelect(sub.sel, outer) {
			rows = append(rows, base.bind(src.alias, v))
		}
		return rows
	}
	rootName := pathRoot(src.e)
	if v, ok := outer.lookup(rootName); ok {
		vals := expand(src, evalPath(src.e, v, base))
		run.spend(len(vals))
		for _, x := range vals {
			rows = append(rows, base.bind(src.alias, x))
		}
		return rows
	}
	for _, doc := range run.docs {
		vals := expand(src, evalPath(src.e, doc, base))
		if src.in {
			run.spend(len(vals))
		}
		for _, x := range vals {
			rows = append(rows, base.bind(src.alias, x))
		}
	}
	return rows
}

// sourceValues evaluates a JOIN source in row r.
func sourceValues(src *fromSource, r *env) []any {
	if sub, ok := src.e.(*subqueryExpr); ok {
		return execSelect(sub.sel, r)
	}
	return expand(src, eval(src.e, r))
}

// expand turns a source's value into the values its alias binds to: the
// elements of an array for "alias IN expr", the value itself otherwise;
// nothing for undefined or a non-array IN operand.
func expand(src *fromSource, v any) []any {
	if src.in {
		arr, _ := v.([]any)
		return arr
	}
	if isUndefined(v) {
		return nil
	}
	return []any{v}
}

func pathRoot(e expr) string {
	for {
		switch x := e.(type) {
		case *identExpr:
			return x.name
		case *propertyExpr:
			e = x.target
		default:
			return ""
		}
	}
}

// evalPath evaluates a FROM path with its root identifier bound to root.
func evalPath(e expr, root any, scope *env) any {
	switch x := e.(type) {
	case *identExpr:
		return root
	case *propertyExpr:
		t := evalPath(x.target, root, scope)
		if x.index == nil {
			return member(t, x.name)
		}
		return index(t, eval(x.index, scope))
	}
	return undefined
}

// project computes the output value of one row (or group): undefined
// means the row produces no result.
func project(sel *selectStmt, r *env) any {
	switch {
	case sel.star:
		return r.vals[0]
	case sel.value != nil:
		return eval(sel.value, r)
	}
	obj := make(map[string]any, len(sel.items))
	for _, it := range sel.items {
		if v := eval(it.e, r); !isUndefined(v) {
			obj[it.name] = v
		}
	}
	return obj
}

// distinct removes duplicate results, keeping the first of each.
func distinct(results []any) []any {
	seen := make(map[string]bool, len(results))
	out := results[:0:0]
	for _, v := range results {
		k := valueKey(v)
		if !seen[k] {
			seen[k] = true
			out = append(out, v)
		}
	}
	return out
}

// valueKey encodes a value so that two values have the same key exactly
// when they are equal, for DISTINCT and GROUP BY.
func valueKey(v any) string {
	var b strings.Builder
	writeKey(&b, v)
	return b.String()
}

func writeKey(b *strings.Builder, v any) {
	switch rank(v) {
	case rankUndefined:
		b.WriteString("u")
	case rankNull:
		b.WriteString("n")
	case rankBool:
		if v.(bool) {
			b.WriteString("t")
		} else {
			b.WriteString("f")
		}
	case rankNumber:
		f, _ := toNumber(v)
		if f == 0 {
			f = 0 // -0 and 0 are one value
		}
		b.WriteString("d")
		b.WriteString(formatNumber(f))
		b.WriteString(";")
	case rankString:
		b.WriteString("s")
		fmt.Fprintf(b, "%q", v.(string))
	case rankArray:
		b.WriteString("[")
		for _, e := range v.([]any) {
			writeKey(b, e)
			b.WriteString(",")
		}
		b.WriteString("]")
	case rankObject:
		m := v.(map[string]any)
		b.WriteString("{")
		for _, k := range sortedKeys(m) {
			fmt.Fprintf(b, "%q:", k)
			writeKey(b, m[k])
			b.WriteString(",")
		}
		b.WriteString("}")
	}
}
