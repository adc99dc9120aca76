package azhttp

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// ListedName is a name in a listing (a blob, a file or directory, a
// prefix, a handle's path). A name holding a character XML 1.0 cannot
// carry (most control characters, U+FFFE, U+FFFF) or bytes that are not
// UTF-8 is written percent-encoded with Encoded="true", as Azure does and
// the SDKs decode; any other name is written as it is.
type ListedName struct {
	Encoded bool   `xml:"Encoded,attr,omitempty"`
	Text    string `xml:",chardata"`
}

// NameForXML returns name as a listing writes it.
func NameForXML(name string) ListedName {
	if !XMLSafe(name) {
		return ListedName{Encoded: true, Text: PercentEncode(name)}
	}
	return ListedName{Text: name}
}

// XMLSafe reports whether XML 1.0 can carry s as it is: valid UTF-8 of
// characters of the Char production.
func XMLSafe(s string) bool {
	if !utf8.ValidString(s) {
		return false
	}
	for _, c := range s {
		if !XMLChar(c) {
			return false
		}
	}
	return true
}

// AppendXMLEscaped appends s as encoding/xml escapes text and attribute
// values (printer.EscapeString): the five markup characters, tab, newline
// and carriage return as character references, and anything XML cannot
// carry (or a byte that is not UTF-8) as U+FFFD. Plain text is appended
// as it is, in one copy.
func AppendXMLEscaped(b []byte, s string) []byte {
	last := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c >= 0x20 && c < utf8.RuneSelf && c != '"' && c != '\'' && c != '&' && c != '<' && c != '>' {
			i++
			continue
		}
		r, width := utf8.DecodeRuneInString(s[i:])
		i += width
		var esc string
		switch r {
		case '"':
			esc = "&#34;"
		case '\'':
			esc = "&#39;"
		case '&':
			esc = "&amp;"
		case '<':
			esc = "&lt;"
		case '>':
			esc = "&gt;"
		case '\t':
			esc = "&#x9;"
		case '\n':
			esc = "&#xA;"
		case '\r':
			esc = "&#xD;"
		default:
			if !XMLChar(r) || (r == utf8.RuneError && width == 1) {
				esc = "\uFFFD"
				break
			}
			continue
		}
		b = append(b, s[last:i-width]...)
		b = append(b, esc...)
		last = i
	}
	return append(b, s[last:]...)
}

// XMLChar reports whether XML 1.0 can carry c (the Char production).
func XMLChar(c rune) bool {
	return c == '\t' || c == '\n' || c == '\r' || c >= 0x20 && c <= 0xD7FF || c >= 0xE000 && c <= 0xFFFD || c >= 0x10000 && c <= 0x10FFFF
}

// PercentEncode escapes every byte but the unreserved ones and '/', so
// that both path and query unescaping give the name back ('+' and space
// included).
func PercentEncode(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || strings.IndexByte("-_.~/", c) >= 0 {
			b.WriteByte(c)
			continue
		}
		fmt.Fprintf(&b, "%%%02X", c)
	}
	return b.String()
}
