package search

import (
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"github.com/blevesearch/bleve/v2/analysis"
)

// NGramTokenizer is Lucene's n-gram tokenizer (NGramTokenizer), or its
// edge n-gram tokenizer (EdgeNGramTokenizer), which keeps only the grams
// at the start of each word. A word is a run of the characters of the
// kinds tokenChars names (letter, digit, whitespace, punctuation,
// symbol), every character when it names none. The service writes
// minGram, maxGram and tokenChars back, with the defaults 1, 2 and []
// filled in (the Java SDK's recording
// CustomAnalyzerTests.canCreateAllAnalysisComponentsSync).
type NGramTokenizer struct {
	ComponentHead
	MinGram    *json.Number `json:"minGram" shape:"int"`
	MaxGram    *json.Number `json:"maxGram" shape:"int"`
	TokenChars []string     `json:"tokenChars"`
}

func (*NGramTokenizer) tokenizer() {}

// tokenCharKinds are the kinds of characters tokenChars may name, as
// Java's Character classifies them.
var tokenCharKinds = map[string]func(rune) bool{
	"letter":      unicode.IsLetter,
	"digit":       unicode.IsDigit,
	"whitespace":  javaWhitespace,
	"punctuation": unicode.IsPunct,
	"symbol":      unicode.IsSymbol,
}

// javaWhitespace is Java's Character.isWhitespace: the Unicode space,
// line and paragraph separators other than the no-break spaces, and the
// ASCII controls \t \n \v \f \r and \x1c to \x1f.
func javaWhitespace(r rune) bool {
	switch r {
	case '\u00a0', '\u2007', '\u202f':
		return false
	case '\t', '\n', '\v', '\f', '\r', '\x1c', '\x1d', '\x1e', '\x1f':
		return true
	}
	return unicode.In(r, unicode.Zs, unicode.Zl, unicode.Zp)
}

func (c *NGramTokenizer) serve(b *analysisBuilder, where string) error {
	minGram, maxGram, err := intRange(where, "minGram", "maxGram", c.MinGram, c.MaxGram, 1, 300, 1, 2)
	if err != nil {
		return err
	}
	for i, k := range c.TokenChars {
		if _, ok := tokenCharKinds[k]; !ok {
			return invalid(at(where+".tokenChars", i), "The token character kind '%s' is not one of %s.", k, strings.Join(sortedKeys(tokenCharKinds), ", "))
		}
	}
	c.MinGram, c.MaxGram = number(fmt.Sprint(minGram)), number(fmt.Sprint(maxGram))
	c.TokenChars = orEmpty(c.TokenChars)
	bn := bleveName("tokenizer", c.Name)
	b.a.Tokenizers[bn] = ngramTokenizerConfig(minGram, maxGram, localType(c.ODataType) == "EdgeNGramTokenizer", c.TokenChars)
	b.tokenizers[c.Name] = bn
	return nil
}

func ngramTokenizerConfig(minGram, maxGram int64, edge bool, tokenChars []string) map[string]any {
	return map[string]any{"type": ngramTokenizerName, "min": float64(minGram), "max": float64(maxGram), "edge": edge, "token_chars": stringsToAny(tokenChars)}
}

// ngramTokenizerName is the bleve tokenizer that serves NGramTokenizer.
const ngramTokenizerName = "cerulean_ngram_tokenizer"

type ngramTokenizer struct {
	min, max int
	edge     bool
	// inWord is whether a character belongs to a word; nil when every
	// character does.
	inWord func(rune) bool
}

// Tokenize emits, for each word, its grams by where they start, then by
// length, each at the next position (the recording
// CustomAnalyzerTests.canAnalyzeWithAllPossibleNamesSync: "One two"
// through the predefined nGram is O, On, n, ne, e, "e ", " ", " t", t,
// tw, w, wo, o at positions 0 to 12; through edgeNGram it is O, On).
func (t ngramTokenizer) Tokenize(input []byte) analysis.TokenStream {
	var out analysis.TokenStream
	// starts holds the byte offset of each character of the current
	// word, and one past its end.
	var starts []int
	flush := func() {
		n := len(starts) - 1
		for i := range n {
			if t.edge && i > 0 {
				break
			}
			for size := t.min; size <= t.max && i+size <= n; size++ {
				s, e := starts[i], starts[i+size]
				out = append(out, &analysis.Token{Term: slices.Clone(input[s:e]), Start: s, End: e, Position: len(out) + 1, Type: analysis.AlphaNumeric})
			}
		}
		starts = starts[:0]
	}
	for i := 0; i < len(input); {
		r, size := utf8.DecodeRune(input[i:])
		if t.inWord == nil || t.inWord(r) {
			if len(starts) == 0 {
				starts = append(starts, i)
			}
			starts = append(starts, i+size)
		} else if len(starts) > 0 {
			flush()
		}
		i += size
	}
	if len(starts) > 0 {
		flush()
	}
	return out
}

func init() {
	registerTokenizer(ngramTokenizerName, func(config map[string]any) (analysis.Tokenizer, error) {
		lo, lok := config["min"].(float64)
		hi, hok := config["max"].(float64)
		edge, _ := config["edge"].(bool)
		if !lok || !hok || lo < 1 || hi < lo {
			return nil, errors.New("bad min or max")
		}
		kinds, err := configStrings(config, "token_chars")
		if err != nil {
			return nil, err
		}
		t := ngramTokenizer{min: int(lo), max: int(hi), edge: edge}
		if len(kinds) > 0 {
			var is []func(rune) bool
			for _, k := range kinds {
				f, ok := tokenCharKinds[k]
				if !ok {
					return nil, fmt.Errorf("no token character kind %q", k)
				}
				is = append(is, f)
			}
			t.inWord = func(r rune) bool {
				for _, f := range is {
					if f(r) {
						return true
					}
				}
				return false
			}
		}
		return t, nil
	})
}

// configStrings is a list of strings of a bleve component's config,
// which holds []any once the mapping has been read back from JSON.
func configStrings(config map[string]any, key string) ([]string, error) {
	switch v := config[key].(type) {
	case nil:
		return nil, nil
	case []string:
		return v, nil
	case []any:
		out := make([]string, len(v))
		for i, x := range v {
			s, ok := x.(string)
			if !ok {
				return nil, fmt.Errorf("%s[%d] is not a string", key, i)
			}
			out[i] = s
		}
		return out, nil
	}
	return nil, fmt.Errorf("%s is not a list of strings", key)
}
