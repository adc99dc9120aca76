package table

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"encoding/xml"
	"maps"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/cerulean-db/cerulean/internal/testkit"
)

// Wire tests: the handler's answers, checked against what Azure answered
// in the recordings under test/parity/testdata/table that each test names.

// wire is a Table handler over newTestService, served over HTTP, and a
// signer for raw requests to it.
type wire struct {
	t      *testing.T
	base   string // the account's URL, no trailing slash
	signer testkit.Signer
}

func newWire(t *testing.T) *wire {
	t.Helper()
	srv := httptest.NewServer(NewHandler(newTestService(t)))
	t.Cleanup(srv.Close)
	base := srv.URL + "/" + testAccount
	key := base64.StdEncoding.EncodeToString([]byte("key"))
	return &wire{t: t, base: base, signer: testkit.TableSharedKeyLite(t, base, testAccount, key)}
}

// send signs and sends one request; path is relative to the account.
func (w *wire) send(method, path string, header map[string]string, body string) testkit.Response {
	w.t.Helper()
	req := testkit.Request{Method: method, URL: w.base + "/" + path, Header: header}
	if body != "" {
		req.Body = []byte(body)
	}
	return w.signer.Send(w.t, req)
}

func (w *wire) createTable(name string) {
	w.t.Helper()
	r := w.send(http.MethodPost, "Tables", map[string]string{"Content-Type": "application/json", "Accept": "application/json;odata=nometadata", "Prefer": "return-no-content"}, `{"TableName":"`+name+`"}`)
	r.Check(w.t, http.StatusNoContent, "", "create table "+name)
}

// jsonEntity decodes an entity answer.
func jsonEntity(t *testing.T, r testkit.Response) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(r.Body, &m); err != nil {
		t.Fatalf("entity answer %s: %v", r.Body, err)
	}
	return m
}

// TestDateTimeWholeSeconds: Azure writes an Edm.DateTime without a zero
// fraction and drops a fraction's trailing zeros, in an insert's echo and
// in reads (recorded in go-storage StorageEntitySuite TestInsert and
// TestGet, test_table_entity.py test_insert_entity_dictionary; go-aztables
// TestEdmMarshalling keeps "2013-08-02T17:37:43.0090043Z" as it is).
func TestDateTimeWholeSeconds(t *testing.T) {
	w := newWire(t)
	w.createTable("dates")
	hdr := map[string]string{"Content-Type": "application/json", "Accept": "application/json;odata=minimalmetadata"}
	r := w.send(http.MethodPost, "dates", hdr, `{"PartitionKey":"p","RowKey":"r",`+
		`"Birthday@odata.type":"Edm.DateTime","Birthday":"1973-10-04T00:00:00.000000Z",`+
		`"Exact@odata.type":"Edm.DateTime","Exact":"2013-08-02T17:37:43.0090043Z",`+
		`"Tenths@odata.type":"Edm.DateTime","Tenths":"2013-08-02T17:37:43.1200000Z"}`)
	r.Check(t, http.StatusCreated, "", "insert")
	want := map[string]string{"Birthday": "1973-10-04T00:00:00Z", "Exact": "2013-08-02T17:37:43.0090043Z", "Tenths": "2013-08-02T17:37:43.12Z"}
	check := func(how string, m map[string]any) {
		t.Helper()
		for k, v := range want {
			if m[k] != v {
				t.Errorf("%s: %s = %v, want %s", how, k, m[k], v)
			}
		}
		if ts, _ := m["Timestamp"].(string); ts != "2026-06-01T12:00:00Z" {
			t.Errorf("%s: Timestamp %q, want the whole second the test clock stands at", how, ts)
		}
	}
	check("insert echo", jsonEntity(t, r))
	if etag := r.Header.Get("ETag"); etag != `W/"datetime'2026-06-01T12%3A00%3A00Z'"` {
		t.Errorf("ETag %s: Azure drops a zero fraction there too", etag)
	}
	r = w.send(http.MethodGet, "dates(PartitionKey='p',RowKey='r')", hdr, "")
	r.Check(t, http.StatusOK, "", "get")
	check("get", jsonEntity(t, r))
	r = w.send(http.MethodGet, "dates()?$filter=Birthday%20eq%20datetime'1973-10-04T00:00:00Z'", hdr, "")
	r.Check(t, http.StatusOK, "", "query")
	var page struct{ Value []map[string]any }
	if err := json.Unmarshal(r.Body, &page); err != nil || len(page.Value) != 1 {
		t.Fatalf("query answer %s: %v", r.Body, err)
	}
	check("query", page.Value[0])
}

// TestPreferenceApplied: Azure confirms Prefer: return-no-content on
// Insert Or Merge, Insert Or Replace, Merge and Update when they succeed
// (recorded in go-storage StorageEntitySuite TestInsertOrMerge,
// TestInsertOrReplace and TestMerge), not on their 412s, and on an
// insert it refuses for its body (go-aztables TestInvalidEntity_storage).
func TestPreferenceApplied(t *testing.T) {
	w := newWire(t)
	w.createTable("prefs")
	hdr := func(ifMatch string) map[string]string {
		h := map[string]string{"Content-Type": "application/json", "Accept": "application/json;odata=nometadata", "Prefer": "return-no-content"}
		if ifMatch != "" {
			h["If-Match"] = ifMatch
		}
		return h
	}
	key := "prefs(PartitionKey='p',RowKey='r')"
	body := `{"Name":"Luke"}`
	for _, tc := range []struct {
		what, method, ifMatch string
	}{
		{"insert or merge", "MERGE", ""},
		{"insert or replace", http.MethodPut, ""},
		{"merge", "MERGE", "*"},
		{"update", http.MethodPut, "*"},
	} {
		r := w.send(tc.method, key, hdr(tc.ifMatch), body)
		r.Check(t, http.StatusNoContent, "", tc.what)
		if got := r.Header.Get("Preference-Applied"); got != "return-no-content" {
			t.Errorf("%s: Preference-Applied %q", tc.what, got)
		}
		h := hdr(tc.ifMatch)
		delete(h, "Prefer")
		if r := w.send(tc.method, key, h, body); r.Header.Get("Preference-Applied") != "" {
			t.Errorf("%s without Prefer: Preference-Applied %q", tc.what, r.Header.Get("Preference-Applied"))
		}
	}
	stale := `W/"datetime'2001-01-01T00%3A00%3A00Z'"`
	for _, method := range []string{"MERGE", http.MethodPut} {
		r := w.send(method, key, hdr(stale), body)
		r.Check(t, http.StatusPreconditionFailed, "UpdateConditionNotSatisfied", method+" at a stale ETag")
		if got := r.Header.Get("Preference-Applied"); got != "" {
			t.Errorf("%s at a stale ETag: Preference-Applied %q", method, got)
		}
	}
	r := w.send(http.MethodPost, "prefs", hdr(""), `{"String":"stringystring","Value":10}`)
	r.Check(t, http.StatusBadRequest, "PropertiesNeedValue", "insert without keys")
	if got := r.Header.Get("Preference-Applied"); got != "return-no-content" {
		t.Errorf("refused insert: Preference-Applied %q", got)
	}
}

// TestUnreadableIfMatch: a weak ETag that holds no datetime fails the
// condition as ConditionNotMet (recorded in go-storage StorageEntitySuite
// TestMerge and TestUpdate), a datetime that matches nothing as
// UpdateConditionNotSatisfied (go-aztables TestDeleteEntityWithETag).
func TestUnreadableIfMatch(t *testing.T) {
	w := newWire(t)
	w.createTable("conds")
	key := "conds(PartitionKey='p',RowKey='r')"
	h := map[string]string{"Content-Type": "application/json", "Accept": "application/json;odata=nometadata"}
	w.send(http.MethodPut, key, h, `{}`).Check(t, http.StatusNoContent, "", "insert or replace")
	for ifMatch, code := range map[string]string{
		`W/"datetime''2017-04-01T01%3A07%3A23.8881885Z''"`: "ConditionNotMet",
		`W/"wrong"`: "ConditionNotMet",
		`W/"datetime'2017-04-01T01%3A07%3A23.8881885Z'"`: "UpdateConditionNotSatisfied",
	} {
		h["If-Match"] = ifMatch
		for _, method := range []string{"MERGE", http.MethodPut, http.MethodDelete} {
			r := w.send(method, key, h, `{}`)
			r.Check(t, http.StatusPreconditionFailed, code, method+" If-Match "+ifMatch)
			if ct := r.Header.Get("Content-Type"); ct != "application/json;odata=nometadata;streaming=true;charset=utf-8" {
				t.Errorf("%s If-Match %s: Content-Type %q, want the nometadata the request accepts", method, ifMatch, ct)
			}
		}
	}
}

// odataXMLError is the error form of the Table service's XML operations.
type odataXMLError struct {
	XMLName xml.Name `xml:"http://schemas.microsoft.com/ado/2007/08/dataservices/metadata error"`
	Code    string   `xml:"http://schemas.microsoft.com/ado/2007/08/dataservices/metadata code"`
}

func checkXMLError(t *testing.T, r testkit.Response, status int, code, what string) {
	t.Helper()
	r.Check(t, status, code, what)
	var e odataXMLError
	if ct := r.Header.Get("Content-Type"); ct != "application/xml" {
		t.Errorf("%s: Content-Type %q, want application/xml", what, ct)
	} else if err := xml.Unmarshal(r.Body, &e); err != nil || e.Code != code {
		t.Errorf("%s: body %s (%v), want an OData XML error %s", what, r.Body, err, code)
	}
}

// TestXMLOperationErrors: Set Table Service Properties and Set Table ACL
// answer errors in OData's XML form (recorded in go-aztables
// TestSetTooManyCors, TestRetentionTooLong, TestSetTooManyAccessPolicies
// and TestSetInvalidAccessPolicy, go-storage StorageTableSuite
// TestSetPermissionsUnsuccessfully); a signed identifier without an Id,
// or with one over 64 characters, is a malformed document, as the Blob
// and Queue recordings show for the long Id (go-azblob
// TestContainerSetPermissionsSignedIdentifierTooLong).
func TestXMLOperationErrors(t *testing.T) {
	w := newWire(t)
	xmlBody := map[string]string{"Content-Type": "application/xml", "Accept": "application/xml"}
	rule := `<CorsRule><AllowedHeaders>x-ms-meta-data*</AllowedHeaders><AllowedMethods>PUT</AllowedMethods><AllowedOrigins>www.xyz.com</AllowedOrigins><ExposedHeaders>x-ms-meta-source*</ExposedHeaders><MaxAgeInSeconds>500</MaxAgeInSeconds></CorsRule>`
	r := w.send(http.MethodPut, "?restype=service&comp=properties", xmlBody, `<StorageServiceProperties><Cors>`+strings.Repeat(rule, 6)+`</Cors></StorageServiceProperties>`)
	checkXMLError(t, r, http.StatusBadRequest, "InvalidXmlDocument", "six CORS rules")
	r = w.send(http.MethodPut, "?restype=service&comp=properties", xmlBody, `<StorageServiceProperties><MinuteMetrics><Enabled>true</Enabled><IncludeAPIs>true</IncludeAPIs><RetentionPolicy><Enabled>true</Enabled><Days>366</Days></RetentionPolicy><Version>1.0</Version></MinuteMetrics></StorageServiceProperties>`)
	checkXMLError(t, r, http.StatusBadRequest, "InvalidXmlDocument", "366 days of retention")

	r = w.send(http.MethodPut, "nonexistingtable?comp=acl", map[string]string{"Content-Type": "application/xml"}, `<SignedIdentifiers></SignedIdentifiers>`)
	checkXMLError(t, r, http.StatusNotFound, "TableNotFound", "Set Table ACL on a missing table")
	w.createTable("acls")
	var six strings.Builder
	for i := range 6 {
		six.WriteString(`<SignedIdentifier><Id>` + string(rune('a'+i)) + `</Id><AccessPolicy><Permission>r</Permission></AccessPolicy></SignedIdentifier>`)
	}
	r = w.send(http.MethodPut, "acls?comp=acl", xmlBody, `<SignedIdentifiers>`+six.String()+`</SignedIdentifiers>`)
	checkXMLError(t, r, http.StatusBadRequest, "InvalidXmlDocument", "six signed identifiers")
	r = w.send(http.MethodPut, "acls?comp=acl", xmlBody, `<SignedIdentifiers><SignedIdentifier><AccessPolicy><Expiry>2042-01-01T01:01:01.000000001Z</Expiry></AccessPolicy></SignedIdentifier></SignedIdentifiers>`)
	checkXMLError(t, r, http.StatusBadRequest, "InvalidXmlDocument", "a signed identifier without an Id")
	r = w.send(http.MethodPut, "acls?comp=acl", xmlBody, `<SignedIdentifiers><SignedIdentifier><Id>`+strings.Repeat("i", 65)+`</Id><AccessPolicy><Permission>r</Permission></AccessPolicy></SignedIdentifier></SignedIdentifiers>`)
	checkXMLError(t, r, http.StatusBadRequest, "InvalidXmlDocument", "a 65-character Id")
	r = w.send(http.MethodPut, "acls?comp=acl", xmlBody, `<SignedIdentifiers><SignedIdentifier><Id>`+strings.Repeat("i", 64)+`</Id><AccessPolicy><Permission>r</Permission></AccessPolicy></SignedIdentifier></SignedIdentifiers>`)
	r.Check(t, http.StatusNoContent, "", "a 64-character Id")

	// Entity operations keep answering JSON.
	r = w.send(http.MethodGet, "acls(PartitionKey='p',RowKey='r')", map[string]string{"Accept": "application/json;odata=minimalmetadata"}, "")
	r.Check(t, http.StatusNotFound, "ResourceNotFound", "get a missing entity")
	if ct := r.Header.Get("Content-Type"); ct != "application/json;odata=minimalmetadata;streaming=true;charset=utf-8" {
		t.Errorf("entity error: Content-Type %q", ct)
	}
}

// TestGetTableACLWithoutPolicy: an identifier set without an access
// policy comes back without <AccessPolicy>; one with a partial policy
// keeps just what it set (recorded in go-aztables TestSetNullAccessPolicy
// and TestSetMultipleAccessPolicies).
func TestGetTableACLWithoutPolicy(t *testing.T) {
	w := newWire(t)
	w.createTable("acls")
	r := w.send(http.MethodPut, "acls?comp=acl", map[string]string{"Content-Type": "application/xml"},
		`<SignedIdentifiers><SignedIdentifier><Id>empty</Id></SignedIdentifier><SignedIdentifier><AccessPolicy><Permission>r</Permission></AccessPolicy><Id>partial</Id></SignedIdentifier></SignedIdentifiers>`)
	r.Check(t, http.StatusNoContent, "", "Set Table ACL")
	r = w.send(http.MethodGet, "acls?comp=acl", nil, "")
	r.Check(t, http.StatusOK, "", "Get Table ACL")
	var doc struct {
		Identifiers []struct {
			ID     string `xml:"Id"`
			Policy *struct {
				Start, Expiry *string
				Permission    string
			} `xml:"AccessPolicy"`
		} `xml:"SignedIdentifier"`
	}
	if err := xml.Unmarshal(r.Body, &doc); err != nil || len(doc.Identifiers) != 2 {
		t.Fatalf("Get Table ACL %s: %v", r.Body, err)
	}
	if got := doc.Identifiers[0]; got.ID != "empty" || got.Policy != nil {
		t.Errorf("identifier set without a policy: %s", r.Body)
	}
	if got := doc.Identifiers[1]; got.ID != "partial" || got.Policy == nil || got.Policy.Permission != "r" || got.Policy.Start != nil || got.Policy.Expiry != nil {
		t.Errorf("identifier with only a permission: %s", r.Body)
	}
}

// TestPathWithoutTableName: parentheses after no table name address
// nothing: 404 ResourceNotFound, as plain JSON (recorded in go-storage
// StorageClientSuite Test_doRetry).
func TestPathWithoutTableName(t *testing.T) {
	w := newWire(t)
	r := w.send(http.MethodDelete, "%28retry%29", map[string]string{"Accept": "application/json;odata=nometadata"}, "")
	r.Check(t, http.StatusNotFound, "ResourceNotFound", "DELETE /(retry)")
	if ct := r.Header.Get("Content-Type"); ct != "application/json" {
		t.Errorf("Content-Type %q, want application/json", ct)
	}
}

// TestWrongKeyAnswerFormat: a request signed with a wrong key is 403
// AuthenticationFailed; a $batch's refusal is plain application/json
// (recorded in test_table_batch.py test_new_invalid_key), an entity
// request's is labelled with the metadata level it asked for.
func TestWrongKeyAnswerFormat(t *testing.T) {
	srv := httptest.NewServer(NewHandler(newTestService(t)))
	t.Cleanup(srv.Close)
	base := srv.URL + "/" + testAccount
	wrong := testkit.TableSharedKeyLite(t, base, testAccount, base64.StdEncoding.EncodeToString([]byte("not the key")))
	for _, c := range []struct{ path, ct string }{
		{"$batch", "application/json"},
		{"Tables", "application/json;odata=minimalmetadata;streaming=true;charset=utf-8"},
	} {
		r := wrong.Send(t, testkit.Request{Method: http.MethodPost, URL: base + "/" + c.path,
			Header: map[string]string{"Accept": "application/json", "Content-Type": "multipart/mixed; boundary=batch_1"}, Body: []byte("--batch_1--\r\n")})
		r.Check(t, http.StatusForbidden, "AuthenticationFailed", "POST "+c.path+" with a wrong key")
		if got := r.Header.Get("Content-Type"); got != c.ct {
			t.Errorf("POST %s: Content-Type %q, want %q", c.path, got, c.ct)
		}
	}
}

// TestDefaultServiceProperties: a new account's Table service reports
// hour metrics on with API statistics kept 7 days (recorded in
// go-aztables TestGetProperties, go-storage StorageSuite
// TestGetServiceProperties).
func TestDefaultServiceProperties(t *testing.T) {
	w := newWire(t)
	r := w.send(http.MethodGet, "?restype=service&comp=properties", nil, "")
	r.Check(t, http.StatusOK, "", "Get Table Service Properties")
	for _, want := range []string{
		"<HourMetrics><Version>1.0</Version><Enabled>true</Enabled><IncludeAPIs>true</IncludeAPIs><RetentionPolicy><Enabled>true</Enabled><Days>7</Days></RetentionPolicy></HourMetrics>",
		"<MinuteMetrics><Version>1.0</Version><Enabled>false</Enabled><RetentionPolicy><Enabled>false</Enabled></RetentionPolicy></MinuteMetrics>",
	} {
		if !strings.Contains(string(r.Body), want) {
			t.Errorf("properties %s lack %s", r.Body, want)
		}
	}
}

// TestDeleteMissingTable: Delete Table answers a missing table 404
// ResourceNotFound, where Set Table ACL answers TableNotFound (recorded in
// go-storage StorageClientSuite TestReturnsStorageServiceError and
// StorageTableSuite TestSetPermissionsUnsuccessfully).
func TestDeleteMissingTable(t *testing.T) {
	w := newWire(t)
	h := map[string]string{"Accept": "application/json;odata=nometadata"}
	r := w.send(http.MethodDelete, "Tables('missing')", h, "")
	r.Check(t, http.StatusNotFound, "ResourceNotFound", "delete a missing table")
	w.createTable("gone")
	w.send(http.MethodDelete, "Tables('gone')", h, "").Check(t, http.StatusNoContent, "", "delete a table")
	w.send(http.MethodDelete, "Tables('gone')", h, "").Check(t, http.StatusNotFound, "ResourceNotFound", "delete it again")
	w.send(http.MethodGet, "gone()", h, "").Check(t, http.StatusNotFound, "TableNotFound", "query the deleted table")
}

// TestTopZero: $top=0 answers 200 with no entities (Azure, as reported
// in Azurite issue #1428), and its continuation points at the first
// entity, so paging on from it loses nothing; past 1000 or below 0 $top
// stays InvalidInput.
func TestTopZero(t *testing.T) {
	w := newWire(t)
	w.createTable("topzero")
	h := map[string]string{"Accept": "application/json;odata=nometadata", "Content-Type": "application/json", "Prefer": "return-no-content"}
	for _, rk := range []string{"a", "b"} {
		w.send(http.MethodPost, "topzero", h, `{"PartitionKey":"p","RowKey":"`+rk+`"}`).Check(t, http.StatusNoContent, "", "insert")
	}
	r := w.send(http.MethodGet, "topzero()?$top=0", h, "")
	r.Check(t, http.StatusOK, "", "$top=0")
	if string(r.Body) != `{"value":[]}` {
		t.Errorf("$top=0 answered %s", r.Body)
	}
	npk, nrk := r.Header.Get("x-ms-continuation-NextPartitionKey"), r.Header.Get("x-ms-continuation-NextRowKey")
	if npk == "" || nrk == "" {
		t.Fatalf("$top=0 gave no continuation: %v", r.Header)
	}
	r = w.send(http.MethodGet, "topzero()?NextPartitionKey="+npk+"&NextRowKey="+nrk, h, "")
	if m := jsonEntities(t, r); len(m) != 2 {
		t.Errorf("after the $top=0 continuation: %s", r.Body)
	}
	r = w.send(http.MethodGet, "Tables?$top=0", h, "")
	r.Check(t, http.StatusOK, "", "Query Tables $top=0")
	if string(r.Body) != `{"value":[]}` || r.Header.Get("x-ms-continuation-NextTableName") == "" {
		t.Errorf("Query Tables $top=0: %s %v", r.Body, r.Header)
	}
	for _, top := range []string{"-1", "1001", "1.5"} {
		w.send(http.MethodGet, "topzero()?$top="+top, h, "").Check(t, http.StatusBadRequest, "InvalidInput", "$top="+top)
	}
}

func jsonEntities(t *testing.T, r testkit.Response) []any {
	t.Helper()
	var doc struct{ Value []any }
	if err := json.Unmarshal(r.Body, &doc); err != nil {
		t.Fatalf("query answer %s: %v", r.Body, err)
	}
	return doc.Value
}

// TestSecondaryPathStyle: the account's secondary, /<account>-secondary/
// in path style, answers Get Table Service Stats (aztables'
// TestGetStatistics calls it there, recorded in go-aztables
// TestGetStatistics) and reads, naming itself in odata.metadata; a write
// there is refused 403.
func TestSecondaryPathStyle(t *testing.T) {
	w := newWire(t)
	w.createTable("replicated")
	secondary := &wire{t: t, base: w.base + "-secondary", signer: w.signer}
	r := secondary.send(http.MethodGet, "?restype=service&comp=stats", nil, "")
	r.Check(t, http.StatusOK, "", "Get Table Service Stats on the secondary")
	if !strings.Contains(string(r.Body), "<Status>live</Status>") {
		t.Errorf("stats %s", r.Body)
	}
	r = secondary.send(http.MethodGet, "Tables", map[string]string{"Accept": "application/json;odata=minimalmetadata"}, "")
	r.Check(t, http.StatusOK, "", "Query Tables on the secondary")
	if want := `{"odata.metadata":"` + w.base + `-secondary/$metadata#Tables","value":[{"TableName":"replicated"}]}`; string(r.Body) != want {
		t.Errorf("Query Tables on the secondary: %s, want %s", r.Body, want)
	}
	r = secondary.send(http.MethodPost, "Tables", map[string]string{"Content-Type": "application/json"}, `{"TableName":"written"}`)
	if r.StatusCode != http.StatusForbidden {
		t.Errorf("Create Table on the secondary: %d %s", r.StatusCode, r.Body)
	}
}

// TestBatchPartHeaders: each operation's answer in a batch response
// carries Azure's headers in Azure's order and spelling, with no
// Content-Length or x-ms-error-code, and a failed insert still names the
// Prefer it honoured (recorded in go-aztables TestBatchAdd and
// TestBatchErrorHandleResponse, go-TestBatchError).
func TestBatchPartHeaders(t *testing.T) {
	w := newWire(t)
	w.createTable("parts")
	op := func(rk string) string {
		return "--changeset_c\r\nContent-Type: application/http\r\nContent-Transfer-Encoding: binary\r\n\r\n" +
			"POST " + w.base + "/parts HTTP/1.1\r\nAccept: application/json;odata=minimalmetadata\r\nContent-Type: application/json\r\nPrefer: return-no-content\r\nDataServiceVersion: 3.0\r\n\r\n" +
			`{"PartitionKey":"p","RowKey":"` + rk + `"}` + "\r\n"
	}
	batch := func(ops ...string) string {
		body := "--batch_b\r\nContent-Type: multipart/mixed; boundary=changeset_c\r\n\r\n" + strings.Join(ops, "") + "--changeset_c--\r\n--batch_b--\r\n"
		r := w.send(http.MethodPost, "$batch", map[string]string{"Content-Type": "multipart/mixed; boundary=batch_b"}, body)
		r.Check(t, http.StatusAccepted, "", "$batch")
		return string(r.Body)
	}
	got := batch(op("1"))
	loc := w.base + "/parts(PartitionKey='p',RowKey='1')"
	want := "HTTP/1.1 204 No Content\r\nX-Content-Type-Options: nosniff\r\nCache-Control: no-cache\r\nPreference-Applied: return-no-content\r\nDataServiceVersion: 3.0;\r\n" +
		"Location: " + loc + "\r\nDataServiceId: " + loc + "\r\nETag: W/\"datetime'"
	if !strings.Contains(got, want) {
		t.Errorf("insert's part:\n%s\nwant it to hold\n%s", got, want)
	}
	got = batch(op("2"), op("1"))
	want = "HTTP/1.1 409 Conflict\r\nX-Content-Type-Options: nosniff\r\nCache-Control: no-cache\r\nPreference-Applied: return-no-content\r\nDataServiceVersion: 3.0;\r\n" +
		"Content-Type: application/json;odata=minimalmetadata;streaming=true;charset=utf-8\r\n\r\n{\"odata.error\":{\"code\":\"EntityAlreadyExists\",\"message\":{\"lang\":\"en-US\",\"value\":\"1:The specified entity already exists."
	if !strings.Contains(got, want) {
		t.Errorf("failed insert's part:\n%s\nwant it to hold\n%s", got, want)
	}
}

// TestHeaderSpelling: ETag, DataServiceVersion and DataServiceId go out
// spelled as Azure spells them (recorded answers, e.g.
// test_table_entity.py test_insert_entity_dictionary, carry "ETag"), not
// in Go's canonical form (Etag), for clients that match names exactly.
func TestHeaderSpelling(t *testing.T) {
	h := NewHandler(newTestService(t))
	send := func(method, path, body string) http.Header {
		t.Helper()
		req := httptest.NewRequest(method, "http://127.0.0.1:10002/"+testAccount+"/"+path, strings.NewReader(body))
		date := time.Now().UTC().Format(http.TimeFormat)
		req.Header.Set("x-ms-date", date)
		req.Header.Set("x-ms-version", "2019-02-02")
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json;odata=nometadata")
		mac := hmac.New(sha256.New, []byte("key"))
		mac.Write([]byte(date + "\n/" + testAccount + req.URL.EscapedPath()))
		req.Header.Set("Authorization", "SharedKeyLite "+testAccount+":"+base64.StdEncoding.EncodeToString(mac.Sum(nil)))
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		if rec.Code >= 300 {
			t.Fatalf("%s %s: %d %s", method, path, rec.Code, rec.Body)
		}
		return rec.Result().Header
	}
	has := func(hdr http.Header, names ...string) {
		t.Helper()
		for _, name := range names {
			if _, ok := hdr[name]; !ok {
				t.Errorf("no %q among %v", name, slices.Collect(maps.Keys(hdr)))
			}
		}
	}
	has(send(http.MethodPost, "Tables", `{"TableName":"spelled"}`), "DataServiceVersion", "DataServiceId")
	has(send(http.MethodPost, "spelled", `{"PartitionKey":"p","RowKey":"r"}`), "ETag", "DataServiceVersion", "DataServiceId")
	has(send(http.MethodGet, "spelled(PartitionKey='p',RowKey='r')", ""), "ETag", "DataServiceVersion")
	has(send("MERGE", "spelled(PartitionKey='p',RowKey='r')", `{"V":1}`), "ETag", "DataServiceVersion")
}

// TestGoSpellingsAreCanonical pins setAzureSpelling's table: each entry
// must be the key http.Header.Set would have stored, or the Go-spelled
// duplicate would go out beside Azure's.
func TestGoSpellingsAreCanonical(t *testing.T) {
	for azure, goForm := range goSpellings {
		if got := http.CanonicalHeaderKey(azure); got != goForm {
			t.Errorf("%s: canonical form %q, table has %q", azure, got, goForm)
		}
	}
	h := http.Header{}
	h.Set("Etag", "old")
	setAzureSpelling(h, "ETag", "new")
	if len(h) != 1 || h["ETag"][0] != "new" { //nolint:staticcheck // the Azure spelling is what is checked
		t.Errorf("header after setAzureSpelling: %v, want only ETag: new", h)
	}
}
