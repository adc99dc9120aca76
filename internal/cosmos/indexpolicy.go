package cosmos

import (
	"encoding/json"
	"strings"
)

// indexPolicy is a container's indexing policy as the range index and
// the query planner use it.
//
// Azure's rules: with indexingMode "none" nothing is indexed (a filtered
// query needs the enable-scan header); otherwise a scalar at a path is
// indexed when the most specific included or excluded path matching it
// is an included one. "/a/?" matches the scalar at /a, "/a/*" every path
// under /a (and /a itself), "/*" every path. When an included and an
// excluded path are equally specific the exclusion wins. Paths inside
// arrays ("/tags/[]/?") are accepted but the index holds no entries
// under arrays: the planner never asks for them.
type indexPolicy struct {
	none     bool
	included []indexPattern
	excluded []indexPattern
	// composite lists the composite indexes, each as its paths in order.
	composite [][]compositePath
	// text is the policy as stored, for telling whether a Replace
	// Container changed it.
	text string
}

type indexPattern struct {
	segs []string
	// subtree is true for "/…/*", false for "/…/?".
	subtree bool
}

type compositePath struct {
	path []string
	desc bool
}

func invalidIndexPath(p string) *Error {
	return badRequest("The indexing path '%s' could not be accepted, failed near position '0'. Please ensure that the path is a valid path. Common errors include invalid characters or absence of quotes around labels.", p)
}

// parseIndexPolicy reads the "indexingPolicy" of a container record
// (nil: Cosmos DB's default, every path range-indexed but _etag).
func parseIndexPolicy(v any) (*indexPolicy, error) {
	if v == nil {
		v = defaultIndexingPolicy()
	}
	m, ok := v.(map[string]any)
	if !ok {
		return nil, badRequest("The indexing policy is invalid.")
	}
	text, _ := json.Marshal(m)
	p := &indexPolicy{text: string(text)}
	switch mode, _ := m["indexingMode"].(string); strings.ToLower(mode) {
	case "", "consistent", "lazy":
	case "none":
		p.none = true
	default:
		return nil, badRequest("The indexing mode '%s' is invalid.", mode)
	}
	for _, side := range []struct {
		key string
		out *[]indexPattern
	}{{"includedPaths", &p.included}, {"excludedPaths", &p.excluded}} {
		list, _ := m[side.key].([]any)
		for _, e := range list {
			em, _ := e.(map[string]any)
			path, _ := em["path"].(string)
			pat, err := parseIndexPattern(path)
			if err != nil {
				return nil, err
			}
			*side.out = append(*side.out, pat)
		}
	}
	if m["includedPaths"] == nil && !p.none {
		p.included = []indexPattern{{subtree: true}}
	}
	comps, _ := m["compositeIndexes"].([]any)
	for _, c := range comps {
		list, _ := c.([]any)
		if len(list) < 2 {
			return nil, badRequest("A composite index must have at least two paths.")
		}
		var ci []compositePath
		for _, e := range list {
			em, _ := e.(map[string]any)
			path, _ := em["path"].(string)
			segs, err := splitDocPath(path)
			if err != nil || strings.HasSuffix(path, "/*") || strings.HasSuffix(path, "/?") {
				return nil, invalidIndexPath(path)
			}
			order, _ := em["order"].(string)
			ci = append(ci, compositePath{path: segs, desc: strings.EqualFold(order, "descending")})
		}
		p.composite = append(p.composite, ci)
	}
	return p, nil
}

// parseIndexPattern reads "/*", "/a/?", "/a/b/*", `/"a b"/?`, "/a/[]/?",
// and the legacy root path "/" of policies written for the first index
// layout (the 3.x JavaScript SDK's query tests still send it, with an
// "indexes" list), which covers every path as "/*" does.
func parseIndexPattern(path string) (indexPattern, error) {
	var pat indexPattern
	switch {
	case path == "/*" || path == "/":
		return indexPattern{subtree: true}, nil
	case strings.HasSuffix(path, "/*"):
		pat.subtree = true
	case strings.HasSuffix(path, "/?"):
	default:
		return pat, invalidIndexPath(path)
	}
	segs, err := splitDocPath(path[:len(path)-2])
	if err != nil {
		return pat, invalidIndexPath(path)
	}
	pat.segs = segs
	return pat, nil
}

// specificity ranks how closely pat matches path: -1 when it does not,
// else more for a longer match and a scalar ("?") match over a subtree.
func (pat indexPattern) specificity(path []string) int {
	if pat.subtree {
		if len(pat.segs) > len(path) || !samePrefix(pat.segs, path) {
			return -1
		}
		return 2 * len(pat.segs)
	}
	if len(pat.segs) != len(path) || !samePrefix(pat.segs, path) {
		return -1
	}
	return 2*len(pat.segs) + 1
}

func samePrefix(prefix, path []string) bool {
	for i, s := range prefix {
		if path[i] != s {
			return false
		}
	}
	return true
}

// indexed reports whether the scalar at path has range index entries.
func (p *indexPolicy) indexed(path []string) bool {
	if p.none {
		return false
	}
	best := func(pats []indexPattern) int {
		b := -1
		for _, pat := range pats {
			b = max(b, pat.specificity(path))
		}
		return b
	}
	in := best(p.included)
	return in >= 0 && in > best(p.excluded)
}

// compositeFor returns the composite index serving ORDER BY keys in
// order (or every direction reversed, read backwards), or nil.
func (p *indexPolicy) compositeFor(keys []compositePath) []compositePath {
	for _, ci := range p.composite {
		if len(ci) != len(keys) {
			continue
		}
		same, flipped := true, true
		for i, k := range keys {
			if !samePath(ci[i].path, k.path) {
				same, flipped = false, false
				break
			}
			same = same && ci[i].desc == k.desc
			flipped = flipped && ci[i].desc != k.desc
		}
		if same || flipped {
			return ci
		}
	}
	return nil
}

func samePath(a, b []string) bool {
	return len(a) == len(b) && samePrefix(a, b)
}
