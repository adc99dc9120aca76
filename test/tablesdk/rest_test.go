package tablesdk_test

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"io"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"
)

// restClient is a plain REST client as Azure's REST reference shows one:
// net/http, JSON bodies, x-ms-version, and a Shared Key Lite signature
// computed by hand (the Table service's form, "Authorize with Shared
// Key": the date and the canonicalized resource). No SDK is involved.
type restClient struct {
	t    *testing.T
	acct string
	key  []byte
	base string // the table endpoint, without its trailing slash
}

func newREST(t *testing.T, f *fixture) *restClient {
	key, err := base64.StdEncoding.DecodeString(f.env.Key)
	must(t, err, "account key")
	return &restClient{t: t, acct: f.env.Account, key: key, base: f.serviceURL()}
}

// restResponse is an answer with its body read.
type restResponse struct {
	*http.Response
	body string
}

// do sends method to path (relative to the endpoint, query included)
// with the header name/value pairs and body.
func (c *restClient) do(method, path, body string, header ...string) restResponse {
	c.t.Helper()
	req, err := http.NewRequestWithContext(c.t.Context(), method, c.base+path, strings.NewReader(body))
	must(c.t, err, "request")
	date := time.Now().UTC().Format(http.TimeFormat)
	req.Header.Set("x-ms-date", date)
	req.Header.Set("x-ms-version", "2019-02-02")
	for i := 0; i+1 < len(header); i += 2 {
		req.Header.Set(header[i], header[i+1])
	}
	resource := "/" + c.acct + req.URL.EscapedPath()
	if comp := req.URL.Query().Get("comp"); comp != "" {
		resource += "?comp=" + comp
	}
	mac := hmac.New(sha256.New, c.key)
	mac.Write([]byte(date + "\n" + resource))
	req.Header.Set("Authorization", "SharedKeyLite "+c.acct+":"+base64.StdEncoding.EncodeToString(mac.Sum(nil)))
	resp, err := http.DefaultClient.Do(req)
	must(c.t, err, "%s %s", method, path)
	b, err := io.ReadAll(resp.Body)
	_ = resp.Body.Close() // fully read; a close error changes nothing
	must(c.t, err, "read %s %s", method, path)
	return restResponse{resp, string(b)}
}

// want fails unless the answer has status (and, when code is set, that
// x-ms-error-code).
func (r restResponse) want(t *testing.T, what string, status int, code string) {
	t.Helper()
	if r.StatusCode != status || code != "" && r.Header.Get("x-ms-error-code") != code {
		t.Errorf("%s: %d %s %s, want %d %s", what, r.StatusCode, r.Header.Get("x-ms-error-code"), r.body, status, code)
	}
}

const jsonNoMetadata = "application/json;odata=nometadata"

// createTable creates a table as the REST reference's Create Table
// sample does.
func (c *restClient) createTable(name string) {
	c.t.Helper()
	c.do(http.MethodPost, "/Tables", `{"TableName":"`+name+`"}`, "Content-Type", "application/json", "Accept", jsonNoMetadata).
		want(c.t, "create table "+name, http.StatusCreated, "")
}

// batch sends one change set holding parts (each an operation's request
// line, headers, blank line and body) and returns the 202's body.
func (c *restClient) batch(header []string, parts ...string) string {
	c.t.Helper()
	var b strings.Builder
	b.WriteString("--batch_a1e9d677\r\nContent-Type: multipart/mixed; boundary=changeset_8a28b620\r\n\r\n")
	for _, p := range parts {
		b.WriteString("--changeset_8a28b620\r\nContent-Type: application/http\r\nContent-Transfer-Encoding: binary\r\n\r\n" + p + "\r\n")
	}
	b.WriteString("--changeset_8a28b620--\r\n--batch_a1e9d677--\r\n")
	h := append([]string{"Content-Type", "multipart/mixed; boundary=batch_a1e9d677", "Accept", jsonNoMetadata, "DataServiceVersion", "3.0", "MaxDataServiceVersion", "3.0;NetFx"}, header...)
	r := c.do(http.MethodPost, "/$batch", b.String(), h...)
	r.want(c.t, "$batch", http.StatusAccepted, "")
	return r.body
}

// TestRESTIfMatchScenarios: Update Entity (PUT), Merge Entity (MERGE, or
// PATCH as the SDKs send it) with If-Match * / a stale ETag / the current
// ETag, and the same verbs without If-Match (Insert Or Replace, Insert Or
// Merge), from a plain REST client. Source: the REST reference's Update
// Entity, Merge Entity, Insert Or Replace Entity and Insert Or Merge
// Entity pages (If-Match required by the first two; a mismatch is 412;
// without If-Match the entity is upserted; every success is 204 with the
// new ETag).
func TestRESTIfMatchScenarios(t *testing.T) {
	f := newFixture(t)
	c := newREST(t, f)
	c.createTable("ifmatch")
	entity := "/ifmatch(PartitionKey='9b0afb2e',RowKey='a')"
	first := c.do(http.MethodPut, entity, `{"PartitionKey":"9b0afb2e","RowKey":"a","S":"blank"}`, "Content-Type", "application/json", "DataServiceVersion", "3.0")
	first.want(t, "first PUT (insert or replace)", http.StatusNoContent, "")
	old, current := first.Header.Get("ETag"), first.Header.Get("ETag")
	if old == "" {
		t.Fatal("the insert or replace answered no ETag")
	}
	for i, tc := range []struct {
		method, ifMatch string // ifMatch "new" sends the current ETag, "old" the first one
		status          int
		code            string
	}{
		{http.MethodPut, "*", http.StatusNoContent, ""},
		{http.MethodPut, "old", http.StatusPreconditionFailed, "UpdateConditionNotSatisfied"},
		{http.MethodPut, "new", http.StatusNoContent, ""},
		{http.MethodPut, "", http.StatusNoContent, ""},
		{http.MethodPatch, "*", http.StatusNoContent, ""},
		{http.MethodPatch, "old", http.StatusPreconditionFailed, "UpdateConditionNotSatisfied"},
		{http.MethodPatch, "new", http.StatusNoContent, ""},
		{http.MethodPatch, "", http.StatusNoContent, ""},
		{"MERGE", "*", http.StatusNoContent, ""},
		{"MERGE", "old", http.StatusPreconditionFailed, "UpdateConditionNotSatisfied"},
		{"MERGE", "new", http.StatusNoContent, ""},
		{"MERGE", "", http.StatusNoContent, ""},
	} {
		h := []string{"Content-Type", "application/json", "DataServiceVersion", "3.0", "x-ms-client-request-id", "1"}
		switch tc.ifMatch {
		case "old":
			h = append(h, "If-Match", old)
		case "new":
			h = append(h, "If-Match", current)
		case "*":
			h = append(h, "If-Match", "*")
		}
		r := c.do(tc.method, entity, `{"PartitionKey":"9b0afb2e","RowKey":"a","S":"case`+string(rune('a'+i))+`"}`, h...)
		r.want(t, tc.method+" If-Match "+tc.ifMatch, tc.status, tc.code)
		if r.StatusCode == http.StatusNoContent {
			if r.Header.Get("ETag") == "" || r.Header.Get("ETag") == current {
				t.Errorf("%s If-Match %s: ETag %q after %q", tc.method, tc.ifMatch, r.Header.Get("ETag"), current)
			}
			current = r.Header.Get("ETag")
		}
	}
	// If-Match * on an entity that does not exist: nothing to update, 404
	// ResourceNotFound (recorded in go-aztables
	// TestMergeEntityDoesNotExist).
	for _, m := range []string{http.MethodPut, "MERGE", http.MethodPatch} {
		c.do(m, "/ifmatch(PartitionKey='9b0afb2e',RowKey='missing')", `{"S":"x"}`, "Content-Type", "application/json", "If-Match", "*").
			want(t, m+" If-Match * on a missing entity", http.StatusNotFound, "ResourceNotFound")
	}
}

// TestRESTTopZero: $top=0 is a query that returns no entities, not a
// malformed one — Azure answers it 200 with none (a report against Azure
// in Azurite issue #1428, the query Azure Storage Explorer sends:
// $select=&$filter=PartitionKey eq '0'&$top=0).
func TestRESTTopZero(t *testing.T) {
	f := newFixture(t)
	c := newREST(t, f)
	c.createTable("topzero")
	for _, rk := range []string{"0", "1", "2"} {
		c.do(http.MethodPost, "/topzero", `{"PartitionKey":"0","RowKey":"`+rk+`"}`, "Content-Type", "application/json", "Accept", jsonNoMetadata, "Prefer", "return-no-content").
			want(t, "insert", http.StatusNoContent, "")
	}
	for _, path := range []string{
		"/topzero?%24select=&%24filter=PartitionKey%20eq%20%270%27&%24top=0",
		"/topzero()?$top=0",
		"/Tables?$top=0",
	} {
		r := c.do(http.MethodGet, path, "", "Accept", jsonNoMetadata)
		r.want(t, path, http.StatusOK, "")
		if r.body != `{"value":[]}` {
			t.Errorf("%s: %s, want no entities", path, r.body)
		}
	}
	// Out of range stays refused.
	for _, top := range []string{"-1", "1001", "x"} {
		c.do(http.MethodGet, "/topzero()?$top="+top, "", "Accept", jsonNoMetadata).want(t, "$top="+top, http.StatusBadRequest, "InvalidInput")
	}
}

// TestRESTBatch: entity group transactions from a plain REST client, in
// the multipart form the REST reference's "Performing entity group
// transactions" shows: PATCH and MERGE parts, the older
// DataServiceVersion/MaxDataServiceVersion values the .NET clients send
// (1.0;NetFx, 2.0;NetFx), a change set whose conditional operation holds
// a stale ETag (the whole change set fails 412 and nothing of it is
// applied), a query sent alone in a batch, and a query inside a change
// set, which that page says a batch may not mix with writes.
func TestRESTBatch(t *testing.T) {
	f := newFixture(t)
	c := newREST(t, f)
	c.createTable("batchrest")
	ins := c.do(http.MethodPost, "/batchrest", `{"PartitionKey":"p","RowKey":"r","V":1}`, "Content-Type", "application/json", "Accept", jsonNoMetadata)
	ins.want(t, "insert", http.StatusCreated, "")
	stale := ins.Header.Get("ETag")
	u := c.base + "/batchrest(PartitionKey='p',RowKey='r')"

	for _, op := range []struct{ name, part string }{
		{"DSV 2.0 PUT", "PUT " + u + " HTTP/1.1\r\nContent-Type: application/json\r\nDataServiceVersion: 2.0;NetFx\r\n\r\n{\"V\":2}"},
		{"PATCH", "PATCH " + u + " HTTP/1.1\r\nContent-Type: application/json\r\nAccept: application/json;odata=nometadata\r\nIf-Match: *\r\n\r\n{\"W\":1}"},
		{"MERGE", "MERGE " + u + " HTTP/1.1\r\nContent-Type: application/json\r\nIf-Match: *\r\n\r\n{\"X\":1}"},
		{"DSV 1.0 MERGE", "MERGE " + u + " HTTP/1.1\r\nContent-Type: application/json\r\nDataServiceVersion: 1.0;NetFx\r\nMaxDataServiceVersion: 2.0;NetFx\r\nIf-Match: *\r\n\r\n{\"Y\":1}"},
		{"X-HTTP-Method MERGE", "POST " + u + " HTTP/1.1\r\nX-HTTP-Method: MERGE\r\nContent-Type: application/json\r\nIf-Match: *\r\n\r\n{\"Z\":1}"},
	} {
		body := c.batch(nil, op.part)
		if !strings.Contains(body, "HTTP/1.1 204 No Content") {
			t.Errorf("batch %s:\n%s", op.name, body)
		}
	}
	// The whole batch in the 1.0/2.0 dialect too.
	body := c.batch([]string{"DataServiceVersion", "1.0;NetFx", "MaxDataServiceVersion", "2.0;NetFx"},
		"MERGE "+u+" HTTP/1.1\r\nContent-Type: application/json\r\nIf-Match: *\r\n\r\n{\"Old\":true}")
	if !strings.Contains(body, "HTTP/1.1 204 No Content") {
		t.Errorf("batch with DataServiceVersion 1.0:\n%s", body)
	}
	got := c.do(http.MethodGet, "/batchrest(PartitionKey='p',RowKey='r')", "", "Accept", jsonNoMetadata)
	for _, prop := range []string{`"V":2`, `"W":1`, `"X":1`, `"Y":1`, `"Z":1`, `"Old":true`} {
		if !strings.Contains(got.body, prop) {
			t.Errorf("entity after the batches lacks %s: %s", prop, got.body)
		}
	}

	// An upsert in one operation and a replace with a stale ETag in the
	// next: the change set fails on the stale one, 412, and the upsert is
	// not applied.
	body = c.batch(nil,
		"PUT "+c.base+"/batchrest(PartitionKey='p',RowKey='new') HTTP/1.1\r\nContent-Type: application/json\r\n\r\n{\"V\":1}",
		"PUT "+u+" HTTP/1.1\r\nContent-Type: application/json\r\nIf-Match: "+stale+"\r\n\r\n{\"V\":3}")
	if !strings.Contains(body, "HTTP/1.1 412 Precondition Failed") || !strings.Contains(body, `"code":"UpdateConditionNotSatisfied"`) || !strings.Contains(body, `"value":"1:`) {
		t.Errorf("stale ETag in a change set:\n%s", body)
	}
	c.do(http.MethodGet, "/batchrest(PartitionKey='p',RowKey='new')", "", "Accept", jsonNoMetadata).
		want(t, "the upsert of the failed change set", http.StatusNotFound, "ResourceNotFound")

	// A query alone in a batch answers the entity.
	q := "--batch_q\r\nContent-Type: application/http\r\nContent-Transfer-Encoding: binary\r\n\r\nGET " + u + " HTTP/1.1\r\nAccept: application/json;odata=nometadata\r\n\r\n\r\n--batch_q--\r\n"
	r := c.do(http.MethodPost, "/$batch", q, "Content-Type", "multipart/mixed; boundary=batch_q")
	r.want(t, "batch query", http.StatusAccepted, "")
	if !strings.Contains(r.body, "HTTP/1.1 200 OK") || !strings.Contains(r.body, `"Old":true`) {
		t.Errorf("batch query:\n%s", r.body)
	}
	// A query inside a change set is refused with the change set.
	body = c.batch(nil,
		"MERGE "+u+" HTTP/1.1\r\nContent-Type: application/json\r\nIf-Match: *\r\n\r\n{\"Mixed\":1}",
		"GET "+u+" HTTP/1.1\r\nAccept: application/json;odata=nometadata\r\n\r\n")
	if !strings.Contains(body, "HTTP/1.1 400 Bad Request") {
		t.Errorf("query inside a change set:\n%s", body)
	}
	if got := c.do(http.MethodGet, "/batchrest(PartitionKey='p',RowKey='r')", "", "Accept", jsonNoMetadata); strings.Contains(got.body, "Mixed") {
		t.Errorf("a change set holding a query was applied: %s", got.body)
	}
	// An Atom operation: JSON is the only format from version 2015-12-11
	// on (REST reference, "Payload format for Table service operations").
	body = c.batch(nil, "MERGE "+u+" HTTP/1.1\r\nContent-Type: application/atom+xml\r\nIf-Match: *\r\n\r\n<entry xmlns=\"http://www.w3.org/2005/Atom\"/>")
	if !strings.Contains(body, "HTTP/1.1 400 Bad Request") {
		t.Errorf("Atom operation:\n%s", body)
	}
}

// TestRESTResponseFormats: Create Table and Query Tables answer exactly
// the odata.* members the Accept header's metadata level asks for, and
// Prefer decides whether Create Table answers the table. Sources: the
// recordings go-storage StorageTableSuite
// Test_CreateTableWithAllResponsePayloadLevels (Create Table at each
// level, Prefer return-no-content / return-content and
// Preference-Applied), TestGet (a table in full metadata) and
// TestQueryTablesNextResults (Query Tables in minimal metadata); the REST
// reference's Query Tables sample for no metadata.
func TestRESTResponseFormats(t *testing.T) {
	f := newFixture(t)
	c := newREST(t, f)
	base := f.serviceURL() + "/"
	for i, level := range []string{"nometadata", "minimalmetadata", "fullmetadata"} {
		name := "Fmt" + level
		accept := "application/json;odata=" + level
		wantTable := map[string]string{
			"nometadata":      `{"TableName":"` + name + `"}`,
			"minimalmetadata": `{"odata.metadata":"` + base + `$metadata#Tables/@Element","TableName":"` + name + `"}`,
			"fullmetadata": `{"odata.metadata":"` + base + `$metadata#Tables/@Element","odata.type":"` + f.env.Account + `.Tables","odata.id":"` + base +
				`Tables('` + name + `')","odata.editLink":"Tables('` + name + `')","TableName":"` + name + `"}`,
		}[level]
		for _, prefer := range []string{"", "return-content", "return-no-content"} {
			tn := name + strings.ReplaceAll(prefer, "-", "")
			r := c.do(http.MethodPost, "/Tables", `{"TableName":"`+tn+`"}`, "Content-Type", "application/json", "Accept", accept, "Prefer", prefer)
			if r.Header.Get("Preference-Applied") != prefer {
				t.Errorf("%s Prefer %q: Preference-Applied %q", level, prefer, r.Header.Get("Preference-Applied"))
			}
			if !strings.HasSuffix(r.Header.Get("Location"), "Tables('"+tn+"')") {
				t.Errorf("%s Prefer %q: Location %q", level, prefer, r.Header.Get("Location"))
			}
			if prefer == "return-no-content" {
				if r.StatusCode != http.StatusNoContent || r.body != "" {
					t.Errorf("%s Prefer %q: %d %q", level, prefer, r.StatusCode, r.body)
				}
				continue
			}
			want := strings.ReplaceAll(wantTable, name, tn)
			if r.StatusCode != http.StatusCreated || r.body != want || r.Header.Get("Content-Type") != accept+";streaming=true;charset=utf-8" {
				t.Errorf("%s Prefer %q: %d %s %s\nwant %s", level, prefer, r.StatusCode, r.Header.Get("Content-Type"), r.body, want)
			}
		}
		// Query Tables: the collection's odata.metadata (minimal and
		// full), each table's members as Create Table answers them less
		// its own odata.metadata.
		filter := url.QueryEscape("TableName eq '" + name + "'")
		r := c.do(http.MethodGet, "/Tables?$filter="+filter, "", "Accept", accept)
		entry := strings.Replace(wantTable, `"odata.metadata":"`+base+`$metadata#Tables/@Element",`, "", 1)
		want := `{"value":[` + entry + `]}`
		if i > 0 {
			want = `{"odata.metadata":"` + base + `$metadata#Tables","value":[` + entry + `]}`
		}
		if r.StatusCode != http.StatusOK || r.body != want || r.Header.Get("Content-Type") != accept+";streaming=true;charset=utf-8" {
			t.Errorf("Query Tables %s: %d %s %s\nwant %s", level, r.StatusCode, r.Header.Get("Content-Type"), r.body, want)
		}
	}
}
