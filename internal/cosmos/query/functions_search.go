package query

import (
	"math"
	"strings"
	"unicode"
)

// Vector and full-text search functions, evaluated over each document
// (cerulean keeps no vector or full-text index: a query scans, so the
// results are exact, as with VectorDistance's brute-force option).
//
// VectorDistance(a, b [, bruteForce [, {"distanceFunction": …}]]) is the
// similarity of two numeric arrays of one length: "cosine" (the default),
// "dotproduct" or "euclidean"; anything else is undefined.
//
// FullTextContains(text, keyword), FullTextContainsAll(text, k1, …) and
// FullTextContainsAny(text, k1, …) match keywords against the text's
// words, compared case-insensitively; a keyword of several words matches
// when the text holds them in that order. There is no stemming or
// stop-word removal. FullTextScore (BM25 for ORDER BY RANK) is not served.

func init() {
	register("VECTORDISTANCE", 2, 4, pure(fnVectorDistance))
	register("FULLTEXTCONTAINS", 2, 2, pure(func(a []any) any { return fullTextContains(a, true) }))
	register("FULLTEXTCONTAINSALL", 2, -1, pure(func(a []any) any { return fullTextContains(a, true) }))
	register("FULLTEXTCONTAINSANY", 2, -1, pure(func(a []any) any { return fullTextContains(a, false) }))
}

func numericVector(v any) ([]float64, bool) {
	arr, ok := v.([]any)
	if !ok || len(arr) == 0 {
		return nil, false
	}
	out := make([]float64, len(arr))
	for i, e := range arr {
		f, ok := toNumber(e)
		if !ok {
			return nil, false
		}
		out[i] = f
	}
	return out, true
}

func fnVectorDistance(a []any) any {
	x, ok1 := numericVector(a[0])
	y, ok2 := numericVector(a[1])
	if !ok1 || !ok2 || len(x) != len(y) {
		return undefined
	}
	if len(a) > 2 {
		if _, ok := a[2].(bool); !ok {
			return undefined
		}
	}
	distance := "cosine"
	if len(a) > 3 {
		opts, ok := a[3].(map[string]any)
		if !ok {
			return undefined
		}
		if d, given := opts["distanceFunction"]; given {
			s, ok := d.(string)
			if !ok {
				return undefined
			}
			distance = strings.ToLower(s)
		}
	}
	var dot, nx, ny, sq float64
	for i := range x {
		dot += x[i] * y[i]
		nx += x[i] * x[i]
		ny += y[i] * y[i]
		d := x[i] - y[i]
		sq += d * d
	}
	switch distance {
	case "cosine":
		if nx == 0 || ny == 0 {
			return undefined
		}
		return dot / (math.Sqrt(nx) * math.Sqrt(ny))
	case "dotproduct":
		return dot
	case "euclidean":
		return math.Sqrt(sq)
	}
	return undefined
}

func words(s string) []string {
	return strings.FieldsFunc(strings.ToLower(s), func(r rune) bool { return !unicode.IsLetter(r) && !unicode.IsDigit(r) })
}

// fullTextContains reports whether text holds every keyword (all) or at
// least one.
func fullTextContains(a []any, all bool) any {
	text, ok := a[0].(string)
	if !ok {
		return undefined
	}
	tw := words(text)
	for _, k := range a[1:] {
		kw, ok := k.(string)
		if !ok {
			return undefined
		}
		found := containsRun(tw, words(kw))
		if found && !all {
			return true
		}
		if !found && all {
			return false
		}
	}
	return all
}

// containsRun reports whether run occurs in ws as consecutive words.
func containsRun(ws, run []string) bool {
	if len(run) == 0 {
		return false
	}
	for i := 0; i+len(run) <= len(ws); i++ {
		match := true
		for j, w := range run {
			if ws[i+j] != w {
				match = false
				break
			}
		}
		if match {
			return true
		}
	}
	return false
}
