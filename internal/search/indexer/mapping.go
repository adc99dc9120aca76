package indexer

import (
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"net/url"
	"strconv"
	"strings"

	"github.com/cerulean-db/cerulean/internal/search"
)

// fieldMapping is one entry of an indexer's fieldMappings or
// outputFieldMappings.
type fieldMapping struct {
	source, target string
	fn             mappingFunc
}

// mappingFunc transforms one mapped value.
type mappingFunc func(v any) (any, error)

func parseMappings(list []*search.FieldMapping, index *search.Index, what string) ([]fieldMapping, error) {
	out := make([]fieldMapping, 0, len(list))
	for _, m := range list {
		fm := fieldMapping{source: m.SourceFieldName, target: m.TargetFieldName}
		if fm.target == "" {
			fm.target = fm.source
		}
		if indexField(index, fm.target) == nil {
			return nil, fmt.Errorf("the %s entry for '%s' names the target field '%s', which the index '%s' does not have", what, fm.source, fm.target, index.Name)
		}
		if f := m.MappingFunction; f != nil {
			fn, err := mappingFunction(f.Name, f.Parameters)
			if err != nil {
				return nil, err
			}
			fm.fn = fn
		}
		out = append(out, fm)
	}
	return out, nil
}

// indexField finds a top-level field of the index by name.
func indexField(ix *search.Index, name string) *search.Field {
	for _, f := range ix.Fields {
		if f.Name == name {
			return f
		}
	}
	return nil
}

func boolParam(params map[string]any, name string, def bool) bool {
	if b, ok := params[name].(bool); ok {
		return b
	}
	return def
}

// mappingFunction builds one of the service's field mapping functions.
func mappingFunction(name string, params map[string]any) (mappingFunc, error) {
	switch name {
	case "base64Encode":
		token := boolParam(params, "useHttpServerUtilityUrlTokenEncode", true)
		return stringFunc(func(s string) (any, error) { return base64Encode([]byte(s), token), nil }), nil
	case "base64Decode":
		token := boolParam(params, "useHttpServerUtilityUrlTokenDecode", true)
		return stringFunc(func(s string) (any, error) {
			b, err := base64Decode(s, token)
			if err != nil {
				return nil, err
			}
			return string(b), nil
		}), nil
	case "extractTokenAtPosition":
		delim, _ := params["delimiter"].(string)
		pos, err := intParam(params["position"])
		if delim == "" || err != nil || pos < 0 {
			return nil, errors.New("the mapping function extractTokenAtPosition needs the parameters delimiter (a string) and position (a number of zero or more)")
		}
		return stringFunc(func(s string) (any, error) {
			tokens := strings.Split(s, delim)
			if pos >= len(tokens) {
				return nil, fmt.Errorf("the value has %d tokens; there is none at position %d", len(tokens), pos)
			}
			return tokens[pos], nil
		}), nil
	case "jsonArrayToStringCollection":
		return stringFunc(func(s string) (any, error) {
			var arr []any
			if err := json.Unmarshal([]byte(s), &arr); err != nil {
				return nil, fmt.Errorf("the value is not a JSON array: %w", err)
			}
			out := make([]any, len(arr))
			for i, v := range arr {
				str, ok := v.(string)
				if !ok {
					return nil, errors.New("the JSON array holds a value that is not a string")
				}
				out[i] = str
			}
			return out, nil
		}), nil
	case "urlEncode":
		return stringFunc(func(s string) (any, error) { return urlEncode(s), nil }), nil
	case "urlDecode":
		return stringFunc(func(s string) (any, error) {
			out, err := url.QueryUnescape(s)
			if err != nil {
				return nil, fmt.Errorf("the value is not URL-encoded: %w", err)
			}
			return out, nil
		}), nil
	case "fixedLengthEncode", "toJson":
		return nil, fmt.Errorf("the mapping function '%s' is not supported by cerulean", name)
	}
	return nil, fmt.Errorf("the mapping function '%s' does not exist", name)
}

func intParam(v any) (int, error) {
	switch n := v.(type) {
	case json.Number:
		i, err := strconv.Atoi(n.String())
		return i, err
	case float64:
		return int(n), nil
	case string:
		return strconv.Atoi(n)
	}
	return 0, errors.New("not a number")
}

// stringFunc applies f to a string value (and to each string of a
// collection); null stays null.
func stringFunc(f func(string) (any, error)) mappingFunc {
	var apply mappingFunc
	apply = func(v any) (any, error) {
		switch t := v.(type) {
		case nil:
			return nil, nil
		case string:
			return f(t)
		case json.Number:
			return f(t.String())
		case []any:
			out := make([]any, len(t))
			for i, x := range t {
				y, err := apply(x)
				if err != nil {
					return nil, err
				}
				out[i] = y
			}
			return out, nil
		}
		return nil, fmt.Errorf("the value is a %T, not a string", v)
	}
	return apply
}

// base64Encode is Azure's base64Encode: by default .NET's
// HttpServerUtility.UrlTokenEncode (URL-safe alphabet, padding replaced
// by its count as one digit), otherwise URL-safe base64 without padding.
func base64Encode(b []byte, urlToken bool) string {
	if !urlToken {
		return base64.RawURLEncoding.EncodeToString(b)
	}
	if len(b) == 0 {
		return ""
	}
	s := base64.URLEncoding.EncodeToString(b)
	trimmed := strings.TrimRight(s, "=")
	return trimmed + strconv.Itoa(len(s)-len(trimmed))
}

func base64Decode(s string, urlToken bool) ([]byte, error) {
	if urlToken {
		if s == "" {
			return nil, nil
		}
		pad := s[len(s)-1]
		if pad < '0' || pad > '2' {
			return nil, errors.New("the value is not a URL token (base64 ending in its padding count)")
		}
		s = s[:len(s)-1] + strings.Repeat("=", int(pad-'0'))
		b, err := base64.URLEncoding.DecodeString(s)
		if err != nil {
			return nil, fmt.Errorf("the value is not base64: %w", err)
		}
		return b, nil
	}
	for _, enc := range []*base64.Encoding{base64.RawURLEncoding, base64.URLEncoding, base64.StdEncoding, base64.RawStdEncoding} {
		if b, err := enc.DecodeString(s); err == nil {
			return b, nil
		}
	}
	return nil, errors.New("the value is not base64")
}

// urlEncode is .NET's HttpUtility.UrlEncode: letters, digits and
// -_.!*() stay, space becomes '+', every other byte %xx in lower case.
func urlEncode(s string) string {
	const hex = "0123456789abcdef"
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || strings.IndexByte("-_.!*()", c) >= 0:
			b.WriteByte(c)
		case c == ' ':
			b.WriteByte('+')
		default:
			b.WriteByte('%')
			b.WriteByte(hex[c>>4])
			b.WriteByte(hex[c&15])
		}
	}
	return b.String()
}

// lookupField reads a mapping's source: a field name, or a path
// ("/address/city") into the document.
func lookupField(doc map[string]any, name string) (any, bool) {
	if strings.HasPrefix(name, "/") {
		return lookupPath(doc, name)
	}
	v, ok := doc[name]
	return v, ok
}

// mapper builds the index document of a source item.
type mapper struct {
	index    *search.Index
	mappings []fieldMapping
	// keyMapped is whether an explicit mapping targets the key field.
	keyMapped bool
	targeted  map[string]bool
}

func newMapper(index *search.Index, mappings []fieldMapping) *mapper {
	m := &mapper{index: index, mappings: mappings, targeted: map[string]bool{}}
	for _, fm := range mappings {
		m.targeted[fm.target] = true
		if fm.target == index.Key.Name {
			m.keyMapped = true
		}
	}
	return m
}

// document maps src to the index's fields: fields of the same name
// (case-insensitively, as Azure matches them) unless a mapping targets
// them, then the explicit mappings; src fields the index lacks are left
// out.
func (m *mapper) document(src map[string]any, src2 source, it item) (map[string]any, error) {
	doc := map[string]any{}
	lower := make(map[string]string, len(src))
	for k := range src {
		lower[strings.ToLower(k)] = k
	}
	for _, f := range m.index.Fields {
		if m.targeted[f.Name] {
			continue
		}
		if v, ok := src[f.Name]; ok {
			doc[f.Name] = v
		} else if k, ok := lower[strings.ToLower(f.Name)]; ok {
			doc[f.Name] = src[k]
		}
	}
	key := m.index.Key.Name
	if _, has := doc[key]; !has && !m.keyMapped {
		if field, encode := src2.defaultKey(it); field != "" {
			if v, ok := src[field].(string); ok {
				if encode {
					v = base64Encode([]byte(v), true)
				}
				doc[key] = v
			}
		}
	}
	for _, fm := range m.mappings {
		v, ok := lookupField(src, fm.source)
		if !ok {
			continue
		}
		if fm.fn != nil {
			var err error
			if v, err = fm.fn(v); err != nil {
				return nil, fmt.Errorf("could not apply the mapping function of the field mapping from '%s' to '%s': %w", fm.source, fm.target, err)
			}
		}
		doc[fm.target] = v
	}
	return doc, nil
}

// keyOf returns the document's key value, or an error when it is not a
// non-empty string.
func (m *mapper) keyOf(doc map[string]any) (string, error) {
	switch k := doc[m.index.Key.Name].(type) {
	case string:
		if k != "" {
			return k, nil
		}
	case json.Number:
		return k.String(), nil
	}
	return "", fmt.Errorf("document key cannot be missing or empty: the key field '%s' has no value", m.index.Key.Name)
}
