package search

import (
	"fmt"
	"regexp"
	"strings"

	"github.com/blevesearch/bleve/v2/analysis"
	"github.com/blevesearch/bleve/v2/registry"
)

// PatternAnalyzer is Lucene's pattern analyzer: the text is split where
// the pattern matches (by default \W+, runs of non-word characters), the
// terms lower-cased unless lowercase is false, and stop words dropped.
// The service writes lowercase, pattern, flags and stopwords back (the
// .NET SDK's UpdateIndex recording).
type PatternAnalyzer struct {
	ComponentHead
	Flags     *string  `json:"flags"`
	Lowercase *bool    `json:"lowercase"`
	Pattern   *string  `json:"pattern"`
	Stopwords []string `json:"stopwords"`
}

func (*PatternAnalyzer) analyzer() {}

// regexFlags are the Java regex flags the service takes, as Go's regexp
// can honour them: an inline flag, or nothing where Go already behaves
// so (case folding is Unicode-aware; only \n ends a line).
var regexFlags = map[string]string{
	"CASE_INSENSITIVE": "i", "MULTILINE": "m", "DOTALL": "s", "UNICODE_CASE": "", "UNIX_LINES": "", "LITERAL": "",
}

// compilePattern compiles a pattern with its '|'-separated Java flags.
func compilePattern(pattern string, flags *string, where string) (*regexp.Regexp, error) {
	inline := ""
	if flags != nil && *flags != "" {
		for _, f := range strings.Split(*flags, "|") {
			g, ok := regexFlags[f]
			if !ok {
				return nil, invalid(where+".flags", "cerulean does not serve the regex flag '%s'; it serves %s.", f, strings.Join(sortedKeys(regexFlags), ", "))
			}
			if f == "LITERAL" {
				pattern = regexp.QuoteMeta(pattern)
			}
			inline += g
		}
	}
	if inline != "" {
		pattern = "(?" + inline + ")" + pattern
	}
	r, err := regexp.Compile(pattern)
	if err != nil {
		return nil, invalid(where+".pattern", "The pattern is not a regular expression cerulean can serve: %v", err)
	}
	return r, nil
}

func (c *PatternAnalyzer) serve(b *analysisBuilder, where string) error {
	if c.Pattern == nil || *c.Pattern == "" {
		c.Pattern = ptr(`\W+`)
	}
	if c.Lowercase == nil {
		c.Lowercase = ptr(true)
	}
	c.Stopwords = orEmpty(c.Stopwords)
	r, err := compilePattern(*c.Pattern, c.Flags, where)
	if err != nil {
		return err
	}
	bn := bleveName("analyzer", c.Name)
	b.a.Tokenizers[bn] = map[string]any{"type": patternSplitTokenizer, "regexp": r.String()}
	filters := []any{}
	if *c.Lowercase {
		filters = append(filters, "to_lower")
	}
	if len(c.Stopwords) > 0 {
		b.stopWords(bn, c.Stopwords)
		filters = append(filters, bn)
	}
	b.a.Analyzers[bn] = map[string]any{"type": "custom", "tokenizer": bn, "token_filters": filters}
	b.a.Analyzer[c.Name] = bn
	return nil
}

// patternSplitTokenizer is the bleve tokenizer that splits text where a
// regular expression matches (bleve's own regexp tokenizer keeps the
// matches instead).
const patternSplitTokenizer = "cerulean_pattern_split"

type patternSplit struct{ r *regexp.Regexp }

func (p patternSplit) Tokenize(input []byte) analysis.TokenStream {
	var out analysis.TokenStream
	start := 0
	emit := func(end int) {
		if end > start {
			out = append(out, &analysis.Token{Term: input[start:end], Start: start, End: end, Position: len(out) + 1, Type: analysis.AlphaNumeric})
		}
	}
	for _, m := range p.r.FindAllIndex(input, -1) {
		emit(m[0])
		start = m[1]
	}
	emit(len(input))
	return out
}

func init() {
	err := registry.RegisterTokenizer(patternSplitTokenizer, func(config map[string]any, _ *registry.Cache) (analysis.Tokenizer, error) {
		expr, ok := config["regexp"].(string)
		if !ok {
			return nil, fmt.Errorf("%s: no regexp", patternSplitTokenizer)
		}
		r, err := regexp.Compile(expr)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", patternSplitTokenizer, err)
		}
		return patternSplit{r: r}, nil
	})
	if err != nil {
		panic(err)
	}
}
