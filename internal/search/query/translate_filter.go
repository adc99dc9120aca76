package query

import (
	"time"

	"math"
	"strconv"

	"github.com/blevesearch/bleve/v2/geo"
	"github.com/blevesearch/bleve/v2/search/query"
)

// Query translates the filter into a bleve query and reports whether the
// translation is exact. When exact is false the query matches a superset
// of the filter's documents and the search layer must keep only those for
// which Match is true. Parts that need that post-filter:
//   - comparisons with null and `any()` without a lambda (bleve has no
//     "field exists" query);
//   - all() lambdas whose negation is not a disjunction of single
//     comparisons, and any() lambdas over a conjunction or a negation:
//     bleve flattens collections, so conditions on one element cannot be
//     correlated;
//   - ne inside any(), geo.distance with gt/ge/eq/ne (documents without a
//     location), NaN and integers of magnitude 2^53 or more (bleve stores float64).
//
// Strings are matched on ExactFieldName (the whole value, case-sensitive,
// as Azure filters are); other types on FieldName.
func (f *Filter) Query() (query.Query, bool) {
	return translateFilter(f.Root)
}

func matchAll() query.Query { return query.NewMatchAllQuery() }

func negation(q query.Query) query.Query {
	return query.NewBooleanQuery([]query.Query{matchAll()}, nil, []query.Query{q})
}

func anyOf(qs ...query.Query) query.Query {
	if len(qs) == 0 {
		return query.NewMatchNoneQuery()
	}
	if len(qs) == 1 {
		return qs[0]
	}
	d := query.NewDisjunctionQuery(qs)
	d.SetMin(1)
	return d
}

func translateFilter(e FilterExpr) (query.Query, bool) {
	switch e := e.(type) {
	case *AndExpr:
		l, le := translateFilter(e.Left)
		r, re := translateFilter(e.Right)
		return query.NewConjunctionQuery([]query.Query{l, r}), le && re
	case *OrExpr:
		l, le := translateFilter(e.Left)
		r, re := translateFilter(e.Right)
		return anyOf(l, r), le && re
	case *NotExpr:
		x, exact := translateFilter(e.X)
		if !exact {
			return matchAll(), false
		}
		return negation(x), true
	case *BoolLiteral:
		if e.Value {
			return matchAll(), true
		}
		return query.NewMatchNoneQuery(), true
	case *CompareExpr:
		return compareQuery(e.Field, e.Op, e.Value)
	case *SearchInExpr:
		return searchInQuery(e), true
	case *IsMatchExpr:
		return e.Query, true
	case *GeoDistanceExpr:
		within := geoWithin(e)
		switch e.Op {
		case OpLt, OpLe:
			return within, true
		case OpGt, OpGe:
			return negation(within), false
		}
		return matchAll(), false
	case *GeoIntersectsExpr:
		return geoPolygon(e), true
	case *LambdaExpr:
		return lambdaQuery(e)
	}
	return matchAll(), false
}

// lambdaQuery translates any/all over a collection that bleve indexes as
// one multi-valued field (complex collections flattened per sub-field).
func lambdaQuery(e *LambdaExpr) (query.Query, bool) {
	if e.Body == nil {
		return matchAll(), false
	}
	if !e.All {
		return anyElementQuery(e.Body)
	}
	// all(x: B) is not any(x: not B).
	q, exact := anyElementQuery(negateElement(e.Body))
	if !exact {
		return matchAll(), false
	}
	return negation(q), true
}

// anyElementQuery is "some element satisfies e" against flattened fields:
// exact for single conditions and their disjunctions only.
func anyElementQuery(e FilterExpr) (query.Query, bool) {
	switch e := e.(type) {
	case *OrExpr:
		l, le := anyElementQuery(e.Left)
		r, re := anyElementQuery(e.Right)
		return anyOf(l, r), le && re
	case *AndExpr:
		l, _ := anyElementQuery(e.Left)
		r, _ := anyElementQuery(e.Right)
		return query.NewConjunctionQuery([]query.Query{l, r}), false
	case *CompareExpr:
		if e.Op == OpNe {
			return matchAll(), false
		}
		return compareQuery(e.Field, e.Op, e.Value)
	case *BoolLiteral:
		if e.Value {
			return matchAll(), false // true for a non-empty collection
		}
		return query.NewMatchNoneQuery(), true
	case *LambdaExpr:
		if !e.All && e.Body != nil {
			return anyElementQuery(e.Body)
		}
		return matchAll(), false
	case *NotExpr:
		return matchAll(), false
	}
	return translateFilter(e)
}

// negateElement pushes a not through a lambda body. Comparisons on the
// range variable itself flip their operator (collection elements are never
// null); any other negation stays a NotExpr.
func negateElement(e FilterExpr) FilterExpr {
	switch e := e.(type) {
	case *NotExpr:
		return e.X
	case *AndExpr:
		return &OrExpr{At: e.At, Left: negateElement(e.Left), Right: negateElement(e.Right)}
	case *OrExpr:
		return &AndExpr{At: e.At, Left: negateElement(e.Left), Right: negateElement(e.Right)}
	case *BoolLiteral:
		return &BoolLiteral{At: e.At, Value: !e.Value}
	case *CompareExpr:
		if e.Field.Element && e.Value.Kind != LitNull && !(e.Value.Kind == LitDouble && math.IsNaN(e.Value.Float)) {
			return &CompareExpr{At: e.At, Op: e.Op.negate(), Field: e.Field, Value: e.Value}
		}
	}
	return &NotExpr{At: e.Pos(), X: e}
}

func boolPtr(b bool) *bool { return &b }

// compareQuery is field op value on one (possibly multi-valued) field.
func compareQuery(ref *FieldRef, op CompareOp, lit Literal) (query.Query, bool) {
	if lit.Kind == LitNull {
		return matchAll(), false
	}
	if op == OpNe {
		q, exact := compareQuery(ref, OpEq, lit)
		if !exact {
			return matchAll(), false
		}
		return negation(q), true
	}
	field := FieldName(ref.Path)
	switch ref.Field.Type {
	case TypeString:
		name := ExactFieldName(ref.Path)
		if op == OpEq {
			q := query.NewTermQuery(lit.Str)
			q.SetField(name)
			return q, true
		}
		if lit.Str == "" {
			if op == OpLt {
				return query.NewMatchNoneQuery(), true
			}
			return matchAll(), false
		}
		var q *query.TermRangeQuery
		switch op {
		case OpGt, OpGe:
			q = query.NewTermRangeInclusiveQuery(lit.Str, "", boolPtr(op == OpGe), nil)
		default:
			q = query.NewTermRangeInclusiveQuery("", lit.Str, nil, boolPtr(op == OpLe))
		}
		q.SetField(name)
		return q, true
	case TypeInt32, TypeInt64, TypeDouble, TypeSingle:
		v := lit.Float
		if math.IsNaN(v) || (lit.Kind == LitInt && (lit.Int >= 1<<53 || lit.Int <= -(1<<53))) {
			return matchAll(), false
		}
		var q *query.NumericRangeQuery
		switch op {
		case OpEq:
			q = query.NewNumericRangeInclusiveQuery(&v, &v, boolPtr(true), boolPtr(true))
		case OpGt, OpGe:
			q = query.NewNumericRangeInclusiveQuery(&v, nil, boolPtr(op == OpGe), nil)
		default:
			q = query.NewNumericRangeInclusiveQuery(nil, &v, nil, boolPtr(op == OpLe))
		}
		q.SetField(field)
		return q, true
	case TypeDateTimeOffset:
		t := lit.Time
		var q *query.DateRangeQuery
		switch op {
		case OpEq:
			q = query.NewDateRangeInclusiveQuery(t, t, boolPtr(true), boolPtr(true))
		case OpGt, OpGe:
			q = query.NewDateRangeInclusiveQuery(t, zeroTime, boolPtr(op == OpGe), nil)
		default:
			q = query.NewDateRangeInclusiveQuery(zeroTime, t, nil, boolPtr(op == OpLe))
		}
		if t.IsZero() {
			return matchAll(), false
		}
		q.SetField(field)
		return q, true
	case TypeBoolean:
		q := query.NewBoolFieldQuery(lit.Bool)
		q.SetField(field)
		return q, true
	}
	return matchAll(), false
}

func searchInQuery(e *SearchInExpr) query.Query {
	qs := make([]query.Query, 0, len(e.Values))
	for _, v := range e.Values {
		q := query.NewTermQuery(v)
		q.SetField(ExactFieldName(e.Field.Path))
		qs = append(qs, q)
	}
	return anyOf(qs...)
}

func geoWithin(e *GeoDistanceExpr) query.Query {
	if e.Distance < 0 || math.IsNaN(e.Distance) {
		return query.NewMatchNoneQuery()
	}
	q := query.NewGeoDistanceQuery(e.Point.Lon, e.Point.Lat, strconv.FormatFloat(e.Distance, 'f', -1, 64)+"km")
	q.SetField(FieldName(e.Field.Path))
	return q
}

func geoPolygon(e *GeoIntersectsExpr) query.Query {
	pts := make([]geo.Point, 0, len(e.Polygon)-1)
	for _, p := range e.Polygon[:len(e.Polygon)-1] {
		pts = append(pts, geo.Point{Lon: p.Lon, Lat: p.Lat})
	}
	q := query.NewGeoBoundingPolygonQuery(pts)
	q.SetField(FieldName(e.Field.Path))
	return q
}

var zeroTime time.Time
