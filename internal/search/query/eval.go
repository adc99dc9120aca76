package query

import (
	"cmp"
	"encoding/json"
	"math"
	"reflect"
	"strings"
	"time"

	"github.com/blevesearch/bleve/v2/search/query"
)

// TextMatcher reports whether the document being filtered matches a
// full-text query (search.ismatch inside a filter). The search layer
// implements it, e.g. with a bleve search restricted to the document's key.
type TextMatcher func(q query.Query) (bool, error)

// Match evaluates the filter on one document as decoded from JSON (objects
// as map[string]any, collections as []any, numbers as float64 or
// json.Number, dates as RFC 3339 strings, points as GeoJSON). It follows
// OData's null rules: a comparison with a missing value is false except
// ne, which is true. text answers search.ismatch calls and may be nil when
// the filter has none.
func (f *Filter) Match(doc map[string]any, text TextMatcher) (bool, error) {
	ev := evaluator{doc: doc, text: text, env: map[string]any{}}
	return ev.eval(f.Root)
}

type evaluator struct {
	doc  map[string]any
	text TextMatcher
	env  map[string]any
}

func (ev *evaluator) value(ref *FieldRef) any {
	var cur any = ev.doc
	if ref.Var != "" {
		cur = ev.env[ref.Var]
	}
	for _, seg := range ref.Rel {
		m, ok := cur.(map[string]any)
		if !ok {
			return nil
		}
		cur = m[seg]
	}
	return cur
}

func (ev *evaluator) eval(e FilterExpr) (bool, error) {
	switch e := e.(type) {
	case *AndExpr:
		l, err := ev.eval(e.Left)
		if err != nil || !l {
			return false, err
		}
		return ev.eval(e.Right)
	case *OrExpr:
		l, err := ev.eval(e.Left)
		if err != nil || l {
			return l, err
		}
		return ev.eval(e.Right)
	case *NotExpr:
		x, err := ev.eval(e.X)
		return !x, err
	case *BoolLiteral:
		return e.Value, nil
	case *CompareExpr:
		return compareValue(ev.value(e.Field), e.Op, e.Value), nil
	case *SearchInExpr:
		s, ok := ev.value(e.Field).(string)
		if !ok {
			return false, nil
		}
		for _, v := range e.Values {
			if v == s {
				return true, nil
			}
		}
		return false, nil
	case *IsMatchExpr:
		if ev.text == nil {
			return false, errorf(ParamFilter, e.At, "search.ismatch cannot be evaluated here.")
		}
		return ev.text(e.Query)
	case *GeoDistanceExpr:
		pt, ok := toPoint(ev.value(e.Field))
		if !ok {
			return e.Op == OpNe, nil
		}
		return compareFloat(DistanceKm(pt, e.Point), e.Op, e.Distance), nil
	case *GeoIntersectsExpr:
		pt, ok := toPoint(ev.value(e.Field))
		return ok && inPolygon(pt, e.Polygon), nil
	case *LambdaExpr:
		return ev.lambda(e)
	}
	return false, errorf(ParamFilter, e.Pos(), "unsupported filter node %T", e)
}

func (ev *evaluator) lambda(e *LambdaExpr) (bool, error) {
	elems := toSlice(ev.value(e.Collection))
	if e.Body == nil {
		return len(elems) > 0, nil
	}
	saved, had := ev.env[e.Var]
	defer func() {
		if had {
			ev.env[e.Var] = saved
		} else {
			delete(ev.env, e.Var)
		}
	}()
	for _, el := range elems {
		ev.env[e.Var] = el
		ok, err := ev.eval(e.Body)
		if err != nil {
			return false, err
		}
		if ok != e.All {
			return ok, nil // any: found one; all: found a counterexample
		}
	}
	return e.All, nil
}

func toSlice(v any) []any {
	switch v := v.(type) {
	case nil:
		return nil
	case []any:
		return v
	}
	rv := reflect.ValueOf(v)
	if rv.Kind() != reflect.Slice {
		return nil
	}
	out := make([]any, rv.Len())
	for i := range out {
		out[i] = rv.Index(i).Interface()
	}
	return out
}

func compareValue(v any, op CompareOp, lit Literal) bool {
	if lit.Kind == LitNull {
		return (v == nil) == (op == OpEq)
	}
	if v == nil {
		return op == OpNe
	}
	c, ok := 0, false
	switch lit.Kind {
	case LitString:
		var s string
		if s, ok = v.(string); ok {
			c = strings.Compare(s, lit.Str)
		}
	case LitInt:
		if n, isInt := toInt64(v); isInt {
			c, ok = cmp.Compare(n, lit.Int), true
		} else if f, isNum := ToFloat(v); isNum {
			return compareFloat(f, op, lit.Float)
		}
	case LitDouble:
		if f, isNum := ToFloat(v); isNum {
			return compareFloat(f, op, lit.Float)
		}
	case LitBool:
		var b bool
		if b, ok = v.(bool); ok {
			c = cmp.Compare(boolInt(b), boolInt(lit.Bool))
		}
	case LitDateTime:
		var t time.Time
		if t, ok = toTime(v); ok {
			c = t.Compare(lit.Time)
		}
	}
	if !ok {
		return op == OpNe
	}
	return cmpResult(c, op)
}

func cmpResult(c int, op CompareOp) bool {
	switch op {
	case OpEq:
		return c == 0
	case OpNe:
		return c != 0
	case OpGt:
		return c > 0
	case OpGe:
		return c >= 0
	case OpLt:
		return c < 0
	}
	return c <= 0
}

// compareFloat follows IEEE rules: NaN compares unequal to everything.
func compareFloat(a float64, op CompareOp, b float64) bool {
	if math.IsNaN(a) || math.IsNaN(b) {
		return op == OpNe
	}
	switch {
	case a < b:
		return cmpResult(-1, op)
	case a > b:
		return cmpResult(1, op)
	}
	return cmpResult(0, op)
}

func boolInt(b bool) int64 {
	if b {
		return 1
	}
	return 0
}

func toInt64(v any) (int64, bool) {
	switch v := v.(type) {
	case int:
		return int64(v), true
	case int32:
		return int64(v), true
	case int64:
		return v, true
	case json.Number:
		n, err := v.Int64()
		return n, err == nil
	case float64:
		if v == math.Trunc(v) && math.Abs(v) < 1<<53 {
			return int64(v), true
		}
	}
	return 0, false
}

// ToFloat reads a JSON number (decoded as float64 or json.Number, or a
// Go integer or float) or Azure's "NaN", "INF" and "-INF" as a float64.
func ToFloat(v any) (float64, bool) {
	switch v := v.(type) {
	case float64:
		return v, true
	case float32:
		return float64(v), true
	case int:
		return float64(v), true
	case int32:
		return float64(v), true
	case int64:
		return float64(v), true
	case json.Number:
		f, err := v.Float64()
		return f, err == nil
	case string:
		switch v {
		case "NaN":
			return math.NaN(), true
		case "INF":
			return math.Inf(1), true
		case "-INF":
			return math.Inf(-1), true
		}
	}
	return 0, false
}

func toTime(v any) (time.Time, bool) {
	switch v := v.(type) {
	case time.Time:
		return v, true
	case string:
		t, err := time.Parse(time.RFC3339Nano, v)
		return t, err == nil
	}
	return time.Time{}, false
}

// toPoint reads a GeoJSON point {"type":"Point","coordinates":[lon,lat]}.
func toPoint(v any) (GeoPoint, bool) {
	switch v := v.(type) {
	case GeoPoint:
		return v, true
	case map[string]any:
		coords := toSlice(v["coordinates"])
		if len(coords) != 2 {
			return GeoPoint{}, false
		}
		lon, ok1 := ToFloat(coords[0])
		lat, ok2 := ToFloat(coords[1])
		return GeoPoint{Lon: lon, Lat: lat}, ok1 && ok2
	}
	return GeoPoint{}, false
}
