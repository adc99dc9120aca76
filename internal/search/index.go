package search

import (
	"bytes"
	"encoding/json"
	"fmt"
	"regexp"
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

// Field is a parsed field of an index definition, for the layers that
// index and query documents.
type Field struct {
	Name       string
	Type       string // as written: "Edm.String", "Collection(Edm.Single)", …
	Collection bool
	// ElementType is Type without Collection(…).
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
}

// IsVector reports whether the field holds vectors.
func (f *Field) IsVector() bool { return f.Collection && vectorElementTypes[f.ElementType] }

// IsComplex reports whether the field is Edm.ComplexType or a collection
// of them.
func (f *Field) IsComplex() bool { return f.ElementType == "Edm.ComplexType" }

// Index is a parsed, validated index definition.
type Index struct {
	Name   string
	Fields []*Field
	// Key is the key field.
	Key *Field
	// Analysis is how bleve serves the index's analyzers and normalizers.
	Analysis *Analysis
	// Definition is the normalised definition the service returns.
	Definition map[string]any
}

// ParseIndex validates a stored index definition (as Resource.Definition
// holds it) and parses it for the document and query layers.
func ParseIndex(def map[string]any) (*Index, error) {
	v := &validation{kind: Indexes, def: cloneJSON(def)}
	v.name, _ = def["name"].(string)
	return v.parseIndex()
}

// index validates an index definition and, on update, refuses what the
// service refuses.
func (v *validation) index() (map[string]any, error) {
	ix, err := v.parseIndex()
	if err != nil {
		return nil, err
	}
	if v.old != nil {
		if err := v.checkIndexUpdate(ix.Definition); err != nil {
			return nil, err
		}
	}
	return ix.Definition, nil
}

var indexProperties = map[string]bool{
	"name": true, "description": true, "fields": true, "scoringProfiles": true, "defaultScoringProfile": true,
	"corsOptions": true, "suggesters": true, "analyzers": true, "tokenizers": true, "tokenFilters": true,
	"charFilters": true, "normalizers": true, "encryptionKey": true, "similarity": true, "semantic": true, "vectorSearch": true,
}

func (v *validation) parseIndex() (*Index, error) {
	def := v.def
	for k, x := range def {
		if !indexProperties[k] && x != nil {
			return nil, invalid("index", "The property '%s' is not part of an index definition cerulean serves.", k)
		}
	}
	if enc, ok := def["encryptionKey"]; ok && enc != nil {
		return nil, invalid("index.encryptionKey", "Customer-managed encryption keys (Azure Key Vault) are not supported by cerulean.")
	}
	if _, _, err := getString(def, "description", "index"); err != nil {
		return nil, err
	}
	analysis, err := analysisOf(def)
	if err != nil {
		return nil, err
	}
	ix := &Index{Name: v.name, Analysis: analysis}
	profiles, err := v.vectorSearch(def)
	if err != nil {
		return nil, err
	}
	fields, err := getObjects(def, "fields", "index")
	if err != nil {
		return nil, err
	}
	if len(fields) == 0 {
		return nil, invalid("index.fields", "Index definition must contain one or more valid fields.")
	}
	fp := &fieldParser{analysis: analysis, vectorProfiles: profiles}
	ix.Fields, err = fp.fields(fields, "index.fields", 0)
	if err != nil {
		return nil, err
	}
	if fp.keys != 1 {
		return nil, invalid("index", "Found %d key fields in index '%s'. Each index must have exactly one key field.", fp.keys, v.name)
	}
	for _, f := range ix.Fields {
		if f.Key {
			ix.Key = f
		}
	}
	byPath := map[string]*Field{}
	var walk func(prefix string, fs []*Field)
	walk = func(prefix string, fs []*Field) {
		for _, f := range fs {
			byPath[prefix+f.Name] = f
			walk(prefix+f.Name+"/", f.Fields)
		}
	}
	walk("", ix.Fields)
	if err := v.suggesters(def, byPath); err != nil {
		return nil, err
	}
	if err := v.scoringProfiles(def, byPath); err != nil {
		return nil, err
	}
	if err := corsOptions(def); err != nil {
		return nil, err
	}
	if err := similarity(def); err != nil {
		return nil, err
	}
	withDefaults(def, map[string]any{
		"description": nil, "defaultScoringProfile": nil, "scoringProfiles": []any{}, "corsOptions": nil,
		"suggesters": []any{}, "analyzers": []any{}, "tokenizers": []any{}, "tokenFilters": []any{},
		"charFilters": []any{}, "normalizers": []any{}, "encryptionKey": nil, "semantic": nil, "vectorSearch": nil,
	})
	ix.Definition = def
	return ix, nil
}

// fieldParser validates fields recursively and counts key fields.
type fieldParser struct {
	analysis       *Analysis
	vectorProfiles map[string]bool
	keys           int
}

var fieldProperties = map[string]bool{
	"name": true, "type": true, "key": true, "searchable": true, "filterable": true, "retrievable": true, "stored": true,
	"sortable": true, "facetable": true, "analyzer": true, "searchAnalyzer": true, "indexAnalyzer": true, "normalizer": true,
	"dimensions": true, "vectorSearchProfile": true, "vectorEncoding": true, "synonymMaps": true, "fields": true,
}

func (p *fieldParser) fields(defs []map[string]any, where string, depth int) ([]*Field, error) {
	if depth > 10 {
		return nil, invalid(where, "Fields may be nested at most 10 levels deep.")
	}
	seen := map[string]bool{}
	out := make([]*Field, 0, len(defs))
	for i, d := range defs {
		at := fmt.Sprintf("%s[%d]", where, i)
		f, err := p.field(d, at, depth)
		if err != nil {
			return nil, err
		}
		if seen[f.Name] {
			return nil, invalid(at+".name", "The field name '%s' is used more than once.", f.Name)
		}
		seen[f.Name] = true
		out = append(out, f)
	}
	return out, nil
}

func (p *fieldParser) field(d map[string]any, at string, depth int) (*Field, error) {
	for k, x := range d {
		if !fieldProperties[k] && x != nil {
			return nil, invalid(at, "The property '%s' is not part of a field definition cerulean serves.", k)
		}
	}
	name, _, err := getString(d, "name", at)
	if err != nil {
		return nil, err
	}
	if !validFieldName(name) {
		return nil, fieldNameError(at+".name", name)
	}
	typeName, _, err := getString(d, "type", at)
	if err != nil {
		return nil, err
	}
	t, ok := parseFieldType(typeName)
	if !ok {
		return nil, invalid(at+".type", "The field '%s' has the type '%s', which is not a valid field type.", name, typeName)
	}
	f := &Field{Name: name, Type: t.String(), Collection: t.collection, ElementType: t.base}
	if t.complex() {
		return p.complexField(d, f, at, depth)
	}
	if sub, ok := d["fields"]; ok && sub != nil {
		if a, isArray := sub.([]any); !isArray || len(a) > 0 {
			return nil, invalid(at+".fields", "Only fields of type Edm.ComplexType or Collection(Edm.ComplexType) can have sub-fields; '%s' is of type '%s'.", name, t)
		}
	}
	bools := map[string]*bool{"key": &f.Key, "searchable": &f.Searchable, "filterable": &f.Filterable, "retrievable": &f.Retrievable,
		"stored": &f.Stored, "sortable": &f.Sortable, "facetable": &f.Facetable}
	given := map[string]bool{}
	for k, ptr := range bools {
		b, ok, err := getBool(d, k, at)
		if err != nil {
			return nil, err
		}
		*ptr, given[k] = b, ok
	}
	// Defaults as the service fills them in.
	if !given["searchable"] {
		f.Searchable = t.text() || t.vector()
	}
	if !given["filterable"] {
		f.Filterable = !t.vector()
	}
	if !given["retrievable"] {
		f.Retrievable = true
	}
	if !given["stored"] {
		f.Stored = true
	}
	if !given["sortable"] {
		f.Sortable = !t.collection
	}
	if !given["facetable"] {
		f.Facetable = !t.vector() && t.base != "Edm.GeographyPoint"
	}
	strs := map[string]*string{"analyzer": &f.Analyzer, "searchAnalyzer": &f.SearchAnalyzer, "indexAnalyzer": &f.IndexAnalyzer,
		"normalizer": &f.Normalizer, "vectorSearchProfile": &f.VectorSearchProfile}
	for k, ptr := range strs {
		if *ptr, _, err = getString(d, k, at); err != nil {
			return nil, err
		}
	}
	if f.SynonymMaps, err = getStrings(d, "synonymMaps", at); err != nil {
		return nil, err
	}
	if f.SynonymMaps == nil {
		f.SynonymMaps = []string{}
	}
	dims, hasDims, err := getInt(d, "dimensions", at, 2, 4096)
	if err != nil {
		return nil, err
	}
	f.Dimensions = int(dims)
	encoding, _, err := getString(d, "vectorEncoding", at)
	if err != nil {
		return nil, err
	}
	if encoding != "" {
		return nil, invalid(at+".vectorEncoding", "Vector encodings (packedBit) are not supported by cerulean.")
	}

	if f.Key {
		if depth > 0 {
			return nil, invalid(at+".key", "The key field must be a top-level field; '%s' is a sub-field.", name)
		}
		if t.String() != "Edm.String" {
			return nil, invalid(at+".key", "The key field '%s' must be of type Edm.String, not '%s'.", name, t)
		}
		p.keys++
	}
	if t.vector() {
		if f.Filterable || f.Sortable || f.Facetable {
			return nil, invalid(at, "The vector field '%s' cannot be filterable, sortable or facetable.", name)
		}
		if !f.Searchable {
			return nil, invalid(at+".searchable", "The vector field '%s' must be searchable.", name)
		}
		if !hasDims {
			return nil, invalid(at+".dimensions", "The vector field '%s' must set dimensions (2 to 4096).", name)
		}
		if f.VectorSearchProfile == "" {
			return nil, invalid(at+".vectorSearchProfile", "The vector field '%s' must name a vector search profile.", name)
		}
		if !p.vectorProfiles[f.VectorSearchProfile] {
			return nil, invalid(at+".vectorSearchProfile", "The vector search profile '%s' of field '%s' is not defined in vectorSearch.profiles.", f.VectorSearchProfile, name)
		}
		if f.Analyzer != "" || f.SearchAnalyzer != "" || f.IndexAnalyzer != "" || f.Normalizer != "" || len(f.SynonymMaps) > 0 {
			return nil, invalid(at, "The vector field '%s' cannot have analyzers, a normalizer or synonym maps.", name)
		}
	} else {
		if hasDims || f.VectorSearchProfile != "" {
			return nil, invalid(at, "Only vector fields (Collection(Edm.Single) and the other vector types) can set dimensions or vectorSearchProfile; '%s' is of type '%s'.", name, t)
		}
		if f.Searchable && !t.text() {
			return nil, invalid(at+".searchable", "The field '%s' of type '%s' cannot be searchable; only Edm.String, Collection(Edm.String) and vector fields can.", name, t)
		}
		if f.Sortable && t.collection {
			return nil, invalid(at+".sortable", "The field '%s' of type '%s' cannot be sortable; collections cannot be sorted.", name, t)
		}
		if f.Facetable && t.base == "Edm.GeographyPoint" {
			return nil, invalid(at+".facetable", "The field '%s' of type '%s' cannot be facetable.", name, t)
		}
		if err := p.analyzers(f, at); err != nil {
			return nil, err
		}
	}
	if !f.Stored && f.Retrievable {
		return nil, invalid(at+".stored", "The field '%s' is not stored, so it cannot be retrievable.", name)
	}
	norm := map[string]any{
		"name": f.Name, "type": f.Type, "searchable": f.Searchable, "filterable": f.Filterable, "retrievable": f.Retrievable,
		"stored": f.Stored, "sortable": f.Sortable, "facetable": f.Facetable, "key": f.Key,
		"analyzer": orNull(f.Analyzer, f.Analyzer != ""), "searchAnalyzer": orNull(f.SearchAnalyzer, f.SearchAnalyzer != ""),
		"indexAnalyzer": orNull(f.IndexAnalyzer, f.IndexAnalyzer != ""), "normalizer": orNull(f.Normalizer, f.Normalizer != ""),
		"dimensions": orNull(json.Number(strconv.Itoa(f.Dimensions)), hasDims), "vectorSearchProfile": orNull(f.VectorSearchProfile, f.VectorSearchProfile != ""),
		"vectorEncoding": nil, "synonymMaps": stringsToAny(f.SynonymMaps),
	}
	clear(d)
	for k, x := range norm {
		d[k] = x
	}
	return f, nil
}

// analyzers checks a text field's analyzer, normalizer and synonym maps.
func (p *fieldParser) analyzers(f *Field, at string) error {
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
	if len(f.SynonymMaps) > 1 {
		return invalid(at+".synonymMaps", "The field '%s' names %d synonym maps; a field can have at most one.", f.Name, len(f.SynonymMaps))
	}
	if f.Normalizer != "" {
		if f.ElementType != "Edm.String" || !f.Filterable && !f.Sortable && !f.Facetable {
			return invalid(at+".normalizer", "Only filterable, sortable or facetable fields of type Edm.String or Collection(Edm.String) can have a normalizer; '%s' cannot.", f.Name)
		}
		if _, ok := p.analysis.Normalizer[f.Normalizer]; !ok {
			return invalid(at+".normalizer", "The normalizer '%s' of field '%s' is not defined in the index and is not a predefined normalizer cerulean serves.", f.Normalizer, f.Name)
		}
	}
	return nil
}

func (p *fieldParser) complexField(d map[string]any, f *Field, at string, depth int) (*Field, error) {
	for k, x := range d {
		if k == "name" || k == "type" || k == "fields" || x == nil {
			continue
		}
		// Clients may send attribute defaults on complex fields too; only a
		// value that would mean something is refused.
		if b, isBool := x.(bool); isBool && (!b || k == "retrievable" || k == "stored") {
			continue
		}
		if a, isArray := x.([]any); isArray && len(a) == 0 {
			continue
		}
		return nil, invalid(at+"."+k, "The complex field '%s' cannot set '%s'; only its sub-fields have attributes.", f.Name, k)
	}
	subs, err := getObjects(d, "fields", at)
	if err != nil {
		return nil, err
	}
	if len(subs) == 0 {
		return nil, invalid(at+".fields", "The complex field '%s' must have at least one sub-field.", f.Name)
	}
	if f.Fields, err = p.fields(subs, at+".fields", depth+1); err != nil {
		return nil, err
	}
	for _, s := range f.Fields {
		if s.Key {
			return nil, invalid(at, "The key field must be a top-level field.")
		}
	}
	f.Retrievable, f.Stored = true, true
	clear(d)
	d["name"], d["type"], d["fields"] = f.Name, f.Type, mapsToAny(subs)
	return f, nil
}

func mapsToAny(ms []map[string]any) []any {
	out := make([]any, len(ms))
	for i, m := range ms {
		out[i] = m
	}
	return out
}

// vectorSearch validates vectorSearch and returns its profile names.
func (v *validation) vectorSearch(def map[string]any) (map[string]bool, error) {
	vs, ok, err := getObject(def, "vectorSearch", "index")
	if err != nil || !ok {
		return map[string]bool{}, err
	}
	algorithms, err := getObjects(vs, "algorithms", "index.vectorSearch")
	if err != nil {
		return nil, err
	}
	algs := map[string]bool{}
	for i, a := range algorithms {
		at := fmt.Sprintf("index.vectorSearch.algorithms[%d]", i)
		name, _, err := getString(a, "name", at)
		if err != nil {
			return nil, err
		}
		if !validComponentName(name) {
			return nil, componentNameError(at+".name", "vector search algorithm", name)
		}
		if algs[name] {
			return nil, invalid(at+".name", "The algorithm name '%s' is used more than once.", name)
		}
		algs[name] = true
		kind, _, err := getString(a, "kind", at)
		if err != nil {
			return nil, err
		}
		var params string
		defaults := map[string]any{"metric": "cosine"}
		switch kind {
		case "hnsw":
			params = "hnswParameters"
			defaults = map[string]any{"m": json.Number("4"), "efConstruction": json.Number("400"), "efSearch": json.Number("500"), "metric": "cosine"}
		case "exhaustiveKnn":
			params = "exhaustiveKnnParameters"
		default:
			return nil, invalid(at+".kind", "The algorithm kind '%s' is not 'hnsw' or 'exhaustiveKnn'.", kind)
		}
		p, _, err := getObject(a, params, at)
		if err != nil {
			return nil, err
		}
		if p == nil {
			p = map[string]any{}
		}
		metric, _, err := getString(p, "metric", at+"."+params)
		if err != nil {
			return nil, err
		}
		switch metric {
		case "", "cosine", "euclidean", "dotProduct":
		default:
			return nil, invalid(at+"."+params+".metric", "The metric '%s' is not one of cosine, euclidean or dotProduct.", metric)
		}
		if kind == "hnsw" {
			for _, r := range []struct {
				k      string
				lo, hi int64
			}{{"m", 4, 10}, {"efConstruction", 100, 1000}, {"efSearch", 100, 1000}} {
				if _, _, err := getInt(p, r.k, at+".hnswParameters", r.lo, r.hi); err != nil {
					return nil, err
				}
			}
		}
		a[params] = withDefaults(p, defaults)
	}
	vectorizers, err := getObjects(vs, "vectorizers", "index.vectorSearch")
	if err != nil {
		return nil, err
	}
	vecs := map[string]bool{}
	for i, z := range vectorizers {
		name, _, err := getString(z, "name", fmt.Sprintf("index.vectorSearch.vectorizers[%d]", i))
		if err != nil {
			return nil, err
		}
		vecs[name] = true
	}
	compressions, err := getObjects(vs, "compressions", "index.vectorSearch")
	if err != nil {
		return nil, err
	}
	comps := map[string]bool{}
	for i, c := range compressions {
		name, _, err := getString(c, "name", fmt.Sprintf("index.vectorSearch.compressions[%d]", i))
		if err != nil {
			return nil, err
		}
		comps[name] = true
	}
	profiles, err := getObjects(vs, "profiles", "index.vectorSearch")
	if err != nil {
		return nil, err
	}
	names := map[string]bool{}
	for i, p := range profiles {
		at := fmt.Sprintf("index.vectorSearch.profiles[%d]", i)
		name, _, err := getString(p, "name", at)
		if err != nil {
			return nil, err
		}
		if !validComponentName(name) {
			return nil, componentNameError(at+".name", "vector search profile", name)
		}
		if names[name] {
			return nil, invalid(at+".name", "The profile name '%s' is used more than once.", name)
		}
		names[name] = true
		alg, _, err := getString(p, "algorithm", at)
		if err != nil {
			return nil, err
		}
		if !algs[alg] {
			return nil, invalid(at+".algorithm", "The algorithm '%s' of profile '%s' is not defined in vectorSearch.algorithms.", alg, name)
		}
		for _, ref := range []struct {
			key     string
			defined map[string]bool
		}{{"vectorizer", vecs}, {"compression", comps}} {
			r, ok, err := getString(p, ref.key, at)
			if err != nil {
				return nil, err
			}
			if ok && !ref.defined[r] {
				return nil, invalid(at+"."+ref.key, "The %s '%s' of profile '%s' is not defined in the index's vector search settings.", ref.key, r, name)
			}
		}
		withDefaults(p, map[string]any{"vectorizer": nil, "compression": nil})
	}
	withDefaults(vs, map[string]any{"algorithms": []any{}, "profiles": []any{}, "vectorizers": []any{}, "compressions": []any{}})
	return names, nil
}

// suggesters: at most one, over searchable text fields.
func (v *validation) suggesters(def map[string]any, fields map[string]*Field) error {
	sugs, err := getObjects(def, "suggesters", "index")
	if err != nil {
		return err
	}
	if len(sugs) > 1 {
		return invalid("index.suggesters", "An index can have at most one suggester; this one has %d.", len(sugs))
	}
	for i, s := range sugs {
		at := fmt.Sprintf("index.suggesters[%d]", i)
		name, _, err := getString(s, "name", at)
		if err != nil {
			return err
		}
		if !validComponentName(name) {
			return componentNameError(at+".name", "suggester", name)
		}
		mode, _, err := getString(s, "searchMode", at)
		if err != nil {
			return err
		}
		if mode == "" {
			mode = "analyzingInfixMatching"
		}
		if mode != "analyzingInfixMatching" {
			return invalid(at+".searchMode", "The suggester search mode must be 'analyzingInfixMatching', not '%s'.", mode)
		}
		src, err := getStrings(s, "sourceFields", at)
		if err != nil {
			return err
		}
		if len(src) == 0 {
			return invalid(at+".sourceFields", "The suggester '%s' must name at least one source field.", name)
		}
		for _, path := range src {
			f := fields[path]
			if f == nil {
				return invalid(at+".sourceFields", "The source field '%s' of suggester '%s' does not exist in the index.", path, name)
			}
			if f.ElementType != "Edm.String" || !f.Searchable {
				return invalid(at+".sourceFields", "The source field '%s' of suggester '%s' must be a searchable field of type Edm.String or Collection(Edm.String).", path, name)
			}
		}
		s["searchMode"] = mode
	}
	return nil
}

var iso8601Duration = regexp.MustCompile(`^-?P(?:\d+Y)?(?:\d+M)?(?:\d+W)?(?:\d+D)?(?:T(?:\d+H)?(?:\d+M)?(?:\d+(?:\.\d+)?S)?)?$`)

// scoringProfiles validates text weights and functions (magnitude,
// freshness, distance, tag) against the fields they name.
func (v *validation) scoringProfiles(def map[string]any, fields map[string]*Field) error {
	profiles, err := getObjects(def, "scoringProfiles", "index")
	if err != nil {
		return err
	}
	names := map[string]bool{}
	for i, p := range profiles {
		at := fmt.Sprintf("index.scoringProfiles[%d]", i)
		name, _, err := getString(p, "name", at)
		if err != nil {
			return err
		}
		if !validComponentName(name) {
			return componentNameError(at+".name", "scoring profile", name)
		}
		if names[name] {
			return invalid(at+".name", "The scoring profile name '%s' is used more than once.", name)
		}
		names[name] = true
		if text, ok, err := getObject(p, "text", at); err != nil {
			return err
		} else if ok {
			weights, _, err := getObject(text, "weights", at+".text")
			if err != nil {
				return err
			}
			for path := range weights {
				f := fields[path]
				if f == nil || !f.Searchable || f.ElementType != "Edm.String" {
					return invalid(at+".text.weights", "The weighted field '%s' of scoring profile '%s' must be a searchable field of type Edm.String or Collection(Edm.String).", path, name)
				}
				w, _, err := getNumber(weights, path, at+".text.weights")
				if err != nil {
					return err
				}
				if w <= 0 {
					return invalid(at+".text.weights", "The weight of field '%s' must be a positive number.", path)
				}
			}
		}
		funcs, err := getObjects(p, "functions", at)
		if err != nil {
			return err
		}
		for j, fn := range funcs {
			if err := scoringFunction(fn, fmt.Sprintf("%s.functions[%d]", at, j), fields); err != nil {
				return err
			}
		}
		agg, _, err := getString(p, "functionAggregation", at)
		if err != nil {
			return err
		}
		switch agg {
		case "", "sum", "average", "minimum", "maximum", "firstMatching":
		default:
			return invalid(at+".functionAggregation", "The function aggregation '%s' is not one of sum, average, minimum, maximum or firstMatching.", agg)
		}
		if agg == "" && len(funcs) > 0 {
			p["functionAggregation"] = "sum"
		}
		withDefaults(p, map[string]any{"text": nil, "functions": []any{}, "functionAggregation": nil})
	}
	dsp, ok, err := getString(def, "defaultScoringProfile", "index")
	if err != nil {
		return err
	}
	if ok && dsp != "" && !names[dsp] {
		return invalid("index.defaultScoringProfile", "The default scoring profile '%s' is not defined in the index.", dsp)
	}
	return nil
}

func scoringFunction(fn map[string]any, at string, fields map[string]*Field) error {
	typ, _, err := getString(fn, "type", at)
	if err != nil {
		return err
	}
	path, _, err := getString(fn, "fieldName", at)
	if err != nil {
		return err
	}
	f := fields[path]
	if f == nil {
		return invalid(at+".fieldName", "The field '%s' of the scoring function does not exist in the index.", path)
	}
	if !f.Filterable {
		return invalid(at+".fieldName", "The field '%s' of a scoring function must be filterable.", path)
	}
	boost, ok, err := getNumber(fn, "boost", at)
	if err != nil {
		return err
	}
	if !ok || boost <= 0 || boost == 1 {
		return invalid(at+".boost", "The boost of a scoring function must be a positive number other than 1.0.")
	}
	interp, _, err := getString(fn, "interpolation", at)
	if err != nil {
		return err
	}
	switch interp {
	case "":
		fn["interpolation"] = "linear"
	case "linear", "constant", "quadratic", "logarithmic":
	default:
		return invalid(at+".interpolation", "The interpolation '%s' is not one of linear, constant, quadratic or logarithmic.", interp)
	}
	wrong := func(want string) error {
		return invalid(at+".fieldName", "A %s function needs a field of type %s; '%s' is of type '%s'.", typ, want, path, f.Type)
	}
	var params string
	switch typ {
	case "magnitude":
		if f.Collection || (f.ElementType != "Edm.Int32" && f.ElementType != "Edm.Int64" && f.ElementType != "Edm.Double") {
			return wrong("Edm.Int32, Edm.Int64 or Edm.Double")
		}
		params = "magnitude"
	case "freshness":
		if f.Type != "Edm.DateTimeOffset" {
			return wrong("Edm.DateTimeOffset")
		}
		params = "freshness"
	case "distance":
		if f.Type != "Edm.GeographyPoint" {
			return wrong("Edm.GeographyPoint")
		}
		params = "distance"
	case "tag":
		if f.ElementType != "Edm.String" {
			return wrong("Edm.String or Collection(Edm.String)")
		}
		params = "tag"
	default:
		return invalid(at+".type", "The scoring function type '%s' is not one of magnitude, freshness, distance or tag.", typ)
	}
	p, ok, err := getObject(fn, params, at)
	if err != nil {
		return err
	}
	if !ok {
		return invalid(at+"."+params, "A %s function needs its '%s' parameters.", typ, params)
	}
	pat := at + "." + params
	switch typ {
	case "magnitude":
		for _, k := range []string{"boostingRangeStart", "boostingRangeEnd"} {
			if _, ok, err := getNumber(p, k, pat); err != nil {
				return err
			} else if !ok {
				return invalid(pat+"."+k, "The magnitude function needs %s.", k)
			}
		}
		if _, _, err := getBool(p, "constantBoostBeyondRange", pat); err != nil {
			return err
		}
	case "freshness":
		d, _, err := getString(p, "boostingDuration", pat)
		if err != nil {
			return err
		}
		if d == "" || !iso8601Duration.MatchString(d) || d == "P" || strings.HasSuffix(d, "T") {
			return invalid(pat+".boostingDuration", "The boosting duration '%s' is not an ISO 8601 duration such as P7D or PT12H.", d)
		}
	case "distance":
		ref, _, err := getString(p, "referencePointParameter", pat)
		if err != nil {
			return err
		}
		if ref == "" {
			return invalid(pat+".referencePointParameter", "The distance function needs referencePointParameter.")
		}
		if dist, ok, err := getNumber(p, "boostingDistance", pat); err != nil {
			return err
		} else if !ok || dist <= 0 {
			return invalid(pat+".boostingDistance", "The distance function needs a positive boostingDistance (kilometres).")
		}
	case "tag":
		tp, _, err := getString(p, "tagsParameter", pat)
		if err != nil {
			return err
		}
		if tp == "" {
			return invalid(pat+".tagsParameter", "The tag function needs tagsParameter.")
		}
	}
	return nil
}

func corsOptions(def map[string]any) error {
	c, ok, err := getObject(def, "corsOptions", "index")
	if err != nil || !ok {
		return err
	}
	origins, err := getStrings(c, "allowedOrigins", "index.corsOptions")
	if err != nil {
		return err
	}
	if len(origins) == 0 {
		return invalid("index.corsOptions.allowedOrigins", "CORS options must list at least one allowed origin (or '*').")
	}
	if _, ok, err := getInt(c, "maxAgeInSeconds", "index.corsOptions", 0, 1<<31-1); err != nil {
		return err
	} else if !ok {
		c["maxAgeInSeconds"] = json.Number("300")
	}
	return nil
}

const bm25 = "#Microsoft.Azure.Search.BM25Similarity"

func similarity(def map[string]any) error {
	s, ok, err := getObject(def, "similarity", "index")
	if err != nil {
		return err
	}
	if !ok {
		def["similarity"] = map[string]any{"@odata.type": bm25, "k1": nil, "b": nil}
		return nil
	}
	if t, _, err := getString(s, "@odata.type", "index.similarity"); err != nil {
		return err
	} else if t != bm25 {
		return invalid("index.similarity", "The similarity '%s' is not supported by cerulean; it ranks with BM25 (%s).", t, bm25)
	}
	for _, k := range []string{"k1", "b"} {
		if _, _, err := getNumber(s, k, "index.similarity"); err != nil {
			return err
		}
	}
	withDefaults(s, map[string]any{"k1": nil, "b": nil})
	return nil
}

// checkIndexUpdate refuses what the service refuses on an existing index:
// a changed or removed field (only retrievable, searchAnalyzer and
// synonymMaps may change, and sub-fields may be added), a changed
// analysis component, and new analysis components unless the caller
// allowed downtime.
func (v *validation) checkIndexUpdate(next map[string]any) error {
	oldFields, _ := v.old["fields"].([]any)
	newFields, _ := next["fields"].([]any)
	if err := compareFields(oldFields, newFields); err != nil {
		return err
	}
	for _, list := range []string{"analyzers", "tokenizers", "tokenFilters", "charFilters", "normalizers"} {
		oldByName := byName(v.old[list])
		newByName := byName(next[list])
		for name, o := range oldByName {
			n, ok := newByName[name]
			if !ok || !sameJSON(o, n) {
				if !v.allowDowntime {
					return needsDowntime()
				}
			}
		}
		for name := range newByName {
			if _, ok := oldByName[name]; !ok && !v.allowDowntime {
				return needsDowntime()
			}
		}
	}
	return nil
}

// changeableFieldProperties may differ between a field's old and new
// definitions.
var changeableFieldProperties = []string{"retrievable", "searchAnalyzer", "synonymMaps", "fields"}

func compareFields(oldFields, newFields []any) error {
	newByName := byName(newFields)
	for _, o := range oldFields {
		om, _ := o.(map[string]any)
		name, _ := om["name"].(string)
		nm, ok := newByName[name]
		if !ok {
			msg := fmt.Sprintf("Existing field '%s' cannot be removed.", name)
			return &Error{Status: 400, Code: "OperationNotAllowed", Message: msg, Details: []ErrorDetail{{Code: "CannotChangeExistingField", Message: msg}}}
		}
		a, b := cloneJSON(om), cloneJSON(nm)
		for _, k := range changeableFieldProperties {
			delete(a, k)
			delete(b, k)
		}
		if !sameJSON(a, b) {
			return cannotChange(name)
		}
		oldSub, _ := om["fields"].([]any)
		newSub, _ := nm["fields"].([]any)
		if err := compareFields(oldSub, newSub); err != nil {
			return err
		}
	}
	return nil
}

func byName(list any) map[string]map[string]any {
	out := map[string]map[string]any{}
	items, _ := list.([]any)
	for _, x := range items {
		if m, ok := x.(map[string]any); ok {
			if n, ok := m["name"].(string); ok {
				out[n] = m
			}
		}
	}
	return out
}

// sameJSON compares two decoded JSON values by their encoding (maps
// encode with sorted keys, so key order does not matter).
func sameJSON(a, b any) bool {
	x, err1 := json.Marshal(a)
	y, err2 := json.Marshal(b)
	return err1 == nil && err2 == nil && bytes.Equal(x, y)
}
