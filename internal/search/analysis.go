package search

import (
	"fmt"
	"regexp"
	"sort"
	"strings"
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

// builtinCharFilters are Azure's predefined char filters bleve serves.
var builtinCharFilters = map[string]string{"html_strip": "html"}

// builtinNormalizers are Azure's predefined normalizers bleve serves, as
// custom analyzers that keep the whole value as one token.
var builtinNormalizers = map[string]map[string]any{
	"lowercase":    {"type": "custom", "tokenizer": "single", "token_filters": []any{"to_lower"}},
	"standard":     {"type": "custom", "char_filters": []any{"asciifolding"}, "tokenizer": "single", "token_filters": []any{"to_lower"}},
	"asciifolding": {"type": "custom", "char_filters": []any{"asciifolding"}, "tokenizer": "single", "token_filters": []any{}},
}

// stopwordLanguages are the stopwordsLanguage values bleve has lists for.
var stopwordLanguages = map[string]string{
	"arabic": "stop_ar", "danish": "stop_da", "dutch": "stop_nl", "english": "stop_en", "finnish": "stop_fi",
	"french": "stop_fr", "german": "stop_de", "hindi": "stop_hi", "hungarian": "stop_hu", "italian": "stop_it",
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

// analysisOf validates an index's analyzers, tokenizers, tokenFilters,
// charFilters and normalizers and returns how bleve serves them. It
// rewrites each component of def into its normalised shape.
func analysisOf(def map[string]any) (*Analysis, error) {
	a := &Analysis{
		TokenMaps: map[string]map[string]any{}, CharFilters: map[string]map[string]any{}, Tokenizers: map[string]map[string]any{},
		TokenFilters: map[string]map[string]any{}, Analyzers: map[string]map[string]any{},
		Analyzer: map[string]string{}, Normalizer: map[string]string{},
	}
	for name, b := range builtinAnalyzers {
		if s, ok := b.(string); ok {
			a.Analyzer[name] = s
		} else {
			bn := bleveName("analyzer", name)
			a.Analyzers[bn] = b.(map[string]any)
			a.Analyzer[name] = bn
		}
	}
	for name, cfg := range builtinNormalizers {
		bn := bleveName("normalizer", name)
		a.Analyzers[bn] = cfg
		a.Normalizer[name] = bn
	}
	tokenizers := map[string]string{}
	for k, v := range builtinTokenizers {
		tokenizers[k] = v
	}
	filters := map[string]string{}
	for k, v := range builtinTokenFilters {
		filters[k] = v
	}
	chars := map[string]string{}
	for k, v := range builtinCharFilters {
		chars[k] = v
	}
	seen := map[string]bool{}
	component := func(where string, c map[string]any) (string, string, error) {
		name, _, err := getString(c, "name", where)
		if err != nil {
			return "", "", err
		}
		if !validComponentName(name) {
			return "", "", componentNameError(where+".name", "analysis component", name)
		}
		if seen[name] {
			return "", "", invalid(where+".name", "The name '%s' is used by more than one analyzer, tokenizer, token filter, char filter or normalizer of the index.", name)
		}
		seen[name] = true
		typ, _, err := getString(c, "@odata.type", where)
		if err != nil {
			return "", "", err
		}
		return name, strings.TrimPrefix(typ, odataPrefix), nil
	}

	charFilters, err := getObjects(def, "charFilters", "index")
	if err != nil {
		return nil, err
	}
	for i, c := range charFilters {
		where := fmt.Sprintf("index.charFilters[%d]", i)
		name, typ, err := component(where, c)
		if err != nil {
			return nil, err
		}
		switch typ {
		case "PatternReplaceCharFilter":
			pattern, ok, err := getString(c, "pattern", where)
			if err != nil {
				return nil, err
			}
			replacement, _, err := getString(c, "replacement", where)
			if err != nil {
				return nil, err
			}
			if !ok {
				return nil, invalid(where+".pattern", "The pattern is required.")
			}
			if _, err := regexp.Compile(pattern); err != nil {
				return nil, invalid(where+".pattern", "The pattern '%s' is not a regular expression cerulean can run: %v", pattern, err)
			}
			bn := bleveName("char", name)
			a.CharFilters[bn] = map[string]any{"type": "regexp", "regexp": pattern, "replace": replacement}
			chars[name] = bn
		default:
			return nil, unservable(where, "char filter", c["@odata.type"])
		}
	}

	tokenizerDefs, err := getObjects(def, "tokenizers", "index")
	if err != nil {
		return nil, err
	}
	for i, c := range tokenizerDefs {
		where := fmt.Sprintf("index.tokenizers[%d]", i)
		name, typ, err := component(where, c)
		if err != nil {
			return nil, err
		}
		switch typ {
		case "KeywordTokenizerV2":
			if _, _, err := getInt(c, "maxTokenLength", where, 1, 300); err != nil {
				return nil, err
			}
			tokenizers[name] = "single"
		default:
			return nil, unservable(where, "tokenizer", c["@odata.type"])
		}
	}

	filterDefs, err := getObjects(def, "tokenFilters", "index")
	if err != nil {
		return nil, err
	}
	for i, c := range filterDefs {
		where := fmt.Sprintf("index.tokenFilters[%d]", i)
		name, typ, err := component(where, c)
		if err != nil {
			return nil, err
		}
		bn := bleveName("filter", name)
		switch typ {
		case "EdgeNGramTokenFilterV2", "NGramTokenFilterV2":
			minGram, ok, err := getInt(c, "minGram", where, 1, 300)
			if err != nil {
				return nil, err
			}
			if !ok {
				minGram = 1
			}
			maxGram, ok, err := getInt(c, "maxGram", where, 1, 300)
			if err != nil {
				return nil, err
			}
			if !ok {
				maxGram = 2
			}
			if minGram > maxGram {
				return nil, invalid(where+".minGram", "minGram (%d) must not be greater than maxGram (%d).", minGram, maxGram)
			}
			cfg := map[string]any{"type": "ngram", "min": float64(minGram), "max": float64(maxGram)}
			if typ == "EdgeNGramTokenFilterV2" {
				side, _, err := getString(c, "side", where)
				if err != nil {
					return nil, err
				}
				if side != "" && side != "front" && side != "back" {
					return nil, invalid(where+".side", "The side must be 'front' or 'back'.")
				}
				cfg = map[string]any{"type": "edge_ngram", "min": float64(minGram), "max": float64(maxGram), "back": side == "back"}
			}
			a.TokenFilters[bn] = cfg
		case "LengthTokenFilter":
			lo, ok, err := getInt(c, "min", where, 0, 300)
			if err != nil {
				return nil, err
			}
			if !ok {
				lo = 0
			}
			hi, ok, err := getInt(c, "max", where, 0, 300)
			if err != nil {
				return nil, err
			}
			if !ok {
				hi = 300
			}
			if lo > hi {
				return nil, invalid(where+".min", "min (%d) must not be greater than max (%d).", lo, hi)
			}
			a.TokenFilters[bn] = map[string]any{"type": "length", "min": float64(lo), "max": float64(hi)}
		case "TruncateTokenFilter":
			n, ok, err := getInt(c, "length", where, 1, 300)
			if err != nil {
				return nil, err
			}
			if !ok {
				n = 300
			}
			a.TokenFilters[bn] = map[string]any{"type": "truncate_token", "length": float64(n)}
		case "UniqueTokenFilter":
			if same, _, err := getBool(c, "onlyOnSamePosition", where); err != nil {
				return nil, err
			} else if same {
				return nil, invalid(where+".onlyOnSamePosition", "cerulean serves the unique token filter over the whole token stream only (onlyOnSamePosition false).")
			}
			a.TokenFilters[bn] = map[string]any{"type": "unique"}
		case "StopwordsTokenFilter":
			words, err := getStrings(c, "stopwords", where)
			if err != nil {
				return nil, err
			}
			lang, _, err := getString(c, "stopwordsLanguage", where)
			if err != nil {
				return nil, err
			}
			if len(words) > 0 && lang != "" {
				return nil, invalid(where, "Give either stopwords or stopwordsLanguage, not both.")
			}
			if len(words) > 0 {
				a.TokenMaps[bn] = map[string]any{"type": "custom", "tokens": stringsToAny(words)}
				a.TokenFilters[bn] = map[string]any{"type": "stop_tokens", "stop_token_map": bn}
				break
			}
			if lang == "" {
				lang = "english"
			}
			stop, ok := stopwordLanguages[lang]
			if !ok {
				return nil, invalid(where+".stopwordsLanguage", "The stopwords language '%s' is not one cerulean has a list for.", lang)
			}
			filters[name] = stop
			continue
		case "ElisionTokenFilter":
			articles, err := getStrings(c, "articles", where)
			if err != nil {
				return nil, err
			}
			if len(articles) == 0 {
				return nil, invalid(where+".articles", "cerulean needs the list of articles for an elision filter.")
			}
			a.TokenMaps[bn] = map[string]any{"type": "custom", "tokens": stringsToAny(articles)}
			a.TokenFilters[bn] = map[string]any{"type": "elision", "articles_token_map": bn}
		default:
			return nil, unservable(where, "token filter", c["@odata.type"])
		}
		filters[name] = bn
	}

	analyzerDefs, err := getObjects(def, "analyzers", "index")
	if err != nil {
		return nil, err
	}
	for i, c := range analyzerDefs {
		where := fmt.Sprintf("index.analyzers[%d]", i)
		name, typ, err := component(where, c)
		if err != nil {
			return nil, err
		}
		if _, builtin := builtinAnalyzers[name]; builtin {
			return nil, invalid(where+".name", "The analyzer name '%s' is the name of a predefined analyzer.", name)
		}
		bn := bleveName("analyzer", name)
		switch typ {
		case "CustomAnalyzer":
			tok, ok, err := getString(c, "tokenizer", where)
			if err != nil {
				return nil, err
			}
			if !ok {
				return nil, invalid(where+".tokenizer", "A custom analyzer needs a tokenizer.")
			}
			bt, ok := tokenizers[tok]
			if !ok {
				return nil, invalid(where+".tokenizer", "The tokenizer '%s' is not defined in the index and is not a predefined tokenizer cerulean serves (%s).", tok, strings.Join(sortedKeys(builtinTokenizers), ", "))
			}
			cfg := map[string]any{"type": "custom", "tokenizer": bt, "token_filters": []any{}, "char_filters": []any{}}
			fs, err := getStrings(c, "tokenFilters", where)
			if err != nil {
				return nil, err
			}
			for _, f := range fs {
				bf, ok := filters[f]
				if !ok {
					return nil, invalid(where+".tokenFilters", "The token filter '%s' is not defined in the index and is not a predefined token filter cerulean serves (%s).", f, strings.Join(sortedKeys(builtinTokenFilters), ", "))
				}
				cfg["token_filters"] = append(cfg["token_filters"].([]any), bf)
			}
			cs, err := getStrings(c, "charFilters", where)
			if err != nil {
				return nil, err
			}
			for _, f := range cs {
				bf, ok := chars[f]
				if !ok {
					return nil, invalid(where+".charFilters", "The char filter '%s' is not defined in the index and is not a predefined char filter cerulean serves (%s).", f, strings.Join(sortedKeys(builtinCharFilters), ", "))
				}
				cfg["char_filters"] = append(cfg["char_filters"].([]any), bf)
			}
			c["tokenFilters"], c["charFilters"] = stringsToAny(fs), stringsToAny(cs)
			a.Analyzers[bn] = cfg
		case "StandardAnalyzer", "StopAnalyzer":
			words, err := getStrings(c, "stopwords", where)
			if err != nil {
				return nil, err
			}
			if n, _, err := getInt(c, "maxTokenLength", where, 1, 300); err != nil {
				return nil, err
			} else if n != 0 && n != 255 {
				return nil, invalid(where+".maxTokenLength", "cerulean serves the standard analyzer with the default maxTokenLength (255) only.")
			}
			tokenizer := "unicode"
			if typ == "StopAnalyzer" {
				tokenizer = "letter"
			}
			cfg := map[string]any{"type": "custom", "tokenizer": tokenizer, "token_filters": []any{"to_lower"}}
			if len(words) > 0 {
				a.TokenMaps[bn] = map[string]any{"type": "custom", "tokens": stringsToAny(words)}
				a.TokenFilters[bn] = map[string]any{"type": "stop_tokens", "stop_token_map": bn}
				cfg["token_filters"] = []any{"to_lower", bn}
			} else if typ == "StopAnalyzer" {
				cfg["token_filters"] = []any{"to_lower", "stop_en"}
			}
			a.Analyzers[bn] = cfg
		default:
			return nil, unservable(where, "analyzer", c["@odata.type"])
		}
		a.Analyzer[name] = bn
	}

	normalizerDefs, err := getObjects(def, "normalizers", "index")
	if err != nil {
		return nil, err
	}
	for i, c := range normalizerDefs {
		where := fmt.Sprintf("index.normalizers[%d]", i)
		name, typ, err := component(where, c)
		if err != nil {
			return nil, err
		}
		if typ != "CustomNormalizer" {
			return nil, unservable(where, "normalizer", c["@odata.type"])
		}
		cfg := map[string]any{"type": "custom", "tokenizer": "single", "token_filters": []any{}, "char_filters": []any{}}
		fs, err := getStrings(c, "tokenFilters", where)
		if err != nil {
			return nil, err
		}
		for _, f := range fs {
			if f != "lowercase" {
				return nil, invalid(where+".tokenFilters", "cerulean serves normalizers with the 'lowercase' token filter only, not '%s'.", f)
			}
			cfg["token_filters"] = append(cfg["token_filters"].([]any), "to_lower")
		}
		cs, err := getStrings(c, "charFilters", where)
		if err != nil {
			return nil, err
		}
		for _, f := range cs {
			bf, ok := chars[f]
			if !ok {
				return nil, invalid(where+".charFilters", "The char filter '%s' is not defined in the index and is not a predefined char filter cerulean serves.", f)
			}
			cfg["char_filters"] = append(cfg["char_filters"].([]any), bf)
		}
		bn := bleveName("normalizer", name)
		a.Analyzers[bn] = cfg
		a.Normalizer[name] = bn
	}
	return a, nil
}

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

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	return keys
}
