package server_test

import (
	"crypto/tls"
	"net/http"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cerulean-db/cerulean/internal/cosmos"
	"github.com/cerulean-db/cerulean/internal/servertest"
	"github.com/cerulean-db/cerulean/internal/testkit"
)

// TestSearchOverHTTPS: with --search-https the Search service answers
// over TLS with the certificate the Cosmos gateway uses (one file in the
// data directory, trusted once for both), and plain HTTP is not served.
func TestSearchOverHTTPS(t *testing.T) {
	dir := t.TempDir()
	env := servertest.Start(t, servertest.WithDataDir(dir), servertest.WithSearchTLS(), servertest.WithCosmosTLS())
	if !strings.HasPrefix(env.SearchURL, "https://") || !strings.HasPrefix(env.CosmosURL, "https://") {
		t.Fatalf("endpoints %s and %s, want https", env.SearchURL, env.CosmosURL)
	}
	pool := testkit.CertPool(t, filepath.Join(dir, cosmos.CertFile))
	client := &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool, MinVersion: tls.VersionTLS12}}}
	get := func(c *http.Client, url string) (*http.Response, error) {
		req, err := http.NewRequest(http.MethodGet, url, nil)
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("api-key", env.SearchAdminKey)
		return c.Do(req)
	}
	for _, url := range []string{env.SearchURL + "/servicestats?api-version=2024-07-01", env.CosmosURL} {
		resp, err := get(client, url)
		if err != nil {
			t.Fatalf("%s with the shared certificate trusted: %v", url, err)
		}
		_ = resp.Body.Close()
		if url != env.CosmosURL && resp.StatusCode != http.StatusOK {
			t.Errorf("%s: %d", url, resp.StatusCode)
		}
	}
	if resp, err := get(http.DefaultClient, "http://"+strings.TrimPrefix(env.SearchURL, "https://")+"/servicestats?api-version=2024-07-01"); err == nil {
		_ = resp.Body.Close()
		if resp.StatusCode < 400 {
			t.Errorf("plain HTTP answered %d on the HTTPS port", resp.StatusCode)
		}
	}
}
