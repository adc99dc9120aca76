package query

func init() {
	register("ARRAY_CONCAT", 2, -1, pure(fnArrayConcat))
	register("ARRAY_CONTAINS", 2, 3, pure(fnArrayContains))
	register("ARRAY_CONTAINS_ANY", 2, -1, pure(func(a []any) any { return arrayContainsSome(a, false) }))
	register("ARRAY_CONTAINS_ALL", 2, -1, pure(func(a []any) any { return arrayContainsSome(a, true) }))
	register("ARRAY_LENGTH", 1, 1, pure(func(a []any) any {
		arr, ok := a[0].([]any)
		if !ok {
			return undefined
		}
		return float64(len(arr))
	}))
	register("ARRAY_SLICE", 2, 3, pure(fnArraySlice))
	register("SETINTERSECT", 2, 2, pure(func(a []any) any { return setOp(a, true) }))
	register("SETUNION", 2, 2, pure(func(a []any) any { return setOp(a, false) }))
}

func fnArrayConcat(a []any) any {
	var out []any
	for _, v := range a {
		arr, ok := v.([]any)
		if !ok {
			return undefined
		}
		out = append(out, arr...)
	}
	if out == nil {
		out = []any{}
	}
	return out
}

// fnArrayContains: with the third argument true, an object element
// matches when it contains every property of the searched object
// (partial match).
func fnArrayContains(a []any) any {
	arr, ok := a[0].([]any)
	if !ok {
		return undefined
	}
	partial := false
	if len(a) == 3 {
		if partial, ok = a[2].(bool); !ok {
			return undefined
		}
	}
	for _, el := range arr {
		if containsMatch(el, a[1], partial) {
			return true
		}
	}
	return false
}

func containsMatch(el, want any, partial bool) bool {
	if partial {
		if wo, ok := want.(map[string]any); ok {
			eo, ok := el.(map[string]any)
			if !ok {
				return false
			}
			for k, wv := range wo {
				ev, ok := eo[k]
				if !ok {
					return false
				}
				if eq, ok := equalValues(ev, wv); !ok || !eq {
					return false
				}
			}
			return true
		}
	}
	eq, ok := equalValues(el, want)
	return ok && eq
}

func arrayContainsSome(a []any, all bool) any {
	arr, ok := a[0].([]any)
	if !ok {
		return undefined
	}
	for _, want := range a[1:] {
		found := false
		for _, el := range arr {
			if containsMatch(el, want, false) {
				found = true
				break
			}
		}
		if found && !all {
			return true
		}
		if !found && all {
			return false
		}
	}
	return all
}

// fnArraySlice takes a zero-based start (negative counts from the end)
// and an optional length.
func fnArraySlice(a []any) any {
	arr, ok := a[0].([]any)
	if !ok {
		return undefined
	}
	f, ok := toNumber(a[1])
	if !ok {
		return undefined
	}
	n := len(arr)
	start := toInt(f)
	if start < 0 {
		start = max(int64(n)+start, 0)
	}
	if start > int64(n) {
		start = int64(n)
	}
	end := int64(n)
	if len(a) == 3 {
		l, ok := toNumber(a[2])
		if !ok {
			return undefined
		}
		if ln := toInt(l); ln >= 0 && start+ln < end {
			end = start + ln
		} else if ln < 0 {
			end = start
		}
	}
	return append([]any{}, arr[start:end]...)
}

// setOp returns the distinct elements in both arrays (intersect) or in
// either (union), in first-seen order.
func setOp(a []any, intersect bool) any {
	x, ok1 := a[0].([]any)
	y, ok2 := a[1].([]any)
	if !ok1 || !ok2 {
		return undefined
	}
	inY := map[string]bool{}
	for _, v := range y {
		inY[valueKey(v)] = true
	}
	seen := map[string]bool{}
	out := []any{}
	add := func(v any) {
		k := valueKey(v)
		if !seen[k] {
			seen[k] = true
			out = append(out, v)
		}
	}
	for _, v := range x {
		if !intersect || inY[valueKey(v)] {
			add(v)
		}
	}
	if !intersect {
		for _, v := range y {
			add(v)
		}
	}
	return out
}
