// Package tablejs runs the @azure/data-tables end-to-end tests in this
// folder against a cerulean server started here: entities as the
// JavaScript SDK types, writes and reads them, its OData queries and
// transactions. The SDK is installed from the committed lock file with
// `npm ci` (make jsdeps does it); without node or node_modules the test is
// skipped. Every *.test.mjs file here is run.
package tablejs

import (
	"testing"

	"github.com/cerulean-db/cerulean/internal/servertest"
	"github.com/cerulean-db/cerulean/internal/testkit"
)

func TestJavaScriptSDK(t *testing.T) {
	testkit.NodeTests(t, "@azure/data-tables", func() []string {
		env := servertest.Start(t, servertest.WithDataDir(t.TempDir()))
		return []string{"CERULEAN_CONNECTION_STRING=" + env.ConnectionString}
	})
}
