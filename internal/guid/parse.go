package guid

import (
	"strings"
)

// Parse reads a GUID in any of the forms .NET's Guid.Parse accepts, as
// Azure Storage does for lease and copy IDs: 32 hexadecimal digits (N),
// hyphenated 8-4-4-4-12 (D), the hyphenated form in braces (B) or
// parentheses (P), or the hexadecimal-constant form
// {0x00000000,0x0000,0x0000,{0x00,…,0x00}} (X); any case, surrounding
// white space ignored. It returns the GUID in the canonical lower-case
// D form, and false when s is none of these.
func Parse(s string) (string, bool) {
	s = strings.TrimSpace(s)
	switch {
	case len(s) == 32:
		return hexDigits(s)
	case len(s) == 36:
		return hyphenated(s)
	case len(s) == 38 && (s[0] == '{' && s[37] == '}' || s[0] == '(' && s[37] == ')'):
		return hyphenated(s[1:37])
	case len(s) > 38 && s[0] == '{':
		return hexConstants(s)
	}
	return "", false
}

// hyphenated reads the D form.
func hyphenated(s string) (string, bool) {
	if len(s) != 36 || s[8] != '-' || s[13] != '-' || s[18] != '-' || s[23] != '-' {
		return "", false
	}
	return hexDigits(s[0:8] + s[9:13] + s[14:18] + s[19:23] + s[24:])
}

// hexConstants reads the X form: {0xAAAAAAAA,0xBBBB,0xCCCC,{0xDD,…(8)}},
// each constant of at most its field's width in digits.
func hexConstants(s string) (string, bool) {
	if !strings.HasPrefix(s, "{") || !strings.HasSuffix(s, "}}") {
		return "", false
	}
	head, tail, ok := strings.Cut(s[1:len(s)-2], ",{")
	if !ok {
		return "", false
	}
	fields := strings.Split(head, ",")
	bytes := strings.Split(tail, ",")
	if len(fields) != 3 || len(bytes) != 8 {
		return "", false
	}
	var digits strings.Builder
	for i, f := range append(fields, bytes...) {
		width := 2
		switch i {
		case 0:
			width = 8
		case 1, 2:
			width = 4
		}
		f = strings.TrimSpace(f)
		if len(f) < 3 || f[0] != '0' || f[1] != 'x' && f[1] != 'X' || len(f)-2 > width {
			return "", false
		}
		digits.WriteString(strings.Repeat("0", width-(len(f)-2)) + f[2:])
	}
	return hexDigits(digits.String())
}

// hexDigits reads the N form.
func hexDigits(s string) (string, bool) {
	if len(s) != 32 {
		return "", false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if hex := c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F'; !hex {
			return "", false
		}
	}
	s = strings.ToLower(s)
	return s[0:8] + "-" + s[8:12] + "-" + s[12:16] + "-" + s[16:20] + "-" + s[20:], true
}
