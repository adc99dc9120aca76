package search

import (
	"fmt"

	"github.com/blevesearch/bleve/v2/analysis"
)

// CommonGramTokenFilter is Lucene's CommonGramsFilter: next to the
// tokens, it emits the pair of each token with the one after it, joined
// by _, where either is one of commonWords, at the first one's position
// ("the quick fox is brown" with the common words is and the: the,
// the_quick, quick, fox, fox_is, is, is_brown, brown). With queryMode it
// is Lucene's CommonGramsQueryFilter, which keeps the pairs and only the
// tokens no pair follows (the_quick, quick, fox_is, is_brown). The
// service writes commonWords, ignoreCase and queryMode back, the last
// two false unless told (the Java SDK's recording
// CustomAnalyzerTests.canCreateAllAnalysisComponentsSync).
type CommonGramTokenFilter struct {
	ComponentHead
	CommonWords []string `json:"commonWords"`
	IgnoreCase  *bool    `json:"ignoreCase"`
	QueryMode   *bool    `json:"queryMode"`
}

func (*CommonGramTokenFilter) tokenFilter() {}

func (c *CommonGramTokenFilter) serve(b *analysisBuilder, where string) error {
	if len(c.CommonWords) == 0 {
		return invalid(where+".commonWords", "The list of common words is required.")
	}
	if c.IgnoreCase == nil {
		c.IgnoreCase = ptr(false)
	}
	if c.QueryMode == nil {
		c.QueryMode = ptr(false)
	}
	return b.filter(c.Name, map[string]any{"type": commonGramsFilterName, "words": stringsToAny(c.CommonWords), "ignore_case": *c.IgnoreCase, "query_mode": *c.QueryMode})
}

// commonGramsFilterName is the bleve token filter that serves
// CommonGramTokenFilter.
const commonGramsFilterName = "cerulean_common_grams"

type commonGrams struct {
	common    wordSet
	queryMode bool
}

func (c commonGrams) Filter(in analysis.TokenStream) analysis.TokenStream {
	out := make(analysis.TokenStream, 0, 2*len(in))
	var gram []bool
	for i, t := range in {
		if i > 0 {
			prev := in[i-1]
			if c.common.has(prev.Term) || c.common.has(t.Term) {
				term := make([]byte, 0, len(prev.Term)+1+len(t.Term))
				term = append(append(append(term, prev.Term...), '_'), t.Term...)
				out = append(out, &analysis.Token{Term: term, Start: prev.Start, End: max(prev.Start, t.End), Position: prev.Position, Type: analysis.Shingle})
				gram = append(gram, true)
			}
		}
		out = append(out, t)
		gram = append(gram, false)
	}
	if !c.queryMode {
		return out
	}
	return queryGrams(out, gram)
}

// queryGrams is Lucene's CommonGramsQueryFilter over the tokens and
// pairs: a token is dropped when a pair follows it, and the last token
// when the one emitted before it was a pair.
func queryGrams(in analysis.TokenStream, gram []bool) analysis.TokenStream {
	var out analysis.TokenStream
	lastWasGram := false
	for i, t := range in {
		if i+1 < len(in) && gram[i+1] {
			continue
		}
		if i+1 == len(in) && lastWasGram {
			break
		}
		out = append(out, t)
		lastWasGram = gram[i]
	}
	return out
}

func init() {
	registerTokenFilter(commonGramsFilterName, func(config map[string]any) (analysis.TokenFilter, error) {
		words, err := configStrings(config, "words")
		if err != nil {
			return nil, err
		}
		if len(words) == 0 {
			return nil, fmt.Errorf("no common words")
		}
		ignoreCase, _ := config["ignore_case"].(bool)
		queryMode, _ := config["query_mode"].(bool)
		return commonGrams{common: newWordSet(words, ignoreCase), queryMode: queryMode}, nil
	})
}
