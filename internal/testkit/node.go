package testkit

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"
)

// NodeTests runs every *.test.mjs file of the test's package directory
// under `node --test`, with the environment variables start returns
// added, and fails the test when any of them fails. It skips, before
// start runs, when node is not installed or node_modules lacks pkg (the
// npm package the files drive, installed from the committed lock file by
// `make jsdeps`).
func NodeTests(t *testing.T, pkg string, start func() []string) {
	t.Helper()
	node, err := exec.LookPath("node")
	if err != nil {
		t.Skip("node is not installed")
	}
	if _, err := os.Stat(filepath.Join("node_modules", pkg)); err != nil {
		t.Skipf("node_modules lacks %s: run `npm ci` here (make jsdeps does)", pkg)
	}
	files, err := filepath.Glob("*.test.mjs")
	if err != nil || len(files) == 0 {
		t.Fatalf("no *.test.mjs files found (%v)", err)
	}
	env := start()
	// A guard against a hung run, not a measure: a loaded machine running
	// the server under the race detector takes several minutes.
	ctx, cancel := context.WithTimeout(context.Background(), 12*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, node, append([]string{"--test", "--test-reporter=spec"}, files...)...)
	cmd.Env = append(os.Environ(), env...)
	out, err := cmd.CombinedOutput()
	t.Logf("node --test:\n%s", out)
	if err != nil {
		t.Fatalf("JavaScript SDK tests failed: %v", err)
	}
}
