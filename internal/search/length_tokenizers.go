package search

import (
	"bytes"
	"encoding/json"
	"fmt"
	"unicode"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/blevesearch/bleve/v2/analysis"
	"github.com/blevesearch/bleve/v2/registry"
)

// StandardTokenizer is Lucene's standard tokenizer
// (StandardTokenizerV2), or its URL and e-mail aware variant
// (UaxUrlEmailTokenizer). A token longer than maxTokenLength (255 unless
// told; at most 300) is split into pieces of that length, as the
// service documents. The service writes maxTokenLength back (the Java
// SDK's recording CustomAnalyzerTests.canCreateAllAnalysisComponentsSync).
type StandardTokenizer struct {
	ComponentHead
	MaxTokenLength *json.Number `json:"maxTokenLength" shape:"int"`
}

func (*StandardTokenizer) tokenizer() {}

func (c *StandardTokenizer) serve(b *analysisBuilder, where string) error {
	n, err := defaultInt(c.MaxTokenLength, where+".maxTokenLength", 1, 300, 255)
	if err != nil {
		return err
	}
	c.MaxTokenLength = number(fmt.Sprint(n))
	inner := builtinTokenizers["standard_v2"]
	if localType(c.ODataType) == "UaxUrlEmailTokenizer" {
		inner = builtinTokenizers["uax_url_email"]
	}
	bn := bleveName("tokenizer", c.Name)
	b.a.Tokenizers[bn] = map[string]any{"type": maxLengthTokenizerName, "tokenizer": inner, "max": float64(n)}
	b.tokenizers[c.Name] = bn
	return nil
}

// maxLengthTokenizerName is the bleve tokenizer that splits another
// tokenizer's tokens longer than a maximum.
const maxLengthTokenizerName = "cerulean_max_length"

type maxLength struct {
	inner analysis.Tokenizer
	// max is in UTF-16 code units, as Lucene counts characters.
	max int
}

// Tokenize splits each token longer than max characters into pieces of
// max characters (the last shorter), each at the next position.
func (m maxLength) Tokenize(input []byte) analysis.TokenStream {
	in := m.inner.Tokenize(input)
	long := false
	for _, t := range in {
		if len(t.Term) > m.max && utf16Len(t.Term) > m.max {
			long = true
			break
		}
	}
	if !long {
		return in
	}
	out := make(analysis.TokenStream, 0, len(in)+1)
	for _, t := range in {
		start, units := 0, 0
		for i := 0; i < len(t.Term); {
			r, size := utf8.DecodeRune(t.Term[i:])
			if w := utf16.RuneLen(r); units+max(w, 1) > m.max && i > start {
				out = append(out, piece(t, start, i, len(out)))
				start, units = i, 0
			}
			units += max(utf16.RuneLen(r), 1)
			i += size
		}
		out = append(out, piece(t, start, len(t.Term), len(out)))
	}
	return out
}

// piece is bytes [from, to) of t as the token at position n+1, its
// offsets within t's (the term of a tokenizer's token is its text).
func piece(t *analysis.Token, from, to, n int) *analysis.Token {
	return &analysis.Token{Term: t.Term[from:to], Start: t.Start + from, End: t.Start + to, Position: n + 1, Type: t.Type}
}

func utf16Len(b []byte) int {
	n := 0
	for _, r := range string(b) {
		n += max(utf16.RuneLen(r), 1)
	}
	return n
}

// lowerCaseTokenizerName is the bleve tokenizer that serves the
// predefined lowercase tokenizer: Lucene's LowerCaseTokenizer, runs of
// letters each lower-cased character by character (the recording
// CustomAnalyzerTests.canAnalyzeWithAllPossibleNamesSync: "One two" is
// one 0–3 at 0 and two 4–7 at 1).
const lowerCaseTokenizerName = "cerulean_lowercase"

type lowerCase struct{ letters analysis.Tokenizer }

func (l lowerCase) Tokenize(input []byte) analysis.TokenStream {
	out := l.letters.Tokenize(input)
	for _, t := range out {
		t.Term = bytes.Map(unicode.ToLower, t.Term)
	}
	return out
}

func init() {
	err := registry.RegisterTokenizer(maxLengthTokenizerName, func(config map[string]any, cache *registry.Cache) (analysis.Tokenizer, error) {
		name, _ := config["tokenizer"].(string)
		n, ok := config["max"].(float64)
		if !ok || n < 1 {
			return nil, fmt.Errorf("%s: no max", maxLengthTokenizerName)
		}
		inner, err := cache.TokenizerNamed(name)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", maxLengthTokenizerName, err)
		}
		return maxLength{inner: inner, max: int(n)}, nil
	})
	if err != nil {
		panic(err)
	}
	err = registry.RegisterTokenizer(lowerCaseTokenizerName, func(_ map[string]any, cache *registry.Cache) (analysis.Tokenizer, error) {
		letters, err := cache.TokenizerNamed("letter")
		if err != nil {
			return nil, fmt.Errorf("%s: %w", lowerCaseTokenizerName, err)
		}
		return lowerCase{letters: letters}, nil
	})
	if err != nil {
		panic(err)
	}
}
