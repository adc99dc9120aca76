package search

import (
	"context"
	"unicode/utf16"
	"unicode/utf8"
)

// AnalyzeRequest is the body of Analyze Text: the text, and either an
// analyzer or normalizer, or a tokenizer with token and char filters, by
// the names an index's fields may use (predefined, or the index's own).
type AnalyzeRequest struct {
	Text         string   `json:"text"`
	Analyzer     *string  `json:"analyzer"`
	Tokenizer    *string  `json:"tokenizer"`
	Normalizer   *string  `json:"normalizer"`
	TokenFilters []string `json:"tokenFilters"`
	CharFilters  []string `json:"charFilters"`
}

// AnalyzedToken is one token Analyze Text answers: its text, where it was
// in the input (offsets in UTF-16 code units, as the service counts them,
// end exclusive) and its position, from 0.
type AnalyzedToken struct {
	Token       string `json:"token"`
	StartOffset int    `json:"startOffset"`
	EndOffset   int    `json:"endOffset"`
	Position    int    `json:"position"`
}

// adHocAnalyzer is the bleve name of the analyzer a request's tokenizer
// and filters make.
const adHocAnalyzer = "azure.analyze"

// Analyze runs req over the analysis of index name, as the index would
// when indexing (Analyze Text; the Java SDK's recording
// CustomAnalyzerTests.canAnalyzeSync: "One two" through "whitespace" is
// One 0–3 at 0 and two 4–7 at 1; "One's <two/>" through "whitespace" with
// "apostrophe" and "html_strip" is One 0–5 at 0).
func (s *Service) Analyze(ctx context.Context, name string, req AnalyzeRequest) ([]AnalyzedToken, error) {
	res, err := s.Get(ctx, Indexes, name)
	if err != nil {
		return nil, err
	}
	ix, err := ParseIndex(res.Definition)
	if err != nil {
		return nil, err
	}
	b, err := ix.analysisBuilder()
	if err != nil {
		return nil, err
	}
	bn, err := b.analyzeWith(req)
	if err != nil {
		return nil, err
	}
	m, err := analysisMapping(b.a)
	if err != nil {
		return nil, err
	}
	az := m.AnalyzerNamed(bn)
	if az == nil {
		return nil, invalid("analyzer", "The analyzer cannot be served.")
	}
	units := utf16Offsets(req.Text)
	out := []AnalyzedToken{}
	for _, tok := range az.Analyze([]byte(req.Text)) {
		out = append(out, AnalyzedToken{Token: string(tok.Term), StartOffset: units(tok.Start), EndOffset: units(tok.End), Position: tok.Position - 1})
	}
	return out, nil
}

// analyzeWith resolves what req names to a bleve analyzer name, making one
// for a tokenizer and its filters.
func (b *analysisBuilder) analyzeWith(req AnalyzeRequest) (string, error) {
	given := 0
	for _, p := range []*string{req.Analyzer, req.Tokenizer, req.Normalizer} {
		if p != nil {
			given++
		}
	}
	if given != 1 {
		return "", invalid("request", "Specify exactly one of analyzer, tokenizer or normalizer.")
	}
	if req.Tokenizer == nil && (len(req.TokenFilters) > 0 || len(req.CharFilters) > 0) {
		return "", invalid("request", "Token filters and char filters can be given only with a tokenizer.")
	}
	switch {
	case req.Analyzer != nil:
		bn, ok := b.a.Analyzer[*req.Analyzer]
		if !ok {
			return "", invalid("analyzer", "The analyzer '%s' is not defined in the index and is not a predefined analyzer cerulean serves.", *req.Analyzer)
		}
		return bn, nil
	case req.Normalizer != nil:
		bn, ok := b.a.Normalizer[*req.Normalizer]
		if !ok {
			return "", invalid("normalizer", "The normalizer '%s' is not defined in the index and is not a predefined normalizer cerulean serves.", *req.Normalizer)
		}
		return bn, nil
	}
	bt, ok := b.tokenizerNamed(*req.Tokenizer)
	if !ok {
		return "", invalid("tokenizer", "The tokenizer '%s' is not defined in the index and is not a predefined tokenizer cerulean serves.", *req.Tokenizer)
	}
	filters, err := resolve(req.TokenFilters, b.tokenFilterNamed, func(f string) error {
		return invalid("tokenFilters", "The token filter '%s' is not defined in the index and is not a predefined token filter cerulean serves.", f)
	})
	if err != nil {
		return "", err
	}
	chars, err := resolve(req.CharFilters, b.charFilterNamed, func(f string) error {
		return invalid("charFilters", "The char filter '%s' is not defined in the index and is not a predefined char filter cerulean serves.", f)
	})
	if err != nil {
		return "", err
	}
	b.a.Analyzers[adHocAnalyzer] = b.customAnalyzerConfig(bt, filters, chars)
	return adHocAnalyzer, nil
}

// utf16Offsets maps byte offsets into text (at rune starts) to offsets
// in UTF-16 code units, counted once for the whole text.
func utf16Offsets(text string) func(int) int {
	units := make([]int, len(text)+1)
	n := 0
	for i := 0; i < len(text); {
		r, size := utf8.DecodeRuneInString(text[i:])
		for k := i; k < i+size; k++ {
			units[k] = n
		}
		n += utf16.RuneLen(r)
		i += size
	}
	units[len(text)] = n
	return func(byteOffset int) int { return units[min(max(byteOffset, 0), len(text))] }
}
