// Package cosmospy drives cerulean's Cosmos gateway with the legacy Python
// SDK, azure-cosmos 3.1.1 as Debian packages it (python3-azure-cosmos;
// `make debtools` installs it in CI). That SDK reads x-ms-continuation
// case-sensitively, addresses resources by their _self links, keeps
// session tokens per partition key range and runs
// cross-partition ORDER BY and aggregates from the query plan in the
// gateway's 400. The scripts live in testdata and assert themselves: each
// prints "ok <step>" per step and "PASS" at the end, and exits non-zero on
// the first failure. Without python3 or the SDK the test skips, except in
// CI (CI set), where it fails.
package cosmospy

import (
	"testing"

	"github.com/cerulean-db/cerulean/internal/servertest"
	"github.com/cerulean-db/cerulean/internal/testkit"
)

func TestLegacyPythonSDK(t *testing.T) {
	py := testkit.Python(t, "azure.cosmos.cosmos_client", "azure-cosmos")
	env := servertest.Start(t, servertest.WithDataDir(t.TempDir()))
	testkit.PythonScript(t, py, "legacy_sdk.py", []string{
		"CERULEAN_COSMOS_ENDPOINT=" + env.CosmosURL, "CERULEAN_COSMOS_KEY=" + env.CosmosKey,
	},
		"ok create database and container", "ok upsert 25 items", "ok query 25 items at 4 a page",
		"ok read feed 25 items at 4 a page", "ok single-partition query", "ok cross-partition ORDER BY",
		"ok cross-partition aggregates", "ok read by _self link", "ok replace with IfMatch, 412 on a stale etag",
		"ok delete", "ok session tokens kept per range; a token from the future is 404/1002", "ok change feed over", "ok offer read and replace",
		"ok resource token confined to its Read grant", "ok delete container and database",
	)
}
