package bench

import (
	"context"
	"encoding/json"
	"net/http"
	"strings"
	"testing"

	"github.com/cerulean-db/cerulean/internal/servertest"
)

// TestSearchQueryRefusesWrongCounts: search-query's answers are checked
// against the documents it uploaded, so an index holding one document
// more — a match for every word, above every bound — fails every query
// instead of being measured as a fast one.
func TestSearchQueryRefusesWrongCounts(t *testing.T) {
	env := servertest.Start(t)
	ctx := context.Background()
	cfg := Config{SearchConnection: "Endpoint=" + env.SearchURL + ";Key=" + env.SearchAdminKey}
	w := NewSearchQuery(1_200).(*searchQuery)
	c, err := NewClients(cfg, w)
	if err != nil {
		t.Fatal(err)
	}
	if err := w.Setup(ctx, c); err != nil {
		t.Fatal(err)
	}
	for i := range 20 {
		if _, err := w.Op(ctx, i); err != nil {
			t.Fatalf("query %d on the uploaded documents: %v", i, err)
		}
	}
	extra, err := json.Marshal(map[string]any{"value": []map[string]any{{
		"@search.action": "upload", "id": "extra", "n": 1 << 30, "body": strings.Join(searchVocabulary, " "),
	}}})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := w.c.do(ctx, http.MethodPost, "/indexes/"+w.index+"/docs/index", nil, extra, http.StatusOK); err != nil {
		t.Fatal(err)
	}
	w.docs++ // the count to wait for; the checks still know only the uploads
	if err := w.awaitCount(ctx); err != nil {
		t.Fatal(err)
	}
	for i := range 5 {
		if _, err := w.Op(ctx, i); err == nil || !strings.Contains(err.Error(), "count") {
			t.Fatalf("query %d with a document the workload did not upload: error %v, want a wrong count", i, err)
		}
	}
	// An answer that is not 200 is counted under its status.
	w.index = "absent"
	if _, err := w.Op(ctx, 0); statusOf(err) != "404" {
		t.Fatalf("query on a missing index: error %v counted as %q, want 404", err, statusOf(err))
	}
}

func TestSearchConnection(t *testing.T) {
	c, err := newSearchClient(DevSearchConnection)
	if err != nil || c.endpoint != "http://127.0.0.1:8082" || c.key != "cerulean-search-admin-key" {
		t.Fatalf("DevSearchConnection = %+v, %v", c, err)
	}
	for _, bad := range []string{"", "Endpoint=http://127.0.0.1:8082", "Key=k", "Endpoint=ftp://h;Key=k", "Endpoint=127.0.0.1:8082;Key=k"} {
		if _, err := newSearchClient(bad); err == nil {
			t.Errorf("newSearchClient(%q) accepted it", bad)
		}
	}
}
