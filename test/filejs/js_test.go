// Package filejs runs the @azure/storage-file-share end-to-end tests in
// this folder against a cerulean server started here. The SDK is installed
// from the committed lock file with `npm ci` (make jsdeps does it); without
// node or node_modules the test is skipped. Every *.test.mjs file here is
// run.
package filejs

import (
	"context"
	"testing"

	filestore "github.com/cerulean-db/cerulean/internal/file"
	"github.com/cerulean-db/cerulean/internal/servertest"
	"github.com/cerulean-db/cerulean/internal/testkit"
)

func TestJavaScriptSDK(t *testing.T) {
	var env *servertest.Env
	testkit.NodeTests(t, "@azure/storage-file-share", func() []string {
		env = servertest.Start(t, servertest.WithDataDir(t.TempDir()), servertest.WithShareRetention(7))
		return []string{"CERULEAN_CONNECTION_STRING=" + env.ConnectionString}
	})
	// What the SDK left behind must be a consistent layout.
	if err := filestore.CheckInvariants(context.Background(), env.Store); err != nil {
		t.Fatal(err)
	}
}
