package bench_test

import (
	"context"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/cerulean-db/cerulean/internal/bench"
)

// TestStorageWorkloadsAgainstNullServer runs every storage workload
// briefly against the null server: each must get answers its SDK accepts
// (zero errors, its own verification passing), so that every storage
// workload has a ceiling. No timing is asserted.
func TestStorageWorkloadsAgainstNullServer(t *testing.T) {
	srv := httptest.NewServer(bench.NullHandler())
	t.Cleanup(srv.Close)
	acct := srv.URL + "/devstoreaccount1"
	conn := "DefaultEndpointsProtocol=http;AccountName=devstoreaccount1;" +
		"AccountKey=Eby8vdM02xNOcqFlqUwJPLlmEtlCDXJ1OUzFT50uSRZ6IFsuFq2UVErCz4I6tq/K1SZFPTOtr/KBHBeksoGMGw==;" +
		"BlobEndpoint=" + acct + ";QueueEndpoint=" + acct + ";TableEndpoint=" + acct + ";"
	for _, name := range bench.Names() {
		if strings.HasPrefix(name, "cosmos-") {
			continue // the null server speaks the storage protocols only
		}
		t.Run(name, func(t *testing.T) {
			cfg := bench.Config{ConnectionString: conn, Concurrency: 4, Ops: 20}
			w, err := bench.New(name)
			if err != nil {
				t.Fatal(err)
			}
			switch {
			case name == "blob-list":
				w = bench.NewBlobList(120)
			case strings.HasSuffix(name, "-8m"):
				cfg.Ops = 4
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
