package search

import (
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
)

// Field types an index accepts. Vector element types appear only inside
// Collection(…).
var (
	scalarTypes = map[string]bool{
		"Edm.String": true, "Edm.Int32": true, "Edm.Int64": true, "Edm.Double": true, "Edm.Boolean": true,
		"Edm.DateTimeOffset": true, "Edm.GeographyPoint": true, "Edm.ComplexType": true,
	}
	vectorElementTypes = map[string]bool{"Edm.Single": true, "Edm.Half": true, "Edm.Int16": true, "Edm.SByte": true}
)

// fieldType is a parsed field type: Collection(Edm.String) is base
// Edm.String, collection true.
type fieldType struct {
	base       string
	collection bool
}

func (t fieldType) String() string {
	if t.collection {
		return "Collection(" + t.base + ")"
	}
	return t.base
}

func (t fieldType) complex() bool { return t.base == "Edm.ComplexType" }
func (t fieldType) vector() bool  { return t.collection && vectorElementTypes[t.base] }
func (t fieldType) text() bool    { return t.base == "Edm.String" }

func parseFieldType(s string) (fieldType, bool) {
	if inner, ok := strings.CutPrefix(s, "Collection("); ok && strings.HasSuffix(inner, ")") {
		inner = strings.TrimSuffix(inner, ")")
		if scalarTypes[inner] || vectorElementTypes[inner] {
			return fieldType{base: inner, collection: true}, true
		}
		return fieldType{}, false
	}
	return fieldType{base: s}, scalarTypes[s]
}

// Field is a field of an index definition; a complex field holds its
// sub-fields in Fields. Validate fills in the attributes the service
// defaults and sets Collection and ElementType.
type Field struct {
	Name string
	Type string // as written: "Edm.String", "Collection(Edm.Single)", …
	// Collection and ElementType (Type without Collection(…)) are derived.
	Collection                                                            bool
	ElementType                                                           string
	Key, Searchable, Filterable, Retrievable, Stored, Sortable, Facetable bool
	// Analyzer, SearchAnalyzer, IndexAnalyzer and Normalizer are names as
	// the definition gives them (empty when not set); Index.Analysis maps
	// them to bleve analyzers.
	Analyzer, SearchAnalyzer, IndexAnalyzer, Normalizer string
	SynonymMaps                                         []string
	// Dimensions and VectorSearchProfile are set on vector fields.
	Dimensions          int
	VectorSearchProfile string
	// Fields are the sub-fields of a complex field.
	Fields []*Field

	// dims and encoding are dimensions and vectorEncoding as decoded,
	// for Validate to check.
	dims     *json.Number
	encoding string
	// sortableGiven records that the definition set sortable, which a
	// complex collection's sub-fields otherwise default to false.
	sortableGiven bool
}

// fieldWire is a field on the wire: null or absent attributes are nil.
type fieldWire struct {
	Name                string       `json:"name"`
	Type                string       `json:"type"`
	Searchable          *bool        `json:"searchable"`
	Filterable          *bool        `json:"filterable"`
	Retrievable         *bool        `json:"retrievable"`
	Stored              *bool        `json:"stored"`
	Sortable            *bool        `json:"sortable"`
	Facetable           *bool        `json:"facetable"`
	Key                 *bool        `json:"key"`
	IndexAnalyzer       *string      `json:"indexAnalyzer"`
	SearchAnalyzer      *string      `json:"searchAnalyzer"`
	Analyzer            *string      `json:"analyzer"`
	Normalizer          *string      `json:"normalizer"`
	Dimensions          *json.Number `json:"dimensions" shape:"int"`
	VectorSearchProfile *string      `json:"vectorSearchProfile"`
	VectorEncoding      *string      `json:"vectorEncoding"`
	SynonymMaps         []string     `json:"synonymMaps"`
	Fields              []*Field     `json:"fields,omitempty"`
}

// complexFieldWire is a complex field on the wire.
type complexFieldWire struct {
	Name   string   `json:"name"`
	Type   string   `json:"type"`
	Fields []*Field `json:"fields"`
}

// UnmarshalJSON decodes a field, with the attributes the service
// defaults for its type where they are not given; Validate checks them.
func (f *Field) UnmarshalJSON(b []byte) error {
	var w fieldWire
	if err := unmarshalJSON(b, &w); err != nil {
		return err
	}
	t, _ := parseFieldType(w.Type)
	*f = Field{
		Name: w.Name, Type: w.Type, Collection: t.collection, ElementType: t.base, Fields: w.Fields,
		Key:         deref(w.Key),
		Searchable:  orDefault(w.Searchable, t.text() || t.vector()),
		Filterable:  orDefault(w.Filterable, !t.vector()),
		Retrievable: orDefault(w.Retrievable, true),
		Stored:      orDefault(w.Stored, true),
		Sortable:    orDefault(w.Sortable, !t.collection),
		Facetable:   orDefault(w.Facetable, !t.vector() && t.base != "Edm.GeographyPoint"),
		Analyzer:    deref(w.Analyzer), SearchAnalyzer: deref(w.SearchAnalyzer), IndexAnalyzer: deref(w.IndexAnalyzer),
		Normalizer: deref(w.Normalizer), VectorSearchProfile: deref(w.VectorSearchProfile),
		SynonymMaps: w.SynonymMaps, dims: w.Dimensions, encoding: deref(w.VectorEncoding),
	}
	if w.Dimensions != nil {
		n, _ := w.Dimensions.Int64()
		f.Dimensions = int(n)
	}
	f.sortableGiven = w.Sortable != nil
	if t.complex() && t.collection {
		unsortable(f.Fields)
	}
	return nil
}

// unsortable gives the sub-fields of a complex collection, at any depth,
// the service's default for them: not sortable, as a collection cannot be
// sorted on (Azure answers the hotel index's Rooms sub-fields so; the Java
// SDK's recording IndexManagementTests.canCreateAndListIndexesSyncAndAsync).
func unsortable(fields []*Field) {
	for _, f := range fields {
		if !f.sortableGiven {
			f.Sortable = false
		}
		unsortable(f.Fields)
	}
}

// MarshalJSON writes the field in the service's shape: every attribute of
// a simple field (null where not set), only name, type and sub-fields of
// a complex one.
func (f *Field) MarshalJSON() ([]byte, error) {
	if f.IsComplex() {
		return json.Marshal(complexFieldWire{Fields: orEmpty(f.Fields), Name: f.Name, Type: f.Type})
	}
	var dims *json.Number
	if f.Dimensions != 0 {
		dims = number(strconv.Itoa(f.Dimensions))
	}
	return json.Marshal(fieldWire{
		Analyzer: nonEmpty(f.Analyzer), Dimensions: dims, Facetable: &f.Facetable, Filterable: &f.Filterable,
		IndexAnalyzer: nonEmpty(f.IndexAnalyzer), Key: &f.Key, Name: f.Name, Normalizer: nonEmpty(f.Normalizer),
		Retrievable: &f.Retrievable, SearchAnalyzer: nonEmpty(f.SearchAnalyzer), Searchable: &f.Searchable,
		Sortable: &f.Sortable, Stored: &f.Stored, SynonymMaps: orEmpty(f.SynonymMaps), Type: f.Type,
		VectorSearchProfile: nonEmpty(f.VectorSearchProfile),
	})
}

// IsVector reports whether the field holds vectors.
func (f *Field) IsVector() bool { return f.Collection && vectorElementTypes[f.ElementType] }

// IsComplex reports whether the field is Edm.ComplexType or a collection
// of them.
func (f *Field) IsComplex() bool {
	if f.ElementType == "" {
		t, _ := parseFieldType(f.Type)
		return t.complex()
	}
	return f.ElementType == "Edm.ComplexType"
}

// Validate checks the field (and its sub-fields) alone: its name, type
// and attributes, without the index's analyzers and vector profiles.
func (f *Field) Validate() error {
	fv := &fieldValidator{}
	return fv.field(f, "field", 0)
}

var fieldProperties = map[string]bool{
	"name": true, "type": true, "key": true, "searchable": true, "filterable": true, "retrievable": true, "stored": true,
	"sortable": true, "facetable": true, "analyzer": true, "searchAnalyzer": true, "indexAnalyzer": true, "normalizer": true,
	"dimensions": true, "vectorSearchProfile": true, "vectorEncoding": true, "synonymMaps": true, "fields": true,
}

// checkFieldProperties refuses properties a field does not have, and on a
// complex field any attribute that would mean something (clients send
// the attribute defaults on complex fields too).
func checkFieldProperties(fields []any, where string) error {
	for i, x := range fields {
		d, _ := x.(map[string]any)
		at := at(where, i)
		if k, ok := unknownProperty(d, fieldProperties); ok {
			return invalid(at, "The property '%s' is not part of a field definition cerulean serves.", k)
		}
		typeName, _ := d["type"].(string)
		if t, _ := parseFieldType(typeName); t.complex() {
			if err := checkComplexAttributes(d, at); err != nil {
				return err
			}
		}
		sub, _ := d["fields"].([]any)
		if err := checkFieldProperties(sub, at+".fields"); err != nil {
			return err
		}
	}
	return nil
}

func checkComplexAttributes(d map[string]any, at string) error {
	for _, k := range sortedKeys(d) {
		x := d[k]
		if k == "name" || k == "type" || k == "fields" || x == nil {
			continue
		}
		if b, isBool := x.(bool); isBool && (!b || k == "retrievable" || k == "stored") {
			continue
		}
		if a, isArray := x.([]any); isArray && len(a) == 0 {
			continue
		}
		name, _ := d["name"].(string)
		return invalid(at+"."+k, "The complex field '%s' cannot set '%s'; only its sub-fields have attributes.", name, k)
	}
	return nil
}

// fieldValidator validates fields recursively against the index's
// analysis and vector profiles, and counts key fields.
type fieldValidator struct {
	analysis       *Analysis
	vectorProfiles map[string]bool
	keys           int
}

func (p *fieldValidator) fields(fs []*Field, where string, depth int) error {
	if depth > 10 {
		return invalid(where, "Fields may be nested at most 10 levels deep.")
	}
	seen := nameSet{}
	for i, f := range fs {
		at := at(where, i)
		if f == nil {
			return invalid(at, "The value must be a JSON object.")
		}
		if err := p.field(f, at, depth); err != nil {
			return err
		}
		if err := seen.add("field", at, f.Name); err != nil {
			return err
		}
	}
	return nil
}

func (p *fieldValidator) field(f *Field, at string, depth int) error {
	if !validFieldName(f.Name) {
		return fieldNameError(at+".name", f.Name)
	}
	t, ok := parseFieldType(f.Type)
	if !ok {
		return invalid(at+".type", "The field '%s' has the type '%s', which is not a valid field type.", f.Name, f.Type)
	}
	f.Type, f.Collection, f.ElementType = t.String(), t.collection, t.base
	if t.complex() {
		return p.complexField(f, at, depth)
	}
	if len(f.Fields) > 0 {
		return invalid(at+".fields", "Only fields of type Edm.ComplexType or Collection(Edm.ComplexType) can have sub-fields; '%s' is of type '%s'.", f.Name, t)
	}
	f.Fields = nil
	if err := f.checkVector(t, at); err != nil {
		return err
	}
	if f.Key {
		if depth > 0 {
			return invalid(at+".key", "The key field must be a top-level field; '%s' is a sub-field.", f.Name)
		}
		if t.String() != "Edm.String" {
			return invalid(at+".key", "The key field '%s' must be of type Edm.String, not '%s'.", f.Name, t)
		}
		p.keys++
	}
	var err error
	if t.vector() {
		err = p.vectorField(f, at)
	} else {
		err = p.scalarField(f, t, at)
	}
	if err != nil {
		return err
	}
	if !f.Stored && f.Retrievable {
		// Azure's answer (the .NET SDK's recording
		// VectorSearchTests/VectorFieldNotStoredNotHiddenThrows).
		return invalidDetailed("InvalidRequestParameter", "InvalidField", "definition",
			fmt.Sprintf("The field '%s' is marked as not stored but is marked as retrievable. A retrievable field must be stored. Either set 'stored=false' and 'retrievable=false' or 'stored=true'.", f.Name))
	}
	return nil
}

// checkVector checks dimensions and the vector attributes a field of
// type t may set.
func (f *Field) checkVector(t fieldType, at string) error {
	f.SynonymMaps = orEmpty(f.SynonymMaps)
	_, hasDims, err := intIn(f.dims, at+".dimensions", 2, 4096)
	if err != nil {
		return err
	}
	if f.encoding != "" {
		return invalid(at+".vectorEncoding", "Vector encodings (packedBit) are not supported by cerulean.")
	}
	if hasDims && !t.vector() || f.VectorSearchProfile != "" && !t.vector() {
		return invalid(at, "Only vector fields (Collection(Edm.Single) and the other vector types) can set dimensions or vectorSearchProfile; '%s' is of type '%s'.", f.Name, t)
	}
	return nil
}

func orDefault(b *bool, def bool) bool {
	if b == nil {
		return def
	}
	return *b
}

func (p *fieldValidator) vectorField(f *Field, at string) error {
	name := f.Name
	if f.Filterable || f.Sortable || f.Facetable {
		return invalid(at, "The vector field '%s' cannot be filterable, sortable or facetable.", name)
	}
	if !f.Searchable {
		return invalid(at+".searchable", "The vector field '%s' must be searchable.", name)
	}
	if f.Dimensions == 0 {
		return invalid(at+".dimensions", "The vector field '%s' must set dimensions (2 to 4096).", name)
	}
	if f.VectorSearchProfile == "" {
		return invalid(at+".vectorSearchProfile", "The vector field '%s' must name a vector search profile.", name)
	}
	if p.vectorProfiles != nil && !p.vectorProfiles[f.VectorSearchProfile] {
		return invalid(at+".vectorSearchProfile", "The vector search profile '%s' of field '%s' is not defined in vectorSearch.profiles.", f.VectorSearchProfile, name)
	}
	if f.Analyzer != "" || f.SearchAnalyzer != "" || f.IndexAnalyzer != "" || f.Normalizer != "" || len(f.SynonymMaps) > 0 {
		return invalid(at, "The vector field '%s' cannot have analyzers, a normalizer or synonym maps.", name)
	}
	return nil
}

func (p *fieldValidator) scalarField(f *Field, t fieldType, at string) error {
	if f.Searchable && !t.text() {
		return invalid(at+".searchable", "The field '%s' of type '%s' cannot be searchable; only Edm.String, Collection(Edm.String) and vector fields can.", f.Name, t)
	}
	if f.Sortable && t.collection {
		return invalid(at+".sortable", "The field '%s' of type '%s' cannot be sortable; collections cannot be sorted.", f.Name, t)
	}
	if f.Facetable && t.base == "Edm.GeographyPoint" {
		return invalid(at+".facetable", "The field '%s' of type '%s' cannot be facetable.", f.Name, t)
	}
	return p.analyzers(f, at)
}

// analyzers checks a text field's analyzer, normalizer and synonym maps.
func (p *fieldValidator) analyzers(f *Field, at string) error {
	if f.Analyzer != "" || f.SearchAnalyzer != "" || f.IndexAnalyzer != "" || len(f.SynonymMaps) > 0 {
		if !f.Searchable || f.ElementType != "Edm.String" {
			return invalid(at, "Only searchable fields of type Edm.String or Collection(Edm.String) can have analyzers or synonym maps; '%s' cannot.", f.Name)
		}
	}
	if f.Analyzer != "" && (f.SearchAnalyzer != "" || f.IndexAnalyzer != "") {
		return invalid(at, "The field '%s' sets analyzer together with searchAnalyzer or indexAnalyzer; set either analyzer alone or both searchAnalyzer and indexAnalyzer.", f.Name)
	}
	if (f.SearchAnalyzer == "") != (f.IndexAnalyzer == "") {
		return invalid(at, "The field '%s' must set searchAnalyzer and indexAnalyzer together.", f.Name)
	}
	if p.analysis != nil {
		if err := p.knownAnalyzers(f, at); err != nil {
			return err
		}
	}
	if len(f.SynonymMaps) > 1 {
		return invalid(at+".synonymMaps", "The field '%s' names %d synonym maps; a field can have at most one.", f.Name, len(f.SynonymMaps))
	}
	if f.Normalizer == "" {
		return nil
	}
	if f.ElementType != "Edm.String" || !f.Filterable && !f.Sortable && !f.Facetable {
		return invalid(at+".normalizer", "Only filterable, sortable or facetable fields of type Edm.String or Collection(Edm.String) can have a normalizer; '%s' cannot.", f.Name)
	}
	if p.analysis == nil {
		return nil
	}
	if _, ok := p.analysis.Normalizer[f.Normalizer]; !ok {
		return invalid(at+".normalizer", "The normalizer '%s' of field '%s' is not defined in the index and is not a predefined normalizer cerulean serves.", f.Normalizer, f.Name)
	}
	return nil
}

func (p *fieldValidator) knownAnalyzers(f *Field, at string) error {
	for _, pair := range [][2]string{{"analyzer", f.Analyzer}, {"searchAnalyzer", f.SearchAnalyzer}, {"indexAnalyzer", f.IndexAnalyzer}} {
		if pair[1] == "" {
			continue
		}
		if _, ok := p.analysis.Analyzer[pair[1]]; !ok {
			hint := ""
			if strings.HasSuffix(pair[1], ".microsoft") {
				hint = " Microsoft natural-language analyzers are not available in cerulean; use the matching .lucene analyzer."
			}
			return invalid(at+"."+pair[0], "The analyzer '%s' of field '%s' is not defined in the index and is not a predefined analyzer cerulean serves.%s", pair[1], f.Name, hint)
		}
	}
	return nil
}

func (p *fieldValidator) complexField(f *Field, at string, depth int) error {
	if len(f.Fields) == 0 {
		return invalid(at+".fields", "The complex field '%s' must have at least one sub-field.", f.Name)
	}
	if err := p.fields(f.Fields, at+".fields", depth+1); err != nil {
		return err
	}
	for _, s := range f.Fields {
		if s.Key {
			return invalid(at, "The key field must be a top-level field.")
		}
	}
	f.Retrievable, f.Stored = true, true
	return nil
}
