// Package queuejs runs the @azure/storage-queue end-to-end tests in this
// folder against a cerulean server started here: message text as the
// JavaScript SDK sends and reads it. The SDK is installed from the
// committed lock file with `npm ci` (make jsdeps does it); without node or
// node_modules the test is skipped. Every *.test.mjs file here is run.
package queuejs

import (
	"testing"

	"github.com/cerulean-db/cerulean/internal/servertest"
	"github.com/cerulean-db/cerulean/internal/testkit"
)

func TestJavaScriptSDK(t *testing.T) {
	testkit.NodeTests(t, "@azure/storage-queue", func() []string {
		env := servertest.Start(t, servertest.WithDataDir(t.TempDir()))
		return []string{"CERULEAN_CONNECTION_STRING=" + env.ConnectionString}
	})
}
