package docs

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cerulean-db/cerulean/ceruleantest"
)

// snippet is a fenced block of the README: its info string and text.
type snippet struct {
	lang, text string
	line       int
}

func readmeSnippets(t *testing.T) []snippet {
	t.Helper()
	f, err := os.Open("../README.md")
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = f.Close() }() // read only
	var out []snippet
	var cur *snippet
	var buf strings.Builder
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		switch {
		case cur == nil && strings.HasPrefix(line, "```"):
			cur = &snippet{lang: strings.TrimPrefix(line, "```"), line: n}
			buf.Reset()
		case cur != nil && line == "```":
			cur.text = buf.String()
			out = append(out, *cur)
			cur = nil
		case cur != nil:
			buf.WriteString(line + "\n")
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// goPackage is the package a Go snippet declares ("" for a fragment).
func goPackage(text string) string {
	for _, l := range strings.Split(text, "\n") {
		if name, ok := strings.CutPrefix(l, "package "); ok {
			return strings.TrimSpace(name)
		}
	}
	return ""
}

// TestReadmeSnippets: the README's complete Go programs build and, run
// against a server with the environment the README tells users to set,
// do what they say (the hello program prints "hello"); its Go test files
// compile (go vet); its shell snippets parse.
func TestReadmeSnippets(t *testing.T) {
	if testing.Short() {
		t.Skip("builds programs with the go command")
	}
	goTool, err := exec.LookPath("go")
	if err != nil {
		t.Fatalf("the go command: %v", err)
	}
	var programs, testFiles, shells int
	for _, s := range readmeSnippets(t) {
		name := fmt.Sprintf("README.md:%d", s.line)
		switch s.lang {
		case "sh":
			shells++
			if out, err := exec.Command("bash", "-n", "-c", s.text).CombinedOutput(); err != nil {
				t.Errorf("%s: the shell snippet does not parse: %v\n%s", name, err, out)
			}
		case "go":
			pkg := goPackage(s.text)
			switch {
			case pkg == "main":
				programs++
				runProgram(t, goTool, name, s.text)
			case strings.HasSuffix(pkg, "_test"):
				testFiles++
				vetTestFile(t, goTool, name, s.text)
			}
		}
	}
	if programs == 0 || testFiles == 0 || shells == 0 {
		t.Fatalf("found %d Go programs, %d Go test files and %d shell snippets in the README; the checks need at least one of each", programs, testFiles, shells)
	}
}

// snippetDir makes a directory inside this module (so the snippet builds
// with the module's pinned dependencies), named with a leading underscore
// so that ./... never matches it.
func snippetDir(t *testing.T) string {
	t.Helper()
	dir, err := os.MkdirTemp(".", "_readme")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = os.RemoveAll(dir) })
	return dir
}

func runProgram(t *testing.T, goTool, name, text string) {
	dir := snippetDir(t)
	if err := os.WriteFile(filepath.Join(dir, "main.go"), []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(t.TempDir(), "hello")
	if out, err := exec.Command(goTool, "build", "-o", bin, "./"+dir).CombinedOutput(); err != nil {
		t.Fatalf("%s: the program does not build: %v\n%s", name, err, out)
	}
	srv := ceruleantest.Start(t)
	cmd := exec.Command(bin)
	cmd.Env = append(os.Environ(), "AZURE_STORAGE_CONNECTION_STRING="+srv.ConnectionString)
	out, err := cmd.CombinedOutput()
	if err != nil || !bytes.Equal(bytes.TrimSpace(out), []byte("hello")) {
		t.Fatalf("%s: the program printed %q (%v), want hello", name, out, err)
	}
}

func vetTestFile(t *testing.T, goTool, name, text string) {
	dir := snippetDir(t)
	if err := os.WriteFile(filepath.Join(dir, "snippet_test.go"), []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	if out, err := exec.Command(goTool, "vet", "./"+dir).CombinedOutput(); err != nil {
		t.Fatalf("%s: the test file does not compile: %v\n%s", name, err, out)
	}
}
