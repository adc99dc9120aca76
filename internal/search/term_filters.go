package search

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strings"
	"unicode"

	"github.com/blevesearch/bleve/v2/analysis"
	"github.com/blevesearch/bleve/v2/registry"
)

// Token filters that rewrite, keep, drop or repeat tokens one at a time,
// each a Lucene filter of the same name. Like Lucene's, a filter that
// drops tokens leaves the positions of the rest as they were, and one
// that adds tokens puts them at the position of the token they come
// from.

// LimitTokenFilter keeps the first maxTokenCount tokens (Lucene's
// LimitTokenCountFilter; consumeAllTokens only says whether the rest of
// the input is read, which changes no token). The service writes both
// back, with the defaults 1 and false (the Java SDK's recording
// CustomAnalyzerTests.canCreateAllAnalysisComponentsSync).
type LimitTokenFilter struct {
	ComponentHead
	MaxTokenCount    *json.Number `json:"maxTokenCount" shape:"int"`
	ConsumeAllTokens *bool        `json:"consumeAllTokens"`
}

// KeepTokenFilter keeps only the tokens in keepWords (Lucene's
// KeepWordFilter), ignoring case when keepWordsCase is true.
type KeepTokenFilter struct {
	ComponentHead
	KeepWords     []string `json:"keepWords"`
	KeepWordsCase *bool    `json:"keepWordsCase"`
}

// KeywordMarkerTokenFilter marks the tokens in keywords as keywords, which
// the stemmers after it leave as they are (Lucene's
// SetKeywordMarkerFilter), ignoring case when ignoreCase is true.
type KeywordMarkerTokenFilter struct {
	ComponentHead
	Keywords   []string `json:"keywords"`
	IgnoreCase *bool    `json:"ignoreCase"`
}

// PatternCaptureTokenFilter makes a token of every group that each
// pattern captures in a token (Lucene's PatternCaptureGroupTokenFilter),
// keeping the token itself too when preserveOriginal is true (the
// default) or when no pattern captures anything.
type PatternCaptureTokenFilter struct {
	ComponentHead
	Patterns         []string `json:"patterns"`
	PreserveOriginal *bool    `json:"preserveOriginal"`
}

// PatternReplaceTokenFilter replaces every match of pattern in each token
// with replacement, Java's $n naming groups (Lucene's
// PatternReplaceFilter, all matches).
type PatternReplaceTokenFilter struct {
	ComponentHead
	Pattern     *string `json:"pattern"`
	Replacement *string `json:"replacement"`
}

func (*LimitTokenFilter) tokenFilter()          {}
func (*KeepTokenFilter) tokenFilter()           {}
func (*KeywordMarkerTokenFilter) tokenFilter()  {}
func (*PatternCaptureTokenFilter) tokenFilter() {}
func (*PatternReplaceTokenFilter) tokenFilter() {}

func (c *LimitTokenFilter) serve(b *analysisBuilder, where string) error {
	n, err := defaultInt(c.MaxTokenCount, where+".maxTokenCount", 1, 1<<31-1, 1)
	if err != nil {
		return err
	}
	c.MaxTokenCount = number(fmt.Sprint(n))
	if c.ConsumeAllTokens == nil {
		c.ConsumeAllTokens = ptr(false)
	}
	return b.filter(c.Name, map[string]any{"type": limitFilterName, "max": float64(n)})
}

func (c *KeepTokenFilter) serve(b *analysisBuilder, where string) error {
	if len(c.KeepWords) == 0 {
		return invalid(where+".keepWords", "The list of words to keep is required.")
	}
	if c.KeepWordsCase == nil {
		c.KeepWordsCase = ptr(false)
	}
	return b.filter(c.Name, map[string]any{"type": wordSetFilterName, "words": stringsToAny(c.KeepWords), "ignore_case": *c.KeepWordsCase, "action": "keep"})
}

func (c *KeywordMarkerTokenFilter) serve(b *analysisBuilder, where string) error {
	if len(c.Keywords) == 0 {
		return invalid(where+".keywords", "The list of keywords is required.")
	}
	if c.IgnoreCase == nil {
		c.IgnoreCase = ptr(false)
	}
	return b.filter(c.Name, map[string]any{"type": wordSetFilterName, "words": stringsToAny(c.Keywords), "ignore_case": *c.IgnoreCase, "action": "mark"})
}

func (c *PatternCaptureTokenFilter) serve(b *analysisBuilder, where string) error {
	if len(c.Patterns) == 0 {
		return invalid(where+".patterns", "At least one pattern is required.")
	}
	for i, p := range c.Patterns {
		if _, err := regexp.Compile(p); err != nil {
			return invalid(at(where+".patterns", i), "The pattern '%s' is not a regular expression cerulean can serve: %v", p, err)
		}
	}
	if c.PreserveOriginal == nil {
		c.PreserveOriginal = ptr(true)
	}
	return b.filter(c.Name, map[string]any{"type": patternCaptureFilterName, "patterns": stringsToAny(c.Patterns), "preserve_original": *c.PreserveOriginal})
}

func (c *PatternReplaceTokenFilter) serve(b *analysisBuilder, where string) error {
	if c.Pattern == nil {
		return invalid(where+".pattern", "The pattern is required.")
	}
	r, err := regexp.Compile(*c.Pattern)
	if err != nil {
		return invalid(where+".pattern", "The pattern '%s' is not a regular expression cerulean can serve: %v", *c.Pattern, err)
	}
	if c.Replacement == nil {
		c.Replacement = ptr("")
	}
	template, err := javaReplacement(*c.Replacement, r)
	if err != nil {
		return invalid(where+".replacement", "%v", err)
	}
	return b.filter(c.Name, map[string]any{"type": patternReplaceFilterName, "regexp": r.String(), "template": template})
}

// javaReplacement rewrites a replacement in Java's syntax (\ quotes the
// next character; $n names group n, taking more digits while the group
// exists; ${name} names a group) as a template for Go's Expand.
func javaReplacement(repl string, r *regexp.Regexp) (string, error) {
	var out strings.Builder
	for i := 0; i < len(repl); i++ {
		switch c := repl[i]; c {
		case '\\':
			i++
			if i == len(repl) {
				return "", fmt.Errorf("the replacement ends with a lone \\")
			}
			if repl[i] == '$' {
				out.WriteString("$$")
			} else {
				out.WriteByte(repl[i])
			}
		case '$':
			i++
			if i == len(repl) {
				return "", fmt.Errorf("the replacement ends with a lone $")
			}
			if repl[i] == '{' {
				end := strings.IndexByte(repl[i:], '}')
				if end < 0 || r.SubexpIndex(repl[i+1:i+end]) < 0 {
					return "", fmt.Errorf("the replacement names a group the pattern does not have")
				}
				out.WriteString("${" + repl[i+1:i+end] + "}")
				i += end
				continue
			}
			if repl[i] < '0' || repl[i] > '9' {
				return "", fmt.Errorf("the replacement has a $ that names no group")
			}
			g := int(repl[i] - '0')
			if g > r.NumSubexp() {
				return "", fmt.Errorf("the replacement names group %d, which the pattern does not have", g)
			}
			for i+1 < len(repl) && repl[i+1] >= '0' && repl[i+1] <= '9' && g*10+int(repl[i+1]-'0') <= r.NumSubexp() {
				i++
				g = g*10 + int(repl[i]-'0')
			}
			fmt.Fprintf(&out, "${%d}", g)
		default:
			out.WriteByte(c)
		}
	}
	return out.String(), nil
}

// The bleve token filters of this file.
const (
	trimFilterName           = "cerulean_trim"
	upperCaseFilterName      = "cerulean_uppercase"
	keywordRepeatFilterName  = "cerulean_keyword_repeat"
	limitFilterName          = "cerulean_limit"
	wordSetFilterName        = "cerulean_word_set"
	patternCaptureFilterName = "cerulean_pattern_capture"
	patternReplaceFilterName = "cerulean_pattern_replace"
)

// tokenFilterFunc is a token filter that is a function of the stream.
type tokenFilterFunc func(analysis.TokenStream) analysis.TokenStream

func (f tokenFilterFunc) Filter(in analysis.TokenStream) analysis.TokenStream { return f(in) }

// trimTokens removes Java whitespace from both ends of each token,
// keeping a token that is left empty (Lucene's TrimFilter).
func trimTokens(in analysis.TokenStream) analysis.TokenStream {
	for _, t := range in {
		t.Term = bytes.TrimFunc(t.Term, javaWhitespace)
	}
	return in
}

// upperCaseTokens upper-cases each character of each token on its own, as
// Java's Character.toUpperCase does (Lucene's UpperCaseFilter).
func upperCaseTokens(in analysis.TokenStream) analysis.TokenStream {
	for _, t := range in {
		t.Term = bytes.Map(unicode.ToUpper, t.Term)
	}
	return in
}

// repeatKeywords emits each token twice at its position: first marked as
// a keyword, which stemmers leave alone, then as it came (Lucene's
// KeywordRepeatFilter).
func repeatKeywords(in analysis.TokenStream) analysis.TokenStream {
	out := make(analysis.TokenStream, 0, 2*len(in))
	for _, t := range in {
		kw := *t
		kw.Term = slices.Clone(t.Term)
		kw.KeyWord = true
		t.KeyWord = false
		out = append(out, &kw, t)
	}
	return out
}

// wordSet is the words of a keep or keyword marker filter.
type wordSet struct {
	words      map[string]bool
	ignoreCase bool
}

func newWordSet(words []string, ignoreCase bool) wordSet {
	s := wordSet{words: map[string]bool{}, ignoreCase: ignoreCase}
	for _, w := range words {
		s.words[s.key(w)] = true
	}
	return s
}

func (s wordSet) key(w string) string {
	if s.ignoreCase {
		return strings.Map(unicode.ToLower, w)
	}
	return w
}

func (s wordSet) has(term []byte) bool { return s.words[s.key(string(term))] }

// patternCapture is PatternCaptureTokenFilter's work.
type patternCapture struct {
	patterns         []*regexp.Regexp
	preserveOriginal bool
}

// span is a part of a token, in bytes.
type span struct{ start, end int }

// captures lists, in Lucene's order, the parts of term the patterns
// capture: each pattern's groups 1 and up of each of its matches (a
// pattern without groups captures nothing), leaving out empty ones and,
// when the original is kept, the whole term; the next part is the one of
// any pattern that starts first, the earlier pattern's on a tie.
func (p patternCapture) captures(term []byte) []span {
	heads := make([][]span, len(p.patterns))
	for i, r := range p.patterns {
		for _, m := range r.FindAllSubmatchIndex(term, -1) {
			for g := 1; 2*g < len(m); g++ {
				s, e := m[2*g], m[2*g+1]
				if s < 0 || s == e || p.preserveOriginal && s == 0 && e == len(term) {
					continue
				}
				heads[i] = append(heads[i], span{s, e})
			}
		}
	}
	var out []span
	for {
		best := -1
		for i, h := range heads {
			if len(h) > 0 && (best < 0 || h[0].start < heads[best][0].start) {
				best = i
			}
		}
		if best < 0 {
			return out
		}
		out = append(out, heads[best][0])
		heads[best] = heads[best][1:]
	}
}

func (p patternCapture) Filter(in analysis.TokenStream) analysis.TokenStream {
	out := make(analysis.TokenStream, 0, len(in))
	for _, t := range in {
		parts := p.captures(t.Term)
		if p.preserveOriginal || len(parts) == 0 {
			out = append(out, t)
		}
		for _, s := range parts {
			c := *t
			c.Term = slices.Clone(t.Term[s.start:s.end])
			out = append(out, &c)
		}
	}
	return out
}

func init() {
	simple := map[string]tokenFilterFunc{
		trimFilterName:          trimTokens,
		upperCaseFilterName:     upperCaseTokens,
		keywordRepeatFilterName: repeatKeywords,
	}
	for name, f := range simple {
		registerTokenFilter(name, func(map[string]any) (analysis.TokenFilter, error) { return f, nil })
	}
	registerTokenFilter(limitFilterName, func(config map[string]any) (analysis.TokenFilter, error) {
		n, ok := config["max"].(float64)
		if !ok || n < 1 {
			return nil, fmt.Errorf("no max")
		}
		return tokenFilterFunc(func(in analysis.TokenStream) analysis.TokenStream {
			return in[:min(len(in), int(n))]
		}), nil
	})
	err := registry.RegisterTokenFilter(wordSetFilterName, func(config map[string]any, cache *registry.Cache) (analysis.TokenFilter, error) {
		words, err := configStrings(config, "words")
		if err != nil {
			return nil, fmt.Errorf("%s: %w", wordSetFilterName, err)
		}
		if name, ok := config["token_map"].(string); ok {
			m, err := cache.TokenMapNamed(name)
			if err != nil {
				return nil, fmt.Errorf("%s: %w", wordSetFilterName, err)
			}
			words = slices.AppendSeq(words, maps.Keys(m))
		}
		ignoreCase, _ := config["ignore_case"].(bool)
		set := newWordSet(words, ignoreCase)
		switch config["action"] {
		case "keep":
			return tokenFilterFunc(func(in analysis.TokenStream) analysis.TokenStream {
				return slices.DeleteFunc(in, func(t *analysis.Token) bool { return !set.has(t.Term) })
			}), nil
		case "drop":
			return tokenFilterFunc(func(in analysis.TokenStream) analysis.TokenStream {
				return slices.DeleteFunc(in, func(t *analysis.Token) bool { return set.has(t.Term) })
			}), nil
		case "mark":
			return tokenFilterFunc(func(in analysis.TokenStream) analysis.TokenStream {
				for _, t := range in {
					if set.has(t.Term) {
						t.KeyWord = true
					}
				}
				return in
			}), nil
		}
		return nil, fmt.Errorf("%s: no action", wordSetFilterName)
	})
	if err != nil {
		panic(err)
	}
	registerTokenFilter(patternCaptureFilterName, func(config map[string]any) (analysis.TokenFilter, error) {
		exprs, err := configStrings(config, "patterns")
		if err != nil {
			return nil, err
		}
		p := patternCapture{}
		p.preserveOriginal, _ = config["preserve_original"].(bool)
		for _, e := range exprs {
			r, err := regexp.Compile(e)
			if err != nil {
				return nil, err
			}
			p.patterns = append(p.patterns, r)
		}
		return p, nil
	})
	registerTokenFilter(patternReplaceFilterName, func(config map[string]any) (analysis.TokenFilter, error) {
		expr, ok := config["regexp"].(string)
		template, tok := config["template"].(string)
		if !ok || !tok {
			return nil, fmt.Errorf("no regexp or template")
		}
		r, err := regexp.Compile(expr)
		if err != nil {
			return nil, err
		}
		return tokenFilterFunc(func(in analysis.TokenStream) analysis.TokenStream {
			for _, t := range in {
				t.Term = r.ReplaceAll(t.Term, []byte(template))
			}
			return in
		}), nil
	})
}

// registerTokenFilter registers a bleve token filter type whose
// constructor needs only its config, naming it in its errors.
func registerTokenFilter(name string, build func(map[string]any) (analysis.TokenFilter, error)) {
	err := registry.RegisterTokenFilter(name, func(config map[string]any, _ *registry.Cache) (analysis.TokenFilter, error) {
		f, err := build(config)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
		return f, nil
	})
	if err != nil {
		panic(err)
	}
}

// registerTokenizer registers a bleve tokenizer type whose constructor
// needs only its config, naming it in its errors.
func registerTokenizer(name string, build func(map[string]any) (analysis.Tokenizer, error)) {
	err := registry.RegisterTokenizer(name, func(config map[string]any, _ *registry.Cache) (analysis.Tokenizer, error) {
		t, err := build(config)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
		return t, nil
	})
	if err != nil {
		panic(err)
	}
}
