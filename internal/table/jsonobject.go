package table

import (
	"encoding/json"

	"github.com/cerulean-db/cerulean/internal/azerr"
)

// readObject decodes one JSON object of scalar members, keeping their
// order and refusing duplicates. It is one pass over the bytes: the
// encoding/json Decoder.Token loop it replaces cost more than the rest of
// an upsert in a profile (docs/performance.md). It answers every input as
// that loop did, error for error (FuzzReadObject).
func readObject(body []byte) ([]jsonMember, error) {
	malformed := func() error {
		return invalidInput("The request body is not a valid JSON entity.")
	}
	s := jsonScanner{b: body}
	if s.next() != '{' {
		return nil, malformed()
	}
	var (
		members []jsonMember
		seen    map[string]bool // once members outgrow a linear search
	)
	if s.peek() == '}' {
		s.i++
	} else {
		for {
			if s.next() != '"' {
				return nil, malformed()
			}
			name, ok := s.str()
			if !ok {
				return nil, malformed()
			}
			if duplicateMember(members, &seen, name) {
				return nil, azerr.ErrDuplicatePropertiesSpecified.WithMessage("The property %q is specified more than once.", name)
			}
			if s.next() != ':' {
				return nil, malformed()
			}
			var v any
			switch c := s.next(); {
			case c == '{' || c == '[':
				return nil, invalidInput("The value of property %q is an object or an array; only primitive values are supported.", name)
			case c == '"':
				if v, ok = s.str(); !ok {
					return nil, malformed()
				}
			case c == '-' || c >= '0' && c <= '9':
				if v, ok = s.number(); !ok {
					return nil, malformed()
				}
			case s.literal(c, "true"):
				v = true
			case s.literal(c, "false"):
				v = false
			case s.literal(c, "null"):
				v = nil
			default:
				return nil, malformed()
			}
			members = append(members, jsonMember{name: name, value: v})
			c := s.next()
			if c == '}' {
				break
			}
			if c != ',' {
				return nil, malformed()
			}
		}
	}
	if s.peek(); s.i != len(s.b) {
		return nil, malformed()
	}
	return members, nil
}

// duplicateMember reports whether name is among members, searching them
// while they are few and a set of their names after.
func duplicateMember(members []jsonMember, seen *map[string]bool, name string) bool {
	const linear = 16
	if len(members) < linear {
		for _, m := range members {
			if m.name == name {
				return true
			}
		}
		return false
	}
	if *seen == nil {
		*seen = make(map[string]bool, 2*linear)
		for _, m := range members {
			(*seen)[m.name] = true
		}
	}
	if (*seen)[name] {
		return true
	}
	(*seen)[name] = true
	return false
}

// jsonScanner reads JSON tokens from b at i.
type jsonScanner struct {
	b []byte
	i int
}

// next skips white space and returns the byte after it, consumed; 0 at
// the end of the input (a NUL byte, malformed wherever it appears, also
// reads as 0: the end of the object is checked by position).
func (s *jsonScanner) next() byte {
	c := s.peek()
	if s.i < len(s.b) {
		s.i++
	}
	return c
}

// peek is next without consuming the byte.
func (s *jsonScanner) peek() byte {
	for s.i < len(s.b) {
		switch c := s.b[s.i]; c {
		case ' ', '\t', '\n', '\r':
			s.i++
		default:
			return c
		}
	}
	return 0
}

// str reads the rest of a string whose opening quote next consumed.
func (s *jsonScanner) str() (string, bool) {
	start := s.i - 1
	plain := true // printable ASCII without escapes: the bytes are the string
	for s.i < len(s.b) {
		c := s.b[s.i]
		switch {
		case c == '"':
			s.i++
			if plain {
				return string(s.b[start+1 : s.i-1]), true
			}
			var out string
			if json.Unmarshal(s.b[start:s.i], &out) != nil {
				return "", false
			}
			return out, true
		case c == '\\':
			plain = false
			s.i += 2
			continue
		case c < 0x20:
			return "", false
		case c >= 0x80:
			plain = false
		}
		s.i++
	}
	return "", false
}

// number reads the rest of a number whose first byte next consumed, as
// the json.Number the Decoder gives with UseNumber.
func (s *jsonScanner) number() (json.Number, bool) {
	start := s.i - 1
	digits := func() int {
		n := 0
		for s.i < len(s.b) && s.b[s.i] >= '0' && s.b[s.i] <= '9' {
			s.i++
			n++
		}
		return n
	}
	first := s.b[start]
	if first == '-' {
		if s.i >= len(s.b) || s.b[s.i] < '0' || s.b[s.i] > '9' {
			return "", false
		}
		first = s.b[s.i]
		s.i++
	}
	if first != '0' {
		digits()
	}
	if s.i < len(s.b) && s.b[s.i] == '.' {
		s.i++
		if digits() == 0 {
			return "", false
		}
	}
	if s.i < len(s.b) && (s.b[s.i] == 'e' || s.b[s.i] == 'E') {
		s.i++
		if s.i < len(s.b) && (s.b[s.i] == '+' || s.b[s.i] == '-') {
			s.i++
		}
		if digits() == 0 {
			return "", false
		}
	}
	return json.Number(s.b[start:s.i]), true
}

// literal reports whether the input at the byte c that next consumed
// spells word, consuming the rest of it if so.
func (s *jsonScanner) literal(c byte, word string) bool {
	rest := word[1:]
	if c != word[0] || len(s.b)-s.i < len(rest) || string(s.b[s.i:s.i+len(rest)]) != rest {
		return false
	}
	s.i += len(rest)
	return true
}
