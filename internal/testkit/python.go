package testkit

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"
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

// PythonScript runs the script testdata/name with py and the environment
// variables env (beside the process's own), for at most three minutes,
// and logs what it printed. The script asserts itself: it prints "ok
// <step>" after each step and "PASS" at the end, and exits non-zero on
// the first failure, which fails the test. Each of steps must begin a
// line the script printed (the line may go on with details, as Cosmos's
// "ok query 25 items at 4 a page in 7 pages" does), and "PASS" come last.
func PythonScript(t *testing.T, py, name string, env []string, steps ...string) {
	t.Helper()
	script, err := filepath.Abs(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, py, script)
	cmd.Env = append(append(os.Environ(), "PYTHONDONTWRITEBYTECODE=1"), env...)
	out, err := cmd.CombinedOutput()
	t.Logf("python3 %s:\n%s", name, out)
	if err != nil {
		t.Fatalf("python3 %s failed: %v", name, err)
	}
	lines := strings.Split(string(out), "\n")
	for _, step := range steps {
		if !slices.ContainsFunc(lines, func(l string) bool {
			l = strings.TrimSpace(l)
			return l == step || strings.HasPrefix(l, step+" ")
		}) {
			t.Errorf("python3 %s did not print %q", name, step)
		}
	}
	if !strings.HasSuffix(strings.TrimSpace(string(out)), "PASS") {
		t.Errorf("python3 %s did not finish with PASS", name)
	}
}
