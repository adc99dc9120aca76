package query

import "strings"

// Plan describes a query the way the SDKs' query-plan request needs it
// (the "queryInfo" of the response). Expressions are given as their
// source text.
type Plan struct {
	HasOrderBy         bool
	OrderBy            []string // "Ascending" or "Descending", one per key
	OrderByExpressions []string
	HasAggregates      bool
	// Aggregates names each aggregate the projection uses, in order of
	// appearance, as the SDKs' AggregateOperator enumeration spells
	// them: "Count", "Sum", "Average", "Min", "Max".
	Aggregates         []string
	HasGroupBy         bool
	GroupByExpressions []string
	Distinct           bool
	// Top, Offset and Limit are nil when absent or given as a parameter.
	Top, Offset, Limit *int
	HasSelectValue     bool
}

// Plan describes the query for the SDKs' query-plan request.
func (q *Query) Plan() Plan {
	sel := q.sel
	p := Plan{
		Distinct:       sel.distinct,
		HasSelectValue: sel.value != nil,
		HasGroupBy:     len(sel.groupBy) > 0,
		HasOrderBy:     len(sel.orderBy) > 0,
		Top:            literalLimit(sel.top),
		Offset:         literalLimit(sel.offset),
		Limit:          literalLimit(sel.limit),
	}
	for _, it := range sel.orderBy {
		dir := "Ascending"
		if it.desc {
			dir = "Descending"
		}
		p.OrderBy = append(p.OrderBy, dir)
		p.OrderByExpressions = append(p.OrderByExpressions, strings.TrimSpace(it.e.source()))
	}
	for _, e := range sel.groupBy {
		p.GroupByExpressions = append(p.GroupByExpressions, strings.TrimSpace(e.source()))
	}
	var projected []expr
	if sel.value != nil {
		projected = append(projected, sel.value)
	}
	for _, it := range sel.items {
		projected = append(projected, it.e)
	}
	seen := map[string]bool{}
	for _, e := range projected {
		walk(e, func(x expr) {
			if c, ok := x.(*callExpr); ok && !c.udf {
				if name, ok := planAggregateNames[c.name]; ok && !seen[name] {
					seen[name] = true
					p.Aggregates = append(p.Aggregates, name)
				}
			}
		})
	}
	p.HasAggregates = len(p.Aggregates) > 0
	return p
}

func literalLimit(a *limitArg) *int {
	if a == nil || a.param != "" {
		return nil
	}
	n := a.n
	return &n
}
