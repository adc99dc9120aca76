package query

// aggregates are the aggregate functions, by upper-case name. Each gets
// the defined values of its argument over one group (undefined values are
// skipped, as Cosmos documents) and returns the aggregate or undefined.
var aggregates = map[string]func(vals []any) any{
	"COUNT": func(vals []any) any { return float64(len(vals)) },
	"SUM":   aggregateSum,
	"AVG":   aggregateAvg,
	"MIN":   func(vals []any) any { return aggregateExtreme(vals, -1) },
	"MAX":   func(vals []any) any { return aggregateExtreme(vals, 1) },
}

// planAggregateNames are the names the SDK query plan uses for each
// aggregate (the AggregateOperator enumeration of the SDKs).
var planAggregateNames = map[string]string{
	"COUNT": "Count",
	"SUM":   "Sum",
	"AVG":   "Average",
	"MIN":   "Min",
	"MAX":   "Max",
}

// aggregateSum is undefined if any value is not a number; the sum of no
// values is 0.
func aggregateSum(vals []any) any {
	sum := 0.0
	for _, v := range vals {
		f, ok := toNumber(v)
		if !ok {
			return undefined
		}
		sum += f
	}
	return number(sum)
}

// aggregateAvg is undefined if any value is not a number, and for no
// values at all.
func aggregateAvg(vals []any) any {
	if len(vals) == 0 {
		return undefined
	}
	sum := aggregateSum(vals)
	if isUndefined(sum) {
		return undefined
	}
	return number(sum.(float64) / float64(len(vals)))
}

// aggregateExtreme returns the minimum (sign -1) or maximum (sign 1) by
// the cross-type order. MIN and MAX accept null, booleans, numbers and
// strings; an array or object makes the result undefined.
func aggregateExtreme(vals []any, sign int) any {
	best := undefined
	for _, v := range vals {
		if r := rank(v); r == rankArray || r == rankObject {
			return undefined
		}
		if isUndefined(best) || compareValues(v, best)*sign > 0 {
			best = v
		}
	}
	return best
}

// groupRows collapses the rows of an aggregate query into one env per
// group, in order of each group's first row. Without GROUP BY all rows
// form one group, even when there are none, so that COUNT over nothing
// is 0.
func groupRows(sel *selectStmt, outer *env, rows []*env) []*env {
	if len(sel.groupBy) == 0 {
		g := &env{outer: outer, run: outer.run, group: rows}
		if len(rows) > 0 {
			g.names, g.vals = rows[0].names, rows[0].vals
		} else if sel.from != nil {
			// Aliases are bound, to undefined, so that a non-aggregate
			// projection over no rows yields undefined, not an error.
			for _, src := range sel.from.sources {
				g.names = append(g.names, src.alias)
				g.vals = append(g.vals, undefined)
			}
		}
		if g.group == nil {
			g.group = []*env{}
		}
		return []*env{g}
	}
	var groups []*env
	byKey := map[string]*env{}
	for _, r := range rows {
		key := ""
		for _, e := range sel.groupBy {
			key += valueKey(eval(e, r)) + "|"
		}
		g, ok := byKey[key]
		if !ok {
			g = &env{names: r.names, vals: r.vals, outer: outer, run: outer.run}
			byKey[key] = g
			groups = append(groups, g)
		}
		g.group = append(g.group, r)
	}
	return groups
}
