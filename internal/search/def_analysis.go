package search

import (
	"encoding/json"
	"reflect"
	"regexp"
	"strings"
)

// AnalysisComponent is one analyzer, tokenizer, token filter, char filter
// or normalizer of an index. Each @odata.type is its own Go type, decoded
// through the registry of its list (analyzers, tokenizers, …); a type
// outside the registry decodes as UnservableComponent, which Validate
// refuses.
type AnalysisComponent interface {
	ComponentName() string
	ComponentType() string
	// serve checks the component and registers how bleve serves it.
	serve(b *analysisBuilder, where string) error
}

// Analyzer is an entry of an index's analyzers.
type Analyzer interface {
	AnalysisComponent
	analyzer()
}

// Tokenizer is an entry of an index's tokenizers.
type Tokenizer interface {
	AnalysisComponent
	tokenizer()
}

// TokenFilter is an entry of an index's tokenFilters.
type TokenFilter interface {
	AnalysisComponent
	tokenFilter()
}

// CharFilter is an entry of an index's charFilters.
type CharFilter interface {
	AnalysisComponent
	charFilter()
}

// Normalizer is an entry of an index's normalizers.
type Normalizer interface {
	AnalysisComponent
	normalizer()
}

// ComponentHead is what every analysis component has: its type and name.
type ComponentHead struct {
	ODataType string `json:"@odata.type"`
	Name      string `json:"name"`
}

// ComponentName is the component's name.
func (h *ComponentHead) ComponentName() string { return h.Name }

// ComponentType is the component's @odata.type.
func (h *ComponentHead) ComponentType() string { return h.ODataType }

// The component types cerulean serves, by list.
type (
	// PatternReplaceCharFilter replaces what a regular expression matches.
	PatternReplaceCharFilter struct {
		ComponentHead
		Pattern     *string `json:"pattern,omitempty"`
		Replacement *string `json:"replacement,omitempty"`
	}
	// KeywordTokenizer keeps the whole input as one token.
	KeywordTokenizer struct {
		ComponentHead
		MaxTokenLength *json.Number `json:"maxTokenLength,omitempty" shape:"int"`
	}
	// NGramTokenFilter makes n-grams of each token (NGramTokenFilterV2), or
	// only those at one side (EdgeNGramTokenFilterV2).
	NGramTokenFilter struct {
		ComponentHead
		MaxGram *json.Number `json:"maxGram,omitempty" shape:"int"`
		MinGram *json.Number `json:"minGram,omitempty" shape:"int"`
		Side    *string      `json:"side,omitempty"`
	}
	// LengthTokenFilter drops tokens outside a length range.
	LengthTokenFilter struct {
		ComponentHead
		Max *json.Number `json:"max,omitempty" shape:"int"`
		Min *json.Number `json:"min,omitempty" shape:"int"`
	}
	// TruncateTokenFilter cuts tokens to a length.
	TruncateTokenFilter struct {
		ComponentHead
		Length *json.Number `json:"length,omitempty" shape:"int"`
	}
	// UniqueTokenFilter drops repeated tokens.
	UniqueTokenFilter struct {
		ComponentHead
		OnlyOnSamePosition *bool `json:"onlyOnSamePosition,omitempty"`
	}
	// StopwordsTokenFilter drops stop words: a list, or a language's
	// (stopwordsList), ignoring case when ignoreCase is true. The service
	// writes stopwords, stopwordsList, ignoreCase and removeTrailing back
	// (the Java SDK's recording
	// CustomAnalyzerTests.canCreateAllAnalysisComponentsSync); earlier
	// releases stored the language as stopwordsLanguage, which is read as
	// stopwordsList.
	StopwordsTokenFilter struct {
		ComponentHead
		Stopwords         []string `json:"stopwords"`
		StopwordsList     *string  `json:"stopwordsList"`
		IgnoreCase        *bool    `json:"ignoreCase"`
		RemoveTrailing    *bool    `json:"removeTrailing"`
		StopwordsLanguage *string  `json:"stopwordsLanguage,omitempty"`
	}
	// ElisionTokenFilter removes elided articles (l', d').
	ElisionTokenFilter struct {
		ComponentHead
		Articles []string `json:"articles,omitempty"`
	}
	// CustomAnalyzer chains char filters, a tokenizer and token filters.
	CustomAnalyzer struct {
		ComponentHead
		Tokenizer    *string  `json:"tokenizer"`
		TokenFilters []string `json:"tokenFilters"`
		CharFilters  []string `json:"charFilters"`
	}
	// StandardAnalyzer is Lucene's standard analyzer: the standard
	// tokenizer, tokens longer than maxTokenLength (255 unless told)
	// split, lower-cased, its stop words (none unless told) dropped.
	StandardAnalyzer struct {
		ComponentHead
		MaxTokenLength *json.Number `json:"maxTokenLength,omitempty" shape:"int"`
		Stopwords      []string     `json:"stopwords,omitempty"`
	}
	// StopAnalyzer is Lucene's stop analyzer: letters, lower-cased, its
	// stop words (English ones when it lists none) dropped. The service
	// writes its list back, empty when none was given (the Java SDK's
	// recording CustomAnalyzerTests.addingCustomAnalyzerThrowsHttpExceptionByDefaultSync).
	StopAnalyzer struct {
		ComponentHead
		Stopwords []string `json:"stopwords"`
	}
	// CustomNormalizer lower-cases and char-filters whole values.
	CustomNormalizer struct {
		ComponentHead
		CharFilters  []string `json:"charFilters,omitempty"`
		TokenFilters []string `json:"tokenFilters,omitempty"`
	}
	// UnservableComponent is a component of a type cerulean cannot serve
	// in its list; Validate refuses it.
	UnservableComponent struct {
		ComponentHead
		what string
	}
)

func (*PatternReplaceCharFilter) charFilter() {}
func (*KeywordTokenizer) tokenizer()          {}
func (*NGramTokenFilter) tokenFilter()        {}
func (*LengthTokenFilter) tokenFilter()       {}
func (*TruncateTokenFilter) tokenFilter()     {}
func (*UniqueTokenFilter) tokenFilter()       {}
func (*StopwordsTokenFilter) tokenFilter()    {}
func (*ElisionTokenFilter) tokenFilter()      {}
func (*CustomAnalyzer) analyzer()             {}
func (*StandardAnalyzer) analyzer()           {}
func (*StopAnalyzer) analyzer()               {}
func (*CustomNormalizer) normalizer()         {}
func (*UnservableComponent) analyzer()        {}
func (*UnservableComponent) tokenizer()       {}
func (*UnservableComponent) tokenFilter()     {}
func (*UnservableComponent) charFilter()      {}
func (*UnservableComponent) normalizer()      {}

// The registries: each list's @odata.type values (without the
// "#Microsoft.Azure.Search." prefix, which clients may leave out).
var (
	analyzers = componentUnion("analyzer", map[string]func() Analyzer{
		"CustomAnalyzer":   func() Analyzer { return &CustomAnalyzer{} },
		"StandardAnalyzer": func() Analyzer { return &StandardAnalyzer{} },
		"StopAnalyzer":     func() Analyzer { return &StopAnalyzer{} },
		"PatternAnalyzer":  func() Analyzer { return &PatternAnalyzer{} },
	})
	tokenizers = componentUnion("tokenizer", map[string]func() Tokenizer{
		"KeywordTokenizerV2":       func() Tokenizer { return &KeywordTokenizer{} },
		"PatternTokenizer":         func() Tokenizer { return &PatternTokenizer{} },
		"EdgeNGramTokenizer":       func() Tokenizer { return &NGramTokenizer{} },
		"NGramTokenizer":           func() Tokenizer { return &NGramTokenizer{} },
		"PathHierarchyTokenizerV2": func() Tokenizer { return &PathHierarchyTokenizer{} },
		"StandardTokenizerV2":      func() Tokenizer { return &StandardTokenizer{} },
		"UaxUrlEmailTokenizer":     func() Tokenizer { return &StandardTokenizer{} },
		"ClassicTokenizer":         func() Tokenizer { return &ClassicTokenizer{} },
	})
	tokenFilters = componentUnion("token filter", map[string]func() TokenFilter{
		"EdgeNGramTokenFilterV2":     func() TokenFilter { return &NGramTokenFilter{} },
		"NGramTokenFilterV2":         func() TokenFilter { return &NGramTokenFilter{} },
		"LengthTokenFilter":          func() TokenFilter { return &LengthTokenFilter{} },
		"TruncateTokenFilter":        func() TokenFilter { return &TruncateTokenFilter{} },
		"UniqueTokenFilter":          func() TokenFilter { return &UniqueTokenFilter{} },
		"StopwordsTokenFilter":       func() TokenFilter { return &StopwordsTokenFilter{} },
		"ElisionTokenFilter":         func() TokenFilter { return &ElisionTokenFilter{} },
		"AsciiFoldingTokenFilter":    func() TokenFilter { return &AsciiFoldingTokenFilter{} },
		"ShingleTokenFilter":         func() TokenFilter { return &ShingleTokenFilter{} },
		"SnowballTokenFilter":        func() TokenFilter { return &SnowballTokenFilter{} },
		"StemmerTokenFilter":         func() TokenFilter { return &StemmerTokenFilter{} },
		"StemmerOverrideTokenFilter": func() TokenFilter { return &StemmerOverrideTokenFilter{} },
		"LimitTokenFilter":           func() TokenFilter { return &LimitTokenFilter{} },
		"KeepTokenFilter":            func() TokenFilter { return &KeepTokenFilter{} },
		"KeywordMarkerTokenFilter":   func() TokenFilter { return &KeywordMarkerTokenFilter{} },
		"PatternCaptureTokenFilter":  func() TokenFilter { return &PatternCaptureTokenFilter{} },
		"PatternReplaceTokenFilter":  func() TokenFilter { return &PatternReplaceTokenFilter{} },
		"CommonGramTokenFilter":      func() TokenFilter { return &CommonGramTokenFilter{} },
		"WordDelimiterTokenFilter":   func() TokenFilter { return &WordDelimiterTokenFilter{} },
	})
	charFilters = componentUnion("char filter", map[string]func() CharFilter{
		"PatternReplaceCharFilter": func() CharFilter { return &PatternReplaceCharFilter{} },
		"MappingCharFilter":        func() CharFilter { return &MappingCharFilter{} },
	})
	normalizers = componentUnion("normalizer", map[string]func() Normalizer{
		"CustomNormalizer": func() Normalizer { return &CustomNormalizer{} },
	})
)

// componentUnion is the registry of one list of analysis components:
// types outside members decode as UnservableComponent, which messages
// name as what.
func componentUnion[T AnalysisComponent](what string, members map[string]func() T) *union[T] {
	return &union[T]{tag: "@odata.type", members: members, other: func() T {
		var c AnalysisComponent = &UnservableComponent{what: what}
		return c.(T)
	}}
}

func init() {
	registerShape[Analyzer](analyzers)
	registerShape[Tokenizer](tokenizers)
	registerShape[TokenFilter](tokenFilters)
	registerShape[CharFilter](charFilters)
	registerShape[Normalizer](normalizers)
}

func registerShape[T any](u *union[T]) {
	shapeOf[reflect.TypeOf((*T)(nil)).Elem()] = u.typeOf
}

// localType is an @odata.type without the service's prefix.
func localType(t string) string { return strings.TrimPrefix(t, odataPrefix) }

// analysisBuilder collects what bleve needs for an index's analysis, and
// the names each list may refer to.
type analysisBuilder struct {
	a                         *Analysis
	tokenizers, filters, char map[string]string
	seen                      map[string]bool
}

func newAnalysisBuilder() *analysisBuilder {
	b := &analysisBuilder{
		a: &Analysis{
			TokenMaps: map[string]map[string]any{}, CharFilters: map[string]map[string]any{}, Tokenizers: map[string]map[string]any{},
			TokenFilters: map[string]map[string]any{}, Analyzers: map[string]map[string]any{},
			Analyzer: map[string]string{}, Normalizer: map[string]string{},
		},
		tokenizers: copyMap(builtinTokenizers), filters: copyMap(builtinTokenFilters), char: copyMap(builtinCharFilters),
		seen: map[string]bool{},
	}
	for name, def := range builtinAnalyzers {
		if s, ok := def.(string); ok {
			b.a.Analyzer[name] = s
			continue
		}
		bn := bleveName("analyzer", name)
		b.a.Analyzers[bn] = def.(map[string]any)
		b.a.Analyzer[name] = bn
	}
	for name, cfg := range builtinNormalizers {
		bn := bleveName("normalizer", name)
		b.a.Analyzers[bn] = cfg
		b.a.Normalizer[name] = bn
	}
	return b
}

func copyMap[V any](m map[string]V) map[string]V {
	out := make(map[string]V, len(m))
	for k, v := range m {
		out[k] = v
	}
	return out
}

// analysis validates the index's analysis components, in the order they
// may refer to each other, and returns how bleve serves them.
func (ix *Index) analysis() (*Analysis, error) {
	b, err := ix.analysisBuilder()
	if err != nil {
		return nil, err
	}
	return b.a, nil
}

// analysisBuilder is analysis with the builder kept, which also resolves
// the names of the index's tokenizers and filters (Analyze Text names
// them).
func (ix *Index) analysisBuilder() (*analysisBuilder, error) {
	b := newAnalysisBuilder()
	for _, list := range []struct {
		path       string
		components []AnalysisComponent
	}{
		{"index.charFilters", components(ix.CharFilters)},
		{"index.tokenizers", components(ix.Tokenizers)},
		{"index.tokenFilters", components(ix.TokenFilters)},
		{"index.analyzers", components(ix.Analyzers)},
		{"index.normalizers", components(ix.Normalizers)},
	} {
		for i, c := range list.components {
			if err := b.add(at(list.path, i), c); err != nil {
				return nil, err
			}
		}
	}
	return b, nil
}

func components[T AnalysisComponent](list []T) []AnalysisComponent {
	out := make([]AnalysisComponent, len(list))
	for i, c := range list {
		out[i] = c
	}
	return out
}

func (b *analysisBuilder) add(where string, c AnalysisComponent) error {
	name := c.ComponentName()
	if !validComponentName(name) {
		return componentNameError(where+".name", "analysis component", name)
	}
	if b.seen[name] {
		return invalid(where+".name", "The name '%s' is used by more than one analyzer, tokenizer, token filter, char filter or normalizer of the index.", name)
	}
	b.seen[name] = true
	if _, isAnalyzer := c.(Analyzer); isAnalyzer && strings.HasPrefix(where, "index.analyzers") {
		if _, builtin := builtinAnalyzers[name]; builtin {
			return invalid(where+".name", "The analyzer name '%s' is the name of a predefined analyzer.", name)
		}
	}
	return c.serve(b, where)
}

// stopWords registers a stop word list as a token map and a filter, both
// named bn.
func (b *analysisBuilder) stopWords(bn string, words []string) {
	b.a.TokenMaps[bn] = map[string]any{"type": "custom", "tokens": stringsToAny(words)}
	b.a.TokenFilters[bn] = map[string]any{"type": "stop_tokens", "stop_token_map": bn}
}

// defaultInt is an integer property in [lo, hi], or def when not given.
func defaultInt(n *json.Number, path string, lo, hi, def int64) (int64, error) {
	v, ok, err := intIn(n, path, lo, hi)
	if !ok {
		v = def
	}
	return v, err
}

// intRange is a pair of integer properties in [lo, hi], each defaulted
// when not given, the first not greater than the second.
func intRange(where, lowKey, highKey string, low, high *json.Number, lo, hi, lowDef, highDef int64) (int64, int64, error) {
	l, err := defaultInt(low, where+"."+lowKey, lo, hi, lowDef)
	if err != nil {
		return 0, 0, err
	}
	h, err := defaultInt(high, where+"."+highKey, lo, hi, highDef)
	if err != nil {
		return 0, 0, err
	}
	if l > h {
		return 0, 0, invalid(where+"."+lowKey, "%s (%d) must not be greater than %s (%d).", lowKey, l, highKey, h)
	}
	return l, h, nil
}

func (c *UnservableComponent) serve(_ *analysisBuilder, where string) error {
	return unservable(where, c.what, c.ODataType)
}

func (c *PatternReplaceCharFilter) serve(b *analysisBuilder, where string) error {
	if c.Pattern == nil {
		return invalid(where+".pattern", "The pattern is required.")
	}
	if _, err := regexp.Compile(*c.Pattern); err != nil {
		return invalid(where+".pattern", "The pattern '%s' is not a regular expression cerulean can run: %v", *c.Pattern, err)
	}
	bn := bleveName("char", c.Name)
	b.a.CharFilters[bn] = map[string]any{"type": "regexp", "regexp": *c.Pattern, "replace": deref(c.Replacement)}
	b.char[c.Name] = bn
	return nil
}

func (c *KeywordTokenizer) serve(b *analysisBuilder, where string) error {
	if _, _, err := intIn(c.MaxTokenLength, where+".maxTokenLength", 1, 300); err != nil {
		return err
	}
	b.tokenizers[c.Name] = "single"
	return nil
}

func (c *NGramTokenFilter) serve(b *analysisBuilder, where string) error {
	minGram, maxGram, err := intRange(where, "minGram", "maxGram", c.MinGram, c.MaxGram, 1, 300, 1, 2)
	if err != nil {
		return err
	}
	edge, back := localType(c.ODataType) == "EdgeNGramTokenFilterV2", false
	if edge {
		side := deref(c.Side)
		if side != "" && side != "front" && side != "back" {
			return invalid(where+".side", "The side must be 'front' or 'back'.")
		}
		back = side == "back"
	}
	cfg := ngramFilterConfig(minGram, maxGram, edge, back)
	return b.filter(c.Name, cfg)
}

// filter registers a token filter of the index under its own name.
func (b *analysisBuilder) filter(name string, cfg map[string]any) error {
	bn := bleveName("filter", name)
	b.a.TokenFilters[bn] = cfg
	b.filters[name] = bn
	return nil
}

func (c *LengthTokenFilter) serve(b *analysisBuilder, where string) error {
	lo, hi, err := intRange(where, "min", "max", c.Min, c.Max, 0, 300, 0, 300)
	if err != nil {
		return err
	}
	return b.filter(c.Name, map[string]any{"type": "length", "min": float64(lo), "max": float64(hi)})
}

func (c *TruncateTokenFilter) serve(b *analysisBuilder, where string) error {
	n, err := defaultInt(c.Length, where+".length", 1, 300, 300)
	if err != nil {
		return err
	}
	return b.filter(c.Name, map[string]any{"type": "truncate_token", "length": float64(n)})
}

func (c *UniqueTokenFilter) serve(b *analysisBuilder, where string) error {
	if deref(c.OnlyOnSamePosition) {
		return invalid(where+".onlyOnSamePosition", "cerulean serves the unique token filter over the whole token stream only (onlyOnSamePosition false).")
	}
	return b.filter(c.Name, map[string]any{"type": "unique"})
}

func (c *StopwordsTokenFilter) serve(b *analysisBuilder, where string) error {
	if c.StopwordsList == nil {
		c.StopwordsList = c.StopwordsLanguage
	}
	c.StopwordsLanguage = nil
	c.Stopwords = orEmpty(c.Stopwords)
	if c.IgnoreCase == nil {
		c.IgnoreCase = ptr(false)
	}
	if c.RemoveTrailing == nil {
		c.RemoveTrailing = ptr(true)
	}
	if !*c.RemoveTrailing {
		// Lucene's SuggestStopFilter keeps a final stop word unless
		// something follows it in the text, which a token filter here
		// cannot see.
		return invalid(where+".removeTrailing", "cerulean serves the stopwords token filter with removeTrailing true only.")
	}
	lang := deref(c.StopwordsList)
	if len(c.Stopwords) > 0 && lang != "" {
		return invalid(where, "Give either stopwords or stopwordsList, not both.")
	}
	if len(c.Stopwords) > 0 {
		if *c.IgnoreCase {
			return b.filter(c.Name, map[string]any{"type": wordSetFilterName, "words": stringsToAny(c.Stopwords), "ignore_case": true, "action": "drop"})
		}
		bn := bleveName("filter", c.Name)
		b.stopWords(bn, c.Stopwords)
		b.filters[c.Name] = bn
		return nil
	}
	if lang == "" {
		lang = "english"
	}
	stop, ok := stopwordLanguages[lang]
	if !ok {
		return invalid(where+".stopwordsList", "The stopwords list '%s' is not one cerulean has (%s).", lang, strings.Join(sortedKeys(stopwordLanguages), ", "))
	}
	if *c.IgnoreCase {
		// bleve's stop filters and their word lists share a name.
		return b.filter(c.Name, map[string]any{"type": wordSetFilterName, "token_map": stop, "ignore_case": true, "action": "drop"})
	}
	b.filters[c.Name] = stop
	return nil
}

func (c *ElisionTokenFilter) serve(b *analysisBuilder, where string) error {
	if len(c.Articles) == 0 {
		return invalid(where+".articles", "cerulean needs the list of articles for an elision filter.")
	}
	bn := bleveName("filter", c.Name)
	b.a.TokenMaps[bn] = map[string]any{"type": "custom", "tokens": stringsToAny(c.Articles)}
	return b.filter(c.Name, map[string]any{"type": "elision", "articles_token_map": bn})
}

func (c *CustomAnalyzer) serve(b *analysisBuilder, where string) error {
	if c.Tokenizer == nil {
		return invalid(where+".tokenizer", "A custom analyzer needs a tokenizer.")
	}
	bt, ok := b.tokenizerNamed(*c.Tokenizer)
	if !ok {
		return invalid(where+".tokenizer", "The tokenizer '%s' is not defined in the index and is not a predefined tokenizer cerulean serves (%s).", *c.Tokenizer, strings.Join(servedTokenizerNames(), ", "))
	}
	filters, err := resolve(c.TokenFilters, b.tokenFilterNamed, func(f string) error {
		return invalid(where+".tokenFilters", "The token filter '%s' is not defined in the index and is not a predefined token filter cerulean serves (%s).", f, strings.Join(servedTokenFilterNames(), ", "))
	})
	if err != nil {
		return err
	}
	chars, err := resolve(c.CharFilters, b.charFilterNamed, func(f string) error {
		return invalid(where+".charFilters", "The char filter '%s' is not defined in the index and is not a predefined char filter cerulean serves (%s).", f, strings.Join(sortedKeys(builtinCharFilters), ", "))
	})
	if err != nil {
		return err
	}
	c.TokenFilters, c.CharFilters = orEmpty(c.TokenFilters), orEmpty(c.CharFilters)
	bn := bleveName("analyzer", c.Name)
	b.a.Analyzers[bn] = b.customAnalyzerConfig(bt, filters, chars)
	b.a.Analyzer[c.Name] = bn
	return nil
}

// resolve maps names to bleve names, answering missing for the first one
// not defined.
func resolve(names []string, named func(string) (string, bool), missing func(string) error) ([]any, error) {
	out := []any{}
	for _, n := range names {
		bn, ok := named(n)
		if !ok {
			return nil, missing(n)
		}
		out = append(out, bn)
	}
	return out, nil
}

func (c *StandardAnalyzer) serve(b *analysisBuilder, where string) error {
	n, _, err := intIn(c.MaxTokenLength, where+".maxTokenLength", 1, 300)
	if err != nil {
		return err
	}
	tokenizer := builtinTokenizers["standard_v2"]
	if n != 0 && n != 255 {
		// Tokens longer than maxTokenLength are split, as for
		// StandardTokenizerV2.
		tokenizer = bleveName("tokenizer", c.Name)
		b.a.Tokenizers[tokenizer] = map[string]any{"type": maxLengthTokenizerName, "tokenizer": builtinTokenizers["standard_v2"], "max": float64(n)}
	}
	b.lowercased(c.Name, tokenizer, c.Stopwords, "")
	return nil
}

func (c *StopAnalyzer) serve(b *analysisBuilder, _ string) error {
	c.Stopwords = orEmpty(c.Stopwords)
	b.lowercased(c.Name, "letter", c.Stopwords, "stop_en")
	return nil
}

// lowercased registers analyzer name: tokenizer's tokens lower-cased, then
// stopwords dropped, or the bleve filter otherStop when there are none
// (none when it is empty).
func (b *analysisBuilder) lowercased(name, tokenizer string, stopwords []string, otherStop string) {
	bn := bleveName("analyzer", name)
	filters := []any{"to_lower"}
	if len(stopwords) > 0 {
		b.stopWords(bn, stopwords)
		filters = append(filters, bn)
	} else if otherStop != "" {
		filters = append(filters, otherStop)
	}
	b.a.Analyzers[bn] = map[string]any{"type": "custom", "tokenizer": tokenizer, "token_filters": filters}
	b.a.Analyzer[name] = bn
}

// normalizerTokenFilters are the predefined token filters a normalizer
// may use that cerulean serves: those that work character by character,
// which the service allows in normalizers (elision and the Scandinavian
// ones it allows too are not served).
var normalizerTokenFilters = map[string]bool{
	"lowercase": true, "uppercase": true, "asciifolding": true, "cjk_width": true, "arabic_normalization": true,
	"german_normalization": true, "hindi_normalization": true, "indic_normalization": true,
	"persian_normalization": true, "sorani_normalization": true,
}

func (c *CustomNormalizer) serve(b *analysisBuilder, where string) error {
	filters := []any{}
	for _, f := range c.TokenFilters {
		bn, ok := b.tokenFilterNamed(f)
		if !ok || !normalizerTokenFilters[f] {
			return invalid(where+".tokenFilters", "cerulean serves normalizers with the predefined token filters %s only, not '%s'.", strings.Join(sortedKeys(normalizerTokenFilters), ", "), f)
		}
		filters = append(filters, bn)
	}
	chars, err := resolve(c.CharFilters, b.charFilterNamed, func(f string) error {
		return invalid(where+".charFilters", "The char filter '%s' is not defined in the index and is not a predefined char filter cerulean serves.", f)
	})
	if err != nil {
		return err
	}
	bn := bleveName("normalizer", c.Name)
	b.a.Analyzers[bn] = b.customAnalyzerConfig("single", filters, chars)
	b.a.Normalizer[c.Name] = bn
	return nil
}
