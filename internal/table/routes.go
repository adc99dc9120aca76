package table

import (
	"net/http"

	"github.com/cerulean-db/cerulean/internal/storagefront"
)

// route is one row of the routing table.
type route = storagefront.Route[*handler, *request]

const httpGet, httpPut, httpDelete, httpPost, merge, anyComp = http.MethodGet, http.MethodPut, http.MethodDelete, http.MethodPost, "MERGE", storagefront.AnyComp

// routes is the Table service's routing table: Azure's operations, the
// requests (after X-HTTP-Method tunnelling) that select each and what
// each needs of a caller.
var routes = []route{
	{Name: "GetTableServiceProperties", On: at(resService), Method: httpGet, Restype: "service", Comp: "properties", Authorize: accountLevel(need('s', 'r')), Run: (*handler).getServiceProperties},
	{Name: "SetTableServiceProperties", On: at(resService), Method: httpPut, Restype: "service", Comp: "properties", Authorize: accountLevel(need('s', 'w')), Run: (*handler).setServiceProperties},
	{Name: "GetTableServiceStats", On: at(resService), Method: httpGet, Restype: "service", Comp: "stats", Authorize: accountLevel(need('s', 'r')), Run: (*handler).getServiceStats},

	{Name: "QueryTables", On: at(resTables, resTable), Method: httpGet, Comp: anyComp, Authorize: accountLevel(need('c', 'l')), Run: (*handler).queryTablesOrTable},
	{Name: "CreateTable", On: at(resTables), Method: httpPost, Comp: anyComp, Authorize: createTableAccess, Run: (*handler).createTable},
	{Name: "DeleteTable", On: at(resTable), Method: httpDelete, Comp: anyComp, Authorize: accountLevel(need('c', 'd')), Run: (*handler).deleteTable},
	{Name: "EntityGroupTransaction", On: at(resBatch), Method: httpPost, Comp: anyComp, Authorize: batchAccess, Run: (*handler).batch},
	{Name: "GetTableACL", On: at(resEntities), Method: httpGet, Comp: "acl", Authorize: sharedKeyOnly, Run: (*handler).getTableACL},
	{Name: "SetTableACL", On: at(resEntities), Method: httpPut, Comp: "acl", Authorize: sharedKeyOnly, Run: (*handler).setTableACL},

	// Entities: parseRequest lets no comp but acl through to a table's
	// entities.
	{Name: "QueryEntities", On: at(resEntities, resEntity), Method: httpGet, Comp: anyComp, Authorize: allowAll(need('o', 'r')), Run: (*handler).queryEntitiesOrEntity},
	{Name: "InsertEntity", On: at(resEntities), Method: httpPost, Authorize: allowAll(writeNeeds(WriteInsert)...), Run: (*handler).insertEntity},
	{Name: "UpdateEntity", On: at(resEntity), Method: httpPut, Comp: anyComp, Headers: []string{"If-Match"}, Authorize: allowAll(writeNeeds(WriteReplace)...), Run: (*handler).updateEntity},
	{Name: "InsertOrReplaceEntity", On: at(resEntity), Method: httpPut, Comp: anyComp, Authorize: allowAll(writeNeeds(WriteInsertOrReplace)...), Run: (*handler).updateEntity},
	{Name: "MergeEntity", On: at(resEntity), Method: merge, Comp: anyComp, Headers: []string{"If-Match"}, Authorize: allowAll(writeNeeds(WriteMerge)...), Run: (*handler).updateEntity},
	{Name: "InsertOrMergeEntity", On: at(resEntity), Method: merge, Comp: anyComp, Authorize: allowAll(writeNeeds(WriteInsertOrMerge)...), Run: (*handler).updateEntity},
	{Name: "DeleteEntity", On: at(resEntity), Method: httpDelete, Comp: anyComp, Authorize: allowAll(writeNeeds(WriteDelete)...), Run: (*handler).deleteEntity},
}

// Operations lists the operations the Table service routes, by Azure's
// names, in the routing table's order.
func Operations() []string { return storagefront.Names(routes) }
