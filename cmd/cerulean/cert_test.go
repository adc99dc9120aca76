package main

import (
	"io"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// certLines runs connection-strings with args and returns its output.
func certLines(t *testing.T, args ...string) string {
	t.Helper()
	var out strings.Builder
	if err := run(append([]string{"connection-strings"}, args...), envOf(nil), &out, io.Discard); err != nil {
		t.Fatal(err)
	}
	return out.String()
}

// TestConnectionStringsNameTheCertificate: connection-strings gives the
// generated certificate's absolute path, ready for Node, and the Python
// and Go variables as comments (they replace the system bundle); with
// nothing served over the generated certificate it names none.
func TestConnectionStringsNameTheCertificate(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	want := filepath.Join(dir, "rel-data", "cosmos-cert.pem")
	out := certLines(t, "--data", "rel-data")
	for _, line := range []string{"export CERULEAN_CERT_FILE='" + want + "'", "export NODE_EXTRA_CA_CERTS='" + want + "'",
		"# Python (requests / azure-core): export REQUESTS_CA_BUNDLE='" + want + "'", "# Go: export SSL_CERT_FILE='" + want + "'"} {
		if !strings.Contains(out, line) {
			t.Errorf("output lacks %q:\n%s", line, out)
		}
	}
	if out := certLines(t, "--data", "rel-data", "--cosmos-http"); strings.Contains(out, "CERT") {
		t.Errorf("nothing over HTTPS, yet a certificate:\n%s", out)
	}
	cache := t.TempDir()
	t.Setenv("XDG_CACHE_HOME", cache)
	if out := certLines(t, "--in-memory"); !strings.Contains(out, "export CERULEAN_CERT_FILE='"+filepath.Join(cache, "cerulean", "cosmos-cert.pem")+"'") {
		t.Errorf("--in-memory: certificate not in the cache directory:\n%s", out)
	}
}

// TestInMemoryCertificateIsAFile: an in-memory server writes its
// certificate where connection-strings says, logs that absolute path with
// the variables to set, and serves the same certificate from the admin
// endpoint.
func TestInMemoryCertificateIsAFile(t *testing.T) {
	var log syncBuffer
	sigs := make(chan os.Signal, 2)
	done := serving(t, &log, sigs)
	defer func() {
		sigs <- os.Interrupt
		if err := <-done; err != nil {
			t.Error(err)
		}
	}()
	want := filepath.Join(os.Getenv("XDG_CACHE_HOME"), "cerulean", "cosmos-cert.pem")
	m := log.waitFor(t, regexp.MustCompile(`msg="TLS certificate[^"]*" path=(\S+) NODE_EXTRA_CA_CERTS=(\S+) REQUESTS_CA_BUNDLE=\S+ SSL_CERT_FILE=\S+`))
	if m[1] != want || m[2] != want {
		t.Errorf("logged %q, want %q", m[0], want)
	}
	if out := certLines(t, "--in-memory"); !strings.Contains(out, want) {
		t.Errorf("connection-strings names another file:\n%s", out)
	}
	file, err := os.ReadFile(want)
	if err != nil {
		t.Fatal(err)
	}
	admin := log.waitFor(t, regexp.MustCompile(`admin endpoint listening[^\n]* addr=(\S+)`))[1]
	resp, err := http.Get(strings.TrimSuffix(admin, "/") + "/certificate.pem")
	if err != nil {
		t.Fatal(err)
	}
	served, err := io.ReadAll(resp.Body)
	_ = resp.Body.Close()
	if err != nil || resp.StatusCode != http.StatusOK || string(served) != string(file) {
		t.Errorf("/certificate.pem: %d %q, want the file's %q", resp.StatusCode, served, file)
	}
}
