package file

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// Directory and file names are case-insensitive and case-preserving, as
// on NTFS and Azure Files: "FILE NAME.TXT" finds "file name.txt", two
// names that differ only in case cannot sit in one directory, and a
// listing shows each name as it was created (or last renamed).
//
// A directory entry is keyed by its name's fold (nameKey) and its record
// keeps the name as given (Node.Name). NTFS compares names through its
// upcase table: each UTF-16 code unit maps to its simple uppercase
// mapping, and nothing outside the Basic Multilingual Plane (whose
// characters take two code units) changes. nameKey does the same with
// Go's Unicode tables, so the fold is one rune to one rune: "ß" stays
// "ß", "ı" and "i" both fold to "I", σ and ς to Σ, while the Kelvin sign
// (whose own uppercase is itself) stays apart from "K". Entries order
// by their folds byte by byte, which is the upcase order NTFS lists a
// directory in for every name within the Basic Multilingual Plane
// ("lol.file" before "SomeDirectory", "A_B" after "AAB"); a name with
// characters beyond it may sort differently, UTF-8 ordering those
// characters after U+E000..U+FFFF where UTF-16 orders them before.
// docs/decisions/20261127_files_case_insensitive_names.md.

// nameKey is the fold of a directory or file name that keys its record
// and that every lookup compares.
func nameKey(name string) string {
	for i := 0; i < len(name); i++ {
		if c := name[i]; c >= utf8.RuneSelf || ('a' <= c && c <= 'z') {
			return strings.Map(upcase, name)
		}
	}
	return name
}

// upcase maps one character as NTFS's upcase table does.
func upcase(r rune) rune {
	if r > 0xFFFF {
		return r
	}
	return unicode.ToUpper(r)
}

// pathKey folds every name of a "/"-separated path.
func pathKey(path string) string { return nameKey(path) }

// baseName is the last element of a "/"-separated path.
func baseName(path string) string { return path[strings.LastIndexByte(path, '/')+1:] }
