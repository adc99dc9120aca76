package lease

import (
	"strings"

	"github.com/cerulean-db/cerulean/internal/guid"
)

// NewID makes a random (version 4) GUID, the form lease IDs take.
func NewID() string { return guid.New() }

// ValidID accepts a lease ID in every form .NET's Guid.Parse reads, as
// Azure does: 32 hexadecimal digits ("N"), hyphenated 8-4-4-4-12 ("D"),
// and the hyphenated form in braces ("B") or parentheses ("P"), in
// either case. (@azure/storage-blob's live lease tests propose
// "ca761232ed4211cebacd00aa0057b223" and Azure accepts it.)
func ValidID(s string) bool {
	_, ok := canonicalID(s)
	return ok
}

// SameID reports whether two lease IDs name the same GUID, whatever
// form each was written in. An ID that is no GUID equals only itself.
func SameID(a, b string) bool {
	if a == b {
		return true
	}
	ca, ok1 := canonicalID(a)
	cb, ok2 := canonicalID(b)
	return ok1 && ok2 && ca == cb
}

// canonicalID is the GUID's 32 digits in lower case.
func canonicalID(s string) (string, bool) {
	if len(s) == 38 && (s[0] == '{' && s[37] == '}' || s[0] == '(' && s[37] == ')') {
		s = s[1:37]
	}
	switch len(s) {
	case 32:
	case 36:
		for _, i := range []int{8, 13, 18, 23} {
			if s[i] != '-' {
				return "", false
			}
		}
		s = s[:8] + s[9:13] + s[14:18] + s[19:23] + s[24:]
	default:
		return "", false
	}
	for _, c := range s {
		if hex := c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F'; !hex {
			return "", false
		}
	}
	return strings.ToLower(s), true
}
