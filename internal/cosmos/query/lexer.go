package query

import (
	"strconv"
	"strings"
	"unicode/utf8"
)

type tokenKind int

const (
	tokEOF tokenKind = iota
	tokIdent
	tokKeyword // an identifier that is a reserved word; text is upper-cased
	tokNumber
	tokString
	tokParam // @name; text excludes the '@'
	tokOp    // punctuation and operators
)

// token is one lexeme. pos and end are byte offsets into the query text,
// so that the parser can recover an expression's source text for Plan.
type token struct {
	kind tokenKind
	text string  // identifier, keyword (upper-case), operator, or decoded string
	num  float64 // tokNumber
	pos  int
	end  int
}

// keywords are reserved: they cannot be used as identifiers (aliases),
// though they may follow '.' as property names. Matching is
// case-insensitive.
var keywords = map[string]bool{
	"SELECT": true, "FROM": true, "WHERE": true, "AND": true, "OR": true, "NOT": true,
	"IN": true, "BETWEEN": true, "LIKE": true, "ESCAPE": true, "AS": true, "JOIN": true,
	"ORDER": true, "BY": true, "GROUP": true, "ASC": true, "DESC": true, "TOP": true,
	"VALUE": true, "DISTINCT": true, "OFFSET": true, "LIMIT": true, "TRUE": true,
	"FALSE": true, "NULL": true, "UNDEFINED": true, "EXISTS": true, "ARRAY": true,
	"UDF": true,
}

// operators, longest first so that the lexer is greedy.
var operators = []string{
	">>>", "<<", ">>", "<=", ">=", "<>", "!=", "||", "??",
	"=", "<", ">", "+", "-", "*", "/", "%", "&", "|", "^", "~",
	"(", ")", "[", "]", "{", "}", ",", ".", ":", "?",
}

// lex splits text into tokens, ending with a tokEOF token.
func lex(text string) ([]token, error) {
	var toks []token
	i := 0
	for {
		// Skip white space and comments.
		for i < len(text) {
			c := text[i]
			if c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v' {
				i++
				continue
			}
			if strings.HasPrefix(text[i:], "--") {
				for i < len(text) && text[i] != '\n' {
					i++
				}
				continue
			}
			if strings.HasPrefix(text[i:], "/*") {
				end := strings.Index(text[i+2:], "*/")
				if end < 0 {
					return nil, syntaxErrorf(text, i, "unterminated comment")
				}
				i += end + 4
				continue
			}
			break
		}
		if i >= len(text) {
			toks = append(toks, token{kind: tokEOF, pos: i, end: i})
			return toks, nil
		}
		start := i
		c := text[i]
		switch {
		case isIdentStart(c):
			for i < len(text) && isIdentPart(text[i]) {
				i++
			}
			word := text[start:i]
			if up := strings.ToUpper(word); keywords[up] {
				toks = append(toks, token{kind: tokKeyword, text: up, pos: start, end: i})
			} else {
				toks = append(toks, token{kind: tokIdent, text: word, pos: start, end: i})
			}
		case c == '@':
			i++
			for i < len(text) && isIdentPart(text[i]) {
				i++
			}
			if i == start+1 {
				return nil, syntaxErrorf(text, start, "parameter name expected after '@'")
			}
			toks = append(toks, token{kind: tokParam, text: text[start+1 : i], pos: start, end: i})
		case isDigit(c) || (c == '.' && i+1 < len(text) && isDigit(text[i+1])):
			tok, next, err := lexNumber(text, i)
			if err != nil {
				return nil, err
			}
			toks = append(toks, tok)
			i = next
		case c == '\'' || c == '"':
			s, next, err := lexString(text, i)
			if err != nil {
				return nil, err
			}
			toks = append(toks, token{kind: tokString, text: s, pos: start, end: next})
			i = next
		default:
			op := ""
			for _, o := range operators {
				if strings.HasPrefix(text[i:], o) {
					op = o
					break
				}
			}
			if op == "" {
				r, _ := utf8.DecodeRuneInString(text[i:])
				return nil, syntaxErrorf(text, i, "unexpected character %q", r)
			}
			i += len(op)
			toks = append(toks, token{kind: tokOp, text: op, pos: start, end: i})
		}
	}
}

func isIdentStart(c byte) bool {
	return c == '_' || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z')
}

func isIdentPart(c byte) bool { return isIdentStart(c) || isDigit(c) }

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

func lexNumber(text string, i int) (token, int, error) {
	start := i
	if strings.HasPrefix(text[i:], "0x") || strings.HasPrefix(text[i:], "0X") {
		i += 2
		for i < len(text) && strings.IndexByte("0123456789abcdefABCDEF", text[i]) >= 0 {
			i++
		}
		n, err := strconv.ParseUint(text[start+2:i], 16, 64)
		if err != nil {
			return token{}, 0, syntaxErrorf(text, start, "invalid hexadecimal number %q", text[start:i])
		}
		return token{kind: tokNumber, num: float64(n), text: text[start:i], pos: start, end: i}, i, nil
	}
	for i < len(text) && isDigit(text[i]) {
		i++
	}
	if i < len(text) && text[i] == '.' {
		i++
		for i < len(text) && isDigit(text[i]) {
			i++
		}
	}
	if i < len(text) && (text[i] == 'e' || text[i] == 'E') {
		j := i + 1
		if j < len(text) && (text[j] == '+' || text[j] == '-') {
			j++
		}
		if j < len(text) && isDigit(text[j]) {
			for j < len(text) && isDigit(text[j]) {
				j++
			}
			i = j
		}
	}
	if i < len(text) && isIdentStart(text[i]) {
		return token{}, 0, syntaxErrorf(text, start, "invalid number %q", text[start:i+1])
	}
	n, err := strconv.ParseFloat(text[start:i], 64)
	if err != nil {
		return token{}, 0, syntaxErrorf(text, start, "invalid number %q", text[start:i])
	}
	return token{kind: tokNumber, num: n, text: text[start:i], pos: start, end: i}, i, nil
}

// lexString decodes a string literal quoted with ' or ", supporting the
// JSON escapes (\n, \uXXXX, ...) plus \' and a doubled quote character.
func lexString(text string, i int) (string, int, error) {
	start := i
	quote := text[i]
	i++
	var b strings.Builder
	for {
		if i >= len(text) {
			return "", 0, syntaxErrorf(text, start, "unterminated string literal")
		}
		c := text[i]
		switch c {
		case quote:
			if i+1 < len(text) && text[i+1] == quote {
				b.WriteByte(quote)
				i += 2
				continue
			}
			return b.String(), i + 1, nil
		case '\\':
			if i+1 >= len(text) {
				return "", 0, syntaxErrorf(text, start, "unterminated string literal")
			}
			e := text[i+1]
			i += 2
			switch e {
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
			case '\\', '/', '\'', '"':
				b.WriteByte(e)
			case 'u':
				if i+4 > len(text) {
					return "", 0, syntaxErrorf(text, i-2, "invalid \\u escape")
				}
				n, err := strconv.ParseUint(text[i:i+4], 16, 32)
				if err != nil {
					return "", 0, syntaxErrorf(text, i-2, "invalid \\u escape")
				}
				i += 4
				r := rune(n)
				// Join a UTF-16 surrogate pair.
				if r >= 0xD800 && r < 0xDC00 && i+6 <= len(text) && text[i] == '\\' && text[i+1] == 'u' {
					if lo, err := strconv.ParseUint(text[i+2:i+6], 16, 32); err == nil && lo >= 0xDC00 && lo < 0xE000 {
						r = (r-0xD800)<<10 + (rune(lo) - 0xDC00) + 0x10000
						i += 6
					}
				}
				b.WriteRune(r)
			default:
				return "", 0, syntaxErrorf(text, i-2, "invalid escape sequence \\%c", e)
			}
		default:
			b.WriteByte(c)
			i++
		}
	}
}
