package query

import (
	"slices"
	"sort"
)

// sortRows sorts rows (or groups) stably by the ORDER BY keys, using
// Cosmos's cross-type order: undefined < null < false < true < numbers <
// strings < arrays < objects. Documents missing a sort property therefore
// come first in ascending order and last in descending order.
func sortRows(items []orderItem, rows []*env) {
	keys := make([][]any, len(rows))
	for i, r := range rows {
		k := make([]any, len(items))
		for j, it := range items {
			k[j] = eval(it.e, r)
		}
		keys[i] = k
	}
	idx := make([]int, len(rows))
	for i := range idx {
		idx[i] = i
	}
	sort.SliceStable(idx, func(a, b int) bool {
		ka, kb := keys[idx[a]], keys[idx[b]]
		for j, it := range items {
			c := compareValues(ka[j], kb[j])
			if it.desc {
				c = -c
			}
			if c != 0 {
				return c < 0
			}
		}
		return false
	})
	sorted := make([]*env, len(rows))
	for i, j := range idx {
		sorted[i] = rows[j]
	}
	copy(rows, sorted)
}

func sortedKeys(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
