package search

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"unicode"
	"unicode/utf8"

	"github.com/blevesearch/bleve/v2/analysis"
)

// ClassicTokenizer is Lucene's ClassicTokenizer, the grammar Lucene's
// standard tokenizer had before Unicode word breaking: runs of letters
// and digits, words with inner apostrophes (O'Reilly), acronyms
// (U.S.A.), company names (AT&T, Excite@Home), e-mail addresses, host
// names, numbers with inner punctuation (1.2.3, R2-D2) and single
// Chinese or Japanese characters, the rest dropped. A token longer than
// maxTokenLength (255 unless told) is dropped and its position left
// empty, as Lucene does. The service writes maxTokenLength back (the
// Java SDK's recording CustomAnalyzerTests.canCreateAllAnalysisComponentsSync).
type ClassicTokenizer struct {
	ComponentHead
	MaxTokenLength *json.Number `json:"maxTokenLength" shape:"int"`
}

func (*ClassicTokenizer) tokenizer() {}

func (c *ClassicTokenizer) serve(b *analysisBuilder, where string) error {
	n, err := defaultInt(c.MaxTokenLength, where+".maxTokenLength", 1, 300, 255)
	if err != nil {
		return err
	}
	c.MaxTokenLength = number(fmt.Sprint(n))
	bn := bleveName("tokenizer", c.Name)
	b.a.Tokenizers[bn] = map[string]any{"type": classicTokenizerName, "max": float64(n)}
	b.tokenizers[c.Name] = bn
	return nil
}

// The classic grammar's token types that its filter reads.
const (
	classicApostrophe analysis.TokenType = 1000 + iota
	classicAcronym
)

// classicTokenizerName and classicFilterName are the bleve tokenizer and
// token filter that serve the classic tokenizer and the predefined
// classic filter.
const (
	classicTokenizerName = "cerulean_classic"
	classicFilterName    = "cerulean_classic_filter"
)

// classicRule is one rule of the grammar, over the text written as one
// class symbol per character (classicSymbol).
type classicRule struct {
	r   *regexp.Regexp
	typ analysis.TokenType
	// dep is the deprecated acronym rule, whose final dot the tokenizer
	// drops from the term.
	dep bool
}

// classicRules are the grammar's rules in its order, which breaks ties
// between matches of one length. L is a letter, T a Thai character that
// is neither a letter nor a digit, D a digit, C a Chinese or Japanese
// character; punctuation stands for itself.
var classicRules = func() []classicRule {
	const (
		alnum    = `[LTD]+`
		alpha    = `L+`
		hasDigit = `[LD]*D[LD]*`
		punct    = `[_\-/.,]`
	)
	num := `(?:` + alnum + punct + hasDigit +
		`|` + hasDigit + punct + alnum +
		`|` + alnum + `(?:` + punct + hasDigit + punct + alnum + `)+` +
		`|` + hasDigit + `(?:` + punct + alnum + punct + hasDigit + `)+` +
		`|` + alnum + punct + hasDigit + `(?:` + punct + alnum + punct + hasDigit + `)+` +
		`|` + hasDigit + punct + alnum + `(?:` + punct + hasDigit + punct + alnum + `)+)`
	rules := []struct {
		expr string
		typ  analysis.TokenType
		dep  bool
	}{
		{alnum, analysis.AlphaNumeric, false},
		{alpha + `(?:'` + alpha + `)+`, classicApostrophe, false},
		{`L\.(?:L\.)+`, classicAcronym, false},
		{alpha + `[&@]` + alpha, analysis.AlphaNumeric, false},
		{alnum + `(?:[._\-]` + alnum + `)*@` + alnum + `(?:[.\-]` + alnum + `)+`, analysis.AlphaNumeric, false},
		{alnum + `(?:\.` + alnum + `)+`, analysis.AlphaNumeric, false},
		{num, analysis.Numeric, false},
		{`C`, analysis.Ideographic, false},
		{alnum + `\.(?:` + alnum + `\.)+`, analysis.AlphaNumeric, true},
	}
	out := make([]classicRule, len(rules))
	for i, r := range rules {
		re := regexp.MustCompile(`\A(?:` + r.expr + `)`)
		re.Longest()
		out[i] = classicRule{r: re, typ: r.typ, dep: r.dep}
	}
	return out
}()

// classicCJ is the grammar's Chinese and Japanese characters, which are
// tokens of their own and not letters.
var classicCJ = &unicode.RangeTable{R16: []unicode.Range16{
	{Lo: 0x3040, Hi: 0x309f, Stride: 1}, {Lo: 0x30a0, Hi: 0x30ff, Stride: 1}, {Lo: 0x3100, Hi: 0x312f, Stride: 1},
	{Lo: 0x31f0, Hi: 0x31ff, Stride: 1}, {Lo: 0x3300, Hi: 0x337f, Stride: 1}, {Lo: 0x3400, Hi: 0x4dbf, Stride: 1},
	{Lo: 0x4e00, Hi: 0x9fff, Stride: 1}, {Lo: 0xf900, Hi: 0xfaff, Stride: 1}, {Lo: 0xff65, Hi: 0xff9f, Stride: 1},
}}

// classicSymbol is the grammar's class of r.
func classicSymbol(r rune) byte {
	switch {
	case unicode.Is(classicCJ, r):
		return 'C'
	case unicode.IsLetter(r):
		return 'L'
	case unicode.IsDigit(r):
		return 'D'
	case r >= 0x0e00 && r <= 0x0e59:
		return 'T'
	case r < utf8.RuneSelf && bytes.IndexByte([]byte("_-/.,'&@"), byte(r)) >= 0:
		return byte(r)
	}
	return ' '
}

type classicTokenizer struct{ max int }

func (c classicTokenizer) Tokenize(input []byte) analysis.TokenStream {
	// symbols has one class per character; at maps a symbol's index to
	// its character's byte offset, one past the end included.
	var symbols []byte
	var at []int
	for i := 0; i < len(input); {
		r, size := utf8.DecodeRune(input[i:])
		symbols = append(symbols, classicSymbol(r))
		at = append(at, i)
		i += size
	}
	at = append(at, len(input))
	var out analysis.TokenStream
	position := 0
	for i := 0; i < len(symbols); {
		best, length := -1, 0
		for k, rule := range classicRules {
			if m := rule.r.FindIndex(symbols[i:]); m != nil && m[1] > length {
				best, length = k, m[1]
			}
		}
		if best < 0 {
			i++
			continue
		}
		start, end := at[i], at[i+length]
		i += length
		position++
		if utf16Len(input[start:end]) > c.max {
			continue
		}
		rule := classicRules[best]
		term := input[start:end]
		if rule.dep {
			term = term[:len(term)-1]
		}
		out = append(out, &analysis.Token{Term: bytes.Clone(term), Start: start, End: end, Position: position, Type: rule.typ})
	}
	return out
}

// classicFilter is Lucene's ClassicFilter: it removes a final 's from
// words with apostrophes and the dots from acronyms, as the classic
// tokenizer typed them.
func classicFilter(in analysis.TokenStream) analysis.TokenStream {
	for _, t := range in {
		switch t.Type {
		case classicApostrophe:
			if n := len(t.Term); n >= 2 && t.Term[n-2] == '\'' && (t.Term[n-1] == 's' || t.Term[n-1] == 'S') {
				t.Term = t.Term[:n-2]
			}
		case classicAcronym:
			t.Term = bytes.ReplaceAll(t.Term, []byte("."), nil)
		}
	}
	return in
}

func init() {
	registerTokenizer(classicTokenizerName, func(config map[string]any) (analysis.Tokenizer, error) {
		n, ok := config["max"].(float64)
		if !ok || n < 1 {
			return nil, errors.New("no max")
		}
		return classicTokenizer{max: int(n)}, nil
	})
	registerTokenFilter(classicFilterName, func(map[string]any) (analysis.TokenFilter, error) {
		return tokenFilterFunc(classicFilter), nil
	})
}
