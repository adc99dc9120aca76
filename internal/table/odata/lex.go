package odata

import (
	"encoding/hex"
	"fmt"
	"math"
	"strconv"
	"strings"
	"unicode"
	"unicode/utf8"
)

type tokKind uint8

const (
	tEOF tokKind = iota
	tLParen
	tRParen
	tIdent   // a property name or a keyword
	tLiteral // a typed constant
)

type token struct {
	kind tokKind
	pos  int    // byte offset in the filter
	text string // the source text
	val  Value  // for tLiteral
}

func (t token) String() string {
	switch t.kind {
	case tEOF:
		return "end of filter"
	case tLParen:
		return "'('"
	case tRParen:
		return "')'"
	}
	return fmt.Sprintf("%q", t.text)
}

// lex splits a filter into tokens, decoding literals as it goes:
//
//	'text'                 String ('' is a quote)
//	123, -5                Int32 (too large for Int32 is an error: Int64 needs its L)
//	123L                   Int64
//	1.5, 2e3, 7D           Double
//	true, false            Boolean, in any case (True, FALSE), as Azure reads them
//	datetime'2024-01-02T03:04:05Z'
//	guid'c9da6455-213d-42c9-9a79-3e9149a57833'
//	X'0aff', binary'0aff'  Binary (hexadecimal)
func lex(s string) ([]token, error) {
	var toks []token
	i := 0
	for i < len(s) {
		c := s[i]
		switch {
		case c == ' ' || c == '\t' || c == '\r' || c == '\n':
			i++
		case c == '(':
			toks = append(toks, token{kind: tLParen, pos: i, text: "("})
			i++
		case c == ')':
			toks = append(toks, token{kind: tRParen, pos: i, text: ")"})
			i++
		case c == '\'':
			text, end, err := quoted(s, i)
			if err != nil {
				return nil, err
			}
			toks = append(toks, token{kind: tLiteral, pos: i, text: s[i:end], val: StringValue(text)})
			i = end
		case c >= '0' && c <= '9' || c == '-' && i+1 < len(s) && s[i+1] >= '0' && s[i+1] <= '9':
			t, end, err := number(s, i)
			if err != nil {
				return nil, err
			}
			toks = append(toks, t)
			i = end
		default:
			r, _ := utf8.DecodeRuneInString(s[i:])
			if !isIdentStart(r) {
				return nil, fmt.Errorf("%w: at offset %d: unexpected character %q", ErrSyntax, i, r)
			}
			end := identEnd(s, i)
			word := s[i:end]
			if end < len(s) && s[end] == '\'' {
				t, next, err := typedLiteral(s, i, word, end)
				if err != nil {
					return nil, err
				}
				toks = append(toks, t)
				i = next
				continue
			}
			switch lw := strings.ToLower(word); lw {
			case "true", "false":
				toks = append(toks, token{kind: tLiteral, pos: i, text: word, val: BoolValue(lw == "true")})
			default:
				toks = append(toks, token{kind: tIdent, pos: i, text: word})
			}
			i = end
		}
	}
	return append(toks, token{kind: tEOF, pos: len(s)}), nil
}

func isIdentStart(r rune) bool { return r == '_' || unicode.IsLetter(r) }

func identEnd(s string, i int) int {
	for i < len(s) {
		r, size := utf8.DecodeRuneInString(s[i:])
		if r != '_' && !unicode.IsLetter(r) && !unicode.IsDigit(r) {
			break
		}
		i += size
	}
	return i
}

// quoted reads the quoted text starting at the quote s[i] and returns it
// unescaped with the offset after the closing quote.
func quoted(s string, i int) (string, int, error) {
	var b strings.Builder
	for j := i + 1; j < len(s); j++ {
		if s[j] != '\'' {
			b.WriteByte(s[j])
			continue
		}
		if j+1 < len(s) && s[j+1] == '\'' {
			b.WriteByte('\'')
			j++
			continue
		}
		return b.String(), j + 1, nil
	}
	return "", 0, fmt.Errorf("%w: at offset %d: unterminated string literal", ErrSyntax, i)
}

func typedLiteral(s string, start int, prefix string, quote int) (token, int, error) {
	text, end, err := quoted(s, quote)
	if err != nil {
		return token{}, 0, err
	}
	t := token{kind: tLiteral, pos: start, text: s[start:end]}
	bad := func(what string) (token, int, error) {
		return token{}, 0, fmt.Errorf("%w: at offset %d: %s is not a valid %s literal", ErrSyntax, start, t.text, what)
	}
	switch prefix {
	case "datetime":
		ticks, err := ParseDateTime(text)
		if err != nil {
			return bad("datetime")
		}
		t.val = DateTimeValue(ticks)
	case "guid":
		v, err := ParseGuid(text)
		if err != nil {
			return bad("guid")
		}
		t.val = v
	case "X", "binary":
		b, err := hex.DecodeString(text)
		if err != nil {
			return bad("binary")
		}
		t.val = BinaryValue(b)
	default:
		return token{}, 0, fmt.Errorf("%w: at offset %d: unknown literal type %q", ErrSyntax, start, prefix)
	}
	if end < len(s) && isWordByte(s[end]) {
		return token{}, 0, fmt.Errorf("%w: at offset %d: literal %s runs into %q", ErrSyntax, start, t.text, s[end:])
	}
	return t, end, nil
}

func isWordByte(c byte) bool {
	return c == '_' || c == '\'' || c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= 0x80
}

// number reads a numeric literal: an optional minus, digits, an optional
// fraction and exponent, and an optional L (Int64) or D (Double) suffix.
func number(s string, i int) (token, int, error) {
	j := i
	if s[j] == '-' {
		j++
	}
	digits := func() int {
		n := 0
		for j < len(s) && s[j] >= '0' && s[j] <= '9' {
			j++
			n++
		}
		return n
	}
	digits()
	isFloat := false
	if j < len(s) && s[j] == '.' {
		j++
		if digits() == 0 {
			return token{}, 0, fmt.Errorf("%w: at offset %d: digits must follow the decimal point", ErrSyntax, i)
		}
		isFloat = true
	}
	if j < len(s) && (s[j] == 'e' || s[j] == 'E') {
		j++
		if j < len(s) && (s[j] == '+' || s[j] == '-') {
			j++
		}
		if digits() == 0 {
			return token{}, 0, fmt.Errorf("%w: at offset %d: digits must follow the exponent", ErrSyntax, i)
		}
		isFloat = true
	}
	num := s[i:j]
	suffix := byte(0)
	if j < len(s) && strings.IndexByte("LlDd", s[j]) >= 0 {
		suffix = s[j] | 0x20 // lower case
		j++
	}
	t := token{kind: tLiteral, pos: i, text: s[i:j]}
	if j < len(s) && isWordByte(s[j]) {
		return token{}, 0, fmt.Errorf("%w: at offset %d: malformed number %q", ErrSyntax, i, s[i:identEnd(s, j)])
	}
	switch {
	case suffix == 'l':
		if isFloat {
			return token{}, 0, fmt.Errorf("%w: at offset %d: %s: an Int64 literal cannot have a fraction", ErrSyntax, i, t.text)
		}
		n, err := strconv.ParseInt(num, 10, 64)
		if err != nil {
			return token{}, 0, fmt.Errorf("%w: at offset %d: %s is out of range for Int64", ErrSyntax, i, t.text)
		}
		t.val = Int64Value(n)
	case suffix == 'd' || isFloat:
		f, err := strconv.ParseFloat(num, 64)
		if err != nil || math.IsInf(f, 0) {
			return token{}, 0, fmt.Errorf("%w: at offset %d: %s is out of range for Double", ErrSyntax, i, t.text)
		}
		t.val = DoubleValue(f)
	default:
		// An integer without a suffix is an Edm.Int32; Azure refuses one
		// out of its range ("Unrecognized 'Edm.Int32' literal
		// '5454161346626'", a 400 reported against Azure in
		// microsoft/AzureStorageExplorer issue #1382) rather than reading
		// it as an Int64.
		n, err := strconv.ParseInt(num, 10, 32)
		if err != nil {
			return token{}, 0, fmt.Errorf("%w: at offset %d: unrecognized Edm.Int32 literal %s (an Int64 literal ends in L)", ErrSyntax, i, t.text)
		}
		t.val = Int32Value(int32(n))
	}
	return t, j, nil
}
