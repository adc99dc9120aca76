package console_test

import (
	"crypto/x509"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cerulean-db/cerulean/internal/console"
	"github.com/cerulean-db/cerulean/internal/cosmos"
	"github.com/cerulean-db/cerulean/internal/servertest"
	"github.com/cerulean-db/cerulean/internal/testkit"
)

// TestProxyTrustsRootCAs: Cosmos DB and Search over HTTPS with the
// server's own certificate are reached when RootCAs holds it, and are an
// unreachable service (502) when only the system's roots are trusted.
func TestProxyTrustsRootCAs(t *testing.T) {
	dir := t.TempDir()
	env := servertest.Start(t, servertest.WithDataDir(dir), servertest.WithCosmosTLS(), servertest.WithSearchTLS())
	pool := testkit.CertPool(t, filepath.Join(dir, cosmos.CertFile))
	for _, tc := range []struct {
		roots *x509.CertPool
		want  int
	}{{pool, http.StatusOK}, {nil, http.StatusBadGateway}} {
		h, err := console.New(console.Config{CosmosURL: env.CosmosURL, CosmosKey: env.CosmosKey, SearchURL: env.SearchURL, SearchAdminKey: env.SearchAdminKey, RootCAs: tc.roots})
		if err != nil {
			t.Fatal(err)
		}
		site := httptest.NewServer(h)
		for _, path := range []string{"/console/api/cosmos/dbs", "/console/api/search/indexes?api-version=2024-07-01"} {
			resp, body := consoleCall(t, site, "GET", path, nil, "")
			if resp.StatusCode != tc.want || (tc.want == http.StatusBadGateway && !strings.Contains(body, "ServiceUnreachable")) {
				t.Errorf("GET %s trusting the server's certificate %v: got %d %.200s, want %d", path, tc.roots != nil, resp.StatusCode, body, tc.want)
			}
		}
		site.Close()
	}
}
