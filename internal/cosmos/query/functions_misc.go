package query

import "math"

// Conditional and object functions.
func init() {
	// IIF(cond, a, b) is a unless cond is exactly true.
	register("IIF", 3, 3, pure(func(a []any) any {
		if a[0] == true {
			return a[1]
		}
		return a[2]
	}))
	// CHOOSE(i, v1, v2, ...) picks the 1-based i-th value.
	register("CHOOSE", 2, -1, pure(func(a []any) any {
		f, ok := toNumber(a[0])
		if !ok || f != math.Trunc(f) || f < 1 || f > float64(len(a)-1) {
			return undefined
		}
		return a[int(f)]
	}))
	// OBJECTTOARRAY turns {"a": 1} into [{"k": "a", "v": 1}], in key order.
	register("OBJECTTOARRAY", 1, 1, pure(func(a []any) any {
		obj, ok := a[0].(map[string]any)
		if !ok {
			return undefined
		}
		out := make([]any, 0, len(obj))
		for _, k := range sortedKeys(obj) {
			out = append(out, map[string]any{"k": k, "v": obj[k]})
		}
		return out
	}))
}
