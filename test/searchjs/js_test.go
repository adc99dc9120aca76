// Package searchjs runs the @azure/search-documents conformance tests in
// this folder against a cerulean server started here. The SDK is
// installed from the committed lock file with `npm ci` (make test does
// it); without node or node_modules the test is skipped. Every *.test.mjs
// file here is run.
package searchjs

import (
	"testing"

	"github.com/cerulean-db/cerulean/internal/servertest"
	"github.com/cerulean-db/cerulean/internal/testkit"
)

func TestJavaScriptSDK(t *testing.T) {
	testkit.NodeTests(t, "@azure/search-documents", func() []string {
		env := servertest.Start(t, servertest.WithDataDir(t.TempDir()))
		return []string{"CERULEAN_SEARCH_ENDPOINT=" + env.SearchURL,
			"CERULEAN_SEARCH_ADMIN_KEY=" + env.SearchAdminKey, "CERULEAN_SEARCH_QUERY_KEY=" + env.SearchQueryKey,
			"CERULEAN_BLOB_CONNECTION_STRING=" + env.ConnectionString,
			// Cosmos DB over plain HTTP: the JavaScript SDK writes source
			// items there, and a cosmosdb data source's connection string
			// names the same endpoint and key.
			"CERULEAN_COSMOS_ENDPOINT=" + env.CosmosURL, "CERULEAN_COSMOS_KEY=" + env.CosmosKey}
	})
}
