package search

import (
	"encoding/json"
	"fmt"
	"math"

	"github.com/cerulean-db/cerulean/internal/kv"
)

// validation checks one definition about to be stored and returns it in
// the service's normalised shape. It runs inside the write's transaction,
// so references to other resources (an indexer's data source, an alias's
// index) are read where the write commits.
type validation struct {
	rd   kv.Reader
	kind Kind
	name string
	def  map[string]any
	// old is the stored definition an update replaces, nil on create.
	old           map[string]any
	allowDowntime bool
}

func (v *validation) run() (map[string]any, error) {
	switch v.kind {
	case Indexes:
		return v.index()
	case SynonymMaps:
		return v.synonymMap()
	case DataSources:
		return v.dataSource()
	case Indexers:
		return v.indexer()
	case Skillsets:
		return v.skillset()
	case Aliases:
		return v.alias()
	}
	return nil, fmt.Errorf("validate: unknown kind %q", v.kind)
}

// Accessors over decoded JSON: each answers a 400 naming where the value
// sits when it has the wrong type. An absent key and JSON null are both
// "not given".

func getString(m map[string]any, key, where string) (string, bool, error) {
	raw, ok := m[key]
	if !ok || raw == nil {
		return "", false, nil
	}
	s, isString := raw.(string)
	if !isString {
		return "", false, invalid(where+"."+key, "The value must be a string.")
	}
	return s, true, nil
}

func getBool(m map[string]any, key, where string) (bool, bool, error) {
	raw, ok := m[key]
	if !ok || raw == nil {
		return false, false, nil
	}
	b, isBool := raw.(bool)
	if !isBool {
		return false, false, invalid(where+"."+key, "The value must be true or false.")
	}
	return b, true, nil
}

func getObject(m map[string]any, key, where string) (map[string]any, bool, error) {
	raw, ok := m[key]
	if !ok || raw == nil {
		return nil, false, nil
	}
	o, isObject := raw.(map[string]any)
	if !isObject {
		return nil, false, invalid(where+"."+key, "The value must be a JSON object.")
	}
	return o, true, nil
}

func getArray(m map[string]any, key, where string) ([]any, error) {
	raw, ok := m[key]
	if !ok || raw == nil {
		return nil, nil
	}
	a, isArray := raw.([]any)
	if !isArray {
		return nil, invalid(where+"."+key, "The value must be a JSON array.")
	}
	return a, nil
}

// getObjects is an array of JSON objects.
func getObjects(m map[string]any, key, where string) ([]map[string]any, error) {
	a, err := getArray(m, key, where)
	if err != nil {
		return nil, err
	}
	out := make([]map[string]any, len(a))
	for i, x := range a {
		o, ok := x.(map[string]any)
		if !ok {
			return nil, invalid(fmt.Sprintf("%s.%s[%d]", where, key, i), "The value must be a JSON object.")
		}
		out[i] = o
	}
	return out, nil
}

// getStrings is an array of strings.
func getStrings(m map[string]any, key, where string) ([]string, error) {
	a, err := getArray(m, key, where)
	if err != nil {
		return nil, err
	}
	out := make([]string, len(a))
	for i, x := range a {
		s, ok := x.(string)
		if !ok {
			return nil, invalid(fmt.Sprintf("%s.%s[%d]", where, key, i), "The value must be a string.")
		}
		out[i] = s
	}
	return out, nil
}

// getInt is an integer within [lo, hi].
func getInt(m map[string]any, key, where string, lo, hi int64) (int64, bool, error) {
	raw, ok := m[key]
	if !ok || raw == nil {
		return 0, false, nil
	}
	n, isNumber := raw.(json.Number)
	if !isNumber {
		return 0, false, invalid(where+"."+key, "The value must be an integer.")
	}
	i, err := n.Int64()
	if err != nil || i < lo || i > hi {
		return 0, false, invalid(where+"."+key, "The value must be an integer from %d to %d.", lo, hi)
	}
	return i, true, nil
}

// getNumber is a finite number.
func getNumber(m map[string]any, key, where string) (float64, bool, error) {
	raw, ok := m[key]
	if !ok || raw == nil {
		return 0, false, nil
	}
	n, isNumber := raw.(json.Number)
	if !isNumber {
		return 0, false, invalid(where+"."+key, "The value must be a number.")
	}
	f, err := n.Float64()
	if err != nil || math.IsInf(f, 0) || math.IsNaN(f) {
		return 0, false, invalid(where+"."+key, "The value must be a finite number.")
	}
	return f, true, nil
}

// orNull is v, or JSON null when not given.
func orNull(v any, given bool) any {
	if !given {
		return nil
	}
	return v
}

// withDefaults returns m with every key of defaults it lacks (or holds
// as null where the default is not null) filled in.
func withDefaults(m map[string]any, defaults map[string]any) map[string]any {
	for k, d := range defaults {
		if cur, ok := m[k]; !ok || (cur == nil && d != nil) {
			m[k] = d
		}
	}
	return m
}

func jsonNumber(s string) any { return json.Number(s) }
