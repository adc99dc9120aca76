package search

import (
	"fmt"
	"strings"

	"github.com/blevesearch/bleve/v2/analysis"
	"github.com/blevesearch/bleve/v2/registry"
	"github.com/blevesearch/snowballstem"
	"github.com/blevesearch/snowballstem/danish"
	"github.com/blevesearch/snowballstem/dutch"
	"github.com/blevesearch/snowballstem/english"
	"github.com/blevesearch/snowballstem/finnish"
	"github.com/blevesearch/snowballstem/french"
	"github.com/blevesearch/snowballstem/german"
	"github.com/blevesearch/snowballstem/hungarian"
	"github.com/blevesearch/snowballstem/italian"
	"github.com/blevesearch/snowballstem/norwegian"
	"github.com/blevesearch/snowballstem/porter"
	"github.com/blevesearch/snowballstem/portuguese"
	"github.com/blevesearch/snowballstem/romanian"
	"github.com/blevesearch/snowballstem/russian"
	"github.com/blevesearch/snowballstem/spanish"
	"github.com/blevesearch/snowballstem/swedish"
	"github.com/blevesearch/snowballstem/turkish"
)

// SnowballTokenFilter stems each token with the Snowball stemmer of a
// language (Lucene's SnowballFilter), leaving keywords as they are.
type SnowballTokenFilter struct {
	ComponentHead
	Language *string `json:"language"`
}

// StemmerTokenFilter stems each token with a language's stemmer (Lucene's
// stemmer filters), leaving keywords as they are. cerulean serves the
// languages whose name says which Lucene stemmer they are.
type StemmerTokenFilter struct {
	ComponentHead
	Language *string `json:"language"`
}

// StemmerOverrideTokenFilter replaces the tokens its rules name ("ran =>
// run", "mice, lice => mouse") and marks them as keywords, so that a
// stemmer after it leaves them alone (Lucene's StemmerOverrideFilter).
type StemmerOverrideTokenFilter struct {
	ComponentHead
	Rules []string `json:"rules"`
}

func (*SnowballTokenFilter) tokenFilter()        {}
func (*StemmerTokenFilter) tokenFilter()         {}
func (*StemmerOverrideTokenFilter) tokenFilter() {}

// snowballStemmers are the Snowball languages the service names that
// cerulean has the stemmer of; armenian, basque, catalan, german2, kp
// and lovins it has not.
var snowballStemmers = map[string]func(*snowballstem.Env) bool{
	"danish": danish.Stem, "dutch": dutch.Stem, "english": english.Stem, "finnish": finnish.Stem,
	"french": french.Stem, "german": german.Stem, "hungarian": hungarian.Stem, "italian": italian.Stem,
	"norwegian": norwegian.Stem, "porter": porter.Stem, "portuguese": portuguese.Stem,
	"romanian": romanian.Stem, "russian": russian.Stem, "spanish": spanish.Stem, "swedish": swedish.Stem,
	"turkish": turkish.Stem,
}

// stemmerLanguages are the StemmerTokenFilter languages cerulean serves,
// each the Lucene stemmer its name names: porter2 is Snowball's English;
// the light and minimal ones are Lucene's stemmers of those names (which
// bleve carries); possessiveEnglish is Lucene's EnglishPossessiveFilter.
// Names that Lucene has more than one stemmer for (english, french,
// german and the other plain language names) are refused rather than
// guessed at.
var stemmerLanguages = map[string]map[string]any{
	"porter2":           {"type": snowballFilterName, "language": "english"},
	"possessiveEnglish": {"type": possessiveFilterName},
	"lightFrench":       {"type": keywordAwareFilterName, "stemmer": "stemmer_fr_light"},
	"minimalFrench":     {"type": keywordAwareFilterName, "stemmer": "stemmer_fr_min"},
	"lightGerman":       {"type": keywordAwareFilterName, "stemmer": "stemmer_de_light"},
	"lightSpanish":      {"type": keywordAwareFilterName, "stemmer": "stemmer_es_light"},
	"lightItalian":      {"type": keywordAwareFilterName, "stemmer": "stemmer_it_light"},
	"lightPortuguese":   {"type": keywordAwareFilterName, "stemmer": "stemmer_pt_light"},
	"hindi":             {"type": keywordAwareFilterName, "stemmer": "stemmer_hi"},
	"sorani":            {"type": keywordAwareFilterName, "stemmer": "stemmer_ckb"},
}

func (c *SnowballTokenFilter) serve(b *analysisBuilder, where string) error {
	lang := deref(c.Language)
	if _, ok := snowballStemmers[lang]; !ok {
		return invalid(where+".language", "The Snowball language '%s' is not one cerulean has a stemmer for (%s).", lang, strings.Join(sortedKeys(snowballStemmers), ", "))
	}
	return b.filter(c.Name, map[string]any{"type": snowballFilterName, "language": lang})
}

func (c *StemmerTokenFilter) serve(b *analysisBuilder, where string) error {
	lang := deref(c.Language)
	cfg, ok := stemmerLanguages[lang]
	if !ok {
		return invalid(where+".language", "The stemmer language '%s' is not one cerulean serves (%s).", lang, strings.Join(sortedKeys(stemmerLanguages), ", "))
	}
	return b.filter(c.Name, cfg)
}

func (c *StemmerOverrideTokenFilter) serve(b *analysisBuilder, where string) error {
	if len(c.Rules) == 0 {
		return invalid(where+".rules", "At least one rule is required.")
	}
	if _, err := stemmerOverrides(c.Rules); err != nil {
		return invalid(where+".rules", "%v", err)
	}
	return b.filter(c.Name, map[string]any{"type": stemmerOverrideFilterName, "rules": stringsToAny(c.Rules)})
}

// stemmerOverrides reads rules "word, word => stem" into a map.
func stemmerOverrides(rules []string) (map[string]string, error) {
	out := map[string]string{}
	for _, r := range rules {
		words, stem, ok := strings.Cut(r, "=>")
		stem = strings.TrimSpace(stem)
		if !ok || stem == "" {
			return nil, fmt.Errorf("the rule '%s' is not of the form 'word => stem'", r)
		}
		for w := range strings.SplitSeq(words, ",") {
			if w = strings.TrimSpace(w); w == "" {
				return nil, fmt.Errorf("the rule '%s' has an empty word", r)
			}
			if _, dup := out[w]; !dup {
				out[w] = stem
			}
		}
	}
	return out, nil
}

// The bleve token filters of this file.
const (
	snowballFilterName        = "cerulean_snowball"
	possessiveFilterName      = "cerulean_possessive_english"
	keywordAwareFilterName    = "cerulean_keyword_aware"
	stemmerOverrideFilterName = "cerulean_stemmer_override"
)

// stemTokens replaces each token that is not a keyword with stem of it.
func stemTokens(in analysis.TokenStream, stem func(string) string) analysis.TokenStream {
	for _, t := range in {
		if !t.KeyWord {
			t.Term = []byte(stem(string(t.Term)))
		}
	}
	return in
}

// possessive removes a final 's (the apostrophe ASCII, U+2019 or U+FF07,
// the s either case), as Lucene's EnglishPossessiveFilter does.
func possessive(term string) string {
	for _, a := range []string{"'", "\u2019", "\uff07"} {
		for _, s := range []string{"s", "S"} {
			if t, ok := strings.CutSuffix(term, a+s); ok {
				return t
			}
		}
	}
	return term
}

func init() {
	registerTokenFilter(snowballFilterName, func(config map[string]any) (analysis.TokenFilter, error) {
		lang, _ := config["language"].(string)
		stem, ok := snowballStemmers[lang]
		if !ok {
			return nil, fmt.Errorf("no Snowball stemmer for %q", lang)
		}
		return tokenFilterFunc(func(in analysis.TokenStream) analysis.TokenStream {
			return stemTokens(in, func(w string) string {
				env := snowballstem.NewEnv(w)
				stem(env)
				return env.Current()
			})
		}), nil
	})
	registerTokenFilter(possessiveFilterName, func(map[string]any) (analysis.TokenFilter, error) {
		return tokenFilterFunc(func(in analysis.TokenStream) analysis.TokenStream { return stemTokens(in, possessive) }), nil
	})
	registerTokenFilter(stemmerOverrideFilterName, func(config map[string]any) (analysis.TokenFilter, error) {
		rules, err := configStrings(config, "rules")
		if err != nil {
			return nil, err
		}
		stems, err := stemmerOverrides(rules)
		if err != nil {
			return nil, err
		}
		return tokenFilterFunc(func(in analysis.TokenStream) analysis.TokenStream {
			for _, t := range in {
				if s, ok := stems[string(t.Term)]; ok && !t.KeyWord {
					t.Term, t.KeyWord = []byte(s), true
				}
			}
			return in
		}), nil
	})
	// keywordAware runs a bleve stemmer over the tokens that are not
	// keywords only (bleve's light stemmers stem every token).
	err := registry.RegisterTokenFilter(keywordAwareFilterName, func(config map[string]any, cache *registry.Cache) (analysis.TokenFilter, error) {
		name, _ := config["stemmer"].(string)
		inner, err := cache.TokenFilterNamed(name)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", keywordAwareFilterName, err)
		}
		return tokenFilterFunc(func(in analysis.TokenStream) analysis.TokenStream {
			var stem analysis.TokenStream
			for _, t := range in {
				if !t.KeyWord {
					stem = append(stem, t)
				}
			}
			if len(stem) > 0 {
				inner.Filter(stem)
			}
			return in
		}), nil
	})
	if err != nil {
		panic(err)
	}
}
