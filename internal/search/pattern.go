package search

import (
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/blevesearch/bleve/v2/analysis"
)

// PatternAnalyzer is Lucene's pattern analyzer: the text is split where
// the pattern matches (by default \W+, runs of non-word characters), the
// terms lower-cased unless lowercase is false, and stop words dropped.
// The service writes lowercase, pattern, flags and stopwords back (the
// .NET SDK's UpdateIndex recording), an empty pattern kept as given, not
// replaced by the default (the Java SDK's recording
// CustomAnalyzerTests.canUsePatternAnalyzerInManyWaysSync).
type PatternAnalyzer struct {
	ComponentHead
	Lowercase *bool    `json:"lowercase"`
	Pattern   *string  `json:"pattern"`
	Flags     *string  `json:"flags"`
	Stopwords []string `json:"stopwords"`
}

func (*PatternAnalyzer) analyzer() {}

// regexFlags are the Java regex flags the service takes, as Go's regexp
// honours them: an inline flag, or nothing where Go already behaves so
// (case folding is Unicode-aware; only \n ends a line). LITERAL quotes the
// pattern and COMMENTS strips its whitespace and comments; CANON_EQ
// (matching canonically equivalent characters alike) is accepted and not
// applied.
var regexFlags = map[string]string{
	"CANON_EQ": "", "CASE_INSENSITIVE": "i", "COMMENTS": "", "DOTALL": "s", "LITERAL": "",
	"MULTILINE": "m", "UNICODE_CASE": "", "UNIX_LINES": "",
}

// compilePattern compiles a pattern with its '|'-separated Java flags.
// Flags that name no flag (an empty string among them) are refused with
// Azure's message (the Java SDK's recording
// CustomAnalyzerTests.canUseAllRegexFlagsEmptyFlagsAnalyzerSync).
func compilePattern(pattern string, flags *string, where string) (*regexp.Regexp, error) {
	inline := ""
	if flags != nil {
		names := strings.Split(*flags, "|")
		for _, f := range names {
			if _, ok := regexFlags[f]; !ok {
				return nil, invalid(where+".flags", `Values of property "flags" must belong to the set of allowed values (case-sensitive) or be in the pipe form of them (e.g. value1|value2|...): %s.`, strings.Join(sortedKeys(regexFlags), ", "))
			}
		}
		if slices.Contains(names, "COMMENTS") {
			pattern = stripComments(pattern)
		}
		if slices.Contains(names, "LITERAL") {
			pattern = regexp.QuoteMeta(pattern)
		}
		for _, f := range names {
			if !strings.Contains(inline, regexFlags[f]) {
				inline += regexFlags[f]
			}
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

// stripComments removes what Java's COMMENTS flag ignores: whitespace and
// comments from # to the end of a line, where not escaped.
func stripComments(pattern string) string {
	var b strings.Builder
	for i := 0; i < len(pattern); i++ {
		switch c := pattern[i]; {
		case c == '\\' && i+1 < len(pattern):
			b.WriteByte(c)
			i++
			b.WriteByte(pattern[i])
		case c == '#':
			for i+1 < len(pattern) && pattern[i+1] != '\n' {
				i++
			}
		case c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v':
		default:
			b.WriteByte(c)
		}
	}
	return b.String()
}

func (c *PatternAnalyzer) serve(b *analysisBuilder, where string) error {
	if c.Pattern == nil {
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

// PatternTokenizer is Lucene's pattern tokenizer: with group -1 (the
// default) the text is split where the pattern (by default \W+) matches;
// with a group of 0 or more, that group of each match is a token. The
// service writes pattern, flags and group back, with those defaults
// filled in and an empty pattern kept (the Java SDK's recording
// CustomAnalyzerTests.canUseAllRegexFlagsTokenizerSync).
type PatternTokenizer struct {
	ComponentHead
	Pattern *string      `json:"pattern"`
	Flags   *string      `json:"flags"`
	Group   *json.Number `json:"group" shape:"int"`
}

func (*PatternTokenizer) tokenizer() {}

func (c *PatternTokenizer) serve(b *analysisBuilder, where string) error {
	if c.Pattern == nil {
		c.Pattern = ptr(`\W+`)
	}
	group, ok, err := intIn(c.Group, where+".group", -1, 1<<31-1)
	if err != nil {
		return err
	}
	if !ok {
		group, c.Group = -1, number("-1")
	}
	r, err := compilePattern(*c.Pattern, c.Flags, where)
	if err != nil {
		return err
	}
	if int(group) > r.NumSubexp() {
		return invalid(where+".group", "The pattern has %d groups; group %d does not exist.", r.NumSubexp(), group)
	}
	bn := bleveName("tokenizer", c.Name)
	if group < 0 {
		b.a.Tokenizers[bn] = map[string]any{"type": patternSplitTokenizer, "regexp": r.String()}
	} else {
		b.a.Tokenizers[bn] = map[string]any{"type": patternGroupTokenizer, "regexp": r.String(), "group": float64(group)}
	}
	b.tokenizers[c.Name] = bn
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

// patternGroupTokenizer is the bleve tokenizer that makes a token of one
// group of each match of a regular expression.
const patternGroupTokenizer = "cerulean_pattern_group"

type patternGroup struct {
	r     *regexp.Regexp
	group int
}

func (p patternGroup) Tokenize(input []byte) analysis.TokenStream {
	var out analysis.TokenStream
	for _, m := range p.r.FindAllSubmatchIndex(input, -1) {
		start, end := m[2*p.group], m[2*p.group+1]
		if start >= 0 && end > start {
			out = append(out, &analysis.Token{Term: input[start:end], Start: start, End: end, Position: len(out) + 1, Type: analysis.AlphaNumeric})
		}
	}
	return out
}

func init() {
	registerTokenizer(patternGroupTokenizer, func(config map[string]any) (analysis.Tokenizer, error) {
		expr, ok := config["regexp"].(string)
		group, gok := config["group"].(float64)
		if !ok || !gok {
			return nil, errors.New("no regexp or group")
		}
		r, err := regexp.Compile(expr)
		if err != nil {
			return nil, err
		}
		if int(group) > r.NumSubexp() || group < 0 {
			return nil, fmt.Errorf("no group %v", group)
		}
		return patternGroup{r: r, group: int(group)}, nil
	})
}

func init() {
	registerTokenizer(patternSplitTokenizer, func(config map[string]any) (analysis.Tokenizer, error) {
		expr, ok := config["regexp"].(string)
		if !ok {
			return nil, errors.New("no regexp")
		}
		r, err := regexp.Compile(expr)
		if err != nil {
			return nil, err
		}
		return patternSplit{r: r}, nil
	})
}
