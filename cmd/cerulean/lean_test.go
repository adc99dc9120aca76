package main

import (
	"errors"
	"io"
	"os/exec"
	"strings"
	"testing"
)

// TestServerLinksNoAzureSDK: the server binary serves Azure's protocols
// without linking Azure's SDKs; the load generator that drives them is
// cmd/cerulean-bench.
func TestServerLinksNoAzureSDK(t *testing.T) {
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Skip("go is not on PATH: cannot list the server's dependencies")
	}
	out, err := exec.Command(goTool, "list", "-deps", ".").Output()
	if err != nil {
		var exit *exec.ExitError
		if errors.As(err, &exit) {
			t.Fatalf("go list -deps: %v\n%s", err, exit.Stderr)
		}
		t.Fatalf("go list -deps: %v", err)
	}
	deps := strings.Fields(string(out))
	if len(deps) < 100 || deps[len(deps)-1] != "github.com/cerulean-db/cerulean/cmd/cerulean" {
		t.Fatalf("go list -deps listed %d packages ending in %q: not the server's dependencies", len(deps), deps[len(deps)-1])
	}
	for _, p := range deps {
		if strings.HasPrefix(p, "github.com/Azure/azure-sdk-for-go") {
			t.Errorf("the server links %s", p)
		}
	}
}

// TestBenchPointsToItsBinary: "cerulean bench" fails, naming the binary
// that took it over.
func TestBenchPointsToItsBinary(t *testing.T) {
	err := run([]string{"bench", "-d", "5s", "all"}, envOf(nil), io.Discard, io.Discard)
	if err == nil || !strings.Contains(err.Error(), "cerulean-bench") {
		t.Fatalf("cerulean bench: %v, want an error naming cerulean-bench", err)
	}
}
