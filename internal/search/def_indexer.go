package search

import (
	"encoding/json"
	"fmt"
	"net/http"
	"reflect"
	"slices"
	"strings"
	"time"
)

// isNull reports whether a raw property is absent or JSON null.
func isNull(b json.RawMessage) bool { return len(b) == 0 || string(b) == "null" }

// unsupported refuses a property cerulean does not serve when it is set.
func unsupported(b json.RawMessage, where, format string, args ...any) error {
	if isNull(b) {
		return nil
	}
	return invalid(where, format, args...)
}

// DataSource is where an indexer reads from.
type DataSource struct {
	Name                        string                       `json:"name"`
	Description                 *string                      `json:"description"`
	Type                        string                       `json:"type"`
	Subtype                     json.RawMessage              `json:"subtype"`
	Credentials                 *DataSourceCredentials       `json:"credentials"`
	Container                   *DataContainer               `json:"container"`
	DataChangeDetectionPolicy   *DataChangeDetectionPolicy   `json:"dataChangeDetectionPolicy"`
	DataDeletionDetectionPolicy *DataDeletionDetectionPolicy `json:"dataDeletionDetectionPolicy"`
	EncryptionKey               json.RawMessage              `json:"encryptionKey"`
	Identity                    json.RawMessage              `json:"identity"`
}

// DataContainer names the container (blob container, table, Cosmos
// container) and an optional query over it.
type DataContainer struct {
	Name  string  `json:"name"`
	Query *string `json:"query"`
}

// DataSourceCredentials hold the connection string, which responses
// withhold.
type DataSourceCredentials struct {
	ConnectionString *string `json:"connectionString"`
}

// DataChangeDetectionPolicy is the high water mark policy.
type DataChangeDetectionPolicy struct {
	ODataType               string `json:"@odata.type"`
	HighWaterMarkColumnName string `json:"highWaterMarkColumnName,omitempty"`
}

// DataDeletionDetectionPolicy is the soft delete column policy.
type DataDeletionDetectionPolicy struct {
	ODataType             string  `json:"@odata.type"`
	SoftDeleteColumnName  string  `json:"softDeleteColumnName,omitempty"`
	SoftDeleteMarkerValue *string `json:"softDeleteMarkerValue,omitempty"`
}

// dataSourceTypes are the data source types an indexer could read from
// this server's own services.
var dataSourceTypes = map[string]bool{"azureblob": true, "azuretable": true, "cosmosdb": true}

// unchangedSecret is what clients send back for a withheld secret.
const unchangedSecret = "<unchanged>"

// DefinitionName is the data source's name.
func (d *DataSource) DefinitionName() string { return d.Name }

// ConnectionString is the data source's connection string ("" when it
// has none).
func (d *DataSource) ConnectionString() string {
	if d.Credentials == nil {
		return ""
	}
	return deref(d.Credentials.ConnectionString)
}

// keepSecret takes the stored connection string when the update sends
// none or "<unchanged>".
func (d *DataSource) keepSecret(old *DataSource) {
	if conn := d.ConnectionString(); (conn == "" || conn == unchangedSecret) && old != nil && old.ConnectionString() != "" {
		d.Credentials = &DataSourceCredentials{ConnectionString: ptr(old.ConnectionString())}
	}
}

// Validate checks the data source and normalises it.
func (d *DataSource) Validate() error {
	if err := unsupported(d.EncryptionKey, "dataSource.encryptionKey", "'%s' (managed identities and Azure Key Vault) is not supported by cerulean; use a connection string.", "encryptionKey"); err != nil {
		return err
	}
	var id Identity
	if !isNull(d.Identity) && (json.Unmarshal(d.Identity, &id) != nil || id.ODataType != "#Microsoft.Azure.Search.DataNoneIdentity") {
		return invalid("dataSource.identity", "'%s' (managed identities and Azure Key Vault) is not supported by cerulean; use a connection string.", "identity")
	}
	if !dataSourceTypes[d.Type] {
		return invalid("dataSource.type", "The data source type '%s' is not supported by cerulean; it indexes its own Blob ('azureblob'), Table ('azuretable') and Cosmos DB ('cosmosdb') data.", d.Type)
	}
	if d.ConnectionString() == "" || d.ConnectionString() == unchangedSecret {
		return invalid("dataSource.credentials.connectionString", "The data source needs a connection string.")
	}
	if d.Container == nil {
		return invalid("dataSource.container", "The data source needs a container.")
	}
	if d.Container.Name == "" {
		return invalid("dataSource.container.name", "The data source needs a container name.")
	}
	if err := d.validatePolicies(); err != nil {
		return err
	}
	d.Description, d.Container.Query = nonEmpty(deref(d.Description)), nonEmpty(deref(d.Container.Query))
	d.EncryptionKey, d.Identity, d.Subtype = nil, nil, nil
	return nil
}

func (d *DataSource) validatePolicies() error {
	if c := d.DataChangeDetectionPolicy; c != nil {
		if c.ODataType != odataPrefix+"HighWaterMarkChangeDetectionPolicy" {
			return invalid("dataSource.dataChangeDetectionPolicy", "The change detection policy '%s' is not supported by cerulean; use %sHighWaterMarkChangeDetectionPolicy.", c.ODataType, odataPrefix)
		}
		if c.HighWaterMarkColumnName == "" {
			return invalid("dataSource.dataChangeDetectionPolicy.highWaterMarkColumnName", "The high water mark policy needs highWaterMarkColumnName.")
		}
	}
	if p := d.DataDeletionDetectionPolicy; p != nil {
		if p.ODataType != odataPrefix+"SoftDeleteColumnDeletionDetectionPolicy" {
			return invalid("dataSource.dataDeletionDetectionPolicy", "The deletion detection policy '%s' is not supported by cerulean; use %sSoftDeleteColumnDeletionDetectionPolicy.", p.ODataType, odataPrefix)
		}
		if p.SoftDeleteColumnName == "" {
			return invalid("dataSource.dataDeletionDetectionPolicy.softDeleteColumnName", "The soft delete policy needs softDeleteColumnName.")
		}
	}
	return nil
}

// Indexer reads a data source into an index.
type Indexer struct {
	Name                string             `json:"name"`
	Description         *string            `json:"description"`
	DataSourceName      string             `json:"dataSourceName"`
	SkillsetName        *string            `json:"skillsetName"`
	TargetIndexName     string             `json:"targetIndexName"`
	Disabled            *bool              `json:"disabled"`
	Schedule            *IndexingSchedule  `json:"schedule"`
	Parameters          *IndexerParameters `json:"parameters"`
	FieldMappings       []*FieldMapping    `json:"fieldMappings"`
	OutputFieldMappings []*FieldMapping    `json:"outputFieldMappings"`
	Cache               json.RawMessage    `json:"cache"`
	EncryptionKey       json.RawMessage    `json:"encryptionKey"`
}

// IndexingSchedule runs an indexer every interval from an optional start.
type IndexingSchedule struct {
	Interval  string  `json:"interval"`
	StartTime *string `json:"startTime"`
}

// IndexerParameters shape a run; Configuration holds the data source
// type's settings, which are free-form.
type IndexerParameters struct {
	BatchSize              *json.Number   `json:"batchSize" shape:"int"`
	MaxFailedItems         *json.Number   `json:"maxFailedItems" shape:"int"`
	MaxFailedItemsPerBatch *json.Number   `json:"maxFailedItemsPerBatch" shape:"int"`
	Base64EncodeKeys       *bool          `json:"base64EncodeKeys"`
	Configuration          map[string]any `json:"configuration"`
}

// configurationOrder is the order the service writes an indexer
// configuration's settings in, as far as a recording shows it (the Java
// SDK's recording IndexersManagementTests.canUpdateIndexerBlobParamsSync);
// the settings it does not show follow, sorted.
var configurationOrder = []string{"excludedFileNameExtensions", "indexedFileNameExtensions", "failOnUnsupportedContentType", "dataToExtract"}

// MarshalJSON writes the configuration's settings in the service's order.
func (p IndexerParameters) MarshalJSON() ([]byte, error) {
	type plain IndexerParameters
	config, err := marshalInOrder(p.Configuration, configurationOrder)
	if err != nil {
		return nil, err
	}
	return json.Marshal(struct {
		plain
		Configuration json.RawMessage `json:"configuration"`
	}{plain(p), config})
}

// FieldMapping maps a source field to an index field, optionally through
// a mapping function.
type FieldMapping struct {
	SourceFieldName string                `json:"sourceFieldName"`
	TargetFieldName string                `json:"targetFieldName"`
	MappingFunction *FieldMappingFunction `json:"mappingFunction"`
}

// FieldMappingFunction is a mapping function with its (free-form)
// parameters.
type FieldMappingFunction struct {
	Name       string         `json:"name"`
	Parameters map[string]any `json:"parameters"`
}

// mappingFunctions are the field mapping functions the service defines.
var mappingFunctions = map[string]bool{
	"base64Encode": true, "base64Decode": true, "extractTokenAtPosition": true, "jsonArrayToStringCollection": true,
	"urlEncode": true, "urlDecode": true, "fixedLengthEncode": true, "toJson": true,
}

// DefinitionName is the indexer's name.
func (ix *Indexer) DefinitionName() string { return ix.Name }

// references are the resources an indexer names, for the service to
// check they exist.
func (ix *Indexer) references() []struct {
	key  string
	kind Kind
	name string
	need bool
} {
	return []struct {
		key  string
		kind Kind
		name string
		need bool
	}{{"dataSourceName", DataSources, ix.DataSourceName, true}, {"targetIndexName", Indexes, ix.TargetIndexName, true}, {"skillsetName", Skillsets, deref(ix.SkillsetName), false}}
}

// Validate checks the indexer alone and normalises it.
func (ix *Indexer) Validate() error {
	if err := unsupported(ix.EncryptionKey, "indexer.encryptionKey", "Customer-managed encryption keys (Azure Key Vault) are not supported by cerulean."); err != nil {
		return err
	}
	if err := unsupported(ix.Cache, "indexer.cache", "The enrichment cache is not supported by cerulean."); err != nil {
		return err
	}
	for _, r := range ix.references() {
		if r.name == "" && r.need {
			return invalid("indexer."+r.key, "The indexer needs %s.", r.key)
		}
	}
	if err := ix.Schedule.Validate(); err != nil {
		return err
	}
	if err := ix.Parameters.Validate(); err != nil {
		return err
	}
	for _, list := range []struct {
		name string
		ms   *[]*FieldMapping
	}{{"fieldMappings", &ix.FieldMappings}, {"outputFieldMappings", &ix.OutputFieldMappings}} {
		*list.ms = orEmpty(*list.ms)
		for i, m := range *list.ms {
			if err := m.validate(at("indexer."+list.name, i)); err != nil {
				return err
			}
		}
	}
	ix.Description, ix.SkillsetName = nonEmpty(deref(ix.Description)), nonEmpty(deref(ix.SkillsetName))
	ix.Cache, ix.EncryptionKey = nil, nil
	return nil
}

// startNow gives a schedule without a start time now as its start, as
// Azure writes it back: to the ten-millionth of a second (the Java SDK's
// recording IndexersManagementTests.canCreateAndListIndexersSync).
func (s *IndexingSchedule) startNow(now time.Time) {
	if s != nil && s.StartTime == nil {
		s.StartTime = ptr(now.UTC().Format("2006-01-02T15:04:05.0000000Z"))
	}
}

// Validate checks the schedule's interval and start time.
func (s *IndexingSchedule) Validate() error {
	if s == nil {
		return nil
	}
	dur, err := ParseDuration(s.Interval)
	if err != nil || dur < 5*time.Minute || dur > 24*time.Hour {
		return invalid("indexer.schedule.interval", "The schedule interval '%s' must be an ISO 8601 duration from PT5M to P1D.", s.Interval)
	}
	// Written back as a time span, PT24H as P1D (the Java SDK's recording
	// IndexersManagementTests.canCreateAndListIndexersSync).
	s.Interval = formatDuration(dur)
	if s.StartTime != nil {
		if _, err := time.Parse(time.RFC3339Nano, *s.StartTime); err != nil {
			return invalid("indexer.schedule.startTime", "The start time '%s' is not a date and time with a zone (RFC 3339).", *s.StartTime)
		}
	}
	return nil
}

// Validate checks the parameters' ranges and fills in the configuration.
func (p *IndexerParameters) Validate() error {
	if p == nil {
		return nil
	}
	for _, k := range []struct {
		key    string
		n      *json.Number
		lo, hi int64
	}{{"batchSize", p.BatchSize, 1, 1 << 31}, {"maxFailedItems", p.MaxFailedItems, -1, 1 << 31}, {"maxFailedItemsPerBatch", p.MaxFailedItemsPerBatch, -1, 1 << 31}} {
		if _, _, err := intIn(k.n, "indexer.parameters."+k.key, k.lo, k.hi); err != nil {
			return err
		}
	}
	// Limits not given stay null (a run takes them as 0), and the
	// configuration is {} (the Java SDK's recordings
	// IndexersManagementTests.canUpdateIndexerBlobParamsSync and
	// createIndexerReturnsCorrectDefinitionSync).
	if p.Configuration == nil {
		p.Configuration = map[string]any{}
	}
	return nil
}

// Validate checks the mapping and fills in its target.
func (m *FieldMapping) Validate() error { return m.validate("fieldMapping") }

func (m *FieldMapping) validate(where string) error {
	if m.SourceFieldName == "" {
		return invalid(where+".sourceFieldName", "A field mapping needs sourceFieldName.")
	}
	if m.MappingFunction != nil && !mappingFunctions[m.MappingFunction.Name] {
		return invalid(where+".mappingFunction.name", "The mapping function '%s' does not exist.", m.MappingFunction.Name)
	}
	if m.TargetFieldName == "" {
		m.TargetFieldName = m.SourceFieldName
	}
	return nil
}

// Skillset is the skills an indexer runs over each document.
type Skillset struct {
	Name              string          `json:"name"`
	Description       *string         `json:"description"`
	Skills            SkillList       `json:"skills"`
	CognitiveServices map[string]any  `json:"cognitiveServices"`
	KnowledgeStore    json.RawMessage `json:"knowledgeStore"`
	IndexProjections  json.RawMessage `json:"indexProjections"`
	EncryptionKey     json.RawMessage `json:"encryptionKey"`
}

// DefinitionName is the skillset's name.
func (s *Skillset) DefinitionName() string { return s.Name }

// SkillList is a skillset's skills, decoded through their registry.
type SkillList []Skill

// UnmarshalJSON decodes each skill as the Go type of its @odata.type.
func (l *SkillList) UnmarshalJSON(b []byte) error {
	list, err := decodeComponents(skills, b)
	*l = list
	return err
}

// MarshalJSON writes each skill with its inputs and outputs after the
// properties of its type, as the service writes them (the Java SDK's
// skillset recordings, e.g.
// SkillsetManagementTests.createSkillsetReturnsCorrectDefinitionOcrSplitTextSync).
func (l SkillList) MarshalJSON() ([]byte, error) {
	if l == nil {
		return []byte("null"), nil
	}
	list := make([]any, len(l))
	for i, sk := range l {
		o, err := orderedJSON(sk)
		if err != nil {
			return nil, err
		}
		for _, k := range []string{"inputs", "outputs"} {
			if v, ok := o.get(k), o.has(k); ok {
				o.del(k)
				o.set(k, v)
			}
		}
		list[i] = o
	}
	return json.Marshal(list)
}

// Validate checks the skillset and names unnamed skills by position, as
// the service does.
func (s *Skillset) Validate() error {
	for _, k := range []struct {
		key string
		raw json.RawMessage
	}{{"encryptionKey", s.EncryptionKey}, {"knowledgeStore", s.KnowledgeStore}, {"indexProjections", s.IndexProjections}} {
		if err := unsupported(k.raw, "skillset."+k.key, "'%s' is not supported by cerulean.", k.key); err != nil {
			return err
		}
	}
	if len(s.Skills) == 0 {
		return invalid("skillset.skills", "A skillset needs at least one skill.")
	}
	names := nameSet{}
	for i, sk := range s.Skills {
		h := sk.Head()
		where := at("skillset.skills", i)
		if err := h.validate(where, i); err != nil {
			return err
		}
		name := deref(h.Name)
		if name == "" {
			name = fmt.Sprintf("#%d", i+1)
		}
		if err := names.add("skill", where, name); err != nil {
			return err
		}
	}
	s.Description = nonEmpty(deref(s.Description))
	// The service writes the Azure AI services attachment's description,
	// null when unset (the Java SDK's recording
	// SkillsetManagementTests.canCreateAndListSkillsetsSync).
	if s.CognitiveServices != nil {
		if _, ok := s.CognitiveServices["description"]; !ok {
			s.CognitiveServices["description"] = nil
		}
	}
	return nil
}

// Skill is one skill of a skillset: one Go type per @odata.type cerulean
// runs, OtherSkill for the rest (kept as given; runs refuse them).
type Skill interface {
	Head() *SkillHead
}

// SkillHead is what every skill has.
type SkillHead struct {
	ODataType string `json:"@odata.type"`
	// Context and Name are nil where the definition left them out: the
	// service answers a create or update so (null), and fills them in,
	// "/document" and "#<position>", in what it keeps (fillDefaults; the
	// Java SDK's recording SkillsetManagementTests.canCreateAndListSkillsetsSync).
	Name        *string        `json:"name"`
	Description *string        `json:"description"`
	Context     *string        `json:"context"`
	Inputs      []*SkillInput  `json:"inputs"`
	Outputs     []*SkillOutput `json:"outputs"`
}

// Head is the skill's common part.
func (h *SkillHead) Head() *SkillHead { return h }

// SkillName is the skill's name, "" when it has none.
func (h *SkillHead) SkillName() string { return deref(h.Name) }

// SkillContext is the skill's context, "" when it has none.
func (h *SkillHead) SkillContext() string { return deref(h.Context) }

// SkillInput is a skill's input: a source path or expression, or nested
// inputs. The service writes sourceContext (null when unset) and inputs
// ([] when none) on every input (the Java SDK's skillset recordings).
type SkillInput struct {
	Name          string        `json:"name"`
	Source        string        `json:"source,omitempty"`
	SourceContext *string       `json:"sourceContext"`
	Inputs        []*SkillInput `json:"inputs"`
}

// MarshalJSON writes inputs as [] when there are none, also for a
// definition stored before they were normalised, and source as null when
// there is none (an input of nested inputs; the Java SDK's recording
// SkillsetManagementTests.createSkillsetReturnsCorrectDefinitionShaperWithNestedInputsSync).
func (in SkillInput) MarshalJSON() ([]byte, error) {
	return json.Marshal(struct {
		Name          string        `json:"name"`
		Source        *string       `json:"source"`
		SourceContext *string       `json:"sourceContext"`
		Inputs        []*SkillInput `json:"inputs"`
	}{in.Name, nonEmpty(in.Source), in.SourceContext, orEmpty(in.Inputs)})
}

func (in *SkillInput) normalise() {
	in.Inputs = orEmpty(in.Inputs)
	for _, sub := range in.Inputs {
		if sub != nil {
			sub.normalise()
		}
	}
}

// SkillOutput is a skill's output and the name it is kept under.
type SkillOutput struct {
	Name       string `json:"name"`
	TargetName string `json:"targetName,omitempty"`
}

func (h *SkillHead) validate(where string, i int) error {
	if !strings.HasPrefix(h.ODataType, "#Microsoft.Skills.") {
		return invalid(where+".@odata.type", "The skill type '%s' is not a skill type (#Microsoft.Skills.…).", h.ODataType)
	}
	for j, in := range h.Inputs {
		if in == nil || in.Name == "" {
			return invalid(at(where+".inputs", j)+".name", "Every skill input and output needs a name.")
		}
		in.normalise()
	}
	for j, out := range h.Outputs {
		if out == nil || out.Name == "" {
			return invalid(at(where+".outputs", j)+".name", "Every skill input and output needs a name.")
		}
	}
	h.Name, h.Context = nonEmpty(deref(h.Name)), nonEmpty(deref(h.Context))
	h.Inputs, h.Outputs = orEmpty(h.Inputs), orEmpty(h.Outputs)
	return nil
}

// fillDefaults gives the skill at position i (from 0) the name and context
// the service keeps for it when the definition left them out.
func (h *SkillHead) fillDefaults(i int) {
	if h.Name == nil {
		h.Name = ptr(fmt.Sprintf("#%d", i+1))
	}
	if h.Context == nil {
		h.Context = ptr("/document")
	}
}

// fillDefaults fills in what the service keeps for each skill: its name
// and context, and a split skill's language ("en") and paging (0): the
// Python SDK's skillset recordings at 2026-04-01 read them back so after
// a create answered them null. Skills of Azure AI services get the
// defaults otherSkillKept lists.
func (s *Skillset) fillDefaults() {
	for i, sk := range s.Skills {
		sk.Head().fillDefaults(i)
		if other, ok := sk.(*OtherSkill); ok {
			for k, v := range otherSkillKept[other.ODataType] {
				if isUnset(other.Properties[k]) {
					if other.Properties == nil {
						other.Properties = map[string]any{}
					}
					if list, ok := v.([]any); ok {
						v = slices.Clone(list) // the table's list is shared
					}
					other.Properties[k] = v
				}
			}
		}
		if split, ok := sk.(*SplitSkill); ok {
			if split.DefaultLanguageCode == nil {
				split.DefaultLanguageCode = ptr("en")
			}
			if split.PageOverlapLength == nil {
				split.PageOverlapLength = number("0")
			}
			if split.MaximumPagesToTake == nil {
				split.MaximumPagesToTake = number("0")
			}
		}
	}
}

// The skills cerulean runs.
type (
	// MergeSkill merges texts into one, between tags.
	MergeSkill struct {
		SkillHead
		InsertPreTag  *string `json:"insertPreTag"`
		InsertPostTag *string `json:"insertPostTag"`
	}
	// ShaperSkill gathers its inputs into one object.
	ShaperSkill struct{ SkillHead }
	// ConditionalSkill picks whenTrue or whenFalse by condition.
	ConditionalSkill struct{ SkillHead }
	// SplitSkill splits text into pages or sentences.
	SplitSkill struct {
		SkillHead
		DefaultLanguageCode *string      `json:"defaultLanguageCode"`
		TextSplitMode       *string      `json:"textSplitMode,omitempty"`
		MaximumPageLength   *json.Number `json:"maximumPageLength" shape:"int"`
		PageOverlapLength   *json.Number `json:"pageOverlapLength,omitempty" shape:"int"`
		MaximumPagesToTake  *json.Number `json:"maximumPagesToTake,omitempty" shape:"int"`
	}
)

// OtherSkill is a skill cerulean does not run (it needs Azure AI
// services); its own properties are kept as given.
type OtherSkill struct {
	SkillHead
	Properties map[string]any
}

// UnmarshalJSON keeps the properties beyond the common ones.
func (o *OtherSkill) UnmarshalJSON(b []byte) error {
	if err := unmarshalJSON(b, &o.SkillHead); err != nil {
		return err
	}
	if err := unmarshalJSON(b, &o.Properties); err != nil {
		return err
	}
	for k := range jsonFields(reflect.TypeOf(o.SkillHead)) {
		delete(o.Properties, k)
	}
	return nil
}

// MarshalJSON writes the common properties with those of the skill's
// type the service writes, in its order (their value when unset), then
// the skill's other properties.
func (o *OtherSkill) MarshalJSON() ([]byte, error) {
	m, err := orderedJSON(&o.SkillHead)
	if err != nil {
		return nil, err
	}
	for _, d := range otherSkillDefaults[o.ODataType] {
		m.set(d.key, d.value)
	}
	for _, k := range sortedKeys(o.Properties) {
		m.set(k, o.Properties[k])
	}
	return json.Marshal(m)
}

// otherSkillDefaults are, by skill type, the properties the service
// writes for a skill cerulean keeps as given, in the order it writes
// them, with the value it writes when the definition leaves them out.
// Source: the Java SDK's skillset recordings
// SkillsetManagementTests.createSkillsetReturnsCorrectDefinition* at
// 2023-10-01-preview and 2026-05-01-preview (an OCR skill's
// detectOrientation is false only where the request says so).
var otherSkillDefaults = map[string]object{
	"#Microsoft.Skills.Vision.OcrSkill":                {{"textExtractionAlgorithm", nil}, {"lineEnding", nil}, {"defaultLanguageCode", nil}, {"detectOrientation", nil}},
	"#Microsoft.Skills.Text.V3.EntityRecognitionSkill": {{"categories", []any{}}, {"defaultLanguageCode", nil}, {"minimumPrecision", nil}, {"modelVersion", nil}},
	"#Microsoft.Skills.Text.LanguageDetectionSkill":    {{"defaultCountryHint", nil}, {"modelVersion", nil}},
	"#Microsoft.Skills.Text.V3.SentimentSkill":         {{"defaultLanguageCode", nil}, {"modelVersion", nil}, {"includeOpinionMining", false}},
	"#Microsoft.Skills.Text.KeyPhraseExtractionSkill":  {{"defaultLanguageCode", nil}, {"maxKeyPhraseCount", nil}, {"modelVersion", nil}},
	"#Microsoft.Skills.Vision.ImageAnalysisSkill":      {{"defaultLanguageCode", nil}, {"visualFeatures", []any{}}, {"details", []any{}}},
}

// isUnset reports a property given null or left out, or an empty
// list: a stored skill keeps otherSkillDefaults' [] for a list left out.
func isUnset(v any) bool {
	list, isList := v.([]any)
	return v == nil || isList && len(list) == 0
}

// otherSkillKept are, by skill type, the defaults of Azure AI services
// that the service keeps for a skill given without them: a create
// answers them null or empty (otherSkillDefaults), a read with these
// values; the entity categories are all those the skill finds, as an
// empty list means.
// Source: the Java SDK's recording
// SkillsetManagementTests.canCreateAndListSkillsetsSync at
// 2023-10-01-preview, whose List Skillsets answers them for an OCR skill
// and an entity recognition skill created without them.
var otherSkillKept = map[string]map[string]any{
	"#Microsoft.Skills.Vision.OcrSkill": {"lineEnding": "Space", "detectOrientation": true},
	"#Microsoft.Skills.Text.V3.EntityRecognitionSkill": {"defaultLanguageCode": "en", "categories": []any{
		"Location", "DateTime", "Organization", "URL", "PhoneNumber", "Email", "Address", "Event",
		"Product", "Skill", "PersonType", "Person", "IPAddress", "Quantity",
	}},
}

var skills = &union[Skill]{tag: "@odata.type", members: map[string]func() Skill{
	"#Microsoft.Skills.Util.ShaperSkill":      func() Skill { return &ShaperSkill{} },
	"#Microsoft.Skills.Util.ConditionalSkill": func() Skill { return &ConditionalSkill{} },
	"#Microsoft.Skills.Text.MergeSkill":       func() Skill { return &MergeSkill{} },
	"#Microsoft.Skills.Text.SplitSkill":       func() Skill { return &SplitSkill{} },
}, other: func() Skill { return &OtherSkill{} }}

func init() { registerShape[Skill](skills) }

// SynonymMap is a set of Solr-format synonym rules.
type SynonymMap struct {
	Name          string          `json:"name"`
	Format        string          `json:"format"`
	Synonyms      *string         `json:"synonyms"`
	EncryptionKey json.RawMessage `json:"encryptionKey"`
}

// DefinitionName is the synonym map's name.
func (m *SynonymMap) DefinitionName() string { return m.Name }

// Validate checks the format and the rules.
func (m *SynonymMap) Validate() error {
	if m.Format != "solr" {
		return invalid("synonymMap.format", "The synonym map format must be 'solr', not '%s'.", m.Format)
	}
	if m.Synonyms == nil {
		return invalid("synonymMap.synonyms", "The synonym map must have synonyms.")
	}
	if _, err := ParseSynonyms(*m.Synonyms); err != nil {
		// The service's answer to a rule with two '=>' (the Java SDK's
		// createSynonymMapFailsWithUsefulMessageOnUserError recording).
		return detailed(http.StatusBadRequest, "InvalidRequestParameter", "InvalidSynonymMapSyntax", err.Error())
	}
	if err := unsupported(m.EncryptionKey, "synonymMap.encryptionKey", "Customer-managed encryption keys (Azure Key Vault) are not supported by cerulean."); err != nil {
		return err
	}
	m.EncryptionKey = nil
	return nil
}

// Alias is a second name of one index.
type Alias struct {
	Name    string   `json:"name"`
	Indexes []string `json:"indexes"`
}

// DefinitionName is the alias's name.
func (a *Alias) DefinitionName() string { return a.Name }

// Validate checks that the alias names exactly one index.
func (a *Alias) Validate() error {
	if len(a.Indexes) > 1 {
		return aliasMappingError(fmt.Sprintf("An index alias can be mapped to a single index within the search service. Alias - '%s' is being mapped to more than one index within the search service.", a.Name))
	}
	if len(a.Indexes) != 1 {
		return invalid("alias.indexes", "An alias must map to exactly one index; this one names %d.", len(a.Indexes))
	}
	return nil
}

// aliasMappingError is Azure's refusal of an alias mapped to more than
// one index, or to one that does not exist: 400 InvalidRequestParameter,
// detail InvalidIndexAliasMapping (the Java SDK's recordings
// SearchAliasTests.cannotCreateAliasWithMultipleIndexesSync and
// cannotCreateAliasOnNonExistentIndexSync).
func aliasMappingError(detail string) *Error {
	return &Error{Status: http.StatusBadRequest, Code: "InvalidRequestParameter", Message: "Index alias was not valid for creation.",
		Details: []ErrorDetail{{Code: "InvalidIndexAliasMapping", Message: detail + " Learn more at https://aka.ms/azurecognitivesearchcreateupdatealias"}}}
}
