package bench_test

import (
	"context"
	"os"
	"strings"
	"testing"

	"github.com/cerulean-db/cerulean/internal/bench"
	"github.com/cerulean-db/cerulean/internal/servertest"
)

// TestWorkloadsAgainstServer runs every workload briefly against a real
// server: each must complete its operations without errors and pass its
// own verification (blob-cond-update: no lost update).
func TestWorkloadsAgainstServer(t *testing.T) {
	// Search over HTTPS, as the SDKs' key credentials insist on it: the
	// bench must trust the server's own certificate on loopback.
	env := servertest.Start(t, servertest.WithSearchTLS())
	// The server runs in this process: -server-pid's path is exercised
	// (its figure includes the clients' CPU).
	cfg := bench.Config{ConnectionString: env.ConnectionString, Concurrency: 4, Ops: 40, ServerPID: os.Getpid(),
		CosmosConnectionString: "AccountEndpoint=" + env.CosmosURL + ";AccountKey=" + env.CosmosKey + ";",
		SearchConnection:       "Endpoint=" + env.SearchURL + ";Key=" + env.SearchAdminKey}
	runBriefly(t, cfg, 6, bench.Names())
}

// runBriefly runs each named workload with cfg (big8m operations for the
// 8 MiB ones, 120 blobs for blob-list, 2,500 documents for search-query:
// three upload batches, the last a partial one): each must complete every
// operation without errors and pass its own verification.
func runBriefly(t *testing.T, cfg bench.Config, big8m int, names []string) {
	t.Helper()
	for _, name := range names {
		t.Run(name, func(t *testing.T) {
			cfg := cfg
			w, err := bench.New(name)
			if err != nil {
				t.Fatal(err)
			}
			switch {
			case name == "blob-list":
				w = bench.NewBlobList(120)
			case name == "search-query":
				w = bench.NewSearchQuery(2_500)
			case strings.HasSuffix(name, "-8m"):
				cfg.Ops = big8m
			}
			res, err := bench.Run(context.Background(), cfg, w)
			if err != nil {
				t.Fatal(err)
			}
			if res.Ops != int64(cfg.Ops) || len(res.Errors) != 0 || res.VerifyError != "" {
				t.Fatalf("%s: %d ops, errors %v, verify %q", name, res.Ops, res.Errors, res.VerifyError)
			}
		})
	}
}
