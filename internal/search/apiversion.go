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
// when unset.
func shapeBody(kind Kind, body map[string]any, v apiVersion) {
	switch kind {
	case Indexes:
		if !v.has(indexDescription) {
			delete(body, "description")
		}
		if !v.has(normalizersAndIdentity) {
			delete(body, "normalizers")
		}
		if v.has(documentPermissions) {
			setDefault(body, "permissionFilterOption", nil)
		}
		if v.has(purviewLabels) {
			setDefault(body, "purviewEnabled", false)
		}
		if v.has(sharePointFields) {
			setDefault(body, "sharePointConnectorAppRegistration", nil)
		}
		fields, _ := body["fields"].([]any)
		shapeFields(fields, v)
		if vs, ok := body["vectorSearch"].(map[string]any); ok {
			shapeVectorSearch(vs, v)
		}
		if semantic, ok := body["semantic"].(map[string]any); ok {
			configs, _ := semantic["configurations"].([]any)
			for _, c := range configs {
				if config, ok := c.(map[string]any); ok {
					versioned(config, "rankingOrder", "BoostedRerankerScore", v.has(semanticRankingOrder))
					versioned(config, "flightingOptIn", false, v.has(semanticFlighting))
				}
			}
		}
	case DataSources:
		if !v.has(normalizersAndIdentity) {
			delete(body, "identity")
		}
		if v.has(documentPermissions) {
			setDefault(body, "indexerPermissionOptions", []any{})
		}
	case Aliases:
		if v.has(aliasWithoutETag) {
			delete(body, "@odata.etag")
		}
	case Skillsets:
		skills, _ := body["skills"].([]any)
		for _, sk := range skills {
			skill, ok := sk.(map[string]any)
			if !ok || skill["@odata.type"] != "#Microsoft.Skills.Text.SplitSkill" {
				continue
			}
			if v.has(splitSkillPaging) {
				setDefault(skill, "pageOverlapLength", nil)
				setDefault(skill, "maximumPagesToTake", nil)
			} else {
				// What the service keeps (0) is not shown where the
				// version does not have the properties.
				for _, k := range []string{"pageOverlapLength", "maximumPagesToTake"} {
					if n, ok := skill[k].(json.Number); ok && n == "0" {
						delete(skill, k)
					}
				}
			}
			if v.has(splitSkillTokens) {
				setDefault(skill, "unit", nil)
				setDefault(skill, "azureOpenAITokenizerParameters", nil)
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
func shapeIndexerStatus(body map[string]any, v apiVersion) {
	if !v.has(indexerCurrentState) {
		return
	}
	results, _ := body["executionHistory"].([]any)
	if last, ok := body["lastResult"].(map[string]any); ok {
		results = append(results, last)
		if last["status"] == "reset" {
			body["limits"] = nil
		}
	}
	for _, r := range results {
		if res, ok := r.(map[string]any); ok {
			setDefault(res, "statusDetail", nil)
			setDefault(res, "mode", "indexingAllDocs")
			setDefault(res, "metrics", nil)
		}
	}
	current := map[string]any{
		"mode": "indexingAllDocs", "allDocsInitialTrackingState": nil, "allDocsFinalTrackingState": nil,
		"resetDocsInitialTrackingState": nil, "resetDocsFinalTrackingState": nil,
		"resetDocumentKeys": []any{}, "resetDatasourceDocumentIds": []any{},
	}
	if v.has(indexerResync) {
		current["resyncInitialTrackingState"], current["resyncFinalTrackingState"] = nil, nil
		setDefault(body, "runtime", nil)
	}
	body["currentState"] = current
}

// shapeCompression gives a compression the properties it has from
// 2024-11-01-preview on (vectorRescoring).
func shapeCompression(comp map[string]any, v apiVersion) {
	setDefault(comp, "truncationDimension", nil)
	setDefault(comp, "scalarQuantizationParameters", nil)
	setDefault(comp, "rescoringOptions", map[string]any{"enableRescoring": true, "defaultOversampling": json.Number("4.0"), "rescoreStorageMethod": "preserveOriginals"})
	if v.has(rescoringOnly) {
		delete(comp, "rerankWithOriginalVectors")
		delete(comp, "defaultOversampling")
	} else {
		setDefault(comp, "rerankWithOriginalVectors", nil)
		setDefault(comp, "defaultOversampling", nil)
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
func shapeCreated(kind Kind, body map[string]any, v apiVersion) {
	if kind != Indexes || !v.has(vectorRescoring) || v.has(rescoringOnly) {
		return
	}
	vs, _ := body["vectorSearch"].(map[string]any)
	compressions, _ := vs["compressions"].([]any)
	for _, c := range compressions {
		comp, ok := c.(map[string]any)
		if !ok {
			continue
		}
		rescoring, ok := comp["rescoringOptions"].(map[string]any)
		if !ok || comp["rerankWithOriginalVectors"] != nil || comp["defaultOversampling"] != nil {
			continue
		}
		comp["rerankWithOriginalVectors"] = rescoring["enableRescoring"]
		comp["defaultOversampling"] = rescoring["defaultOversampling"]
	}
}

func shapeVectorSearch(vs map[string]any, v apiVersion) {
	versioned(vs, "compressions", []any{}, v.has(vectorCompression))
	if v.has(vectorRescoring) {
		compressions, _ := vs["compressions"].([]any)
		for _, c := range compressions {
			if comp, ok := c.(map[string]any); ok {
				shapeCompression(comp, v)
			}
		}
	}
	versioned(vs, "vectorizers", []any{}, v.has(vectorizers))
	profiles, _ := vs["profiles"].([]any)
	for _, p := range profiles {
		if profile, ok := p.(map[string]any); ok {
			versioned(profile, "compression", nil, v.has(vectorCompression))
			versioned(profile, "vectorizer", nil, v.has(vectorizers))
		}
	}
}

func shapeFields(fields []any, v apiVersion) {
	for _, f := range fields {
		field, ok := f.(map[string]any)
		if !ok {
			continue
		}
		if !v.has(storedAttribute) {
			delete(field, "stored")
		}
		if !v.has(vectorEncodingField) {
			delete(field, "vectorEncoding")
		}
		if !v.has(normalizersAndIdentity) {
			delete(field, "normalizer")
		}
		if sub, ok := field["fields"].([]any); ok {
			shapeFields(sub, v)
			continue
		}
		if v.has(documentPermissions) {
			setDefault(field, "permissionFilter", nil)
		}
		if v.has(sensitivityLabel) {
			setDefault(field, "sensitivityLabel", nil)
		}
		if v.has(sharePointFields) {
			for _, k := range []string{"sensitivityLabelId", "sensitivityLabelName", "sourceDocumentId", "sharepointSiteUrl"} {
				setDefault(field, k, nil)
			}
		}
	}
}

// versioned writes key with its default when the version has it and
// leaves it out when it does not.
func versioned(m map[string]any, key string, value any, has bool) {
	if has {
		setDefault(m, key, value)
	} else {
		delete(m, key)
	}
}

func setDefault(m map[string]any, key string, value any) {
	if _, ok := m[key]; !ok {
		m[key] = value
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
