package security

import (
	"net/http"
	"testing"
)

var tableService = storageService{
	name: "table", ss: "t",
	accountLetters:   accountLetters,
	containerLetters: "raud",
	createContainer: func(t testing.TB, f *fixture, name string) {
		f.prepare(t, "table", call{method: http.MethodPost, path: "Tables", header: jsonHeader, body: []byte(`{"TableName":"` + name + `"}`)})
	},
	serviceSAS: func(f *fixture, n *target, _ bool, sp string) sasValues {
		return sasValues{service: "table", resource: "/" + f.env.Account + "/" + n.container, tableName: n.container, permissions: sp}
	},
}

var jsonHeader = map[string]string{"Content-Type": "application/json"}

func entityPath(n *target) string {
	return n.container + "(PartitionKey='p',RowKey='" + n.object + "')"
}

func entityBody(n *target) []byte {
	return []byte(`{"PartitionKey":"p","RowKey":"` + n.object + `","v":1}`)
}

func prepTable(t testing.TB, f *fixture, n *target) { tableService.createContainer(t, f, n.container) }

func prepEntity(t testing.TB, f *fixture, n *target) {
	f.prepare(t, "table", call{method: http.MethodPost, path: n.container, header: jsonHeader, body: entityBody(n)})
}

func entityCall(method string, ifMatch bool) func(n *target) call {
	return func(n *target) call {
		h := map[string]string{"Content-Type": "application/json"}
		if ifMatch {
			h["If-Match"] = "*"
		}
		c := call{method: method, path: entityPath(n), header: h}
		if method != http.MethodDelete && method != http.MethodGet {
			c.body = entityBody(n)
		}
		return c
	}
}

// tableOps is the Table service's table. A table (service) SAS reaches
// the table's entities only; the ACL is the owner's alone. Upserts need
// both add and update.
var tableOps = []storageOp{
	{name: "Get Table Service Properties", level: 's', account: "r", prep: prepNothing,
		call: func(*target) call {
			return call{method: http.MethodGet, query: q("restype", "service", "comp", "properties")}
		}},
	{name: "Set Table Service Properties", level: 's', account: "w", prep: prepNothing,
		call: func(*target) call {
			return call{method: http.MethodPut, query: q("restype", "service", "comp", "properties"),
				body: []byte(`<?xml version="1.0" encoding="utf-8"?><StorageServiceProperties><Cors/></StorageServiceProperties>`)}
		}},

	{name: "Query Tables", level: 'c', account: "l", service: "-", prep: prepNothing,
		call: func(*target) call { return call{method: http.MethodGet, path: "Tables"} }},
	{name: "Create Table", level: 'c', account: "c|w", service: "-", prep: prepNothing,
		call: func(n *target) call {
			return call{method: http.MethodPost, path: "Tables", header: jsonHeader, body: []byte(`{"TableName":"` + n.container + `"}`)}
		}},
	{name: "Delete Table", level: 'c', account: "d", service: "-", prep: prepTable,
		call: func(n *target) call { return call{method: http.MethodDelete, path: "Tables('" + n.container + "')"} }},
	{name: "Get Table ACL", level: 'c', account: "-", service: "-", prep: prepTable,
		call: func(n *target) call { return call{method: http.MethodGet, path: n.container, query: q("comp", "acl")} }},

	{name: "Query Entities", level: 'o', account: "r", service: "r", prep: prepEntity,
		call: func(n *target) call { return call{method: http.MethodGet, path: n.container + "()"} }},
	{name: "Get Entity", level: 'o', account: "r", service: "r", prep: prepEntity, call: entityCall(http.MethodGet, false)},
	{name: "Insert Entity", level: 'o', account: "a", service: "a", prep: prepNothing,
		call: func(n *target) call {
			return call{method: http.MethodPost, path: n.container, header: jsonHeader, body: entityBody(n)}
		}},
	{name: "Update Entity", level: 'o', account: "u", service: "u", prep: prepEntity, call: entityCall(http.MethodPut, true)},
	{name: "Merge Entity", level: 'o', account: "u", service: "u", prep: prepEntity, call: entityCall("MERGE", true)},
	{name: "Insert Or Replace Entity", level: 'o', account: "au", service: "au", prep: prepNothing, call: entityCall(http.MethodPut, false)},
	{name: "Insert Or Merge Entity", level: 'o', account: "au", service: "au", prep: prepNothing, call: entityCall("MERGE", false)},
	{name: "Delete Entity", level: 'o', account: "d", service: "d", prep: prepEntity, call: entityCall(http.MethodDelete, true)},
}

func TestTablePermissionMatrix(t *testing.T) {
	t.Parallel()
	runMatrix(t, tableService, tableOps)
}
