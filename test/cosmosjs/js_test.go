// Package cosmosjs runs the @azure/cosmos conformance tests in this folder
// against a cerulean server started here. The SDK is installed from the
// committed lock file with `npm ci` (make test does it); without node or
// node_modules the test is skipped. Every *.test.mjs file here is run.
package cosmosjs

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/cerulean-db/cerulean/internal/cosmos"
	"github.com/cerulean-db/cerulean/internal/servertest"
)

func TestJavaScriptSDK(t *testing.T) {
	node, err := exec.LookPath("node")
	if err != nil {
		t.Skip("node is not installed")
	}
	if _, err := os.Stat("node_modules/@azure/cosmos"); err != nil {
		t.Skip("node_modules missing: run `npm ci` in test/cosmosjs (make test does)")
	}
	// HTTPS with the certificate the server generated, trusted the way a
	// user trusts it: as an extra CA for node.
	dir := t.TempDir()
	env := servertest.Start(t, servertest.WithDataDir(dir), servertest.WithCosmosTLS())
	files, err := filepath.Glob("*.test.mjs")
	if err != nil || len(files) == 0 {
		t.Fatalf("no *.test.mjs files found (%v)", err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, node, append([]string{"--test", "--test-reporter=spec"}, files...)...)
	cmd.Env = append(os.Environ(), "CERULEAN_COSMOS_ENDPOINT="+env.CosmosURL, "CERULEAN_COSMOS_KEY="+env.CosmosKey,
		"NODE_EXTRA_CA_CERTS="+filepath.Join(dir, cosmos.CertFile))
	out, err := cmd.CombinedOutput()
	t.Logf("node --test:\n%s", out)
	if err != nil {
		t.Fatalf("JavaScript SDK tests failed: %v", err)
	}
}
