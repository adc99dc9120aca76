package search

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
)

// object is a JSON object whose properties keep their order. The service
// writes the properties of each of its answers in an order of its own: a
// definition's are its Go type's field order (each type lists its fields
// as the service writes them), and the api-version shaping and $select
// keep that order, inserting what they add where the service puts it.
type object []member

type member struct {
	key   string
	value any
}

func (o object) index(key string) int {
	for i := range o {
		if o[i].key == key {
			return i
		}
	}
	return -1
}

// get is the value of key, nil when it is absent.
func (o object) get(key string) any {
	if i := o.index(key); i >= 0 {
		return o[i].value
	}
	return nil
}

func (o object) has(key string) bool { return o.index(key) >= 0 }

// set replaces key's value in place, or appends key.
func (o *object) set(key string, v any) {
	if i := o.index(key); i >= 0 {
		(*o)[i].value = v
		return
	}
	*o = append(*o, member{key, v})
}

// setDefault appends key with v unless it is present.
func (o *object) setDefault(key string, v any) {
	if !o.has(key) {
		*o = append(*o, member{key, v})
	}
}

// setDefaultBefore inserts key with v before the first of the keys
// following it that is present (at the end when none is), unless key is
// present.
func (o *object) setDefaultBefore(key string, v any, following ...string) {
	if o.has(key) {
		return
	}
	for _, f := range following {
		if i := o.index(f); i >= 0 {
			*o = slices.Insert(*o, i, member{key, v})
			return
		}
	}
	*o = append(*o, member{key, v})
}

// prepend puts key with v first, moving it there when present.
func (o *object) prepend(key string, v any) {
	o.del(key)
	*o = slices.Insert(*o, 0, member{key, v})
}

func (o *object) del(key string) {
	if i := o.index(key); i >= 0 {
		*o = slices.Delete(*o, i, i+1)
	}
}

// moveBefore moves key, when present, just before before (when present).
func (o *object) moveBefore(key, before string) {
	i := o.index(key)
	if i < 0 || !o.has(before) {
		return
	}
	m := (*o)[i]
	*o = slices.Delete(*o, i, i+1)
	*o = slices.Insert(*o, o.index(before), m)
}

// MarshalJSON writes the properties in order.
func (o *object) MarshalJSON() ([]byte, error) {
	w := newJSONWriter()
	if err := w.object(*o); err != nil {
		return nil, err
	}
	return w.buf.Bytes(), nil
}

// asObject is v as an object, nil when it is not one.
func asObject(v any) *object {
	o, _ := v.(*object)
	return o
}

// objects are the objects of a JSON list.
func objects(v any) []*object {
	list, _ := v.([]any)
	out := make([]*object, 0, len(list))
	for _, e := range list {
		if o := asObject(e); o != nil {
			out = append(out, o)
		}
	}
	return out
}

// orderedJSON encodes v with encoding/json and decodes it again with its
// objects as *object, so that they keep the order v encodes them in.
func orderedJSON(v any) (*object, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	d := json.NewDecoder(bytes.NewReader(b))
	d.UseNumber()
	out, err := decodeOrdered(d)
	if err != nil {
		return nil, err
	}
	o := asObject(out)
	if o == nil {
		return nil, fmt.Errorf("%T does not encode as a JSON object", v)
	}
	return o, nil
}

// decodeOrdered reads one JSON value: objects as *object, lists as []any,
// numbers as json.Number.
func decodeOrdered(d *json.Decoder) (any, error) {
	tok, err := d.Token()
	if err != nil {
		return nil, err
	}
	switch t := tok.(type) {
	case json.Delim:
		switch t {
		case '{':
			o := object{}
			for d.More() {
				kt, err := d.Token()
				if err != nil {
					return nil, err
				}
				k, _ := kt.(string)
				v, err := decodeOrdered(d)
				if err != nil {
					return nil, err
				}
				o = append(o, member{k, v})
			}
			_, err := d.Token()
			return &o, err
		case '[':
			list := []any{}
			for d.More() {
				v, err := decodeOrdered(d)
				if err != nil {
					return nil, err
				}
				list = append(list, v)
			}
			_, err := d.Token()
			return list, err
		}
		return nil, errors.New("unexpected JSON delimiter")
	}
	return tok, nil
}

// keysOf are the keys of a JSON object in the order written (nil for
// null or what is not an object).
func keysOf(b []byte) []string {
	d := json.NewDecoder(bytes.NewReader(b))
	if tok, err := d.Token(); err != nil || tok != json.Delim('{') {
		return nil
	}
	var keys []string
	for d.More() {
		kt, err := d.Token()
		if err != nil {
			return keys
		}
		k, _ := kt.(string)
		keys = append(keys, k)
		var skip json.RawMessage
		if err := d.Decode(&skip); err != nil {
			return keys
		}
	}
	return keys
}

// keysUnder are the keys of the object b holds under key, in the order
// written.
func keysUnder(b []byte, key string) []string {
	var m map[string]json.RawMessage
	if err := json.Unmarshal(b, &m); err != nil {
		return nil
	}
	return keysOf(m[key])
}

// jsonWriter writes JSON as the service's answers are written: objects'
// properties in order and no HTML escaping.
type jsonWriter struct {
	buf bytes.Buffer
	enc *json.Encoder
}

func newJSONWriter() *jsonWriter {
	w := &jsonWriter{}
	w.enc = json.NewEncoder(&w.buf)
	w.enc.SetEscapeHTML(false)
	return w
}

// value writes v: objects, lists and documents here, the rest through
// encoding/json.
func (w *jsonWriter) value(v any) error {
	switch x := v.(type) {
	case *object:
		return w.object(*x)
	case []any:
		w.buf.WriteByte('[')
		for i, e := range x {
			if i > 0 {
				w.buf.WriteByte(',')
			}
			if err := w.value(e); err != nil {
				return err
			}
		}
		w.buf.WriteByte(']')
		return nil
	case Document:
		return w.document(nil, x)
	case resultDocument:
		return w.document(x.annotations, x.doc)
	case orderedMap:
		return w.mapInOrder(x.m, x.order)
	}
	return w.encode(v)
}

// encode writes v with encoding/json, without its trailing newline.
func (w *jsonWriter) encode(v any) error {
	if err := w.enc.Encode(v); err != nil {
		return err
	}
	w.buf.Truncate(w.buf.Len() - 1)
	return nil
}

func (w *jsonWriter) object(o object) error {
	w.buf.WriteByte('{')
	for i, m := range o {
		w.key(m.key, i == 0)
		if err := w.value(m.value); err != nil {
			return err
		}
	}
	w.buf.WriteByte('}')
	return nil
}

// key writes a property's name and colon, after a comma unless first.
func (w *jsonWriter) key(k string, first bool) {
	if !first {
		w.buf.WriteByte(',')
	}
	_ = w.encode(k) // a string always encodes
	w.buf.WriteByte(':')
}

// mapInOrder writes m with the keys of order first, in that order, then
// the others sorted.
func (w *jsonWriter) mapInOrder(m map[string]any, order []string) error {
	w.buf.WriteByte('{')
	first := true
	written := 0
	for _, k := range order {
		v, ok := m[k]
		if !ok {
			continue
		}
		w.key(k, first)
		first = false
		written++
		if err := w.value(v); err != nil {
			return err
		}
	}
	if written < len(m) {
		for _, k := range sortedKeys(m) {
			if slices.Contains(order, k) {
				continue
			}
			w.key(k, first)
			first = false
			if err := w.value(m[k]); err != nil {
				return err
			}
		}
	}
	w.buf.WriteByte('}')
	return nil
}

// marshalInOrder encodes a free-form object with the keys of order
// first (the order the definition gave them in, which the service keeps),
// then the others sorted.
func marshalInOrder[V any](m map[string]V, order []string) ([]byte, error) {
	if m == nil {
		return []byte("null"), nil
	}
	generic := make(map[string]any, len(m))
	for k, v := range m {
		generic[k] = v
	}
	w := newJSONWriter()
	if err := w.mapInOrder(generic, order); err != nil {
		return nil, err
	}
	return w.buf.Bytes(), nil
}
