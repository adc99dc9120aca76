package search

import "maps"

// Document is a document as an answer carries it: its values by field
// name, and the fields of its index. The service writes the values of
// simple fields first, in the index's order, then those of complex
// fields, in the index's order, whatever order they were uploaded or
// selected in: the hotels index of the Java SDK's tests lists Address
// (complex) before Location (a point), and its recordings
// (LookupTests.canGetStaticallyTypedDocumentWithPascalCaseFieldsSync,
// SearchTests.canSearchWithSelectedFieldsSync,
// LookupTests.getStaticallyTypedDocumentSetsUnselectedFieldsToNullSync)
// answer Location first. Sub-fields follow the same rule, and a GeoJSON
// point is written type, coordinates, crs.
type Document struct {
	Values map[string]any
	Fields []*Field
}

// MarshalJSON writes the values in the order of the fields.
func (d Document) MarshalJSON() ([]byte, error) {
	w := newJSONWriter()
	if err := w.document(nil, d); err != nil {
		return nil, err
	}
	return w.buf.Bytes(), nil
}

// resultDocument is a document of a search or suggest answer, whose
// annotations (@search.score then @search.highlights, or @search.text)
// the service writes before its values (the Java SDK's recordings
// SearchTests.canUseHitHighlightingSync and
// SuggestTests.canGetFuzzySuggestionsSync).
type resultDocument struct {
	annotations object
	doc         Document
}

// GeoJSON points are written type, coordinates, crs, and their crs type,
// properties (the Java SDK's recording
// IndexingTests.canIndexStaticallyTypedDocumentsSync).
var (
	geoPointOrder = []string{"type", "coordinates", "crs"}
	crsOrder      = []string{"type", "properties"}
)

func (w *jsonWriter) document(annotations object, d Document) error {
	w.buf.WriteByte('{')
	for i, m := range annotations {
		w.key(m.key, i == 0)
		if err := w.value(m.value); err != nil {
			return err
		}
	}
	if err := w.fieldValues(d.Fields, d.Values, len(annotations) == 0); err != nil {
		return err
	}
	w.buf.WriteByte('}')
	return nil
}

// fieldValues writes the members of an object of values: those of simple
// fields, then those of complex ones, each in the order of fields; a
// value no field names (none does, short of a definition changed under a
// query) follows, in key order.
func (w *jsonWriter) fieldValues(fields []*Field, m map[string]any, first bool) error {
	written := 0
	for _, complexPass := range []bool{false, true} {
		for _, f := range fields {
			v, ok := m[f.Name]
			if !ok || f.IsComplex() != complexPass {
				continue
			}
			w.key(f.Name, first)
			first = false
			written++
			if err := w.fieldValue(f, v); err != nil {
				return err
			}
		}
	}
	if written == len(m) {
		return nil
	}
	for _, k := range sortedKeys(m) {
		if fieldNamed(fields, k) != nil {
			continue
		}
		w.key(k, first)
		first = false
		if err := w.value(m[k]); err != nil {
			return err
		}
	}
	return nil
}

func fieldNamed(fields []*Field, name string) *Field {
	for _, f := range fields {
		if f.Name == name {
			return f
		}
	}
	return nil
}

// fieldValue writes one field's value: complex values and GeoJSON points
// in their order, anything else as encoding/json writes it.
func (w *jsonWriter) fieldValue(f *Field, v any) error {
	item := func(e any) error {
		m, ok := e.(map[string]any)
		switch {
		case !ok:
			return w.value(e)
		case f.IsComplex():
			w.buf.WriteByte('{')
			if err := w.fieldValues(f.Fields, m, true); err != nil {
				return err
			}
			w.buf.WriteByte('}')
			return nil
		}
		return w.geoPoint(m)
	}
	list, isList := v.([]any)
	if !f.IsComplex() && f.ElementType != "Edm.GeographyPoint" || !isList && !isMap(v) {
		return w.encode(v)
	}
	if !isList {
		return item(v)
	}
	w.buf.WriteByte('[')
	for i, e := range list {
		if i > 0 {
			w.buf.WriteByte(',')
		}
		if err := item(e); err != nil {
			return err
		}
	}
	w.buf.WriteByte(']')
	return nil
}

func isMap(v any) bool {
	_, ok := v.(map[string]any)
	return ok
}

func (w *jsonWriter) geoPoint(p map[string]any) error {
	if crs, ok := p["crs"].(map[string]any); ok {
		p = maps.Clone(p)
		p["crs"] = orderedMap{crs, crsOrder}
	}
	return w.mapInOrder(p, geoPointOrder)
}

// orderedMap is a map written with the keys of order first, then the
// others sorted.
type orderedMap struct {
	m     map[string]any
	order []string
}

// highlightsInOrder are a hit's highlights by field path, in the order of
// the fields they highlight (the Java SDK's recording
// SearchTests.canUseHitHighlightingSync answers Description before
// Category, as the index has them, for highlight=Category,Description).
func highlightsInOrder(fields []*Field, highlights map[string][]string) *object {
	out := make(object, 0, len(highlights))
	for _, path := range inFieldOrder(fields, highlights) {
		out = append(out, member{path, highlights[path]})
	}
	if len(out) < len(highlights) {
		for _, path := range sortedKeys(highlights) {
			if !out.has(path) {
				out = append(out, member{path, highlights[path]})
			}
		}
	}
	return &out
}
