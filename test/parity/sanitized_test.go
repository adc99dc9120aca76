package parity

import (
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"
)

func TestRebuildQuery(t *testing.T) {
	entity := "https://REDACTED/t1(PartitionKey='p',RowKey='r')"
	full := Headers{"Content-Type": "application/json; odata=fullmetadata; streaming=true; charset=utf-8"}
	cases := []struct {
		name string
		e    Entry
		want string // the rebuilt URI; "" for an error
	}{
		{"not sanitized", Entry{RequestURI: entity + "?$select=a", RequestMethod: "GET"}, entity + "?$select=a"},
		{"get entity, full metadata", Entry{RequestURI: entity + "?REDACTED", RequestMethod: "GET", ResponseHeaders: full,
			ResponseBody: json.RawMessage(`{"odata.metadata":"https://REDACTED/$metadata#t1/@Element"}`)},
			entity + "?%24format=application%2Fjson%3Bodata%3Dfullmetadata"},
		{"get entity, select", Entry{RequestURI: entity + "?REDACTED", RequestMethod: "GET", ResponseHeaders: full,
			ResponseBody: json.RawMessage(`{"odata.metadata":"https://REDACTED/$metadata#t1/@Element&$select=Test,Other"}`)},
			entity + "?%24format=application%2Fjson%3Bodata%3Dfullmetadata&%24select=Test%2COther"},
		{"get entity, minimal metadata", Entry{RequestURI: entity + "?REDACTED", RequestMethod: "GET",
			ResponseHeaders: Headers{"Content-Type": "application/json;odata=minimalmetadata"}}, ""},
		{"set table acl", Entry{RequestURI: "https://REDACTED/t1?REDACTED", RequestMethod: "PUT",
			RequestHeaders: Headers{"Content-Type": "application/xml"},
			RequestBody:    json.RawMessage(`"<?xml version='1.0'?><SignedIdentifiers><SignedIdentifier><Id>x</Id></SignedIdentifier></SignedIdentifiers>"`)},
			"https://REDACTED/t1?comp=acl"},
		{"get table acl", Entry{RequestURI: "https://REDACTED/t1?REDACTED", RequestMethod: "GET",
			ResponseHeaders: Headers{"Content-Type": "application/xml"},
			ResponseBody:    json.RawMessage(`"\uFEFF<?xml version=\"1.0\"?><SignedIdentifiers />"`)},
			"https://REDACTED/t1?comp=acl"},
		{"insert entity", Entry{RequestURI: "https://REDACTED/t1?REDACTED", RequestMethod: "POST",
			RequestHeaders: Headers{"Content-Type": "application/json"}, RequestBody: json.RawMessage(`{"PartitionKey":"p"}`)}, ""},
		{"query entities", Entry{RequestURI: "https://REDACTED/t1()?REDACTED", RequestMethod: "GET", ResponseHeaders: full,
			ResponseBody: json.RawMessage(`{"value":[]}`)}, ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got, err := rebuildQuery(&c.e)
			switch {
			case c.want == "" && err == nil:
				t.Fatalf("rebuilt %q, want an error", got)
			case c.want != "" && err != nil:
				t.Fatalf("error %v, want %q", err, c.want)
			case got != c.want:
				t.Fatalf("rebuilt %q, want %q", got, c.want)
			}
		})
	}
}

func TestDecodeBodyB64Line(t *testing.T) {
	raw := json.RawMessage(`["--batch_1\r\n", "\r\n", "b64:REVMRVRFIGh0dHA6Ly94IEhUVFAvMS4xDQo=", "\r\n", "b64:not base64!", "--batch_1--\r\n"]`)
	got, err := decodeBody(raw, "multipart/mixed; boundary=batch_1")
	if err != nil {
		t.Fatal(err)
	}
	want := "--batch_1\r\n\r\nDELETE http://x HTTP/1.1\r\n\r\nb64:not base64!--batch_1--\r\n"
	if string(got) != want {
		t.Fatalf("decoded %q, want %q", got, want)
	}
}

func TestODataTypeAccount(t *testing.T) {
	c := &comparer{b: newBinder(), account: "fakeendpoint", live: "devstoreaccount1"}
	for _, x := range []struct {
		rec, live string
		ok        bool
	}{
		{"faketableaccount.uttable1", "devstoreaccount1.uttable1", true},
		{"t892beac1a690feffprim.uttable1", "devstoreaccount1.uttable1", true},
		{"faketableaccount.uttable1", "devstoreaccount1.uttable2", false},
		{"faketableaccount.uttable1", "otheraccount.uttable1", false},
		{"Edm.DateTime", "Edm.DateTime", true},
		{"Edm.DateTime", "Edm.String", false},
	} {
		rec, _ := json.Marshal(map[string]string{"odata.type": x.rec})
		live, _ := json.Marshal(map[string]string{"odata.type": x.live})
		err := c.jsonBody(rec, live)
		if (err == nil) != x.ok {
			t.Errorf("odata.type %q against Azure's %q: %v, want ok=%v", x.live, x.rec, err, x.ok)
		}
	}
}

func TestBodyLabelledXMLNotXML(t *testing.T) {
	c := &comparer{b: newBinder()}
	rec := []byte("\x00\x00\x00abc")
	if err := c.body("application/xml", rec, []byte("\x00\x00\x00abc")); err != nil {
		t.Fatalf("the same bytes: %v", err)
	}
	err := c.body("application/xml", rec, []byte("\x00\x00\x00abd"))
	if err == nil || !strings.Contains(err.Error(), "body differs") {
		t.Fatalf("different bytes: %v, want a body difference", err)
	}
	// A body that is XML is still compared element by element.
	if err := c.body("application/xml", []byte("<a><b>1</b></a>"), []byte("<a>\n<b>2</b></a>")); err == nil || !strings.Contains(err.Error(), "/a/b") {
		t.Fatalf("XML: %v, want the element named", err)
	}
}

func TestSanitizedSASVersion(t *testing.T) {
	target := &Target{Queue: "http://127.0.0.1:1/devstoreaccount1/", Account: "devstoreaccount1", Key: "a2V5"}
	e := &Entry{
		RequestURI:     "https://Sanitized.queue.core.windows.net/q1/messages?se=Sanitized&sp=p&sv=Sanitized&sig=Sanitized",
		RequestMethod:  "GET",
		RequestHeaders: Headers{"x-ms-version": "2026-06-06"},
	}
	req, err := target.request(e, "queue", newBinder(), 0, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	q := req.URL.Query()
	if q.Get("sv") != "2026-06-06" || q.Get("sig") == "" || q.Get("sig") == "Sanitized" {
		t.Fatalf("SAS %s, want sv=2026-06-06 and a new signature", req.URL.RawQuery)
	}
	if got := sasVersion("http://h/a?sv=2020-10-02&sig=x", "2026-06-06"); got != "http://h/a?sv=2020-10-02&sig=x" {
		t.Fatalf("a version the recording kept changed: %s", got)
	}
}

func TestMalformedPopReceipt(t *testing.T) {
	b := newBinder()
	issued, live := "AgAAAAMAAAAAAAAAQC7eRm8T2gE=", "GOxlWz6gxwwAAAAAAHAAAAAAAAAAAAAI"
	if err := b.bind(kindReceipt, issued, live); err != nil {
		t.Fatal(err)
	}
	b.receipts = map[string]string{"m1": "LATESTRECEIPTFORM1"}
	use := func(recorded string) string {
		u, _ := url.Parse(b.rewrite("http://h/a/q/messages/m1?popreceipt=" + url.QueryEscape(recorded)))
		b.useReceipt(u, recorded)
		return u.Query().Get("popreceipt")
	}
	if got := use(issued); got != "LATESTRECEIPTFORM1" {
		t.Fatalf("an issued receipt became %q, want the message's latest", got)
	}
	if got := use(issued + "Random"); got != live+"Random" {
		t.Fatalf("a malformed receipt became %q, want %q", got, live+"Random")
	}
	// The error that echoes it is compared as Azure's.
	c := &comparer{b: b}
	rec := []byte("<Error><Code>InvalidQueryParameterValue</Code><QueryParameterValue>" + issued + "Random</QueryParameterValue></Error>")
	if err := c.xmlBody(rec, []byte("<Error><Code>InvalidQueryParameterValue</Code><QueryParameterValue>"+live+"Random</QueryParameterValue></Error>")); err != nil {
		t.Fatalf("echoed live receipt: %v", err)
	}
	if err := c.xmlBody(rec, []byte("<Error><Code>InvalidQueryParameterValue</Code><QueryParameterValue>"+live+"</QueryParameterValue></Error>")); err == nil {
		t.Fatal("an echo of another value was not reported")
	}
}

func TestRedactedCopySource(t *testing.T) {
	target := &Target{Blob: "http://127.0.0.1:1/devstoreaccount1/", Account: "devstoreaccount1", Key: "a2V5"}
	e := &Entry{
		RequestURI:     "https://REDACTED/c1/b2",
		RequestMethod:  "PUT",
		RequestHeaders: Headers{"x-ms-copy-source": "https://REDACTED/c1/b1", "x-ms-version": "2023-08-03"},
	}
	req, err := target.request(e, "blob", newBinder(), 0, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	if got := req.Header.Get("x-ms-copy-source"); got != "http://127.0.0.1:1/devstoreaccount1/c1/b1" {
		t.Fatalf("copy source %q, want the local blob", got)
	}
	c := &comparer{b: newBinder(), local: func(v string) string { return target.localPlaceholderURL(v, "blob") }}
	if err := c.copySource("x-ms-copy-source", "https://REDACTED/c1/b1", "http://127.0.0.1:1/devstoreaccount1/c1/b1"); err != nil {
		t.Fatal(err)
	}
	if err := c.copySource("x-ms-copy-source", "https://REDACTED/c1/b1", "http://127.0.0.1:1/devstoreaccount1/c1/b3"); err == nil {
		t.Fatal("a copy source naming another blob was not reported")
	}
	if err := c.copySource("x-ms-copy-source", "https://acct.blob.core.windows.net/c1/b1", "http://127.0.0.1:1/devstoreaccount1/c1/b3"); err != nil {
		t.Fatalf("an Azure endpoint's URL is not compared: %v", err)
	}
}

// TestCustomerKeys: a sanitized customer-provided key (and its SHA-256)
// is replaced by one key and its true SHA-256; a real one is left alone.
func TestCustomerKeys(t *testing.T) {
	h := http.Header{}
	h.Set("X-Ms-Encryption-Key", "Sanitized")
	h.Set("X-Ms-Encryption-Key-Sha256", "Sanitized")
	h.Set("X-Ms-Source-Encryption-Key", "MDEyMzQ1Njc4OWFiY2RlZjAxMjM0NTY3ODlhYmNkZWY=")
	customerKeys(h)
	key, err := base64.StdEncoding.DecodeString(h.Get("X-Ms-Encryption-Key"))
	if err != nil || len(key) != 32 {
		t.Fatalf("key %q: %v", h.Get("X-Ms-Encryption-Key"), err)
	}
	sum := sha256.Sum256(key)
	if h.Get("X-Ms-Encryption-Key-Sha256") != base64.StdEncoding.EncodeToString(sum[:]) {
		t.Errorf("SHA-256 %q is not the key's", h.Get("X-Ms-Encryption-Key-Sha256"))
	}
	if h.Get("X-Ms-Source-Encryption-Key") != "MDEyMzQ1Njc4OWFiY2RlZjAxMjM0NTY3ODlhYmNkZWY=" || h.Get("X-Ms-Source-Encryption-Key-Sha256") != "" {
		t.Errorf("a real source key was changed: %v", h)
	}
}

// TestBlobSoftDeleteDays: a snapshot's non-permanent delete, or any on an
// account without versioning, shows blob soft delete; a versioned
// account's base-blob delete alone does not.
func TestBlobSoftDeleteDays(t *testing.T) {
	del := func(uri, permanent string) Entry {
		return Entry{RequestMethod: http.MethodDelete, RequestURI: uri, StatusCode: http.StatusAccepted,
			ResponseHeaders: Headers{"x-ms-delete-type-permanent": permanent}}
	}
	versioned := Entry{RequestMethod: http.MethodPut, RequestURI: "https://a.blob.core.windows.net/c/b", StatusCode: http.StatusCreated,
		ResponseHeaders: Headers{"x-ms-version-id": "2026-01-01T00:00:00.0000000Z"}}
	listing := Entry{RequestMethod: http.MethodGet, RequestURI: "https://a.blob.core.windows.net/c?restype=container&comp=list&include=deleted",
		StatusCode: http.StatusOK, ResponseBody: []byte(`"<Blob><Name>b</Name><Deleted>true</Deleted><Properties><RemainingRetentionDays>3</RemainingRetentionDays></Properties></Blob>"`)}
	containers := Entry{RequestMethod: http.MethodGet, RequestURI: "https://a.blob.core.windows.net/?comp=list&include=deleted",
		StatusCode: http.StatusOK, ResponseBody: []byte(`"<Container><Name>c</Name><Deleted>true</Deleted><Properties><RemainingRetentionDays>30</RemainingRetentionDays></Properties></Container>"`)}
	for _, c := range []struct {
		name    string
		entries []Entry
		want    int
	}{
		{"permanent", []Entry{del("https://a.blob.core.windows.net/c/b", "true")}, 0},
		{"no versioning", []Entry{del("https://a.blob.core.windows.net/c/b", "false")}, 7},
		{"versioned base blob", []Entry{versioned, del("https://a.blob.core.windows.net/c/b", "false")}, 0},
		{"versioned snapshot", []Entry{versioned, del("https://a.blob.core.windows.net/c/b?snapshot=x", "false")}, 7},
		{"days listed", []Entry{del("https://a.blob.core.windows.net/c/b", "false"), listing}, 3},
		{"containers' days are not blobs'", []Entry{del("https://a.blob.core.windows.net/c/b", "false"), containers}, 7},
	} {
		rec := &Recording{Service: "blob", Entries: c.entries}
		if got := rec.BlobSoftDeleteDays(); got != c.want {
			t.Errorf("%s: %d days, want %d", c.name, got, c.want)
		}
	}
}

// TestAnonymousRequest: a request Azure answered 401
// NoAuthenticationInformation is sent without credentials; one it
// answered otherwise is signed.
func TestAnonymousRequest(t *testing.T) {
	target := &Target{Queue: "http://127.0.0.1:1/devstoreaccount1/", Account: "devstoreaccount1", Key: "a2V5"}
	for _, tc := range []struct {
		status int
		code   string
		signed bool
	}{{401, "NoAuthenticationInformation", false}, {403, "AuthorizationFailure", true}, {200, "", true}} {
		e := &Entry{
			RequestURI: "https://Sanitized.queue.core.windows.net/q1?comp=metadata", RequestMethod: "GET",
			RequestHeaders: Headers{"x-ms-version": "2024-08-04"}, StatusCode: tc.status,
			ResponseHeaders: Headers{"x-ms-error-code": tc.code},
		}
		req, err := target.request(e, "queue", newBinder(), 0, time.Now())
		if err != nil {
			t.Fatal(err)
		}
		if signed := req.Header.Get("Authorization") != ""; signed != tc.signed {
			t.Errorf("answered %d %s: signed %v, want %v", tc.status, tc.code, signed, tc.signed)
		}
	}
}
