package search

import (
	"fmt"
	"strings"
	"time"
)

// dataSourceTypes are the data source types an indexer could read from
// this server's own services.
var dataSourceTypes = map[string]bool{"azureblob": true, "azuretable": true, "cosmosdb": true}

// unchangedSecret is what clients send back for a withheld secret.
const unchangedSecret = "<unchanged>"

func (v *validation) dataSource() (map[string]any, error) {
	d := v.def
	for _, k := range []string{"encryptionKey", "identity"} {
		if x, ok := d[k]; ok && x != nil {
			if m, isMap := x.(map[string]any); k == "identity" && isMap && m["@odata.type"] == "#Microsoft.Azure.Search.DataNoneIdentity" {
				continue
			}
			return nil, invalid("dataSource."+k, "'%s' (managed identities and Azure Key Vault) is not supported by cerulean; use a connection string.", k)
		}
	}
	desc, _, err := getString(d, "description", "dataSource")
	if err != nil {
		return nil, err
	}
	typ, _, err := getString(d, "type", "dataSource")
	if err != nil {
		return nil, err
	}
	if !dataSourceTypes[typ] {
		return nil, invalid("dataSource.type", "The data source type '%s' is not supported by cerulean; it indexes its own Blob ('azureblob'), Table ('azuretable') and Cosmos DB ('cosmosdb') data.", typ)
	}
	creds, _, err := getObject(d, "credentials", "dataSource")
	if err != nil {
		return nil, err
	}
	conn := ""
	if creds != nil {
		if conn, _, err = getString(creds, "connectionString", "dataSource.credentials"); err != nil {
			return nil, err
		}
	}
	if conn == "" || conn == unchangedSecret {
		if old, ok := v.old["credentials"].(map[string]any); ok {
			conn, _ = old["connectionString"].(string)
		}
	}
	if conn == "" {
		return nil, invalid("dataSource.credentials.connectionString", "The data source needs a connection string.")
	}
	container, _, err := getObject(d, "container", "dataSource")
	if err != nil {
		return nil, err
	}
	if container == nil {
		return nil, invalid("dataSource.container", "The data source needs a container.")
	}
	cname, _, err := getString(container, "name", "dataSource.container")
	if err != nil {
		return nil, err
	}
	if cname == "" {
		return nil, invalid("dataSource.container.name", "The data source needs a container name.")
	}
	query, _, err := getString(container, "query", "dataSource.container")
	if err != nil {
		return nil, err
	}
	change, ok, err := getObject(d, "dataChangeDetectionPolicy", "dataSource")
	if err != nil {
		return nil, err
	}
	if ok {
		t, _, err := getString(change, "@odata.type", "dataSource.dataChangeDetectionPolicy")
		if err != nil {
			return nil, err
		}
		if t != odataPrefix+"HighWaterMarkChangeDetectionPolicy" {
			return nil, invalid("dataSource.dataChangeDetectionPolicy", "The change detection policy '%s' is not supported by cerulean; use %sHighWaterMarkChangeDetectionPolicy.", t, odataPrefix)
		}
		col, _, err := getString(change, "highWaterMarkColumnName", "dataSource.dataChangeDetectionPolicy")
		if err != nil {
			return nil, err
		}
		if col == "" {
			return nil, invalid("dataSource.dataChangeDetectionPolicy.highWaterMarkColumnName", "The high water mark policy needs highWaterMarkColumnName.")
		}
	}
	del, ok, err := getObject(d, "dataDeletionDetectionPolicy", "dataSource")
	if err != nil {
		return nil, err
	}
	if ok {
		t, _, err := getString(del, "@odata.type", "dataSource.dataDeletionDetectionPolicy")
		if err != nil {
			return nil, err
		}
		switch t {
		case odataPrefix + "SoftDeleteColumnDeletionDetectionPolicy":
			col, _, err := getString(del, "softDeleteColumnName", "dataSource.dataDeletionDetectionPolicy")
			if err != nil {
				return nil, err
			}
			if col == "" {
				return nil, invalid("dataSource.dataDeletionDetectionPolicy.softDeleteColumnName", "The soft delete policy needs softDeleteColumnName.")
			}
			if _, _, err := getString(del, "softDeleteMarkerValue", "dataSource.dataDeletionDetectionPolicy"); err != nil {
				return nil, err
			}
		default:
			return nil, invalid("dataSource.dataDeletionDetectionPolicy", "The deletion detection policy '%s' is not supported by cerulean; use %sSoftDeleteColumnDeletionDetectionPolicy.", t, odataPrefix)
		}
	}
	return map[string]any{
		"name": v.name, "description": orNull(desc, desc != ""), "type": typ, "subtype": nil,
		"credentials":               map[string]any{"connectionString": conn},
		"container":                 map[string]any{"name": cname, "query": orNull(query, query != "")},
		"dataChangeDetectionPolicy": d["dataChangeDetectionPolicy"], "dataDeletionDetectionPolicy": d["dataDeletionDetectionPolicy"],
		"encryptionKey": nil, "identity": nil,
	}, nil
}

// mappingFunctions are the field mapping functions the service defines.
var mappingFunctions = map[string]bool{
	"base64Encode": true, "base64Decode": true, "extractTokenAtPosition": true, "jsonArrayToStringCollection": true,
	"urlEncode": true, "urlDecode": true, "fixedLengthEncode": true, "toJson": true,
}

// ParseDuration reads an ISO 8601 duration of days, hours, minutes and
// seconds (P1D, PT5M, PT1H30M), as indexer schedules use.
func ParseDuration(s string) (time.Duration, error) {
	rest, ok := strings.CutPrefix(s, "P")
	if !ok || rest == "" {
		return 0, fmt.Errorf("%q is not an ISO 8601 duration", s)
	}
	var d time.Duration
	inTime := false
	num := ""
	for _, c := range rest {
		switch {
		case c >= '0' && c <= '9' || c == '.':
			num += string(c)
		case c == 'T' && !inTime && num == "":
			inTime = true
		default:
			if num == "" {
				return 0, fmt.Errorf("%q is not an ISO 8601 duration", s)
			}
			var unit time.Duration
			switch {
			case !inTime && c == 'D':
				unit = 24 * time.Hour
			case !inTime && c == 'W':
				unit = 7 * 24 * time.Hour
			case inTime && c == 'H':
				unit = time.Hour
			case inTime && c == 'M':
				unit = time.Minute
			case inTime && c == 'S':
				unit = time.Second
			default:
				return 0, fmt.Errorf("%q is not an ISO 8601 duration of weeks, days, hours, minutes and seconds", s)
			}
			var f float64
			if _, err := fmt.Sscanf(num, "%g", &f); err != nil || f < 0 || f > 1e6 {
				return 0, fmt.Errorf("%q is not an ISO 8601 duration", s)
			}
			d += time.Duration(f * float64(unit))
			num = ""
		}
	}
	if num != "" || strings.HasSuffix(rest, "T") {
		return 0, fmt.Errorf("%q is not an ISO 8601 duration", s)
	}
	return d, nil
}

func (v *validation) indexer() (map[string]any, error) {
	d := v.def
	if x, ok := d["encryptionKey"]; ok && x != nil {
		return nil, invalid("indexer.encryptionKey", "Customer-managed encryption keys (Azure Key Vault) are not supported by cerulean.")
	}
	if x, ok := d["cache"]; ok && x != nil {
		return nil, invalid("indexer.cache", "The enrichment cache is not supported by cerulean.")
	}
	desc, _, err := getString(d, "description", "indexer")
	if err != nil {
		return nil, err
	}
	refs := map[string]string{}
	for _, r := range []struct {
		key  string
		kind Kind
		need bool
	}{{"dataSourceName", DataSources, true}, {"targetIndexName", Indexes, true}, {"skillsetName", Skillsets, false}} {
		name, _, err := getString(d, r.key, "indexer")
		if err != nil {
			return nil, err
		}
		refs[r.key] = name
		if name == "" {
			if r.need {
				return nil, invalid("indexer."+r.key, "The indexer needs %s.", r.key)
			}
			continue
		}
		found, err := exists(v.rd, r.kind, name)
		if err != nil {
			return nil, err
		}
		if !found {
			return nil, invalid("indexer."+r.key, "The indexer refers to the %s '%s', which does not exist.", r.kind.label(), name)
		}
	}
	disabled, hasDisabled, err := getBool(d, "disabled", "indexer")
	if err != nil {
		return nil, err
	}
	schedule, ok, err := getObject(d, "schedule", "indexer")
	if err != nil {
		return nil, err
	}
	if ok {
		interval, _, err := getString(schedule, "interval", "indexer.schedule")
		if err != nil {
			return nil, err
		}
		dur, err := ParseDuration(interval)
		if err != nil || dur < 5*time.Minute || dur > 24*time.Hour {
			return nil, invalid("indexer.schedule.interval", "The schedule interval '%s' must be an ISO 8601 duration from PT5M to P1D.", interval)
		}
		start, hasStart, err := getString(schedule, "startTime", "indexer.schedule")
		if err != nil {
			return nil, err
		}
		if hasStart {
			if _, err := time.Parse(time.RFC3339Nano, start); err != nil {
				return nil, invalid("indexer.schedule.startTime", "The start time '%s' is not a date and time with a zone (RFC 3339).", start)
			}
		}
		withDefaults(schedule, map[string]any{"startTime": nil})
	}
	params, ok, err := getObject(d, "parameters", "indexer")
	if err != nil {
		return nil, err
	}
	if ok {
		for _, k := range []struct {
			key    string
			lo, hi int64
		}{{"batchSize", 1, 1 << 31}, {"maxFailedItems", -1, 1 << 31}, {"maxFailedItemsPerBatch", -1, 1 << 31}} {
			if _, _, err := getInt(params, k.key, "indexer.parameters", k.lo, k.hi); err != nil {
				return nil, err
			}
		}
		if _, _, err := getObject(params, "configuration", "indexer.parameters"); err != nil {
			return nil, err
		}
		withDefaults(params, map[string]any{"batchSize": nil, "maxFailedItems": json0(), "maxFailedItemsPerBatch": json0(), "configuration": map[string]any{}})
	}
	mappings := map[string][]any{}
	for _, list := range []string{"fieldMappings", "outputFieldMappings"} {
		ms, err := getObjects(d, list, "indexer")
		if err != nil {
			return nil, err
		}
		out := make([]any, 0, len(ms))
		for i, m := range ms {
			at := fmt.Sprintf("indexer.%s[%d]", list, i)
			src, _, err := getString(m, "sourceFieldName", at)
			if err != nil {
				return nil, err
			}
			if src == "" {
				return nil, invalid(at+".sourceFieldName", "A field mapping needs sourceFieldName.")
			}
			target, _, err := getString(m, "targetFieldName", at)
			if err != nil {
				return nil, err
			}
			fn, ok, err := getObject(m, "mappingFunction", at)
			if err != nil {
				return nil, err
			}
			if ok {
				name, _, err := getString(fn, "name", at+".mappingFunction")
				if err != nil {
					return nil, err
				}
				if !mappingFunctions[name] {
					return nil, invalid(at+".mappingFunction.name", "The mapping function '%s' does not exist.", name)
				}
				withDefaults(fn, map[string]any{"parameters": nil})
			}
			if target == "" {
				target = src
			}
			out = append(out, map[string]any{"sourceFieldName": src, "targetFieldName": target, "mappingFunction": orNull(fn, ok)})
		}
		mappings[list] = out
	}
	return map[string]any{
		"name": v.name, "description": orNull(desc, desc != ""), "dataSourceName": refs["dataSourceName"],
		"skillsetName": orNull(refs["skillsetName"], refs["skillsetName"] != ""), "targetIndexName": refs["targetIndexName"],
		"disabled": orNull(disabled, hasDisabled), "schedule": d["schedule"], "parameters": d["parameters"],
		"fieldMappings": mappings["fieldMappings"], "outputFieldMappings": mappings["outputFieldMappings"],
		"cache": nil, "encryptionKey": nil,
	}, nil
}

func json0() any { return jsonNumber("0") }

func (v *validation) skillset() (map[string]any, error) {
	d := v.def
	for _, k := range []string{"encryptionKey", "knowledgeStore", "indexProjections"} {
		if x, ok := d[k]; ok && x != nil {
			return nil, invalid("skillset."+k, "'%s' is not supported by cerulean.", k)
		}
	}
	desc, _, err := getString(d, "description", "skillset")
	if err != nil {
		return nil, err
	}
	skills, err := getObjects(d, "skills", "skillset")
	if err != nil {
		return nil, err
	}
	if len(skills) == 0 {
		return nil, invalid("skillset.skills", "A skillset needs at least one skill.")
	}
	names := map[string]bool{}
	for i, s := range skills {
		at := fmt.Sprintf("skillset.skills[%d]", i)
		typ, _, err := getString(s, "@odata.type", at)
		if err != nil {
			return nil, err
		}
		if !strings.HasPrefix(typ, "#Microsoft.Skills.") {
			return nil, invalid(at+".@odata.type", "The skill type '%s' is not a skill type (#Microsoft.Skills.…).", typ)
		}
		name, _, err := getString(s, "name", at)
		if err != nil {
			return nil, err
		}
		if name == "" {
			// The service names unnamed skills by position.
			name = fmt.Sprintf("#%d", i+1)
			s["name"] = name
		}
		if names[name] {
			return nil, invalid(at+".name", "The skill name '%s' is used more than once.", name)
		}
		names[name] = true
		for _, list := range []string{"inputs", "outputs"} {
			items, err := getObjects(s, list, at)
			if err != nil {
				return nil, err
			}
			for j, it := range items {
				if n, _, err := getString(it, "name", fmt.Sprintf("%s.%s[%d]", at, list, j)); err != nil {
					return nil, err
				} else if n == "" {
					return nil, invalid(fmt.Sprintf("%s.%s[%d].name", at, list, j), "Every skill input and output needs a name.")
				}
			}
		}
		withDefaults(s, map[string]any{"description": nil, "context": "/document", "inputs": []any{}, "outputs": []any{}})
	}
	return map[string]any{
		"name": v.name, "description": orNull(desc, desc != ""), "skills": mapsToAny(skills),
		"cognitiveServices": d["cognitiveServices"], "knowledgeStore": nil, "indexProjections": nil, "encryptionKey": nil,
	}, nil
}

func (v *validation) alias() (map[string]any, error) {
	indexes, err := getStrings(v.def, "indexes", "alias")
	if err != nil {
		return nil, err
	}
	if len(indexes) != 1 {
		return nil, invalid("alias.indexes", "An alias must map to exactly one index; this one names %d.", len(indexes))
	}
	found, err := exists(v.rd, Indexes, indexes[0])
	if err != nil {
		return nil, err
	}
	if !found {
		return nil, invalid("alias.indexes", "The alias refers to the index '%s', which does not exist.", indexes[0])
	}
	return map[string]any{"name": v.name, "indexes": []any{indexes[0]}}, nil
}
