package search

import (
	"context"
	"net/http/httptest"
	"slices"
	"sync"
	"testing"
)

// startRecorder is an IndexerRunner that records which indexers were
// started.
type startRecorder struct {
	mu      sync.Mutex
	started []string
}

func (r *startRecorder) Start(_ context.Context, name string) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.started = append(r.started, name)
	return nil
}
func (r *startRecorder) Reset(context.Context, string) error         { return nil }
func (r *startRecorder) Status(context.Context, string) (any, error) { return map[string]any{}, nil }
func (r *startRecorder) CheckDataSource(*DataSource) error           { return nil }

// TestCreatedIndexerStarts: Azure runs an indexer when it is created,
// whether by POST (the name in the body only, as the SDKs send it) or by
// PUT, but not when it is updated or created disabled.
func TestCreatedIndexerStarts(t *testing.T) {
	svc := newService(t)
	rec := &startRecorder{}
	svc.UseIndexers(rec)
	srv := httptest.NewServer(NewHandler(svc))
	t.Cleanup(srv.Close)
	w := &wire{t: t, srv: srv}
	w.call("PUT", "/indexes('hotels')"+v, smallIndex, nil)
	w.call("PUT", "/datasources('ds')"+v, `{"name":"ds","type":"azureblob","credentials":{"connectionString":"UseDevelopmentStorage=true"},"container":{"name":"c"}}`, nil)
	for _, c := range []struct{ method, path, body string }{
		{"POST", "/indexers", `{"name":"posted","dataSourceName":"ds","targetIndexName":"hotels"}`},
		{"PUT", "/indexers('put')", `{"name":"put","dataSourceName":"ds","targetIndexName":"hotels"}`},
		{"PUT", "/indexers('put')", `{"name":"put","dataSourceName":"ds","targetIndexName":"hotels","description":"updated"}`},
		{"POST", "/indexers", `{"name":"off","dataSourceName":"ds","targetIndexName":"hotels","disabled":true}`},
	} {
		if resp, body := w.call(c.method, c.path+v, c.body, nil); resp.StatusCode >= 300 {
			t.Fatalf("%s %s: %d %v", c.method, c.path, resp.StatusCode, body)
		}
	}
	if want := []string{"posted", "put"}; !slices.Equal(rec.started, want) {
		t.Errorf("started %q, want %q", rec.started, want)
	}
}
