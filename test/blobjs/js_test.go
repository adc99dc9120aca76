// Package blobjs runs the @azure/storage-blob end-to-end tests in this
// folder against a cerulean server started here, for the areas where the
// JavaScript SDK builds or reads requests differently from the Go one
// (batch bodies, tag filters, seal, transactional checksums, SAS
// overrides). The SDK is installed from the committed lock file with
// `npm ci` (make jsdeps does it); without node or node_modules the test is
// skipped. Every *.test.mjs file here is run.
package blobjs

import (
	"context"
	"testing"

	blobstore "github.com/cerulean-db/cerulean/internal/blob"
	"github.com/cerulean-db/cerulean/internal/servertest"
	"github.com/cerulean-db/cerulean/internal/testkit"
)

func TestJavaScriptSDK(t *testing.T) {
	var env *servertest.Env
	testkit.NodeTests(t, "@azure/storage-blob", func() []string {
		env = servertest.Start(t, servertest.WithDataDir(t.TempDir()))
		return []string{"CERULEAN_CONNECTION_STRING=" + env.ConnectionString}
	})
	// What the SDK left behind must be a consistent layout.
	if err := blobstore.CheckInvariants(context.Background(), env.Store); err != nil {
		t.Fatal(err)
	}
}
