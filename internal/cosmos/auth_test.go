package cosmos

import (
	"encoding/base64"
	"net/url"
	"testing"
)

func TestResourceOf(t *testing.T) {
	for _, tc := range []struct {
		path     []string
		typ, lnk string
	}{
		{nil, "", ""},
		{[]string{"dbs"}, "dbs", ""},
		{[]string{"dbs", "d"}, "dbs", "dbs/d"},
		{[]string{"dbs", "d", "colls"}, "colls", "dbs/d"},
		{[]string{"dbs", "d", "colls", "c", "docs"}, "docs", "dbs/d/colls/c"},
		{[]string{"dbs", "d", "colls", "c", "docs", "a b"}, "docs", "dbs/d/colls/c/docs/a b"},
		{[]string{"dbs", "d", "colls", "c", "pkranges"}, "pkranges", "dbs/d/colls/c"},
		{[]string{"dbs", "d", "colls", "c", "sprocs"}, "sprocs", "dbs/d/colls/c"},
		{[]string{"dbs", "d", "colls", "c", "sprocs", "p"}, "sprocs", "dbs/d/colls/c/sprocs/p"},
		{[]string{"dbs", "d", "colls", "c", "triggers", "t"}, "triggers", "dbs/d/colls/c/triggers/t"},
		{[]string{"dbs", "d", "colls", "c", "udfs"}, "udfs", "dbs/d/colls/c"},
	} {
		typ, lnk := resourceOf(tc.path)
		if typ != tc.typ || lnk != tc.lnk {
			t.Errorf("resourceOf(%v) = %q, %q; want %q, %q", tc.path, typ, lnk, tc.typ, tc.lnk)
		}
	}
}

// TestSignatureMatchesDocumentedExample checks the string-to-sign and the
// header encoding against the shape the SDKs produce.
func TestSignatureMatchesDocumentedExample(t *testing.T) {
	key, _ := base64.StdEncoding.DecodeString(EmulatorKey)
	date := "Tue, 01 Nov 1994 08:12:31 GMT"
	payload := stringToSign("GET", "dbs", "dbs/ToDoList", date)
	if payload != "get\ndbs\ndbs/ToDoList\ntue, 01 nov 1994 08:12:31 gmt\n\n" {
		t.Fatalf("payload %q", payload)
	}
	sig := base64.StdEncoding.EncodeToString(sign(key, payload))
	header := url.QueryEscape("type=master&ver=1.0&sig=" + sig)
	tok, err := parseAuthToken(header)
	if err != nil {
		t.Fatal(err)
	}
	if base64.StdEncoding.EncodeToString(tok.Signature) != sig {
		t.Fatalf("signature did not round-trip")
	}
	for _, bad := range []string{"", "type=master&ver=1.0", "type=aad&ver=1.0&sig=" + url.QueryEscape(sig), "type=master&ver=1.0&sig=bm90IGEgaGFzaA=="} {
		if _, err := parseAuthToken(bad); err == nil {
			t.Errorf("parseAuthToken(%q) accepted", bad)
		}
	}
}
