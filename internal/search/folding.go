package search

import (
	"bytes"
	"fmt"

	"github.com/blevesearch/bleve/v2/analysis"
	"github.com/blevesearch/bleve/v2/analysis/char/asciifolding"
)

// AsciiFoldingTokenFilter folds letters, digits and symbols outside Basic
// Latin to their ASCII equivalents where they have one (é to e, ß to ss,
// ﬁ to fi), as Lucene's ASCIIFoldingFilter does; with preserveOriginal a
// token that folding changed is followed, at the same position, by the
// token as it was ("açaí" is acai, then açaí). The service writes
// preserveOriginal back, false when not given (the Java SDK's recording
// CustomAnalyzerTests.canCreateAllAnalysisComponentsSync).
type AsciiFoldingTokenFilter struct {
	ComponentHead
	PreserveOriginal *bool `json:"preserveOriginal"`
}

func (*AsciiFoldingTokenFilter) tokenFilter() {}

func (c *AsciiFoldingTokenFilter) serve(b *analysisBuilder, _ string) error {
	if c.PreserveOriginal == nil {
		c.PreserveOriginal = ptr(false)
	}
	return b.filter(c.Name, map[string]any{"type": asciiFoldingFilterName, "preserve_original": *c.PreserveOriginal})
}

// asciiFoldingFilterName is the bleve token filter that serves
// AsciiFoldingTokenFilter and the predefined asciifolding.
const asciiFoldingFilterName = "cerulean_asciifolding"

// asciiFolding folds tokens with the folding table of bleve's
// asciifolding char filter, which is Lucene's.
type asciiFolding struct {
	fold             *asciifolding.AsciiFoldingFilter
	preserveOriginal bool
}

func (f asciiFolding) Filter(in analysis.TokenStream) analysis.TokenStream {
	out := in
	if f.preserveOriginal {
		out = make(analysis.TokenStream, 0, len(in))
	}
	for _, t := range in {
		if !needsFolding(t.Term) {
			if f.preserveOriginal {
				out = append(out, t)
			}
			continue
		}
		folded := f.fold.Filter(t.Term)
		if !f.preserveOriginal {
			t.Term = folded
			continue
		}
		if bytes.Equal(folded, t.Term) {
			out = append(out, t)
			continue
		}
		c := *t
		c.Term = folded
		out = append(out, &c, t)
	}
	return out
}

// needsFolding is whether term has a byte outside ASCII, which is where
// folding starts to change anything.
func needsFolding(term []byte) bool {
	for _, c := range term {
		if c >= 0x80 {
			return true
		}
	}
	return false
}

func init() {
	registerTokenFilter(asciiFoldingFilterName, func(config map[string]any) (analysis.TokenFilter, error) {
		preserve, ok := config["preserve_original"].(bool)
		if !ok {
			return nil, fmt.Errorf("no preserve_original")
		}
		return asciiFolding{fold: asciifolding.New(), preserveOriginal: preserve}, nil
	})
}
