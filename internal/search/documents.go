package search

import (
	"bytes"
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"net/http"
	"reflect"
	"strconv"
	"strings"
	"time"

	"github.com/cerulean-db/cerulean/internal/kv"
	"github.com/cerulean-db/cerulean/internal/kv/keyspace"
	"github.com/cerulean-db/cerulean/internal/kv/tuple"
	"github.com/cerulean-db/cerulean/internal/search/query"
)

// IndexAction is one action of a document batch: Action is "upload",
// "merge", "mergeOrUpload" or "delete", Doc the document's fields (the
// key field among them; "@search.action" is not part of Doc).
type IndexAction struct {
	Action string
	Doc    map[string]any
}

// IndexResult is the outcome of one IndexAction, as Azure reports it per
// key: StatusCode 200 or 201 with Status true, or 400/404 with
// Status false and ErrorMessage saying why.
type IndexResult struct {
	Key          string
	Status       bool
	StatusCode   int
	ErrorMessage string
}

// Batch limits of the real service.
const (
	maxBatchActions = 1000
	maxKeyLength    = 1024
)

// Key layout of the change log the derived (bleve) indexes catch up from:
//
//	"Sq" index              the index's change sequence: the number of
//	                        committed batches (8-byte big-endian)
//	"Sl" index seq key      the batch with sequence seq changed the
//	                        document with key value key
//
// Every batch reads and bumps the sequence, so batches of one index
// commit in sequence order and the log has no gaps; entries older than
// logRetention batches are trimmed, and a reader that fell further
// behind rebuilds from the documents.
func sequenceKey(index string) tuple.Key { return tuple.New(keyspace.SearchSequences).Str(index) }
func changeLogPrefix(index string) tuple.Key {
	return tuple.New(keyspace.SearchChangeLog).Str(index)
}

// logRetention is how many batches of change log are kept (a variable
// so that tests can exercise the rebuild of a reader that fell behind).
var logRetention uint64 = 4096

func readSequence(rd kv.Reader, index string) (uint64, error) {
	b, err := rd.Get(sequenceKey(index))
	if errors.Is(err, kv.ErrNotFound) {
		return 0, nil
	}
	if err != nil {
		return 0, err
	}
	if len(b) != 8 {
		return 0, fmt.Errorf("read sequence of index %q: %d bytes", index, len(b))
	}
	return binary.BigEndian.Uint64(b), nil
}

// deleteDocumentState removes an index's documents and change log, in the
// transaction that deletes the index.
func deleteDocumentState(tx kv.Txn, index string) error {
	for _, p := range []tuple.Key{documentsPrefix(index), changeLogPrefix(index)} {
		if err := tx.DeleteRange(p, kv.PrefixEnd(p)); err != nil {
			return err
		}
	}
	return tx.Delete(sequenceKey(index))
}

// validDocumentKey applies Azure's key rules: letters, digits, '_', '-'
// and '=', at most 1024 characters.
func validDocumentKey(k string) bool {
	if k == "" || len(k) > maxKeyLength {
		return false
	}
	for i := 0; i < len(k); i++ {
		c := k[i]
		if !isAlnum(c) && c != '_' && c != '-' && c != '=' {
			return false
		}
	}
	return true
}

func invalidKeyMessage(k string) string {
	return fmt.Sprintf("Invalid document key: '%s'. Keys can only contain letters, digits, underscore (_), dash (-), or equal sign (=).", k)
}

// ParseIndexBatch reads a batch body {"value":[{"@search.action":…,…}]}.
func ParseIndexBatch(body []byte) ([]IndexAction, error) {
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber()
	var batch struct {
		Value []map[string]any `json:"value"`
	}
	if err := dec.Decode(&batch); err != nil {
		return nil, badRequest("The request is invalid. Details: actions : The request body is not a valid document batch: %v", err)
	}
	if batch.Value == nil {
		return nil, badRequest("The request is invalid. Details: actions : The 'value' property of the batch is missing.")
	}
	actions := make([]IndexAction, 0, len(batch.Value))
	for i, v := range batch.Value {
		if v == nil {
			return nil, badRequest("The request is invalid. Details: actions : Action %d is null.", i)
		}
		a := IndexAction{Action: "upload", Doc: v}
		if raw, ok := v["@search.action"]; ok {
			s, isStr := raw.(string)
			if !isStr {
				return nil, badRequest("The request is invalid. Details: actions : The @search.action of action %d must be a string.", i)
			}
			a.Action = s
			delete(v, "@search.action")
		}
		actions = append(actions, a)
	}
	return actions, nil
}

// IndexDocuments applies a batch of actions to an index (or the index an
// alias names) in one kv transaction, which also reads the index
// definition, so a batch and a concurrent change of the definition
// conflict. A request-level problem (an unknown action or field, a value
// of the wrong type, a missing key) fails the whole batch with 400; per
// document failures (an invalid key, a merge of a missing document) are
// reported in the results, and the other documents are written.
func (s *Service) IndexDocuments(ctx context.Context, index string, actions []IndexAction) ([]IndexResult, error) {
	if len(actions) == 0 {
		return nil, badRequest("The request is invalid. Details: actions : The batch must contain at least one action.")
	}
	if len(actions) > maxBatchActions {
		return nil, badRequest("The request is invalid. Details: actions : The batch contains %d actions; at most %d are allowed.", len(actions), maxBatchActions)
	}
	var results []IndexResult
	err := s.store.Update(ctx, func(tx kv.Txn) error {
		ix, err := s.IndexIn(tx, index)
		if err != nil {
			return err
		}
		// Validate every action before writing, so a bad action fails the
		// whole batch as the service does.
		prepared := make([]preparedAction, len(actions))
		for i, a := range actions {
			p, err := prepareAction(ix, a, i)
			if err != nil {
				return err
			}
			prepared[i] = p
		}
		seq, err := readSequence(tx, ix.Name)
		if err != nil {
			return err
		}
		seq++
		results = make([]IndexResult, len(prepared))
		changed := map[string]bool{}
		for i, p := range prepared {
			results[i] = IndexResult{Key: p.key}
			if p.errMessage != "" {
				results[i].StatusCode, results[i].ErrorMessage = http.StatusBadRequest, p.errMessage
				continue
			}
			code, msg, err := applyAction(tx, ix, p)
			if err != nil {
				return err
			}
			results[i].StatusCode, results[i].ErrorMessage, results[i].Status = code, msg, msg == ""
			if msg == "" {
				changed[p.key] = true
			}
		}
		if len(changed) == 0 {
			return nil
		}
		var b [8]byte
		binary.BigEndian.PutUint64(b[:], seq)
		if err := tx.Set(sequenceKey(ix.Name), b[:]); err != nil {
			return err
		}
		log := changeLogPrefix(ix.Name).Uint(seq)
		for k := range changed {
			if err := tx.Set(log.Str(k), nil); err != nil {
				return err
			}
		}
		if seq > logRetention && seq%64 == 0 {
			p := changeLogPrefix(ix.Name)
			return tx.DeleteRange(p, p.Uint(seq-logRetention))
		}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return results, nil
}

type preparedAction struct {
	action     string
	key        string
	doc        map[string]any
	errMessage string
}

func prepareAction(ix *Index, a IndexAction, i int) (preparedAction, error) {
	p := preparedAction{action: a.Action}
	switch a.Action {
	case "upload", "merge", "mergeOrUpload", "delete":
	default:
		return p, badRequest("The request is invalid. Details: actions : Action %d has the @search.action '%s'; expected upload, merge, mergeOrUpload or delete.", i, a.Action)
	}
	rawKey, ok := a.Doc[ix.Key.Name]
	key, isStr := rawKey.(string)
	if !ok || rawKey == nil || (isStr && key == "") {
		// Azure's answer names the action (the Java SDK's recording
		// IndexingTests.indexWithInvalidDocumentThrowsExceptionSync).
		return p, invalidDetailed("OperationNotAllowed", "MissingKeyField", "actions", fmt.Sprintf("%d: Document key cannot be missing or empty.", i))
	}
	if !isStr {
		return p, badRequest("The request is invalid. Details: actions : The key field '%s' of action %d must be a string.", ix.Key.Name, i)
	}
	p.key = key
	if !validDocumentKey(key) {
		p.errMessage = invalidKeyMessage(key)
		return p, nil
	}
	if a.Action == "delete" {
		return p, nil
	}
	doc, err := normalizeObject(ix.Fields, a.Doc, "")
	if err != nil {
		return p, err
	}
	p.doc = doc
	return p, nil
}

// applyAction writes one validated action; it returns the status code and,
// for a failed action, its message.
func applyAction(tx kv.Txn, ix *Index, p preparedAction) (int, string, error) {
	dk := DocumentKey(ix.Name, p.key)
	old, err := tx.Get(dk)
	exists := err == nil
	if err != nil && !errors.Is(err, kv.ErrNotFound) {
		return 0, "", err
	}
	if p.action == "delete" {
		if exists {
			if err := tx.Delete(dk); err != nil {
				return 0, "", err
			}
		}
		return http.StatusOK, "", nil
	}
	doc := p.doc
	if p.action == "merge" || p.action == "mergeOrUpload" {
		if !exists && p.action == "merge" {
			return http.StatusNotFound, "Document not found.", nil
		}
		if exists {
			prev, err := decodeDocument(old)
			if err != nil {
				return 0, "", fmt.Errorf("decode stored document %q: %w", p.key, err)
			}
			mergeFields(prev, doc)
			doc = prev
		}
	}
	b, err := json.Marshal(doc)
	if err != nil {
		return 0, "", fmt.Errorf("encode document %q: %w", p.key, err)
	}
	if len(b) > kv.MaxValueSize {
		return http.StatusBadRequest, fmt.Sprintf("The document is %d bytes as stored; cerulean keeps documents of up to %d bytes.", len(b), kv.MaxValueSize), nil
	}
	if err := tx.Set(dk, b); err != nil {
		return 0, "", err
	}
	if exists {
		return http.StatusOK, "", nil
	}
	return http.StatusCreated, "", nil
}

// mergeFields merges next's fields into prev: a complex field given as an
// object merges into the one stored, field by field, where anything else
// (a value, null, a collection) replaces what was there. Merging
// "Address": {} keeps the stored address (the Java SDK's recording
// IndexingTests.canMergeDynamicDocumentsSync).
func mergeFields(prev, next map[string]any) {
	for k, v := range next {
		if obj, ok := v.(map[string]any); ok {
			if stored, ok := prev[k].(map[string]any); ok && !isGeoPoint(obj) {
				mergeFields(stored, obj)
				continue
			}
		}
		prev[k] = v
	}
}

// isGeoPoint reports whether v is a GeoJSON point, a value rather than a
// complex field.
func isGeoPoint(v map[string]any) bool {
	_, ok := v["coordinates"]
	return ok && v["type"] != nil
}

func decodeDocument(b []byte) (map[string]any, error) {
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	var m map[string]any
	if err := dec.Decode(&m); err != nil {
		return nil, err
	}
	return m, nil
}

// normalizeObject checks an object's properties against fields and
// returns them in the form kept: numbers as json.Number, dates in UTC
// RFC 3339, points as GeoJSON with Azure's crs.
func normalizeObject(fields []*Field, obj map[string]any, prefix string) (map[string]any, error) {
	byName := make(map[string]*Field, len(fields))
	for _, f := range fields {
		byName[f.Name] = f
	}
	out := make(map[string]any, len(obj))
	for name, v := range obj {
		f, ok := byName[name]
		if !ok {
			return nil, docError("The property '%s' does not exist on type 'search.documentFields'. Make sure to only use property names that are defined by the type.", prefix+name)
		}
		nv, err := normalizeField(f, v, prefix)
		if err != nil {
			return nil, err
		}
		out[name] = nv
	}
	return out, nil
}

func normalizeField(f *Field, v any, prefix string) (any, error) {
	if v == nil {
		return nil, nil
	}
	if !f.Collection {
		return normalizeValue(f, v, prefix)
	}
	arr, ok := v.([]any)
	if rv := reflect.ValueOf(v); !ok && rv.Kind() == reflect.Slice {
		// A Go caller's []string, []float64 …
		arr, ok = make([]any, rv.Len()), true
		for i := range arr {
			arr[i] = rv.Index(i).Interface()
		}
	}
	if !ok {
		return nil, docError("Cannot convert a value to the expected type '%s' of the field '%s': a JSON array is expected.", f.Type, prefix+f.Name)
	}
	if f.IsVector() && len(arr) != f.Dimensions {
		return nil, docError("The vector field '%s' must have dimension %d, but has length %d.", prefix+f.Name, f.Dimensions, len(arr))
	}
	out := make([]any, len(arr))
	for i, e := range arr {
		if e == nil {
			return nil, docError("The collection field '%s' cannot contain null.", prefix+f.Name)
		}
		nv, err := normalizeValue(f, e, prefix)
		if err != nil {
			return nil, err
		}
		out[i] = nv
	}
	return out, nil
}

// docError is a document that does not fit the index: the whole batch
// is refused with 400.
func docError(format string, args ...any) error {
	return badRequest("The request is invalid. Details: parameters : "+format, args...)
}

func convertError(v any, typ, field string) error {
	s, _ := json.Marshal(v)
	return docError("Cannot convert the literal '%s' to the expected type '%s' of the field '%s'.", s, typ, field)
}

func normalizeValue(f *Field, v any, prefix string) (any, error) {
	path := prefix + f.Name
	switch f.ElementType {
	case "Edm.String":
		if s, ok := v.(string); ok {
			return s, nil
		}
	case "Edm.Boolean":
		if b, ok := v.(bool); ok {
			return b, nil
		}
	case "Edm.Int32", "Edm.Int64", "Edm.Int16", "Edm.SByte":
		n, ok := goNumber(v)
		if !ok {
			break
		}
		i, err := strconv.ParseInt(string(n), 10, 64)
		if err != nil {
			break
		}
		lim := map[string]int64{"Edm.Int32": math.MaxInt32, "Edm.Int16": math.MaxInt16, "Edm.SByte": math.MaxInt8, "Edm.Int64": math.MaxInt64}[f.ElementType]
		if i > lim || i < -lim-1 {
			break
		}
		return json.Number(strconv.FormatInt(i, 10)), nil
	case "Edm.Double", "Edm.Single", "Edm.Half":
		if n, ok := goNumber(v); ok {
			v = n
		}
		switch x := v.(type) {
		case json.Number:
			d, err := strconv.ParseFloat(string(x), 64)
			if err != nil {
				break
			}
			if f.ElementType == "Edm.Double" {
				return dotNetDouble(d), nil
			}
			return json.Number(strconv.FormatFloat(d, 'g', -1, 64)), nil
		case string:
			// Infinities and NaN travel as strings, in Java's or OData's
			// spelling, and are answered in OData's: "Infinity" comes back
			// "INF", and a double 0 as 0.0 (the Java SDK's recordings
			// LookupTests.canRoundTripStaticallyTypedPrimitiveCollectionsSync
			// and IndexingTests.canRoundtripBoundaryValuesSync).
			if f.ElementType == "Edm.Double" {
				switch x {
				case "NaN", "INF", "-INF":
					return x, nil
				case "Infinity":
					return "INF", nil
				case "-Infinity":
					return "-INF", nil
				}
			}
		}
	case "Edm.DateTimeOffset":
		if t, ok := v.(time.Time); ok {
			return t.UTC().Format(time.RFC3339Nano), nil
		}
		s, ok := v.(string)
		if !ok {
			break
		}
		t, err := time.Parse(time.RFC3339Nano, s)
		if err != nil {
			break
		}
		return t.UTC().Format(time.RFC3339Nano), nil
	case "Edm.GeographyPoint":
		lon, lat, ok := geoPoint(v)
		if !ok {
			return nil, docError("The value of the field '%s' is not a valid GeoJSON point: expected {\"type\":\"Point\",\"coordinates\":[longitude,latitude]}.", path)
		}
		return map[string]any{"type": "Point", "coordinates": []any{dotNetDouble(lon), dotNetDouble(lat)},
			"crs": map[string]any{"type": "name", "properties": map[string]any{"name": "EPSG:4326"}}}, nil
	case "Edm.ComplexType":
		m, ok := v.(map[string]any)
		if !ok {
			return nil, docError("Cannot convert a value to the expected type '%s' of the field '%s': a JSON object is expected.", f.Type, path)
		}
		return normalizeObject(f.Fields, m, path+"/")
	}
	return nil, convertError(v, f.ElementType, path)
}

// goNumber accepts the numbers a Go caller (an indexer) hands over as
// well as json.Number, as a json.Number.
func goNumber(v any) (json.Number, bool) {
	switch x := v.(type) {
	case json.Number:
		return x, true
	case int:
		return json.Number(strconv.FormatInt(int64(x), 10)), true
	case int32:
		return json.Number(strconv.FormatInt(int64(x), 10)), true
	case int64:
		return json.Number(strconv.FormatInt(x, 10)), true
	case float32:
		return jsonFloat(float64(x)), true
	case float64:
		if math.IsNaN(x) || math.IsInf(x, 0) {
			return "", false
		}
		return jsonFloat(x), true
	}
	return "", false
}

func jsonFloat(f float64) json.Number { return json.Number(strconv.FormatFloat(f, 'g', -1, 64)) }

// dotNetDouble writes f as the service (.NET) writes a double: the
// shortest digits that read back as f, in positional form with a fraction
// (0.0, -180.0, 0.0001) below 1E+15, and otherwise in exponent form
// with a capital E and at least two exponent digits (5E-324,
// 1.7976931348623157E+308). Source: the Java SDK's recordings
// IndexingTests.canRoundtripBoundaryValuesSync and
// LookupTests.canRoundTripStaticallyTypedPrimitiveCollectionsSync.
func dotNetDouble(f float64) json.Number {
	if f == 0 {
		if math.Signbit(f) {
			return "-0.0"
		}
		return "0.0"
	}
	e := strconv.FormatFloat(f, 'e', -1, 64) // d.ddde±xx
	mant, expText, _ := strings.Cut(e, "e")
	exp, _ := strconv.Atoi(expText)
	if exp >= -4 && exp < 15 {
		s := strconv.FormatFloat(f, 'f', -1, 64)
		if !strings.Contains(s, ".") {
			s += ".0"
		}
		return json.Number(s)
	}
	sign := "+"
	if exp < 0 {
		sign, exp = "-", -exp
	}
	return json.Number(fmt.Sprintf("%sE%s%02d", mant, sign, exp))
}

// geoPoint reads a GeoJSON point (as stored or as sent).
func geoPoint(v any) (lon, lat float64, ok bool) {
	m, isMap := v.(map[string]any)
	if !isMap || !strings.EqualFold(fmt.Sprint(m["type"]), "Point") {
		return 0, 0, false
	}
	c, isArr := m["coordinates"].([]any)
	if !isArr || len(c) != 2 {
		return 0, 0, false
	}
	lon, ok1 := query.ToFloat(c[0])
	lat, ok2 := query.ToFloat(c[1])
	if !ok1 || !ok2 || lon < -180 || lon > 180 || lat < -90 || lat > 90 {
		return 0, 0, false
	}
	return lon, lat, true
}

// LookupDocument returns the document with the given key, restricted to
// selected field paths (nil: every retrievable field).
func (s *Service) LookupDocument(ctx context.Context, index, key string, selected []string) (Document, error) {
	var out Document
	err := s.store.View(ctx, func(rd kv.Reader) error {
		ix, err := s.IndexIn(rd, index)
		if err != nil {
			return err
		}
		b, err := rd.Get(DocumentKey(ix.Name, key))
		if errors.Is(err, kv.ErrNotFound) {
			return &Error{Status: http.StatusNotFound, Message: "Document not found."}
		}
		if err != nil {
			return err
		}
		doc, err := decodeDocument(b)
		if err != nil {
			return fmt.Errorf("decode stored document %q: %w", key, err)
		}
		out = Document{Values: project(ix.Fields, doc, selected), Fields: ix.Fields}
		return nil
	})
	return out, err
}

// CountDocuments counts an index's documents.
func (s *Service) CountDocuments(ctx context.Context, index string) (int64, error) {
	st, err := s.IndexStats(ctx, index)
	return st.DocumentCount, err
}

// project keeps the retrievable fields of doc, or only the selected
// paths (top-level names, or sub-field paths "a/b") when selected is not
// nil. Fields missing from doc are returned as null, as Azure does, and
// a collection never set (or set to null) as [] — the service keeps no
// null collection.
func project(fields []*Field, doc map[string]any, selected []string) map[string]any {
	if selected == nil {
		return retrievable(fields, doc)
	}
	out := map[string]any{}
	for _, path := range selected {
		parts := strings.Split(path, "/")
		copyPath(fields, doc, out, parts, false)
	}
	dropEmptyItems(out)
	return out
}

// dropEmptyItems removes, from collections of complex values that sub-field
// selection made, the items that had none of the selected sub-fields:
// Azure leaves them out (the Java SDK's recording
// LookupTests.emptyDynamicObjectsOmittedFromCollectionOnGetWhenSubFieldsSelectedSync).
func dropEmptyItems(m map[string]any) {
	for k, v := range m {
		switch x := v.(type) {
		case map[string]any:
			dropEmptyItems(x)
		case []any:
			kept := x[:0]
			for _, e := range x {
				item, isMap := e.(map[string]any)
				if isMap && len(item) == 0 {
					continue
				}
				if isMap {
					dropEmptyItems(item)
				}
				kept = append(kept, e)
			}
			m[k] = kept
		}
	}
}

func retrievable(fields []*Field, doc map[string]any) map[string]any {
	out := make(map[string]any, len(fields))
	for _, f := range fields {
		if !f.Retrievable && !f.IsComplex() {
			continue
		}
		v := readBack(f, doc[f.Name])
		if f.IsComplex() && v != nil {
			switch x := v.(type) {
			case map[string]any:
				v = retrievable(f.Fields, x)
			case []any:
				items := make([]any, len(x))
				for i, e := range x {
					m, _ := e.(map[string]any)
					items[i] = retrievable(f.Fields, m)
				}
				v = items
			}
		}
		out[f.Name] = v
	}
	return out
}

// readBack is a stored value as the service returns it: a collection
// that is absent or null is empty.
func readBack(f *Field, v any) any {
	if v == nil && f.Collection {
		return []any{}
	}
	return v
}

// copyPath copies the selected path parts of src into dst. In an item of
// a collection (sparse), a sub-field the item never had is not copied.
func copyPath(fields []*Field, src, dst map[string]any, parts []string, sparse bool) {
	var f *Field
	for _, c := range fields {
		if c.Name == parts[0] {
			f = c
		}
	}
	if f == nil {
		return
	}
	if _, present := src[f.Name]; sparse && !present {
		return
	}
	v := readBack(f, src[f.Name])
	if len(parts) == 1 {
		if f.IsComplex() || f.Retrievable {
			switch x := v.(type) {
			case map[string]any:
				if f.IsComplex() {
					v = retrievable(f.Fields, x)
				}
			case []any:
				// A whole collection of complex values: every item with
				// every sub-field, an empty one too (the Java SDK's
				// recording LookupTests.emptyDynamicObjectsInCollectionExpandedOnGetWhenCollectionFieldSelectedSync).
				if f.IsComplex() {
					items := make([]any, len(x))
					for i, e := range x {
						m, _ := e.(map[string]any)
						items[i] = retrievable(f.Fields, m)
					}
					v = items
				}
			}
			dst[f.Name] = v
		}
		return
	}
	switch x := v.(type) {
	case map[string]any:
		sub, _ := dst[f.Name].(map[string]any)
		if sub == nil {
			sub = map[string]any{}
			dst[f.Name] = sub
		}
		copyPath(f.Fields, x, sub, parts[1:], sparse)
	case []any:
		items, _ := dst[f.Name].([]any)
		if items == nil {
			items = make([]any, len(x))
			for i := range items {
				items[i] = map[string]any{}
			}
			dst[f.Name] = items
		}
		for i, e := range x {
			m, _ := e.(map[string]any)
			copyPath(f.Fields, m, items[i].(map[string]any), parts[1:], true)
		}
	default:
		if _, ok := dst[f.Name]; !ok {
			dst[f.Name] = nil
		}
	}
}
