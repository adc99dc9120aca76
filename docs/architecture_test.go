// Package docs holds the project's documentation; its test keeps
// architecture.md's lists of packages and test suites true to the tree.
package docs

import (
	"bufio"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
)

// entry is a line of a fenced block in architecture.md that starts with
// a package or suite path.
var entry = regexp.MustCompile(`^(ceruleantest|(?:cmd|internal|test)/[a-z0-9/_-]+)\s`)

// TestArchitectureListsEveryPackageAndSuite: architecture.md names, one
// line each, every package (a directory holding Go files under cmd/,
// internal/ or ceruleantest/) and every test suite (a directory directly
// under test/), and names nothing that no longer exists.
func TestArchitectureListsEveryPackageAndSuite(t *testing.T) {
	documented := documentedPaths(t, "architecture.md")
	onDisk := packagesAndSuites(t, "..")
	for _, p := range onDisk {
		if !documented[p] {
			t.Errorf("%s exists but docs/architecture.md does not describe it", p)
		}
	}
	for p := range documented {
		if !slices.Contains(onDisk, p) {
			t.Errorf("docs/architecture.md describes %s, which is no package or suite on disk", p)
		}
	}
}

// documentedPaths are the paths that start a line inside the document's
// fenced blocks.
func documentedPaths(t *testing.T, doc string) map[string]bool {
	t.Helper()
	f, err := os.Open(doc)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = f.Close() }()
	out := map[string]bool{}
	fenced := false
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := sc.Text()
		if strings.HasPrefix(line, "```") {
			fenced = !fenced
			continue
		}
		if m := entry.FindStringSubmatch(line + " "); fenced && m != nil {
			if out[m[1]] {
				t.Errorf("docs/architecture.md describes %s twice", m[1])
			}
			out[m[1]] = true
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	if len(out) == 0 {
		t.Fatalf("%s lists no package: has its format changed?", doc)
	}
	return out
}

// packagesAndSuites walks the repository at root: the directories holding
// Go files under cmd/, internal/ and ceruleantest/ (testdata excluded, as
// the go tool excludes it), and the directories directly under test/.
func packagesAndSuites(t *testing.T, root string) []string {
	t.Helper()
	var out []string
	for _, top := range []string{"cmd", "internal", "ceruleantest"} {
		err := filepath.WalkDir(filepath.Join(root, top), func(path string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if d.IsDir() && d.Name() == "testdata" {
				return filepath.SkipDir
			}
			if d.IsDir() || filepath.Ext(path) != ".go" {
				return nil
			}
			rel, err := filepath.Rel(root, filepath.Dir(path))
			if err != nil {
				return err
			}
			if rel = filepath.ToSlash(rel); !slices.Contains(out, rel) {
				out = append(out, rel)
			}
			return nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	suites, err := os.ReadDir(filepath.Join(root, "test"))
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range suites {
		if d.IsDir() {
			out = append(out, "test/"+d.Name())
		}
	}
	return out
}
