// Package searchpy drives cerulean's AI Search endpoint over HTTPS with the
// Python SDK Debian ships (azure-search-documents 11.4.0b3, in
// python3-azure; `make debtools` installs it in CI), at the api-version it
// sends by default (2021-04-30-Preview), trusting the server's
// certificate through REQUESTS_CA_BUNDLE as the README tells Python users
// to. The script in testdata asserts itself: it prints "ok <step>" per
// step and "PASS" at the end, and exits non-zero on the first failure.
// Without python3 or the SDK the test skips, except in CI (CI set), where
// it fails.
package searchpy

import (
	"encoding/pem"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cerulean-db/cerulean/internal/servertest"
	"github.com/cerulean-db/cerulean/internal/testkit"
)

func TestPythonSearchSDKOverHTTPS(t *testing.T) {
	py := testkit.Python(t, "azure.search.documents", "azure-search-documents")
	env := servertest.Start(t, servertest.WithSearchTLS())
	if !strings.HasPrefix(env.SearchURL, "https://") {
		t.Fatalf("Search is served at %s, want HTTPS", env.SearchURL)
	}
	cert := filepath.Join(t.TempDir(), "cerulean.pem")
	pemBytes := pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: env.Server.HTTPSCertificate().Raw})
	if err := os.WriteFile(cert, pemBytes, 0o600); err != nil {
		t.Fatal(err)
	}
	testkit.PythonScript(t, py, "search_sdk.py", []string{
		"CERULEAN_SEARCH_ENDPOINT=" + env.SearchURL, "CERULEAN_SEARCH_ADMIN_KEY=" + env.SearchAdminKey,
		"REQUESTS_CA_BUNDLE=" + cert,
	},
		"ok create index over https at api-version 2021-04-30-Preview",
		"ok update index under its etag, 412 on a stale one", "ok upload documents",
		"ok search with filter, order, count and facets", "ok lookup and count",
		"ok merge and delete documents", "ok delete index",
	)
}
