package search

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math"
	"reflect"
	"strings"
)

// Definition is a resource's definition in the service's normalised
// shape: *Index, *SynonymMap, *DataSource, *Indexer, *Skillset or *Alias.
// Each is decoded from JSON with encoding/json and encodes to the JSON the
// service returns (without @odata.etag and @odata.context).
type Definition interface {
	// Validate checks what the definition alone decides and answers the
	// service's 400, naming the JSON path of the offending value.
	Validate() error
	// DefinitionName is the resource's name.
	DefinitionName() string
}

// newDefinition is an empty definition of a kind, to decode into.
func newDefinition(kind Kind) Definition {
	switch kind {
	case Indexes:
		return &Index{}
	case SynonymMaps:
		return &SynonymMap{}
	case DataSources:
		return &DataSource{}
	case Indexers:
		return &Indexer{}
	case Skillsets:
		return &Skillset{}
	}
	return &Alias{}
}

// decodeDefinition decodes a definition of a kind from its JSON object as
// ParseDefinition returns it: values of the wrong JSON type are refused
// with the service's 400 at their path, then encoding/json fills in the
// typed definition.
func decodeDefinition(kind Kind, m map[string]any) (Definition, error) {
	d := newDefinition(kind)
	if err := checkShape(m, reflect.TypeOf(d), kind.singular()); err != nil {
		return nil, err
	}
	b, err := json.Marshal(m)
	if err != nil {
		return nil, fmt.Errorf("encode %s: %w", kind.label(), err)
	}
	if err := unmarshalJSON(b, d); err != nil {
		return nil, badRequest("The request is invalid. Details: %s : %v", kind.singular(), err)
	}
	return d, nil
}

// unmarshalJSON decodes JSON keeping numbers in free-form values as
// written.
func unmarshalJSON(b []byte, v any) error {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	return dec.Decode(v)
}

// loadDefinition decodes a stored definition: the normalised JSON this
// release and earlier ones wrote.
func loadDefinition(kind Kind, b []byte) (Definition, error) {
	d := newDefinition(kind)
	if err := unmarshalJSON(b, d); err != nil {
		return nil, err
	}
	if sk, ok := d.(*Skillset); ok {
		sk.fillDefaults()
	}
	return d, nil
}

// Union members are decoded through a registry keyed by their
// discriminator (@odata.type, or a vector algorithm's kind).

// union is the registry of one tagged union: the Go type of each
// discriminator value, and the member for values outside it.
type union[T any] struct {
	tag     string
	members map[string]func() T
	other   func() T
}

func (u *union[T]) new(tag string) T {
	if f, ok := u.members[localType(tag)]; ok {
		return f()
	}
	return u.other()
}

// decode reads one member: its discriminator first, then the member's own
// type.
func (u *union[T]) decode(b []byte) (T, error) {
	var head map[string]json.RawMessage
	if err := json.Unmarshal(b, &head); err != nil {
		var zero T
		return zero, err
	}
	var tag string
	_ = json.Unmarshal(head[u.tag], &tag)
	v := u.new(tag)
	return v, unmarshalJSON(b, v)
}

func (u *union[T]) decodeList(b []byte) ([]T, error) {
	var raw []json.RawMessage
	if err := json.Unmarshal(b, &raw); err != nil {
		return nil, err
	}
	out := make([]T, len(raw))
	for i, r := range raw {
		v, err := u.decode(r)
		if err != nil {
			return nil, err
		}
		out[i] = v
	}
	return out, nil
}

// typeOf is the Go type the member a decoded object names decodes into
// (for checkShape).
func (u *union[T]) typeOf(m map[string]any) reflect.Type {
	tag, _ := m[u.tag].(string)
	return reflect.TypeOf(u.new(tag))
}

// shapeOf lets a union's interface type tell checkShape which member a
// value decodes into.
var shapeOf = map[reflect.Type]func(map[string]any) reflect.Type{}

// shapeAs names the wire type of a type that decodes through one (its
// UnmarshalJSON reads the wire type).
var shapeAs = map[reflect.Type]reflect.Type{
	reflect.TypeOf(Field{}): reflect.TypeOf(fieldWire{}),
}

var (
	numberType = reflect.TypeOf(json.Number(""))
	anyType    = reflect.TypeOf((*any)(nil)).Elem()
)

// checkShape walks a decoded JSON value (json.Number numbers) alongside
// the Go type it decodes into and refuses the first value of the wrong
// JSON type with the service's 400 at its path. null stands for "not
// given" everywhere; properties the type does not have are left to the
// type's own rules.
func checkShape(v any, t reflect.Type, path string) error {
	if v == nil {
		return nil
	}
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if wire, ok := shapeAs[t]; ok {
		t = wire
	}
	if t == numberType {
		if _, ok := v.(json.Number); !ok {
			return invalid(path, "The value must be a number.")
		}
		return nil
	}
	switch t.Kind() {
	case reflect.String:
		if _, ok := v.(string); !ok {
			return invalid(path, "The value must be a string.")
		}
	case reflect.Bool:
		if _, ok := v.(bool); !ok {
			return invalid(path, "The value must be true or false.")
		}
	case reflect.Slice:
		return checkSliceShape(v, t, path)
	case reflect.Map, reflect.Struct:
		return checkObjectShape(v, t, path)
	case reflect.Interface:
		if t == anyType {
			return nil
		}
		m, ok := v.(map[string]any)
		if !ok {
			return invalid(path, "The value must be a JSON object.")
		}
		if of := shapeOf[t]; of != nil {
			return checkShape(m, of(m), path)
		}
	}
	return nil
}

func checkSliceShape(v any, t reflect.Type, path string) error {
	if t.Elem().Kind() == reflect.Uint8 { // json.RawMessage
		return nil
	}
	a, ok := v.([]any)
	if !ok {
		return invalid(path, "The value must be a JSON array.")
	}
	for i, x := range a {
		if x == nil {
			// null is no element: refused as a value of the wrong type.
			x = nullElement{}
		}
		if err := checkShape(x, t.Elem(), at(path, i)); err != nil {
			return err
		}
	}
	return nil
}

// nullElement stands for a null array element, which no JSON type check
// accepts.
type nullElement struct{}

func checkObjectShape(v any, t reflect.Type, path string) error {
	m, ok := v.(map[string]any)
	if !ok {
		return invalid(path, "The value must be a JSON object.")
	}
	if t.Kind() == reflect.Map {
		if t.Elem() == anyType {
			return nil
		}
		for _, k := range sortedKeys(m) {
			if err := checkShape(m[k], t.Elem(), path+"."+k); err != nil {
				return err
			}
		}
		return nil
	}
	fields := jsonFields(t)
	for _, k := range sortedKeys(m) {
		f, ok := fields[k]
		if !ok {
			continue
		}
		if err := checkShape(m[k], f.Type, path+"."+k); err != nil {
			if f.Tag.Get("shape") == "int" {
				return intShapeError(err, path+"."+k)
			}
			return err
		}
	}
	return nil
}

// intShapeError says "integer" where a number was wanted.
func intShapeError(err error, path string) error {
	if e, ok := err.(*Error); ok && strings.HasSuffix(e.Message, "The value must be a number.") { //nolint:errorlint // checkShape's own error
		return invalid(path, "The value must be an integer.")
	}
	return err
}

// jsonFields maps a struct's JSON property names to its fields, embedded
// structs included.
func jsonFields(t reflect.Type) map[string]reflect.StructField {
	out := map[string]reflect.StructField{}
	for i := range t.NumField() {
		f := t.Field(i)
		name, _, _ := strings.Cut(f.Tag.Get("json"), ",")
		if f.Anonymous && name == "" {
			for k, sub := range jsonFields(f.Type) {
				out[k] = sub
			}
			continue
		}
		if name == "" || name == "-" {
			continue
		}
		out[name] = f
	}
	return out
}

// unknownProperty is the first property of m (sorted) that is not known
// and is not null, for the definitions that refuse what they do not know.
func unknownProperty(m map[string]any, known map[string]bool) (string, bool) {
	for _, k := range sortedKeys(m) {
		if !known[k] && m[k] != nil {
			return k, true
		}
	}
	return "", false
}

// Values of a definition, checked where Validate needs more than their
// JSON type.

// intIn is an integer property within [lo, hi]; ok is false when it is
// not given.
func intIn(n *json.Number, path string, lo, hi int64) (int64, bool, error) {
	if n == nil {
		return 0, false, nil
	}
	i, err := n.Int64()
	if err != nil || i < lo || i > hi {
		return 0, false, invalid(path, "The value must be an integer from %d to %d.", lo, hi)
	}
	return i, true, nil
}

// finite is a number property; ok is false when it is not given.
func finite(n *json.Number, path string) (float64, bool, error) {
	if n == nil {
		return 0, false, nil
	}
	f, err := n.Float64()
	if err != nil || math.IsInf(f, 0) || math.IsNaN(f) {
		return 0, false, invalid(path, "The value must be a finite number.")
	}
	return f, true, nil
}

// double writes a number of an Edm.Double property as the service writes
// it, with a fraction: a boost given as 2 comes back as 2.0 (the .NET
// SDK's CreateIndex recordings: "boost": 2.0, "boostingDistance": 100.0).
func double(n *json.Number) {
	if n == nil {
		return
	}
	if s := n.String(); s != "" && !strings.ContainsAny(s, ".eE") {
		*n = json.Number(s + ".0")
	}
}

// number is a literal as a JSON number.
func number(s string) *json.Number {
	n := json.Number(s)
	return &n
}

// ptr is a pointer to a copy of v.
func ptr[T any](v T) *T { return &v }

// nonEmpty is s, or nil (JSON null) when s is empty.
func nonEmpty(s string) *string {
	if s == "" {
		return nil
	}
	return &s
}

// deref is *p, or the zero value.
func deref[T any](p *T) T {
	var zero T
	if p == nil {
		return zero
	}
	return *p
}

// orEmpty is list, or an empty list where JSON wants [] for nothing.
func orEmpty[T any](list []T) []T {
	if list == nil {
		return []T{}
	}
	return list
}

// nameSet holds the names a list has used so far.
type nameSet map[string]bool

// add refuses a name the list has used already, naming the entry at
// where; what is how messages name the list's entries.
func (n nameSet) add(what, where, name string) error {
	if n[name] {
		return invalid(where+".name", "The %s name '%s' is used more than once.", what, name)
	}
	n[name] = true
	return nil
}

// at is the path of a list's element.
func at(path string, i int) string { return fmt.Sprintf("%s[%d]", path, i) }
