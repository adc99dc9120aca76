package testkit

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// Golden compares got with the file at path. With update set it rewrites
// the file instead, creating its directory if needed; the test package
// owns the flag (conventionally -update) so that several packages with
// golden files can each keep theirs. On a mismatch the test fails with the
// first differing line and a hint to rerun with -update.
func Golden(t testing.TB, path string, got []byte, update bool) {
	t.Helper()
	if update {
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatalf("golden %s: %v", path, err)
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatalf("golden %s: %v", path, err)
		}
		return
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("golden %s: %v (run the test with -update to create it)", path, err)
	}
	if bytes.Equal(got, want) {
		return
	}
	gl, wl := strings.Split(string(got), "\n"), strings.Split(string(want), "\n")
	line := 0
	for line < len(gl) && line < len(wl) && gl[line] == wl[line] {
		line++
	}
	at := func(ls []string) string {
		if line < len(ls) {
			return ls[line]
		}
		return "<end of file>"
	}
	t.Errorf("golden %s differs at line %d (rerun with -update if the change is intended):\n got: %s\nwant: %s\n--- got in full:\n%s",
		path, line+1, at(gl), at(wl), got)
}
