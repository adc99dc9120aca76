package search

import (
	"fmt"

	"github.com/blevesearch/bleve/v2/analysis"
)

// ngramFilterName is the bleve token filter that serves
// NGramTokenFilterV2, EdgeNGramTokenFilterV2 and the predefined nGram_v2
// and edgeNGram_v2 (minGram 1, maxGram 2, from the front, the defaults
// of the configurable filters).
const ngramFilterName = "cerulean_ngram_filter"

func ngramFilterConfig(minGram, maxGram int64, edge, back bool) map[string]any {
	return map[string]any{"type": ngramFilterName, "min": float64(minGram), "max": float64(maxGram), "edge": edge, "back": back}
}

// ngramFilter replaces each token with its grams at its position, with
// its offsets, in Lucene's order: by where they start, then by length
// (Elasticsearch's ngram token filter page, which is Lucene's
// NGramTokenFilter: "Quick" with grams of 1 to 2 is Q, Qu, u, ui, i, ic,
// c, ck, k); edge grams by length, from the front or the back. A token
// shorter than minGram leaves its position empty.
type ngramFilter struct {
	min, max   int
	edge, back bool
}

func (f ngramFilter) Filter(in analysis.TokenStream) analysis.TokenStream {
	out := make(analysis.TokenStream, 0, len(in))
	gram := func(t *analysis.Token, runes []rune, from, to int) {
		g := *t
		g.Term = []byte(string(runes[from:to]))
		out = append(out, &g)
	}
	for _, t := range in {
		runes := []rune(string(t.Term))
		n := len(runes)
		if f.edge {
			for size := f.min; size <= f.max && size <= n; size++ {
				if f.back {
					gram(t, runes, n-size, n)
				} else {
					gram(t, runes, 0, size)
				}
			}
			continue
		}
		for start := range n {
			for size := f.min; size <= f.max && start+size <= n; size++ {
				gram(t, runes, start, start+size)
			}
		}
	}
	return out
}

func init() {
	registerTokenFilter(ngramFilterName, func(config map[string]any) (analysis.TokenFilter, error) {
		lo, lok := config["min"].(float64)
		hi, hok := config["max"].(float64)
		if !lok || !hok || lo < 1 || hi < lo {
			return nil, fmt.Errorf("bad min or max")
		}
		edge, _ := config["edge"].(bool)
		back, _ := config["back"].(bool)
		return ngramFilter{min: int(lo), max: int(hi), edge: edge, back: back}, nil
	})
}
