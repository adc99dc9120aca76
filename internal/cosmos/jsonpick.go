package cosmos

import (
	"encoding/json"
	"errors"
	"slices"
	"strconv"
)

// decodeProperties decodes the top-level properties names of a stored
// item (JSON this server wrote) the way decodeForQuery does, skipping
// the others' bytes without building them: a query that reads a few
// properties of each item pays for those. Anything unexpected in the
// text falls back to decoding it whole.
func decodeProperties(b []byte, names []string) (map[string]any, error) {
	m, err := pickProperties(b, names)
	if err != nil {
		return decodeForQuery(b)
	}
	return m, nil
}

var errPick = errors.New("unexpected JSON")

func pickProperties(b []byte, names []string) (map[string]any, error) {
	m := make(map[string]any, len(names))
	i := skipSpace(b, 0)
	if i >= len(b) || b[i] != '{' {
		return nil, errPick
	}
	i = skipSpace(b, i+1)
	if i < len(b) && b[i] == '}' {
		return m, nil
	}
	for i < len(b) {
		if b[i] != '"' {
			return nil, errPick
		}
		end := skipString(b, i)
		if end < 0 {
			return nil, errPick
		}
		key, err := jsonString(b[i:end])
		if err != nil {
			return nil, err
		}
		i = skipSpace(b, end)
		if i >= len(b) || b[i] != ':' {
			return nil, errPick
		}
		i = skipSpace(b, i+1)
		vend := skipValue(b, i)
		if vend < 0 {
			return nil, errPick
		}
		if slices.Contains(names, key) {
			v, err := jsonValue(b[i:vend])
			if err != nil {
				return nil, err
			}
			m[key] = v
		}
		i = skipSpace(b, vend)
		if i >= len(b) {
			return nil, errPick
		}
		if b[i] == '}' {
			return m, nil
		}
		if b[i] != ',' {
			return nil, errPick
		}
		i = skipSpace(b, i+1)
	}
	return nil, errPick
}

func skipSpace(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\n' || b[i] == '\r') {
		i++
	}
	return i
}

// skipString returns the index after the string starting at b[i] ('"'),
// or -1.
func skipString(b []byte, i int) int {
	for j := i + 1; j < len(b); j++ {
		switch b[j] {
		case '\\':
			j++
		case '"':
			return j + 1
		}
	}
	return -1
}

// skipValue returns the index after the JSON value starting at b[i], or
// -1.
func skipValue(b []byte, i int) int {
	if i >= len(b) {
		return -1
	}
	switch b[i] {
	case '"':
		return skipString(b, i)
	case '{', '[':
		depth := 0
		for j := i; j < len(b); j++ {
			switch b[j] {
			case '"':
				e := skipString(b, j)
				if e < 0 {
					return -1
				}
				j = e - 1
			case '{', '[':
				depth++
			case '}', ']':
				depth--
				if depth == 0 {
					return j + 1
				}
			}
		}
		return -1
	}
	j := i
	for j < len(b) && b[j] != ',' && b[j] != '}' && b[j] != ']' && b[j] != ' ' && b[j] != '\n' && b[j] != '\t' && b[j] != '\r' {
		j++
	}
	if j == i {
		return -1
	}
	return j
}

// jsonString decodes a JSON string literal.
func jsonString(lit []byte) (string, error) {
	if slices.Contains(lit, '\\') {
		var s string
		err := json.Unmarshal(lit, &s)
		return s, err
	}
	return string(lit[1 : len(lit)-1]), nil
}

// jsonValue decodes one JSON value as decodeForQuery would.
func jsonValue(lit []byte) (any, error) {
	switch lit[0] {
	case '"':
		return jsonString(lit)
	case 't':
		if string(lit) == "true" {
			return true, nil
		}
	case 'f':
		if string(lit) == "false" {
			return false, nil
		}
	case 'n':
		if string(lit) == "null" {
			return nil, nil
		}
	case '{', '[':
		var v any
		err := json.Unmarshal(lit, &v)
		return v, err
	default:
		f, err := strconv.ParseFloat(string(lit), 64)
		if err != nil {
			return nil, errPick
		}
		return f, nil
	}
	return nil, errPick
}
