package metrics

import (
	"net/http"
	"net/http/httptest"
	"testing"

	"github.com/cerulean-db/cerulean/internal/azhttp"
)

// BenchmarkInstrument measures what counting and timing adds to a request
// whose handler names its operation, against the bare handler.
func BenchmarkInstrument(b *testing.B) {
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_ = azhttp.Routed(w, r, "GetBlob")
		w.WriteHeader(http.StatusOK)
	})
	r := httptest.NewRequest(http.MethodGet, "/devstoreaccount1/c/b", nil)
	for _, tc := range []struct {
		name string
		h    http.Handler
	}{{"bare", h}, {"instrumented", New().Instrument("blob", nil, h)}} {
		b.Run(tc.name, func(b *testing.B) {
			w := httptest.NewRecorder()
			b.ReportAllocs()
			for b.Loop() {
				tc.h.ServeHTTP(w, r)
			}
		})
	}
}
