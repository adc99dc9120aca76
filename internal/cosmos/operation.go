package cosmos

import (
	"net/http"
	"strings"
)

// resourceNames are the singular and plural names of the resource types a
// gateway path addresses, by their path segment.
var resourceNames = map[string][2]string{
	"dbs":         {"Database", "Databases"},
	"colls":       {"Collection", "Collections"},
	"docs":        {"Document", "Documents"},
	"sprocs":      {"StoredProcedure", "StoredProcedures"},
	"triggers":    {"Trigger", "Triggers"},
	"udfs":        {"UserDefinedFunction", "UserDefinedFunctions"},
	"users":       {"User", "Users"},
	"permissions": {"Permission", "Permissions"},
	"pkranges":    {"PartitionKeyRange", "PartitionKeyRanges"},
	"offers":      {"Offer", "Offers"},
}

// operationName names the operation a request addressed to segs asks for,
// as the gateway's diagnostics name them: a verb and a resource type
// (CreateDocument, QueryDocuments, ExecuteStoredProcedure, Batch). It
// serves metrics and fault injection; routing itself is route's.
func operationName(r *http.Request, segs []string) string {
	n := len(segs)
	if n == 0 {
		return "ReadDatabaseAccount"
	}
	feed := n%2 == 1
	typ := segs[n-1]
	if !feed {
		typ = segs[n-2]
	}
	names, ok := resourceNames[typ]
	if !ok {
		names = [2]string{"Resource", "Resources"}
	}
	m := r.Method
	if feed {
		switch {
		case m == http.MethodGet && isChangeFeed(r):
			return "ReadChangeFeed"
		case m == http.MethodGet:
			return "List" + names[1]
		case m == http.MethodPost && isQuery(r):
			return "Query" + names[1]
		case m == http.MethodPost && strings.EqualFold(r.Header.Get("X-Ms-Cosmos-Is-Batch-Request"), "true"):
			return "Batch"
		case m == http.MethodPost && strings.EqualFold(r.Header.Get("X-Ms-Documentdb-Is-Upsert"), "true"):
			return "Upsert" + names[0]
		case m == http.MethodPost:
			return "Create" + names[0]
		}
		return methodVerb(m) + names[1]
	}
	switch m {
	case http.MethodGet, http.MethodHead:
		return "Read" + names[0]
	case http.MethodPut:
		return "Replace" + names[0]
	case http.MethodPatch:
		return "Patch" + names[0]
	case http.MethodDelete:
		return "Delete" + names[0]
	case http.MethodPost:
		if typ == "sprocs" {
			return "ExecuteStoredProcedure"
		}
	}
	return methodVerb(m) + names[0]
}

// methodVerb is an HTTP method as the verb of an operation name: "Post".
func methodVerb(m string) string {
	if m == "" {
		return "Get"
	}
	return m[:1] + strings.ToLower(m[1:])
}
