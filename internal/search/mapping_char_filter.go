package search

import (
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/blevesearch/bleve/v2/analysis"
	"github.com/blevesearch/bleve/v2/registry"
)

// MappingCharFilter replaces, at each place in the text, the longest
// source string of its mappings ("a => b", "ph => f") that starts there
// with that mapping's target, as Lucene's MappingCharFilter does, and
// maps the offsets of the tokens made of its output back to the text it
// was given, as Lucene's offset correction does. The sides are trimmed
// and take the escapes \\, \", \', \n, \t, \r, \b, \f and \uXXXX; the
// target may be empty.
type MappingCharFilter struct {
	ComponentHead
	Mappings []string `json:"mappings"`
}

func (*MappingCharFilter) charFilter() {}

func (c *MappingCharFilter) serve(b *analysisBuilder, where string) error {
	if len(c.Mappings) == 0 {
		return invalid(where+".mappings", "At least one mapping is required.")
	}
	if _, err := parseCharMappings(c.Mappings); err != nil {
		return invalid(where+".mappings", "%v", err)
	}
	bn := bleveName("char", c.Name)
	b.a.CharFilters[bn] = map[string]any{"type": mappingCharFilterName, "mappings": stringsToAny(c.Mappings)}
	b.char[c.Name] = bn
	return nil
}

// parseCharMappings reads "source => target" rules.
func parseCharMappings(rules []string) (map[string]string, error) {
	out := map[string]string{}
	for _, r := range rules {
		src, dst, ok := strings.Cut(r, "=>")
		if !ok {
			return nil, fmt.Errorf("the mapping '%s' is not of the form 'source => target'", r)
		}
		s, err := unescapeMapping(strings.TrimSpace(src))
		if err != nil {
			return nil, fmt.Errorf("the mapping '%s': %w", r, err)
		}
		d, err := unescapeMapping(strings.TrimSpace(dst))
		if err != nil {
			return nil, fmt.Errorf("the mapping '%s': %w", r, err)
		}
		if s == "" {
			return nil, fmt.Errorf("the mapping '%s' has an empty source", r)
		}
		if _, dup := out[s]; dup {
			return nil, fmt.Errorf("the source '%s' is mapped more than once", s)
		}
		out[s] = d
	}
	return out, nil
}

func unescapeMapping(s string) (string, error) {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] != '\\' {
			b.WriteByte(s[i])
			continue
		}
		i++
		if i == len(s) {
			return "", fmt.Errorf("a lone \\ ends a side")
		}
		switch c := s[i]; c {
		case '\\', '"', '\'':
			b.WriteByte(c)
		case 'n':
			b.WriteByte('\n')
		case 't':
			b.WriteByte('\t')
		case 'r':
			b.WriteByte('\r')
		case 'b':
			b.WriteByte('\b')
		case 'f':
			b.WriteByte('\f')
		case 'u':
			if i+5 > len(s) {
				return "", fmt.Errorf("\\u needs four hexadecimal digits")
			}
			n, err := strconv.ParseUint(s[i+1:i+5], 16, 16)
			if err != nil {
				return "", fmt.Errorf("\\u needs four hexadecimal digits")
			}
			b.WriteRune(rune(n))
			i += 4
		default:
			return "", fmt.Errorf("the escape \\%c is not one of \\\\ \\\" \\' \\n \\t \\r \\b \\f \\u", c)
		}
	}
	return b.String(), nil
}

// mappingCharFilterName is the bleve char filter that serves
// MappingCharFilter.
const mappingCharFilterName = "cerulean_mapping"

// offsetCharFilter is a char filter that can say where in its input each
// offset of its output came from.
type offsetCharFilter interface {
	analysis.CharFilter
	// filterWithOffsets is Filter, and a function from byte offsets of
	// the output to byte offsets of the input.
	filterWithOffsets(input []byte) ([]byte, func(int) int)
}

type charMapping struct {
	// sources holds, by first byte, the sources starting with it,
	// longest first.
	sources map[byte][]string
	target  map[string]string
}

func newCharMapping(m map[string]string) charMapping {
	c := charMapping{sources: map[byte][]string{}, target: m}
	for s := range m {
		c.sources[s[0]] = append(c.sources[s[0]], s)
	}
	for _, l := range c.sources {
		sort.Slice(l, func(i, j int) bool { return len(l[i]) > len(l[j]) || len(l[i]) == len(l[j]) && l[i] < l[j] })
	}
	return c
}

func (c charMapping) Filter(input []byte) []byte {
	out, _ := c.filterWithOffsets(input)
	return out
}

// filterWithOffsets corrects offsets as Lucene does, in UTF-16 units: an
// offset after a replacement moves by what the replacement shortened or
// lengthened the text; within a replacement longer than its source, the
// extra characters all map to the source's last character.
func (c charMapping) filterWithOffsets(input []byte) ([]byte, func(int) int) {
	var out []byte
	// at and diff are Lucene's correction points: from output unit at[i]
	// on, an offset moves by diff[i].
	var at, diff []int
	inUnits, outUnits := 0, 0
	cumulative := 0
	for i := 0; i < len(input); {
		src := c.longest(input[i:])
		if src == "" {
			r, size := utf8.DecodeRune(input[i:])
			out = append(out, input[i:i+size]...)
			n := max(utf16.RuneLen(r), 1)
			inUnits, outUnits = inUnits+n, outUnits+n
			i += size
			continue
		}
		dst := c.target[src]
		out = append(out, dst...)
		inLen, outLen := utf16Len([]byte(src)), utf16Len([]byte(dst))
		inUnits += inLen
		outUnits += outLen
		if d := inLen - outLen; d > 0 {
			at, diff = append(at, inUnits-d-cumulative), append(diff, cumulative+d)
			cumulative += d
		} else if d < 0 {
			start := inUnits - cumulative
			for k := range -d {
				at, diff = append(at, start+k), append(diff, cumulative-k-1)
			}
			cumulative += d
		}
		i += len(src)
	}
	outToUnit := unitOffsets(out)
	inFromUnit := byteOffsets(input)
	return out, func(off int) int {
		u := outToUnit(off)
		k := sort.SearchInts(at, u+1) - 1
		if k >= 0 {
			u += diff[k]
		}
		return inFromUnit(u)
	}
}

func (c charMapping) longest(rest []byte) string {
	for _, s := range c.sources[rest[0]] {
		if len(s) <= len(rest) && string(rest[:len(s)]) == s {
			return s
		}
	}
	return ""
}

// unitOffsets maps byte offsets of text to UTF-16 offsets.
func unitOffsets(text []byte) func(int) int { return utf16Offsets(string(text)) }

// byteOffsets maps UTF-16 offsets of text to byte offsets (one inside a
// surrogate pair to its character's start).
func byteOffsets(text []byte) func(int) int {
	var units []int // units[u] is the byte offset of UTF-16 unit u
	for i := 0; i < len(text); {
		r, size := utf8.DecodeRune(text[i:])
		for range max(utf16.RuneLen(r), 1) {
			units = append(units, i)
		}
		i += size
	}
	return func(u int) int {
		if u < 0 {
			return 0
		}
		if u >= len(units) {
			return len(text)
		}
		return units[u]
	}
}

// offsetsAnalyzerName is the bleve analyzer type of custom analyzers with
// a char filter that corrects offsets: bleve's custom analyzer, with the
// tokens' offsets mapped back to the text given.
const offsetsAnalyzerName = "cerulean_custom_offsets"

type offsetsAnalyzer struct {
	chars     []analysis.CharFilter
	tokenizer analysis.Tokenizer
	filters   []analysis.TokenFilter
}

func (a offsetsAnalyzer) Analyze(input []byte) analysis.TokenStream {
	var corrections []func(int) int
	for _, cf := range a.chars {
		if oc, ok := cf.(offsetCharFilter); ok {
			var correct func(int) int
			input, correct = oc.filterWithOffsets(input)
			corrections = append(corrections, correct)
			continue
		}
		input = cf.Filter(input)
	}
	tokens := a.tokenizer.Tokenize(input)
	for _, t := range tokens {
		for _, correct := range slices.Backward(corrections) {
			t.Start, t.End = correct(t.Start), correct(t.End)
		}
	}
	for _, f := range a.filters {
		tokens = f.Filter(tokens)
	}
	return tokens
}

// customAnalyzerConfig is the bleve config of a custom analyzer: bleve's
// own type, or offsetsAnalyzerName when a char filter corrects offsets.
func (b *analysisBuilder) customAnalyzerConfig(tokenizer string, filters, chars []any) map[string]any {
	typ := "custom"
	for _, c := range chars {
		if cfg := b.a.CharFilters[c.(string)]; cfg != nil && cfg["type"] == mappingCharFilterName {
			typ = offsetsAnalyzerName
		}
	}
	return map[string]any{"type": typ, "tokenizer": tokenizer, "token_filters": filters, "char_filters": chars}
}

func init() {
	err := registry.RegisterCharFilter(mappingCharFilterName, func(config map[string]any, _ *registry.Cache) (analysis.CharFilter, error) {
		rules, err := configStrings(config, "mappings")
		if err != nil {
			return nil, fmt.Errorf("%s: %w", mappingCharFilterName, err)
		}
		m, err := parseCharMappings(rules)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", mappingCharFilterName, err)
		}
		return newCharMapping(m), nil
	})
	if err != nil {
		panic(err)
	}
	err = registry.RegisterAnalyzer(offsetsAnalyzerName, func(config map[string]any, cache *registry.Cache) (analysis.Analyzer, error) {
		var a offsetsAnalyzer
		chars, err := configStrings(config, "char_filters")
		if err != nil {
			return nil, fmt.Errorf("%s: %w", offsetsAnalyzerName, err)
		}
		for _, n := range chars {
			cf, err := cache.CharFilterNamed(n)
			if err != nil {
				return nil, fmt.Errorf("%s: %w", offsetsAnalyzerName, err)
			}
			a.chars = append(a.chars, cf)
		}
		name, _ := config["tokenizer"].(string)
		if a.tokenizer, err = cache.TokenizerNamed(name); err != nil {
			return nil, fmt.Errorf("%s: %w", offsetsAnalyzerName, err)
		}
		filters, err := configStrings(config, "token_filters")
		if err != nil {
			return nil, fmt.Errorf("%s: %w", offsetsAnalyzerName, err)
		}
		for _, n := range filters {
			f, err := cache.TokenFilterNamed(n)
			if err != nil {
				return nil, fmt.Errorf("%s: %w", offsetsAnalyzerName, err)
			}
			a.filters = append(a.filters, f)
		}
		return a, nil
	})
	if err != nil {
		panic(err)
	}
}
