package security

import (
	"bytes"
	"net/http"
	"strings"
	"testing"

	"github.com/cerulean-db/cerulean/internal/azhttp"
)

// xmlTarget is one XML body a service parses: doc wraps a value where the
// document carries text the client chose.
type xmlTarget struct {
	name, service string
	call          func(n *target) call
	doc           func(value string) string
}

const xmlDecl = `<?xml version="1.0" encoding="utf-8"?>`

func aclDoc(value string) string {
	return `<SignedIdentifiers><SignedIdentifier><Id>` + value + `</Id><AccessPolicy><Permission>r</Permission></AccessPolicy></SignedIdentifier></SignedIdentifiers>`
}

func propertiesDoc(value string) string {
	return `<StorageServiceProperties><Cors><CorsRule><AllowedOrigins>` + value +
		`</AllowedOrigins><AllowedMethods>GET</AllowedMethods><MaxAgeInSeconds>1</MaxAgeInSeconds><ExposedHeaders>*</ExposedHeaders><AllowedHeaders>*</AllowedHeaders></CorsRule></Cors></StorageServiceProperties>`
}

func serviceProperties(method string) func(*target) call {
	return func(*target) call {
		return call{method: method, query: q("restype", "service", "comp", "properties")}
	}
}

var xmlTargets = []xmlTarget{
	{name: "Put Block List", service: "blob", call: blobCall(http.MethodPut, "blocklist", nil, nil),
		doc: func(v string) string { return `<BlockList><Latest>` + v + `</Latest></BlockList>` }},
	{name: "Set Blob Tags", service: "blob", call: blobCall(http.MethodPut, "tags", nil, nil),
		doc: func(v string) string {
			return `<Tags><TagSet><Tag><Key>k</Key><Value>` + v + `</Value></Tag></TagSet></Tags>`
		}},
	{name: "Set Container ACL", service: "blob", call: containerCall(http.MethodPut, "comp", "acl"), doc: aclDoc},
	{name: "Set Blob Service Properties", service: "blob", call: serviceProperties(http.MethodPut), doc: propertiesDoc},
	{name: "Put Message", service: "queue",
		call: func(n *target) call { return call{method: http.MethodPost, path: n.container + "/messages"} },
		doc:  func(v string) string { return `<QueueMessage><MessageText>` + v + `</MessageText></QueueMessage>` }},
	{name: "Set Queue ACL", service: "queue", call: queueCall(http.MethodPut, "acl"), doc: aclDoc},
	{name: "Set Queue Service Properties", service: "queue", call: serviceProperties(http.MethodPut), doc: propertiesDoc},
	{name: "Set Table ACL", service: "table",
		call: func(n *target) call { return call{method: http.MethodPut, path: n.container, query: q("comp", "acl")} },
		doc:  aclDoc},
	{name: "Set Table Service Properties", service: "table", call: serviceProperties(http.MethodPut), doc: propertiesDoc},
	{name: "Set Share ACL", service: "file", call: shareCall(http.MethodPut, "comp", "acl"), doc: aclDoc},
	{name: "Set File Service Properties", service: "file", call: serviceProperties(http.MethodPut), doc: propertiesDoc},
}

// TestHostileXML: every XML body the Storage services parse refuses a DTD
// (external entities, entity expansion, or a bare declaration) and deep
// nesting with 400 InvalidXmlDocument, and an oversized body with 413
// RequestBodyTooLarge; none of them changes anything, and the server
// keeps serving.
func TestHostileXML(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	containers := map[string]*target{}
	for _, p := range probes {
		containers[p.svc.name] = p.setup(t, f)
	}
	laughs := `<!DOCTYPE r [<!ENTITY a "aaaaaaaaaa"><!ENTITY b "&a;&a;&a;&a;&a;&a;&a;&a;&a;&a;"><!ENTITY c "&b;&b;&b;&b;&b;&b;&b;&b;&b;&b;"><!ENTITY d "&c;&c;&c;&c;&c;&c;&c;&c;&c;&c;">]>`
	t.Run("documents", func(t *testing.T) {
		for _, x := range xmlTargets {
			t.Run(x.name, func(t *testing.T) {
				t.Parallel()
				n := containers[x.service]
				send := func(body string) (int, string) {
					c := x.call(n)
					c.body = []byte(body)
					resp := f.withKey(t, x.service, c, sharedKey)
					return resp.StatusCode, resp.Code
				}
				// The documents are well-formed but for what is under test.
				attacks := map[string]string{
					"external entity":  xmlDecl + `<!DOCTYPE r [<!ENTITY xxe SYSTEM "file:///etc/passwd">]>` + x.doc("&xxe;"),
					"parameter entity": xmlDecl + `<!DOCTYPE r [<!ENTITY % p SYSTEM "http://127.0.0.1:1/evil.dtd"> %p;]>` + x.doc("v"),
					"entity expansion": xmlDecl + laughs + x.doc("&d;"),
					"bare DTD":         xmlDecl + `<!DOCTYPE r>` + x.doc("v"),
					"undefined entity": xmlDecl + x.doc("&undefined;"),
					"deep nesting":     xmlDecl + x.doc(strings.Repeat("<a>", 12000)+strings.Repeat("</a>", 12000)),
				}
				for what, body := range attacks {
					status, code := send(body)
					if status != http.StatusBadRequest || code != "InvalidXmlDocument" && code != "InvalidXmlNodeValue" {
						t.Errorf("%s: got HTTP %d %q, want 400 InvalidXmlDocument", what, status, code)
					}
				}
				big := xmlDecl + x.doc(strings.Repeat("x", azhttp.MaxXMLBody))
				if status, code := send(big); status != http.StatusRequestEntityTooLarge || code != "RequestBodyTooLarge" {
					t.Errorf("oversized: got HTTP %d %q, want 413 RequestBodyTooLarge", status, code)
				}
			})
		}
	})
	// Nothing above took effect, and the server still serves.
	{
		for _, p := range probes {
			n := containers[p.svc.name]
			resp := f.withKey(t, p.svc.name, p.read(n), sharedKey)
			must2xx(t, resp, "read after the hostile documents")
			if bytes.Contains(resp.Body, []byte("root:")) {
				t.Errorf("%s: a hostile document's entity reached the data", p.svc.name)
			}
		}
		for _, acl := range []struct {
			service string
			c       call
		}{
			{"blob", containerCall(http.MethodGet, "comp", "acl")(containers["blob"])},
			{"queue", queueCall(http.MethodGet, "acl")(containers["queue"])},
			{"table", call{method: http.MethodGet, path: containers["table"].container, query: q("comp", "acl")}},
			{"file", shareCall(http.MethodGet, "comp", "acl")(containers["file"])},
		} {
			resp := f.withKey(t, acl.service, acl.c, sharedKey)
			must2xx(t, resp, acl.service+" ACL")
			if bytes.Contains(resp.Body, []byte("<SignedIdentifier>")) {
				t.Errorf("%s ACL changed by a refused document: %s", acl.service, resp.Body)
			}
		}
	}
}

// TestHostileJSON: deeply nested and oversized JSON bodies (Table
// entities, Cosmos DB documents, Search documents) are refused with a 4xx
// and the server keeps serving.
func TestHostileJSON(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	table := probes[2].setup(t, f)
	cosmosSetup(t, f)
	index := searchCall{method: http.MethodPost, path: "indexes", body: `{"name":"docs","fields":[{"name":"id","type":"Edm.String","key":true},{"name":"v","type":"Edm.String"}]}`}
	must2xx(t, f.search(t, index, f.env.SearchAdminKey), "create index")

	deep := func(prefix, suffix string) string {
		return prefix + strings.Repeat(`{"a":`, 100000) + "1" + strings.Repeat("}", 100000) + suffix
	}
	wide := func(prefix, suffix string, size int) string {
		return prefix + `"` + strings.Repeat("x", size) + `"` + suffix
	}
	send := map[string]func(body string) int{
		"Table entity": func(body string) int {
			return f.withKey(t, "table", call{method: http.MethodPost, path: table.container, header: jsonHeader, body: []byte(body)}, sharedKey).StatusCode
		},
		"Cosmos document": func(body string) int {
			c := docCall(http.MethodPost, "c1", "deep", "a")
			c.body = body
			return f.cosmosMaster(t, c, f.env.CosmosKey, f.clock.Now()).StatusCode
		},
		"Search documents": func(body string) int {
			return f.search(t, searchCall{method: http.MethodPost, path: "indexes/docs/docs/index", body: body}, f.env.SearchAdminKey).StatusCode
		},
	}
	bodies := map[string][2]string{
		"Table entity":     {`{"PartitionKey":"p","RowKey":"deep","v":`, `}`},
		"Cosmos document":  {`{"id":"deep","pk":"a","v":`, `}`},
		"Search documents": {`{"value":[{"@search.action":"upload","id":"1","v":`, `}]}`},
	}
	for name, fn := range send {
		b := bodies[name]
		if status := fn(deep(b[0], b[1])); status/100 != 4 {
			t.Errorf("%s nested 100000 deep: got HTTP %d, want a 4xx", name, status)
		}
		if status := fn(wide(b[0], b[1], 5<<20)); status/100 != 4 {
			t.Errorf("%s of 5 MiB: got HTTP %d, want a 4xx", name, status)
		}
	}
	must2xx(t, f.withKey(t, "table", probes[2].read(table), sharedKey), "table read afterwards")
	wantStatus(t, f.cosmosMaster(t, docCall(http.MethodGet, "c1", "xa", "a"), f.env.CosmosKey, f.clock.Now()), http.StatusOK, "cosmos read afterwards")
}
