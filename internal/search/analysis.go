package search

import (
	"maps"
	"slices"
	"sort"
)

// Analysis is how bleve serves an index's text analysis: the custom
// components to register on a bleve IndexMapping (AddCustomTokenMap,
// AddCustomCharFilter, AddCustomTokenizer, AddCustomTokenFilter,
// AddCustomAnalyzer, in that order, each config carrying its bleve
// "type"), and for every analyzer and normalizer name a field of the index
// may use, the bleve analyzer that serves it.
//
// Only what bleve can serve faithfully is accepted: an analyzer, tokenizer,
// filter or normalizer outside these tables is refused with 400 when the
// index is defined, never approximated silently.
type Analysis struct {
	TokenMaps    map[string]map[string]any
	CharFilters  map[string]map[string]any
	Tokenizers   map[string]map[string]any
	TokenFilters map[string]map[string]any
	Analyzers    map[string]map[string]any
	// Analyzer maps an analyzer name (built-in such as "en.lucene", or the
	// index's own) to a bleve analyzer name.
	Analyzer map[string]string
	// Normalizer maps a normalizer name to a bleve analyzer name.
	Normalizer map[string]string
}

// bleveName prefixes the bleve names of an index's own components so
// they never collide with bleve's registered names.
func bleveName(kind, name string) string { return "azure." + kind + "." + name }

// builtinAnalyzers are Azure's predefined analyzers that bleve serves: a
// bleve analyzer name, or a custom analyzer built from bleve components.
var builtinAnalyzers = map[string]any{
	// Azure's standard analyzer has no stop words, unlike bleve's.
	"standard.lucene":             map[string]any{"type": "custom", "tokenizer": "unicode", "token_filters": []any{"to_lower"}},
	"standardasciifolding.lucene": map[string]any{"type": "custom", "char_filters": []any{"asciifolding"}, "tokenizer": "unicode", "token_filters": []any{"to_lower"}},
	"keyword":                     "keyword",
	"simple":                      "simple",
	"whitespace":                  map[string]any{"type": "custom", "tokenizer": "whitespace", "token_filters": []any{}},
	"stop":                        map[string]any{"type": "custom", "tokenizer": "letter", "token_filters": []any{"to_lower", "stop_en"}},
	"ar.lucene":                   "ar",
	"da.lucene":                   "da",
	"de.lucene":                   "de",
	"en.lucene":                   "en",
	"es.lucene":                   "es",
	"fa.lucene":                   "fa",
	"fi.lucene":                   "fi",
	"fr.lucene":                   "fr",
	"hi.lucene":                   "hi",
	"hu.lucene":                   "hu",
	"it.lucene":                   "it",
	"nl.lucene":                   "nl",
	"no.lucene":                   "no",
	"pl.lucene":                   "pl",
	"pt-BR.lucene":                "pt",
	"pt-PT.lucene":                "pt",
	"ro.lucene":                   "ro",
	"ru.lucene":                   "ru",
	"sv.lucene":                   "sv",
	"tr.lucene":                   "tr",
	"zh-Hans.lucene":              "cjk",
	"zh-Hant.lucene":              "cjk",
	"ja.lucene":                   "cjk",
	"ko.lucene":                   "cjk",
}

// builtinTokenizers are Azure's predefined tokenizers bleve serves.
var builtinTokenizers = map[string]string{
	"standard_v2":   "unicode",
	"keyword_v2":    "single",
	"letter":        "letter",
	"whitespace":    "whitespace",
	"uax_url_email": "web",
}

// builtinTokenFilters are Azure's predefined token filters bleve serves.
var builtinTokenFilters = map[string]string{
	"lowercase":             "to_lower",
	"apostrophe":            "apostrophe",
	"porter_stem":           "stemmer_porter",
	"reverse":               "reverse",
	"unique":                "unique",
	"stopwords":             "stop_en",
	"cjk_bigram":            "cjk_bigram",
	"cjk_width":             "cjk_width",
	"arabic_normalization":  "normalize_ar",
	"german_normalization":  "normalize_de",
	"hindi_normalization":   "normalize_hi",
	"indic_normalization":   "normalize_in",
	"persian_normalization": "normalize_fa",
	"sorani_normalization":  "normalize_ckb",
}

// predefinedTokenizers are Azure's predefined tokenizers that are
// cerulean's own bleve tokenizers, by their configs: each is registered
// on an index's mapping only when the index names it.
var predefinedTokenizers = map[string]map[string]any{
	"edgeNGram":         ngramTokenizerConfig(1, 2, true, nil),
	"nGram":             ngramTokenizerConfig(1, 2, false, nil),
	"path_hierarchy_v2": {"type": pathTokenizerName, "delimiter": "/", "replacement": "/", "reverse": false, "skip": float64(0)},
	"lowercase":         {"type": lowerCaseTokenizerName},
	"classic":           {"type": classicTokenizerName, "max": float64(255)},
	// The predefined pattern tokenizer splits at \W+ (the recording
	// CustomAnalyzerTests.canAnalyzeWithAllPossibleNamesSync: "One two"
	// is One, two).
	"pattern": {"type": patternSplitTokenizer, "regexp": `\W+`},
}

// predefinedTokenFilters are Azure's predefined token filters that are
// cerulean's own bleve token filters, each with the defaults of the
// configurable filter of its name (the Lucene filter's own defaults).
var predefinedTokenFilters = map[string]map[string]any{
	"asciifolding":   {"type": asciiFoldingFilterName, "preserve_original": false},
	"shingle":        shingleConfig(2, 2, true, false, " ", "_"),
	"limit":          {"type": limitFilterName, "max": float64(1)},
	"trim":           {"type": trimFilterName},
	"uppercase":      {"type": upperCaseFilterName},
	"keyword_repeat": {"type": keywordRepeatFilterName},
	"classic":        {"type": classicFilterName},
	"word_delimiter": wordDelimiterDefaults,
	"nGram_v2":       ngramFilterConfig(1, 2, false, false),
	"edgeNGram_v2":   ngramFilterConfig(1, 2, true, false),
}

// predefinedName is the bleve name of a predefined component registered
// on an index's mapping, apart from the index's own names.
func predefinedName(kind, name string) string { return "azure.predefined." + kind + "." + name }

// tokenizerNamed is the bleve tokenizer of a tokenizer name an index may
// use, registering a predefined one the first time it is named.
func (b *analysisBuilder) tokenizerNamed(name string) (string, bool) {
	return named(b.tokenizers, predefinedTokenizers, b.a.Tokenizers, "tokenizer", name)
}

// tokenFilterNamed is tokenizerNamed for token filters.
func (b *analysisBuilder) tokenFilterNamed(name string) (string, bool) {
	return named(b.filters, predefinedTokenFilters, b.a.TokenFilters, "filter", name)
}

// charFilterNamed is the bleve char filter of a char filter name.
func (b *analysisBuilder) charFilterNamed(name string) (string, bool) {
	bn, ok := b.char[name]
	return bn, ok
}

func named(known map[string]string, predefined, registered map[string]map[string]any, kind, name string) (string, bool) {
	if bn, ok := known[name]; ok {
		return bn, true
	}
	cfg, ok := predefined[name]
	if !ok {
		return "", false
	}
	bn := predefinedName(kind, name)
	registered[bn] = cfg
	known[name] = bn
	return bn, true
}

// servedTokenizerNames lists the predefined tokenizer names cerulean
// serves.
func servedTokenizerNames() []string {
	return slices.Sorted(maps.Keys(joinMaps(builtinTokenizers, predefinedTokenizers)))
}

// servedTokenFilterNames lists the predefined token filter names cerulean
// serves.
func servedTokenFilterNames() []string {
	return slices.Sorted(maps.Keys(joinMaps(builtinTokenFilters, predefinedTokenFilters)))
}

func joinMaps[V any](a map[string]string, b map[string]V) map[string]bool {
	out := map[string]bool{}
	for k := range a {
		out[k] = true
	}
	for k := range b {
		out[k] = true
	}
	return out
}

// builtinCharFilters are Azure's predefined char filters bleve serves.
var builtinCharFilters = map[string]string{"html_strip": "html"}

// builtinNormalizers are Azure's predefined normalizers bleve serves, as
// custom analyzers that keep the whole value as one token.
var builtinNormalizers = map[string]map[string]any{
	"lowercase":    {"type": "custom", "tokenizer": "single", "token_filters": []any{"to_lower"}},
	"standard":     {"type": "custom", "char_filters": []any{"asciifolding"}, "tokenizer": "single", "token_filters": []any{"to_lower"}},
	"asciifolding": {"type": "custom", "char_filters": []any{"asciifolding"}, "tokenizer": "single", "token_filters": []any{}},
	"uppercase":    {"type": "custom", "tokenizer": "single", "token_filters": []any{upperCaseFilterName}},
}

// stopwordLanguages are the stopwordsList values bleve has Lucene's lists
// for (brazilian, latvian and thai it has not).
var stopwordLanguages = map[string]string{
	"arabic": "stop_ar", "armenian": "stop_hy", "basque": "stop_eu", "bulgarian": "stop_bg", "catalan": "stop_ca",
	"czech": "stop_cs", "danish": "stop_da", "dutch": "stop_nl", "english": "stop_en", "finnish": "stop_fi",
	"french": "stop_fr", "galician": "stop_gl", "german": "stop_de", "greek": "stop_el", "hindi": "stop_hi",
	"hungarian": "stop_hu", "indonesian": "stop_id", "irish": "stop_ga", "italian": "stop_it",
	"norwegian": "stop_no", "persian": "stop_fa", "portuguese": "stop_pt", "romanian": "stop_ro",
	"russian": "stop_ru", "sorani": "stop_ckb", "spanish": "stop_es", "swedish": "stop_sv", "turkish": "stop_tr",
}

// BuiltinAnalyzerNames lists the predefined analyzer names cerulean serves.
func BuiltinAnalyzerNames() []string {
	names := make([]string, 0, len(builtinAnalyzers))
	for n := range builtinAnalyzers {
		names = append(names, n)
	}
	sort.Strings(names)
	return names
}

const odataPrefix = "#Microsoft.Azure.Search."

func unservable(where, what string, typ any) error {
	return invalid(where+".@odata.type", "The %s type '%v' is not one cerulean can serve with its search engine.", what, typ)
}

func stringsToAny(s []string) []any {
	out := make([]any, len(s))
	for i, x := range s {
		out[i] = x
	}
	return out
}

func sortedKeys[V any](m map[string]V) []string { return slices.Sorted(maps.Keys(m)) }
