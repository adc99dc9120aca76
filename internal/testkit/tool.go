package testkit

import (
	"os"
	"os/exec"
	"testing"
)

// Tool returns the path of the program name, which `make debtools`
// installs from Debian's package pkg. Without it the test skips, or fails
// when CI is set: there the Makefile installs it, and a skip would hide
// that the test never ran.
func Tool(t *testing.T, name, pkg string) string {
	t.Helper()
	p, err := exec.LookPath(name)
	if err == nil {
		return p
	}
	if os.Getenv("CI") != "" {
		t.Fatalf("%s is not installed, and CI is set (make debtools installs %s)", name, pkg)
	}
	t.Skipf("%s is not installed (make debtools installs %s)", name, pkg)
	return ""
}
