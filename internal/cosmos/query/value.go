package query

import (
	"cmp"
	"encoding/json"
	"math"
	"strconv"
	"strings"
)

// Values are the decoded JSON values the gateway hands in (nil, bool,
// float64, string, []any, map[string]any) plus undefined, the value of a
// missing property, which never reaches a result.
type undefinedType struct{}

// undefined is the Cosmos "undefined" value.
var undefined any = undefinedType{}

func isUndefined(v any) bool {
	_, ok := v.(undefinedType)
	return ok
}

// Type ranks, in Cosmos's cross-type sort order.
const (
	rankUndefined = iota
	rankNull
	rankBool
	rankNumber
	rankString
	rankArray
	rankObject
)

// rank returns v's type rank. Numbers of other Go types (from a caller
// that did not decode into float64) are normalized by toNumber; any other
// unknown type counts as undefined.
func rank(v any) int {
	switch v.(type) {
	case nil:
		return rankNull
	case bool:
		return rankBool
	case float64, int, int64, int32, float32, json.Number:
		return rankNumber
	case string:
		return rankString
	case []any:
		return rankArray
	case map[string]any:
		return rankObject
	}
	return rankUndefined
}

// toNumber returns v as a float64 when v is a number.
func toNumber(v any) (float64, bool) {
	switch n := v.(type) {
	case float64:
		return n, true
	case int:
		return float64(n), true
	case int64:
		return float64(n), true
	case int32:
		return float64(n), true
	case float32:
		return float64(n), true
	case json.Number:
		f, err := n.Float64()
		return f, err == nil
	}
	return 0, false
}

// number wraps a computed float64, mapping NaN and infinities (which JSON
// cannot carry) to undefined.
func number(f float64) any {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return undefined
	}
	return f
}

// equalValues reports deep JSON equality of two values of the same type
// rank. ok is false when the types differ or either is undefined: Cosmos
// equality across types is undefined.
func equalValues(a, b any) (equal, ok bool) {
	ra, rb := rank(a), rank(b)
	if ra != rb || ra == rankUndefined {
		return false, false
	}
	return compareSameRank(a, b, ra) == 0, true
}

// compareValues orders any two values by Cosmos's total order: first by
// type rank, then within the type. It is the order of ORDER BY, MIN/MAX,
// DISTINCT and GROUP BY.
func compareValues(a, b any) int {
	ra, rb := rank(a), rank(b)
	if ra != rb {
		return cmp.Compare(ra, rb)
	}
	return compareSameRank(a, b, ra)
}

func compareSameRank(a, b any, r int) int {
	switch r {
	case rankBool:
		x, y := a.(bool), b.(bool)
		switch {
		case x == y:
			return 0
		case !x:
			return -1
		}
		return 1
	case rankNumber:
		x, _ := toNumber(a)
		y, _ := toNumber(b)
		switch {
		case x < y:
			return -1
		case x > y:
			return 1
		}
		return 0
	case rankString:
		return cmp.Compare(a.(string), b.(string))
	case rankArray:
		x, y := a.([]any), b.([]any)
		for i := 0; i < len(x) && i < len(y); i++ {
			if c := compareValues(x[i], y[i]); c != 0 {
				return c
			}
		}
		return cmp.Compare(len(x), len(y))
	case rankObject:
		x, y := a.(map[string]any), b.(map[string]any)
		kx, ky := sortedKeys(x), sortedKeys(y)
		for i := 0; i < len(kx) && i < len(ky); i++ {
			if kx[i] != ky[i] {
				if kx[i] < ky[i] {
					return -1
				}
				return 1
			}
			if c := compareValues(x[kx[i]], y[ky[i]]); c != 0 {
				return c
			}
		}
		return cmp.Compare(len(kx), len(ky))
	}
	return 0 // undefined and null are each a single value
}

// formatNumber renders a number the way JavaScript (and Cosmos) does:
// integers without a fraction, others in the shortest form that
// round-trips.
func formatNumber(f float64) string {
	if f == math.Trunc(f) && math.Abs(f) < 1e21 {
		return strconv.FormatFloat(f, 'f', -1, 64)
	}
	abs := math.Abs(f)
	if abs >= 1e-6 && abs < 1e21 {
		return strconv.FormatFloat(f, 'f', -1, 64)
	}
	// JavaScript writes exponents without zero padding: 1e-7, not 1e-07.
	s := strconv.FormatFloat(f, 'g', -1, 64)
	s = strings.Replace(s, "e-0", "e-", 1)
	return strings.Replace(s, "e+0", "e+", 1)
}

// toJSON renders v as JSON text (for TOSTRING of arrays and objects).
// Map keys are sorted by encoding/json.
func toJSON(v any) string {
	b, err := json.Marshal(stripUndefined(v))
	if err != nil {
		return ""
	}
	return string(b)
}

// stripUndefined returns v with undefined members of objects dropped and
// undefined elements of arrays turned into null, which is how Cosmos
// serializes constructed values.
func stripUndefined(v any) any {
	switch x := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			if !isUndefined(e) {
				out[k] = stripUndefined(e)
			}
		}
		return out
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			if isUndefined(e) {
				out[i] = nil
			} else {
				out[i] = stripUndefined(e)
			}
		}
		return out
	case float64:
		return number(x)
	}
	return v
}
