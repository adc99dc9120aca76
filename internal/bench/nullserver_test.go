package bench_test

import (
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
	var storage []string
	for _, name := range bench.Names() {
		// The null server speaks Blob, Queue and Table only.
		if !strings.HasPrefix(name, "cosmos-") && !strings.HasPrefix(name, "file-") && !strings.HasPrefix(name, "search-") {
			storage = append(storage, name)
		}
	}
	runBriefly(t, bench.Config{ConnectionString: conn, Concurrency: 4, Ops: 20}, 4, storage)
}
