package smbclient_test

import (
	"context"
	"os"
	"os/exec"
	"testing"
	"time"
)

// TestSmbtortureExplore runs one smbtorture suite named by
// CERULEAN_SMBTORTURE and prints its output (a tool for recording
// results, not a check).
func TestSmbtortureExplore(t *testing.T) {
	suite := os.Getenv("CERULEAN_SMBTORTURE")
	if suite == "" {
		t.Skip("set CERULEAN_SMBTORTURE to a suite")
	}
	f := newFixture(t)
	ctx, cancel := context.WithTimeout(t.Context(), 5*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, "smbtorture", "//127.0.0.1/"+f.name, "-p", f.port, "-U", f.env.Account+"%"+f.env.Key, suite)
	out, err := cmd.CombinedOutput()
	t.Logf("%v\n%s", err, out)
}
