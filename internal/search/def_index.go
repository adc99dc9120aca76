package search

import (
	"encoding/json"
	"fmt"
)

// Index is an index definition: decoded from the wire, validated, and in
// the shape the service returns once Validate has filled in its defaults.
// Key and Analysis are derived by Validate for the document and query
// layers.
type Index struct {
	Name                  string            `json:"name"`
	Description           *string           `json:"description"`
	DefaultScoringProfile *string           `json:"defaultScoringProfile"`
	Fields                []*Field          `json:"fields"`
	ScoringProfiles       []*ScoringProfile `json:"scoringProfiles"`
	CorsOptions           *CorsOptions      `json:"corsOptions"`
	Suggesters            []*Suggester      `json:"suggesters"`
	Analyzers             []Analyzer        `json:"analyzers"`
	Normalizers           []Normalizer      `json:"normalizers"`
	Tokenizers            []Tokenizer       `json:"tokenizers"`
	TokenFilters          []TokenFilter     `json:"tokenFilters"`
	CharFilters           []CharFilter      `json:"charFilters"`
	EncryptionKey         json.RawMessage   `json:"encryptionKey"`
	Similarity            *Similarity       `json:"similarity"`
	Semantic              *SemanticSettings `json:"semantic"`
	VectorSearch          *VectorSearch     `json:"vectorSearch"`

	// Key is the key field.
	Key *Field `json:"-"`
	// Analysis is how bleve serves the index's analyzers and normalizers.
	Analysis *Analysis `json:"-"`
}

// DefinitionName is the index's name.
func (ix *Index) DefinitionName() string { return ix.Name }

// UnmarshalJSON decodes the analysis components through their registries.
func (ix *Index) UnmarshalJSON(b []byte) error {
	type plain Index
	var w struct {
		plain
		Analyzers    json.RawMessage `json:"analyzers"`
		CharFilters  json.RawMessage `json:"charFilters"`
		Normalizers  json.RawMessage `json:"normalizers"`
		TokenFilters json.RawMessage `json:"tokenFilters"`
		Tokenizers   json.RawMessage `json:"tokenizers"`
	}
	if err := unmarshalJSON(b, &w); err != nil {
		return err
	}
	*ix = Index(w.plain)
	var err error
	if ix.Analyzers, err = decodeComponents(analyzers, w.Analyzers); err != nil {
		return err
	}
	if ix.CharFilters, err = decodeComponents(charFilters, w.CharFilters); err != nil {
		return err
	}
	if ix.Normalizers, err = decodeComponents(normalizers, w.Normalizers); err != nil {
		return err
	}
	if ix.TokenFilters, err = decodeComponents(tokenFilters, w.TokenFilters); err != nil {
		return err
	}
	ix.Tokenizers, err = decodeComponents(tokenizers, w.Tokenizers)
	return err
}

func decodeComponents[T any](u *union[T], b json.RawMessage) ([]T, error) {
	if len(b) == 0 || string(b) == "null" {
		return nil, nil
	}
	return u.decodeList(b)
}

// ParseIndex validates an index definition (a stored one, as
// Resource.Definition holds it) and derives what the document and query
// layers need.
func ParseIndex(def Definition) (*Index, error) {
	ix, ok := def.(*Index)
	if !ok {
		return nil, fmt.Errorf("parse index: the definition is a %T", def)
	}
	if ix.Analysis == nil {
		if err := ix.Validate(); err != nil {
			return nil, err
		}
	}
	return ix, nil
}

var indexProperties = map[string]bool{
	"name": true, "description": true, "fields": true, "scoringProfiles": true, "defaultScoringProfile": true,
	"corsOptions": true, "suggesters": true, "analyzers": true, "tokenizers": true, "tokenFilters": true,
	"charFilters": true, "normalizers": true, "encryptionKey": true, "similarity": true, "semantic": true, "vectorSearch": true,
}

// checkIndexProperties refuses the properties an index definition and its
// fields do not have, as the service refuses them; decodeDefinition runs
// it on the JSON object before decoding.
func checkIndexProperties(m map[string]any) error {
	if k, ok := unknownProperty(m, indexProperties); ok {
		return invalid("index", "The property '%s' is not part of an index definition cerulean serves.", k)
	}
	fields, _ := m["fields"].([]any)
	return checkFieldProperties(fields, "index.fields")
}

// Validate checks the index and fills in the defaults the service
// returns; it derives Key and Analysis.
func (ix *Index) Validate() error {
	if len(ix.EncryptionKey) > 0 && string(ix.EncryptionKey) != "null" {
		return invalid("index.encryptionKey", "Customer-managed encryption keys (Azure Key Vault) are not supported by cerulean.")
	}
	ix.EncryptionKey = nil
	analysis, err := ix.analysis()
	if err != nil {
		return err
	}
	profiles, err := ix.VectorSearch.validate()
	if err != nil {
		return err
	}
	if len(ix.Fields) == 0 {
		return invalid("index.fields", "Index definition must contain one or more valid fields.")
	}
	fv := &fieldValidator{analysis: analysis, vectorProfiles: profiles}
	if err := fv.fields(ix.Fields, "index.fields", 0); err != nil {
		return err
	}
	if fv.keys != 1 {
		// Code and detail as the service answers an index without a key
		// (the Java SDK's createIndexFailsWithUsefulMessageOnUserError
		// recording).
		e := invalid("index", "Found %d key fields in index '%s'. Each index must have exactly one key field.", fv.keys, ix.Name)
		e.Code, e.Details = "OperationNotAllowed", []ErrorDetail{{Code: "MissingKeyField", Message: e.Message}}
		return e
	}
	for _, f := range ix.Fields {
		if f.Key {
			ix.Key = f
		}
	}
	if err := ix.validateParts(fieldsByPath(ix.Fields)); err != nil {
		return err
	}
	ix.fillDefaults()
	ix.Analysis = analysis
	return nil
}

// validateParts checks what refers to the fields.
func (ix *Index) validateParts(byPath map[string]*Field) error {
	if len(ix.Suggesters) > 1 {
		return invalid("index.suggesters", "An index can have at most one suggester; this one has %d.", len(ix.Suggesters))
	}
	for i, s := range ix.Suggesters {
		if err := s.validate(at("index.suggesters", i), byPath); err != nil {
			return err
		}
	}
	names := nameSet{}
	for i, p := range ix.ScoringProfiles {
		where := at("index.scoringProfiles", i)
		if err := p.validate(where, byPath); err != nil {
			return err
		}
		if err := names.add("scoring profile", where, p.Name); err != nil {
			return err
		}
	}
	if dsp := deref(ix.DefaultScoringProfile); dsp != "" && !names[dsp] {
		return invalid("index.defaultScoringProfile", "The default scoring profile '%s' is not defined in the index.", dsp)
	}
	if err := ix.CorsOptions.Validate(); err != nil {
		return err
	}
	return ix.Similarity.Validate()
}

func (ix *Index) fillDefaults() {
	for _, p := range ix.ScoringProfiles {
		if p.Text != nil {
			p.Text.order = inFieldOrder(ix.Fields, p.Text.Weights)
		}
	}
	ix.ScoringProfiles = orEmpty(ix.ScoringProfiles)
	ix.Suggesters = orEmpty(ix.Suggesters)
	ix.Analyzers = orEmpty(ix.Analyzers)
	ix.Tokenizers = orEmpty(ix.Tokenizers)
	ix.TokenFilters = orEmpty(ix.TokenFilters)
	ix.CharFilters = orEmpty(ix.CharFilters)
	ix.Normalizers = orEmpty(ix.Normalizers)
	if ix.Similarity == nil {
		ix.Similarity = &Similarity{ODataType: bm25}
	}
}

// inFieldOrder are the field paths m has, in the order of the fields
// (depth first).
func inFieldOrder[V any](fields []*Field, m map[string]V) []string {
	var out []string
	var walk func(prefix string, fs []*Field)
	walk = func(prefix string, fs []*Field) {
		for _, f := range fs {
			if _, ok := m[prefix+f.Name]; ok {
				out = append(out, prefix+f.Name)
			}
			walk(prefix+f.Name+"/", f.Fields)
		}
	}
	walk("", fields)
	return out
}

// fieldsByPath indexes fields and sub-fields by their path ("a/b").
func fieldsByPath(fields []*Field) map[string]*Field {
	byPath := map[string]*Field{}
	var walk func(prefix string, fs []*Field)
	walk = func(prefix string, fs []*Field) {
		for _, f := range fs {
			byPath[prefix+f.Name] = f
			walk(prefix+f.Name+"/", f.Fields)
		}
	}
	walk("", fields)
	return byPath
}

// Suggester is an index's suggester.
type Suggester struct {
	Name         string   `json:"name"`
	SearchMode   string   `json:"searchMode"`
	SourceFields []string `json:"sourceFields"`
}

// Validate checks the suggester alone.
func (s *Suggester) Validate() error { return s.validate("suggester", nil) }

func (s *Suggester) validate(where string, fields map[string]*Field) error {
	if !validComponentName(s.Name) {
		return componentNameError(where+".name", "suggester", s.Name)
	}
	if s.SearchMode == "" {
		s.SearchMode = "analyzingInfixMatching"
	}
	if s.SearchMode != "analyzingInfixMatching" {
		return invalid(where+".searchMode", "The suggester search mode must be 'analyzingInfixMatching', not '%s'.", s.SearchMode)
	}
	if len(s.SourceFields) == 0 {
		return invalid(where+".sourceFields", "The suggester '%s' must name at least one source field.", s.Name)
	}
	if fields == nil {
		return nil
	}
	for _, path := range s.SourceFields {
		f := fields[path]
		if f == nil {
			return invalid(where+".sourceFields", "The source field '%s' of suggester '%s' does not exist in the index.", path, s.Name)
		}
		if f.ElementType != "Edm.String" || !f.Searchable {
			return invalid(where+".sourceFields", "The source field '%s' of suggester '%s' must be a searchable field of type Edm.String or Collection(Edm.String).", path, s.Name)
		}
	}
	return nil
}

// CorsOptions are the origins a browser may query the index from.
type CorsOptions struct {
	AllowedOrigins  []string     `json:"allowedOrigins"`
	MaxAgeInSeconds *json.Number `json:"maxAgeInSeconds" shape:"int"`
}

// Validate checks the options. A max age not given stays null, as Azure
// answers it (the Java SDK's recording
// IndexManagementTests.createIndexReturnsCorrectDefaultValuesSync); browsers
// then cache a preflight for the service's default of five minutes.
func (c *CorsOptions) Validate() error {
	if c == nil {
		return nil
	}
	if len(c.AllowedOrigins) == 0 {
		return invalid("index.corsOptions.allowedOrigins", "CORS options must list at least one allowed origin (or '*').")
	}
	_, _, err := intIn(c.MaxAgeInSeconds, "index.corsOptions.maxAgeInSeconds", 0, 1<<31-1)
	return err
}

const bm25 = "#Microsoft.Azure.Search.BM25Similarity"

// Similarity is the index's ranking similarity; cerulean ranks with BM25.
type Similarity struct {
	ODataType string       `json:"@odata.type"`
	K1        *json.Number `json:"k1"`
	B         *json.Number `json:"b"`
}

// Validate refuses a similarity other than BM25.
func (s *Similarity) Validate() error {
	if s == nil {
		return nil
	}
	if s.ODataType != bm25 {
		return invalid("index.similarity", "The similarity '%s' is not supported by cerulean; it ranks with BM25 (%s).", s.ODataType, bm25)
	}
	double(s.K1)
	double(s.B)
	if _, _, err := finite(s.K1, "index.similarity.k1"); err != nil {
		return err
	}
	_, _, err := finite(s.B, "index.similarity.b")
	return err
}

// SemanticSettings are the index's semantic configurations, kept as the
// client gave them (cerulean ranks without a semantic ranker).
// defaultConfiguration is written null when unset, as the service does
// (the .NET SDK's CreateIndex recording at 2023-10-01-Preview).
type SemanticSettings struct {
	DefaultConfiguration *string                  `json:"defaultConfiguration"`
	Configurations       []*SemanticConfiguration `json:"configurations,omitempty"`
}

// SemanticConfiguration is one semantic configuration. rankingOrder and
// flightingOptIn exist at some api-versions only; shapeBody writes their
// defaults there.
type SemanticConfiguration struct {
	Name              string                     `json:"name"`
	FlightingOptIn    *bool                      `json:"flightingOptIn,omitempty"`
	RankingOrder      *string                    `json:"rankingOrder,omitempty"`
	PrioritizedFields *SemanticPrioritizedFields `json:"prioritizedFields,omitempty"`
}

// SemanticPrioritizedFields name the fields a semantic configuration
// reads.
type SemanticPrioritizedFields struct {
	TitleField                *SemanticField  `json:"titleField,omitempty"`
	PrioritizedContentFields  []SemanticField `json:"prioritizedContentFields,omitempty"`
	PrioritizedKeywordsFields []SemanticField `json:"prioritizedKeywordsFields,omitempty"`
}

// SemanticField names one field of a semantic configuration.
type SemanticField struct {
	FieldName string `json:"fieldName"`
}
