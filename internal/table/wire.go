package table

import (
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/cerulean-db/cerulean/internal/azerr"
	"github.com/cerulean-db/cerulean/internal/azhttp"
	"github.com/cerulean-db/cerulean/internal/table/odata"
)

// responseFormat picks the JSON metadata level: $format wins over Accept.
// Plain application/json, */* and no preference mean minimal metadata.
// Atom, the Table service's old format, is not served.
func responseFormat(r *http.Request, q url.Values) (metadataLevel, error) {
	v := q.Get("$format")
	if v == "" {
		v = r.Header.Get("Accept")
	}
	lv := strings.ToLower(v)
	switch {
	case strings.Contains(lv, "odata=nometadata"):
		return noMetadata, nil
	case strings.Contains(lv, "odata=fullmetadata"):
		return fullMetadata, nil
	case strings.Contains(lv, "json") || lv == "" || strings.Contains(lv, "*/*"):
		return minimalMetadata, nil
	case strings.Contains(lv, "atom") || strings.Contains(lv, "xml"):
		return 0, azerr.ErrAtomFormatNotSupported
	}
	return 0, azerr.ErrInvalidInput.WithMessage("The response format %q is not supported.", v)
}

// baseURL is the account URL as the client addressed it, ending in "/".
func baseURL(r *http.Request, acct string) string {
	if !azhttp.IsHostStyle(r) {
		// A path-style request to the secondary names it in its path.
		if first, _ := splitPath(r.URL.Path); first == acct+azhttp.SecondarySuffix {
			acct = first
		}
	}
	return azhttp.AccountURL(r, acct)
}

// quoteKey renders a key inside an entity's address: quotes doubled,
// the rest escaped for a URL path.
func quoteKey(k string) string {
	return "'" + url.PathEscape(strings.ReplaceAll(k, "'", "''")) + "'"
}

func entityPath(table, pk, rk string) string {
	return table + "(PartitionKey=" + quoteKey(pk) + ",RowKey=" + quoteKey(rk) + ")"
}

// selection is a $select list; nil selects every property.
type selection []string

func parseSelect(v string) (selection, error) {
	if strings.TrimSpace(v) == "" || strings.TrimSpace(v) == "*" {
		return nil, nil
	}
	var out selection
	for _, name := range strings.Split(v, ",") {
		name = strings.TrimSpace(name)
		if name == "" {
			return nil, azerr.ErrInvalidInput.WithMessage("The $select list %q has an empty entry.", v)
		}
		out = append(out, name)
	}
	return out, nil
}

// entityJSON is what rendering an entity needs besides the entity.
type entityJSON struct {
	level  metadataLevel
	sel    selection
	base   string // account URL, ending in "/"
	acct   string
	table  string // the table's name as created
	single string // odata.metadata of a single-entity response, or ""
}

// appendEntity appends e as a JSON object.
func (j entityJSON) appendEntity(b []byte, e *Entity) []byte {
	start := len(b)
	if j.single != "" && j.level != noMetadata {
		b = appendMember(b, "odata.metadata", j.single)
	}
	switch j.level {
	case fullMetadata:
		path := entityPath(j.table, e.PartitionKey, e.RowKey)
		b = appendMember(b, "odata.type", j.acct+"."+j.table)
		b = appendMember(b, "odata.id", j.base+path)
		b = appendMember(b, "odata.etag", e.ETag())
		b = appendMember(b, "odata.editLink", path)
	case minimalMetadata:
		b = appendMember(b, "odata.etag", e.ETag())
	}
	if j.sel == nil {
		b = appendProperty(b, "PartitionKey", odata.StringValue(e.PartitionKey), j.level)
		b = appendProperty(b, "RowKey", odata.StringValue(e.RowKey), j.level)
		b = j.appendTimestamp(b, e)
		for _, p := range e.Properties {
			b = appendProperty(b, p.Name, p.Value, j.level)
		}
	} else {
		for _, name := range j.sel {
			if name == "Timestamp" {
				b = j.appendTimestamp(b, e)
				continue
			}
			v, ok := e.Get(name)
			if !ok {
				// A selected property the entity lacks comes back null.
				b = append(b, ',')
				b = appendJSONString(b, name)
				b = append(b, ":null"...)
				continue
			}
			b = appendProperty(b, name, v, j.level)
		}
	}
	return closeObject(b, start)
}

// appendTimestamp writes Timestamp, annotated in full metadata only: in
// minimal metadata readers know its type from the service's schema.
func (j entityJSON) appendTimestamp(b []byte, e *Entity) []byte {
	if j.level == fullMetadata {
		b = appendMember(b, "Timestamp"+annotationSuffix, odata.DateTime.String())
	}
	b = append(b, ',')
	b = appendJSONString(b, "Timestamp")
	b = append(b, ':')
	return appendJSONString(b, odata.FormatDateTime(e.Timestamp))
}

// appendMember appends `,"name":"value"`.
func appendMember(b []byte, name, value string) []byte {
	b = append(b, ',')
	b = appendJSONString(b, name)
	b = append(b, ':')
	return appendJSONString(b, value)
}

// closeObject turns the members appended after start (each led by a
// comma) into an object.
func closeObject(b []byte, start int) []byte {
	if len(b) == start {
		return append(b, "{}"...)
	}
	b[start] = '{'
	return append(b, '}')
}

// writeJSON sends an OData JSON body.
func writeJSON(w http.ResponseWriter, status int, level metadataLevel, body []byte) error {
	h := w.Header()
	h.Set("Content-Type", level.contentType())
	h.Set("Content-Length", strconv.Itoa(len(body)))
	setODataHeaders(h)
	w.WriteHeader(status)
	_, _ = w.Write(body) // the client is gone if this fails
	return nil
}

// setODataHeaders sets the headers every Table response carries.
func setODataHeaders(h http.Header) {
	setAzureSpelling(h, "DataServiceVersion", "3.0;")
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Cache-Control", "no-cache")
}

// preferNoContent reads Prefer: return-no-content / return-content; set
// reports whether the client stated a preference.
func preferNoContent(h http.Header) (noContent, set bool) {
	switch strings.ToLower(strings.TrimSpace(h.Get("Prefer"))) {
	case "return-no-content":
		return true, true
	case "return-content":
		return false, true
	}
	return false, false
}

// applyPreference answers the Prefer header of req with
// Preference-Applied in resp, and says whether the answer goes without
// content. Azure applies it before it reads what the request writes, so
// a write it then refuses still answers it (go-aztables
// TestInvalidEntity_storage, Java's
// TableServiceClientTest.serviceCreateTableFailsIfExists, go-TestBatchError).
func applyPreference(req, resp http.Header) (noContent bool) {
	noContent, stated := preferNoContent(req)
	switch {
	case noContent:
		resp.Set("Preference-Applied", "return-no-content")
	case stated:
		resp.Set("Preference-Applied", "return-content")
	}
	return noContent
}

// setAzureSpelling sets a header under the name as Azure spells it
// (ETag, DataServiceVersion, DataServiceId: recorded answers carry
// "ETag"), where http.Header.Set would write Go's canonical form (Etag,
// Dataserviceversion) to the wire; clients that match names exactly
// find them. Nothing reads these back from the response header map.
func setAzureSpelling(h http.Header, name, value string) {
	canonical, known := goSpellings[name]
	if !known {
		canonical = http.CanonicalHeaderKey(name)
	}
	if canonical != name {
		delete(h, canonical)
	}
	h[name] = []string{value}
}

// goSpellings maps the names setAzureSpelling is given to Go's canonical
// form, which http.CanonicalHeaderKey would otherwise allocate for every
// response.
var goSpellings = map[string]string{
	"ETag":               "Etag",
	"DataServiceVersion": "Dataserviceversion",
	"DataServiceId":      "Dataserviceid",
}
