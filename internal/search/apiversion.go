package search

import (
	"encoding/json"
	"regexp"
	"strings"
	"time"
)

// apiVersion is a parsed api-version: its date and whether it is a
// preview. Versions are told apart by what they serve: a feature arrives
// in a preview and later in a generally available version, and every
// later version of the same kind keeps it.
type apiVersion struct {
	date    string // YYYY-MM-DD
	preview bool
}

// stableVersions are the generally available api-versions the service
// answers (REST reference, "API versions": 2025-09-01, 2024-07-01,
// 2023-11-01, 2020-06-30, 2019-05-06, and in its earlier editions
// 2017-11-11 and 2016-09-01, never retired), and 2026-04-01.
var stableVersions = map[string]bool{
	"2016-09-01": true, "2017-11-11": true, "2019-05-06": true, "2020-06-30": true, "2023-11-01": true, "2024-07-01": true,
	"2025-09-01": true, "2026-04-01": true,
}

// previewVersions are the previews the REST reference lists, the
// deprecated 2023-07-01-preview included (still answered); a preview
// dated after the last of them is accepted too, as newer SDKs send it.
var previewVersions = map[string]bool{
	"2016-09-01": true, "2017-11-11": true, "2019-05-06": true, "2020-06-30": true, "2021-04-30": true, "2023-07-01": true, "2023-10-01": true,
	"2024-03-01": true, "2024-05-01": true, "2024-09-01": true, "2024-11-01": true,
	"2025-03-01": true, "2025-05-01": true, "2025-08-01": true, "2025-11-01": true,
}

const lastListedPreview = "2025-11-01"

var versionPattern = regexp.MustCompile(`^(\d{4}-\d{2}-\d{2})(-[Pp]review)?$`)

// parseAPIVersion reads an api-version. It refuses what the service
// refuses: a missing one, and one that does not exist or was retired
// (2015-02-28, 2015-02-28-Preview, 2014-07-31-Preview and
// 2014-10-20-Preview, discontinued in October 2020).
func parseAPIVersion(s string) (apiVersion, error) {
	if s == "" {
		return apiVersion{}, badRequest("Invalid or missing api-version query string parameter.")
	}
	m := versionPattern.FindStringSubmatch(s)
	unknown := badRequest("The version indicated by the api-version query string parameter does not exist.")
	if m == nil {
		return apiVersion{}, unknown
	}
	if _, err := time.Parse(time.DateOnly, m[1]); err != nil {
		return apiVersion{}, unknown
	}
	v := apiVersion{date: m[1], preview: m[2] != ""}
	switch {
	case !v.preview && stableVersions[v.date]:
	case v.preview && (previewVersions[v.date] || v.date > lastListedPreview):
	default:
		return apiVersion{}, unknown
	}
	return v, nil
}

// AcceptedVersion reports whether an api-version is one cerulean serves.
func AcceptedVersion(s string) bool {
	_, err := parseAPIVersion(s)
	return err == nil
}

// feature is a part of the protocol that some versions have: from the
// preview dated preview on (and before the preview dated previewUntil,
// when a later preview dropped it), and from the stable version dated
// stable on ("" while it is in preview only).
type feature struct{ preview, previewUntil, stable string }

func (v apiVersion) has(f feature) bool {
	if v.preview {
		return v.date >= f.preview && (f.previewUntil == "" || v.date < f.previewUntil)
	}
	return f.stable != "" && v.date >= f.stable
}

// The features whose presence changes a body. Sources: the data source
// tutorial's answer at 2025-05-01-preview (subtype,
// indexerPermissionOptions) and the Python SDK's recordings at
// 2025-11-01-preview (the index's permissionFilterOption and
// purviewEnabled, a field's permissionFilter and sensitivityLabel, the
// service statistics' indexersRuntime, the product function
// aggregation). At 2026-05-01-preview a field's sensitivityLabel gives
// way to sensitivityLabelId, sensitivityLabelName, sourceDocumentId and
// sharepointSiteUrl, and the index gains
// sharePointConnectorAppRegistration; 2026-04-01 has the product
// aggregation and none of the others (the .NET SDK's CreateIndex and
// CrudIndexWithProductScoringAggregation recordings).
//
// An index's description and a field's stored and vectorEncoding are
// absent at 2023-10-01-preview (the Java SDK's index recordings) and
// present at 2025-11-01-preview. stored arrived with the storage options
// of 2024-03-01-preview (REST reference, "API versions") and is stable in
// 2024-07-01; vectorEncoding came with binary vectors in
// 2024-05-01-preview, stable in 2024-07-01. The description is absent at
// 2024-11-01-preview (the Java SDK's VectorSearchTests recordings) and
// present at 2025-11-01-preview and 2026-04-01 (the Python and .NET
// SDKs' recordings); no recording shows the versions between.
var (
	indexDescription    = feature{preview: "2025-11-01", stable: "2026-04-01"}
	storedAttribute     = feature{preview: "2024-03-01", stable: "2024-07-01"}
	vectorEncodingField = feature{preview: "2024-05-01", stable: "2024-07-01"}
	documentPermissions = feature{preview: "2025-05-01"}
	// rankingOrder (default BoostedRerankerScore) came with scoring
	// profiles over semantic ranking in 2025-05-01-preview, stable in
	// 2025-09-01 (REST reference, "Use scoring profiles with semantic
	// ranker"); flightingOptIn (default false) is seen first at
	// 2026-05-01-preview (the .NET SDK's CreateIndex recording) and is
	// not in 2026-04-01.
	semanticRankingOrder = feature{preview: "2025-05-01", stable: "2025-09-01"}
	// Compression (scalar quantization) arrived in 2024-03-01-preview and
	// vectorizers (integrated vectorization) in 2023-10-01-Preview, both
	// stable in 2024-07-01 (REST reference, "API versions"); the .NET
	// SDK's CreateIndex recording at 2023-10-01-Preview has vectorizers
	// and no compressions.
	vectorCompression    = feature{preview: "2024-03-01", stable: "2024-07-01"}
	vectorizers          = feature{preview: "2023-10-01", stable: "2024-07-01"}
	semanticFlighting    = feature{preview: "2026-05-01"}
	purviewLabels        = feature{preview: "2025-11-01"}
	sensitivityLabel     = feature{preview: "2025-11-01", previewUntil: "2026-05-01"}
	sharePointFields     = feature{preview: "2026-05-01"}
	indexerRuntimeQuota  = feature{preview: "2025-11-01"}
	productAggregation   = feature{preview: "2025-11-01", stable: "2026-04-01"}
	retiredTextSkillsOff = feature{preview: "2023-07-01", stable: "2023-11-01"}
	// A split skill's pageOverlapLength and maximumPagesToTake are written
	// (null when unset) at 2026-05-01-preview and 2026-04-01, its unit and
	// azureOpenAITokenizerParameters at 2026-05-01-preview only, none of
	// them at 2023-10-01-preview (the Java SDK's recordings
	// SkillsetManagementTests.createSkillsetReturnsCorrectDefinitionOcrSplitTextSync
	// and …WithSplitDefaultSettingsSync, the Python SDK's skillset
	// recordings at 2026-04-01); no recording shows the versions between,
	// which write them only when set.
	splitSkillPaging = feature{preview: "2026-05-01", stable: "2026-04-01"}
	splitSkillTokens = feature{preview: "2026-05-01"}
	// An indexer status's runtime (null) and its currentState's resync
	// tracking states are answered at 2026-05-01-preview (the Python SDK's
	// indexer recordings).
	indexerResync = feature{preview: "2026-05-01"}
	// Aliases are answered without an ETag at 2023-10-01-preview,
	// 2024-03-01-preview and 2026-05-01-preview (the Java SDK's
	// SearchAliasTests and the Python SDK's alias recordings); no
	// recording shows a stable version.
	aliasWithoutETag = feature{preview: "2023-10-01"}
	// An index's normalizers and a field's normalizer, and a data source's
	// identity, are answered at every preview recorded (2023-07-01 to
	// 2026-05-01) and at 2026-04-01, not at 2023-11-01 (the .NET SDK's
	// CreateIndex and CrudDataSourceConnection recordings at 2023-11-01);
	// they are taken to be stable from 2024-07-01, no recording showing
	// 2024-07-01 or 2025-09-01.
	normalizersAndIdentity = feature{preview: "2020-06-30", stable: "2024-07-01"}
	// An indexer status's currentState and its results' statusDetail,
	// mode and metrics are answered at 2023-10-01-preview (the Java SDK's
	// IndexersManagementTests recordings); no recording shows another
	// version.
	indexerCurrentState = feature{preview: "2023-10-01"}
	// A compression's rescoringOptions and truncationDimension are
	// answered at 2024-11-01-preview, beside rerankWithOriginalVectors
	// and defaultOversampling (null unless given); at 2025-11-01-preview
	// only the former two (the Java SDK's VectorSearchTests recordings).
	vectorRescoring = feature{preview: "2024-11-01"}
	rescoringOnly   = feature{preview: "2025-11-01"}
	// An index's semantic settings are written before its vectorSearch
	// at every preview recorded (2023-10-01 to 2026-05-01) and at
	// 2026-04-01, after it at 2023-11-01 (the .NET SDK's CreateIndex
	// recordings); the order is taken to change with 2024-07-01, no
	// recording showing 2024-07-01 or 2025-09-01.
	semanticBeforeVectorSearch = feature{preview: "2023-10-01", stable: "2024-07-01"}
)

// typeName is a type of the service's model as @odata.context names it at
// the request's api-version: Microsoft.Azure.Search.V2025_11_01_Preview.
// ServiceStatistics at 2025-11-01-preview, …V2024_07_01.IndexStatistics
// at 2024-07-01 (the Python and .NET SDKs' recordings).
func typeName(q *request, name string) string {
	v := requestVersion(q)
	ns := "V" + strings.ReplaceAll(v.date, "-", "_")
	if v.preview {
		ns += "_Preview"
	}
	return "Microsoft.Azure.Search." + ns + "." + name
}

// requestVersion is the request's api-version, already checked by handle.
func requestVersion(q *request) apiVersion {
	v, _ := parseAPIVersion(q.r.URL.Query().Get("api-version"))
	return v
}

// shapeBody gives a resource's body the properties its kind has at v:
// the service writes every property its version knows, null or empty
// when unset, each where its version writes it.
func shapeBody(kind Kind, body *object, v apiVersion) {
	switch kind {
	case Indexes:
		if !v.has(indexDescription) {
			body.del("description")
		}
		if !v.has(normalizersAndIdentity) {
			body.del("normalizers")
		}
		if v.has(documentPermissions) {
			body.setDefaultBefore("permissionFilterOption", nil, "fields")
		}
		if v.has(purviewLabels) {
			body.setDefaultBefore("purviewEnabled", false, "fields")
		}
		if v.has(sharePointFields) {
			body.setDefault("sharePointConnectorAppRegistration", nil)
		}
		if !v.has(semanticBeforeVectorSearch) {
			body.moveBefore("vectorSearch", "semantic")
		}
		shapeFields(body.get("fields"), v)
		if vs := asObject(body.get("vectorSearch")); vs != nil {
			shapeVectorSearch(vs, v)
		}
		if semantic := asObject(body.get("semantic")); semantic != nil {
			for _, config := range objects(semantic.get("configurations")) {
				versioned(config, "rankingOrder", "BoostedRerankerScore", v.has(semanticRankingOrder), "prioritizedFields")
				versioned(config, "flightingOptIn", false, v.has(semanticFlighting), "rankingOrder", "prioritizedFields")
			}
		}
	case DataSources:
		if !v.has(normalizersAndIdentity) {
			body.del("identity")
		}
		if v.has(documentPermissions) {
			body.setDefaultBefore("indexerPermissionOptions", []any{}, "credentials")
		}
	case Aliases:
		if v.has(aliasWithoutETag) {
			body.del("@odata.etag")
		}
	case Skillsets:
		for _, skill := range objects(body.get("skills")) {
			if skill.get("@odata.type") != "#Microsoft.Skills.Text.SplitSkill" {
				continue
			}
			if v.has(splitSkillPaging) {
				skill.setDefaultBefore("pageOverlapLength", nil, "maximumPagesToTake", "inputs")
				skill.setDefaultBefore("maximumPagesToTake", nil, "inputs")
			} else {
				// What the service keeps (0) is not shown where the
				// version does not have the properties.
				for _, k := range []string{"pageOverlapLength", "maximumPagesToTake"} {
					if n, ok := skill.get(k).(json.Number); ok && n == "0" {
						skill.del(k)
					}
				}
			}
			if v.has(splitSkillTokens) {
				// unit before the inputs, the tokenizer parameters last
				// (the Python SDK's skillset recordings at
				// 2026-05-01-preview).
				skill.setDefaultBefore("unit", nil, "inputs")
				skill.setDefault("azureOpenAITokenizerParameters", nil)
			}
		}
	}
}

// shapeIndexerStatus gives Get Indexer Status's answer the properties it
// has at v: at 2023-10-01-preview every result has statusDetail, mode and
// metrics, the answer a currentState (the reset-documents state, empty
// here), and the limits are null while the last result is a reset (the
// Java SDK's recordings IndexersManagementTests.canResetIndexerAndGetIndexerStatusSync
// and canRunIndexerSync).
func shapeIndexerStatus(body *object, v apiVersion) {
	if !v.has(indexerCurrentState) {
		return
	}
	results := objects(body.get("executionHistory"))
	if last := asObject(body.get("lastResult")); last != nil {
		results = append(results, last)
		if last.get("status") == "reset" {
			body.set("limits", nil)
		}
	}
	for _, res := range results {
		res.setDefaultBefore("statusDetail", nil, "errorMessage")
		res.setDefaultBefore("mode", "indexingAllDocs", "errors")
		res.setDefault("metrics", nil)
	}
	current := object{
		{"mode", "indexingAllDocs"}, {"allDocsInitialTrackingState", nil}, {"allDocsFinalTrackingState", nil},
		{"resetDocsInitialTrackingState", nil}, {"resetDocsFinalTrackingState", nil},
		{"resetDocumentKeys", []any{}}, {"resetDatasourceDocumentIds", []any{}},
	}
	if v.has(indexerResync) {
		current = append(current, member{"resyncInitialTrackingState", nil}, member{"resyncFinalTrackingState", nil})
		body.setDefaultBefore("runtime", nil, "lastResult")
	}
	body.set("currentState", &current)
}

// shapeCompression gives a compression the properties it has from
// 2024-11-01-preview on (vectorRescoring).
func shapeCompression(comp *object, v apiVersion) {
	comp.setDefaultBefore("truncationDimension", nil, "scalarQuantizationParameters", "rescoringOptions")
	comp.setDefaultBefore("scalarQuantizationParameters", nil, "rescoringOptions")
	comp.setDefault("rescoringOptions", &object{{"enableRescoring", true}, {"defaultOversampling", json.Number("4.0")}, {"rescoreStorageMethod", "preserveOriginals"}})
	if v.has(rescoringOnly) {
		comp.del("rerankWithOriginalVectors")
		comp.del("defaultOversampling")
	} else {
		comp.setDefaultBefore("rerankWithOriginalVectors", nil, "defaultOversampling", "truncationDimension")
		comp.setDefaultBefore("defaultOversampling", nil, "truncationDimension")
	}
}

// shapeCreated gives a create's answer what Azure's create answer has
// and its later reads do not: at 2024-11-01-preview the legacy
// rerankWithOriginalVectors and defaultOversampling of a compression
// that was given neither mirror its rescoringOptions (true and 4.0 by
// default) in the Create Index answer, and Get Index answers them null
// (the Java SDK's VectorSearchTests recordings
// testVectorSearchCompressionBinaryQuantizationSync and
// testVectorSearchCompressionTruncationDimensionSync). From
// 2025-11-01-preview neither property is answered (rescoringOnly).
func shapeCreated(kind Kind, body *object, v apiVersion) {
	if kind != Indexes || !v.has(vectorRescoring) || v.has(rescoringOnly) {
		return
	}
	vs := asObject(body.get("vectorSearch"))
	if vs == nil {
		return
	}
	for _, comp := range objects(vs.get("compressions")) {
		rescoring := asObject(comp.get("rescoringOptions"))
		if rescoring == nil || comp.get("rerankWithOriginalVectors") != nil || comp.get("defaultOversampling") != nil {
			continue
		}
		comp.set("rerankWithOriginalVectors", rescoring.get("enableRescoring"))
		comp.set("defaultOversampling", rescoring.get("defaultOversampling"))
	}
}

func shapeVectorSearch(vs *object, v apiVersion) {
	versioned(vs, "compressions", []any{}, v.has(vectorCompression))
	if v.has(vectorRescoring) {
		for _, comp := range objects(vs.get("compressions")) {
			shapeCompression(comp, v)
		}
	}
	versioned(vs, "vectorizers", []any{}, v.has(vectorizers), "compressions")
	for _, profile := range objects(vs.get("profiles")) {
		versioned(profile, "compression", nil, v.has(vectorCompression))
		versioned(profile, "vectorizer", nil, v.has(vectorizers), "compression")
	}
}

// shapeFields shapes an index's fields; what the versions add comes just
// before synonymMaps.
func shapeFields(fields any, v apiVersion) {
	for _, field := range objects(fields) {
		if !v.has(storedAttribute) {
			field.del("stored")
		}
		if !v.has(vectorEncodingField) {
			field.del("vectorEncoding")
		}
		if !v.has(normalizersAndIdentity) {
			field.del("normalizer")
		}
		if sub, ok := field.get("fields").([]any); ok {
			shapeFields(sub, v)
			continue
		}
		if v.has(documentPermissions) {
			field.setDefaultBefore("permissionFilter", nil, "synonymMaps")
		}
		if v.has(sensitivityLabel) {
			field.setDefaultBefore("sensitivityLabel", nil, "synonymMaps")
		}
		if v.has(sharePointFields) {
			for _, k := range []string{"sensitivityLabelId", "sensitivityLabelName", "sourceDocumentId", "sharepointSiteUrl"} {
				field.setDefaultBefore(k, nil, "synonymMaps")
			}
		}
	}
}

// versioned writes key with its default when the version has it (before
// the first of following present, or last) and leaves it out when it
// does not.
func versioned(m *object, key string, value any, has bool, following ...string) {
	if has {
		m.setDefaultBefore(key, value, following...)
	} else {
		m.del(key)
	}
}

// retiredSkills are the skills no longer created at versions from
// 2023-07-01-Preview on, in the order the service looks for them: its
// answer to the Python SDK's skillset recording at 2023-07-01-Preview
// names SentimentSkill although an EntityRecognitionSkill comes first
// in the skillset. (The deprecated skills page gives 2021-04-30-Preview
// as the last version that creates either.)
var retiredSkills = []string{
	"#Microsoft.Skills.Text.NamedEntityRecognitionSkill",
	"#Microsoft.Skills.Text.SentimentSkill",
	"#Microsoft.Skills.Text.EntityRecognitionSkill",
}

// checkVersion refuses what a definition holds that its api-version does
// not serve.
func checkVersion(kind Kind, name string, def map[string]any, v apiVersion) error {
	switch kind {
	case Skillsets:
		if !v.has(retiredTextSkillsOff) {
			return nil
		}
		skills, _ := def["skills"].([]any)
		for _, retired := range retiredSkills {
			for _, s := range skills {
				skill, _ := s.(map[string]any)
				if t, _ := skill["@odata.type"].(string); t == retired {
					return badRequest("Skillset '%s' contains a skill of type '%s' which is not supported in this API version. Refer https://go.microsoft.com/fwlink/?linkid=2036733 for details and recommendations", name, strings.TrimPrefix(retired, "#"))
				}
			}
		}
	case Indexes:
		if v.has(productAggregation) {
			return nil
		}
		profiles, _ := def["scoringProfiles"].([]any)
		for i, p := range profiles {
			profile, _ := p.(map[string]any)
			if agg, _ := profile["functionAggregation"].(string); agg == "product" {
				return invalid(at("index.scoringProfiles", i)+".functionAggregation", "The function aggregation '%s' is not one of sum, average, minimum, maximum or firstMatching.", agg)
			}
		}
	}
	return nil
}

// dropUnservedDefaults removes from a definition the properties of
// features cerulean does not serve when they hold their default, as a
// client sends back a definition it read (the Python SDK's index update
// carries purviewEnabled: false, the .NET SDK's data source update
// indexerPermissionOptions: []); any other value is refused by name.
func dropUnservedDefaults(kind Kind, def map[string]any) error {
	drop := func(key, what string, isDefault func(any) bool) error {
		v, ok := def[key]
		if !ok {
			return nil
		}
		if !isDefault(v) {
			return NotImplemented(what)
		}
		delete(def, key)
		return nil
	}
	isFalse := func(v any) bool { b, ok := v.(bool); return v == nil || (ok && !b) }
	isEmpty := func(v any) bool { l, ok := v.([]any); return v == nil || (ok && len(l) == 0) }
	switch kind {
	case Indexes:
		return drop("purviewEnabled", "Microsoft Purview sensitivity labels (purviewEnabled)", isFalse)
	case DataSources:
		return drop("indexerPermissionOptions", "Document-level permissions (indexerPermissionOptions)", isEmpty)
	}
	return nil
}
