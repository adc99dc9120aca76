// Package searchjs runs the @azure/search-documents conformance tests in
// this folder against a cerulean server started here. The SDK is
// installed from the committed lock file with `npm ci` (make test does
// it); without node or node_modules the test is skipped. Every *.test.mjs
// file here is run.
package searchjs

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/cerulean-db/cerulean/internal/servertest"
)

func TestJavaScriptSDK(t *testing.T) {
	node, err := exec.LookPath("node")
	if err != nil {
		t.Skip("node is not installed")
	}
	if _, err := os.Stat("node_modules/@azure/search-documents"); err != nil {
		t.Skip("node_modules missing: run `npm ci` in test/searchjs (make test does)")
	}
	env := servertest.Start(t, servertest.WithDataDir(t.TempDir()))
	files, err := filepath.Glob("*.test.mjs")
	if err != nil || len(files) == 0 {
		t.Fatalf("no *.test.mjs files found (%v)", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, node, append([]string{"--test", "--test-reporter=spec"}, files...)...)
	cmd.Env = append(os.Environ(), "CERULEAN_SEARCH_ENDPOINT="+env.SearchURL,
		"CERULEAN_SEARCH_ADMIN_KEY="+env.SearchAdminKey, "CERULEAN_SEARCH_QUERY_KEY="+env.SearchQueryKey,
		"CERULEAN_BLOB_CONNECTION_STRING="+env.ConnectionString)
	out, err := cmd.CombinedOutput()
	t.Logf("node --test:\n%s", out)
	if err != nil {
		t.Fatalf("JavaScript SDK tests failed: %v", err)
	}
}
