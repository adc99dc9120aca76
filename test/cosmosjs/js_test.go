// Package cosmosjs runs the @azure/cosmos conformance tests in this folder
// against a cerulean server started here. The SDK is installed from the
// committed lock file with `npm ci` (make test does it); without node or
// node_modules the test is skipped. Every *.test.mjs file here is run.
package cosmosjs

import (
	"path/filepath"
	"testing"

	"github.com/cerulean-db/cerulean/internal/cosmos"
	"github.com/cerulean-db/cerulean/internal/servertest"
	"github.com/cerulean-db/cerulean/internal/testkit"
)

func TestJavaScriptSDK(t *testing.T) {
	testkit.NodeTests(t, "@azure/cosmos", func() []string {
		// HTTPS with the certificate the server generated, trusted the
		// way a user trusts it: as an extra CA for node.
		dir := t.TempDir()
		env := servertest.Start(t, servertest.WithDataDir(dir), servertest.WithCosmosTLS())
		return []string{"CERULEAN_COSMOS_ENDPOINT=" + env.CosmosURL, "CERULEAN_COSMOS_KEY=" + env.CosmosKey,
			"NODE_EXTRA_CA_CERTS=" + filepath.Join(dir, cosmos.CertFile)}
	})
}
