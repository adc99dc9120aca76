package cosmos

import (
	"math"
	"slices"
	"strconv"
	"unicode/utf8"

	"github.com/cerulean-db/cerulean/internal/cosmos/query"
)

// encodeResult encodes one query result exactly as marshal does (keys
// sorted, no HTML escaping), without reflection for the values a query
// produces: objects, arrays, strings, float64 numbers, booleans, null.
// Anything else goes through marshal.
func encodeResult(v any) ([]byte, error) { return encodeShaped(v, nil, nil) }

// encodeShaped encodes a query result as Azure answers it: the objects
// the query built with their properties in the order its text writes
// them (shape), and every whole item it read, or object or array taken
// whole from one (noted in bodies), as stored, wherever in the result it
// stands (an ORDER BY query's payload); the properties of other objects
// sorted, as encodeResult writes them.
func encodeShaped(v any, shape *query.Shape, bodies itemBodies) ([]byte, error) {
	b, ok := appendResult(make([]byte, 0, 128), v, shape, bodies)
	if !ok {
		return marshal(v)
	}
	return b, nil
}

func appendResult(b []byte, v any, shape *query.Shape, bodies itemBodies) ([]byte, bool) {
	switch x := v.(type) {
	case nil:
		return append(b, "null"...), true
	case bool:
		return strconv.AppendBool(b, x), true
	case string:
		return appendJSONString(b, x), true
	case float64:
		return appendJSONFloat(b, x)
	case []any:
		if body, ok := storedText(x, shape, bodies); ok {
			return append(b, body...), true
		}
		b = append(b, '[')
		for i, e := range x {
			if i > 0 {
				b = append(b, ',')
			}
			var ok bool
			if b, ok = appendResult(b, e, elemShape(shape, i, len(x)), bodies); !ok {
				return b, false
			}
		}
		return append(b, ']'), true
	case map[string]any:
		if body, ok := storedText(x, shape, bodies); ok {
			return append(b, body...), true
		}
		b = append(b, '{')
		for i, k := range resultKeys(x, shape) {
			if i > 0 {
				b = append(b, ',')
			}
			b = appendJSONString(b, k)
			b = append(b, ':')
			var ok bool
			if b, ok = appendResult(b, x[k], fieldShape(shape, k), bodies); !ok {
				return b, false
			}
		}
		return append(b, '}'), true
	}
	return b, false
}

// storedText is the text of v as an item stores it, when v is an item
// the query read or an object or array taken whole from one. A value
// with a shape is one the query built, and is not looked up.
func storedText(v any, shape *query.Shape, bodies itemBodies) ([]byte, bool) {
	if shape != nil {
		return nil, false
	}
	return bodies.of(v)
}

// resultKeys are the keys of an object in a query result in the order
// they are written: those shape names first, as named, then the others
// sorted.
func resultKeys(m map[string]any, shape *query.Shape) []string {
	keys := make([]string, 0, len(m))
	if shape != nil {
		for _, k := range shape.Keys {
			if _, ok := m[k]; ok && !slices.Contains(keys, k) {
				keys = append(keys, k)
			}
		}
		if len(keys) == len(m) {
			return keys
		}
	}
	named := len(keys)
	for k := range m {
		if !slices.Contains(keys[:named], k) {
			keys = append(keys, k)
		}
	}
	slices.Sort(keys[named:])
	return keys
}

func fieldShape(s *query.Shape, key string) *query.Shape {
	if s == nil {
		return nil
	}
	return s.Fields[key]
}

// elemShape is the shape of element i of an array of n: an array literal
// gives one per position, which applies only while no element of it was
// left out (undefined).
func elemShape(s *query.Shape, i, n int) *query.Shape {
	switch {
	case s == nil:
		return nil
	case s.Elem != nil:
		return s.Elem
	case len(s.Elems) == n:
		return s.Elems[i]
	}
	return nil
}

// appendJSONFloat formats f as encoding/json does.
func appendJSONFloat(b []byte, f float64) ([]byte, bool) {
	if math.IsInf(f, 0) || math.IsNaN(f) {
		return b, false
	}
	abs := math.Abs(f)
	format := byte('f')
	if abs != 0 && (abs < 1e-6 || abs >= 1e21) {
		format = 'e'
	}
	b = strconv.AppendFloat(b, f, format, -1, 64)
	if format == 'e' {
		// clean up e-09 to e-9
		n := len(b)
		if n >= 4 && b[n-4] == 'e' && b[n-3] == '-' && b[n-2] == '0' {
			b[n-2] = b[n-1]
			b = b[:n-1]
		}
	}
	return b, true
}

const hexDigits = "0123456789abcdef"

// appendJSONString quotes s as encoding/json does with HTML escaping
// off.
func appendJSONString(b []byte, s string) []byte {
	b = append(b, '"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if c >= 0x20 && c != '"' && c != '\\' {
				i++
				continue
			}
			b = append(b, s[start:i]...)
			switch c {
			case '\\', '"':
				b = append(b, '\\', c)
			case '\b':
				b = append(b, '\\', 'b')
			case '\f':
				b = append(b, '\\', 'f')
			case '\n':
				b = append(b, '\\', 'n')
			case '\r':
				b = append(b, '\\', 'r')
			case '\t':
				b = append(b, '\\', 't')
			default:
				b = append(b, '\\', 'u', '0', '0', hexDigits[c>>4], hexDigits[c&0xf])
			}
			i++
			start = i
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			b = append(b, s[start:i]...)
			b = append(b, `\ufffd`...)
			i += size
			start = i
			continue
		}
		if r == '\u2028' || r == '\u2029' {
			b = append(b, s[start:i]...)
			b = append(b, '\\', 'u', '2', '0', '2', hexDigits[r&0xf])
			i += size
			start = i
			continue
		}
		i += size
	}
	b = append(b, s[start:]...)
	return append(b, '"')
}
