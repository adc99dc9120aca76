package testkit

import (
	"os"
	"os/exec"
	"strings"
	"testing"
)

// Python returns a python3 that can import module (an Azure SDK that
// `make debtools` installs from Debian). Debian's packages install for
// Debian's python3, which need not be the first python3 on PATH (pyenv,
// virtualenvs), so /usr/bin/python3 is tried too. Without one the test
// skips, or fails when CI is set: there the Makefile installs it.
func Python(t *testing.T, module, sdk string) string {
	t.Helper()
	candidates := []string{"/usr/bin/python3"}
	if p, err := exec.LookPath("python3"); err == nil {
		candidates = append([]string{p}, candidates...)
	}
	why := "python3 is not installed"
	for _, py := range candidates {
		out, err := exec.Command(py, "-c", "import "+module).CombinedOutput()
		if err == nil {
			return py
		}
		if _, statErr := os.Stat(py); statErr == nil {
			why = "the " + sdk + " Python SDK is not installed: " + strings.TrimSpace(string(out))
		}
	}
	if os.Getenv("CI") != "" {
		t.Fatalf("%s, and CI is set (make debtools installs it)", why)
	}
	t.Skipf("%s (make debtools installs it)", why)
	return ""
}
