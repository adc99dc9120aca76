package admin_test

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/cerulean-db/cerulean/internal/admin"
	"github.com/cerulean-db/cerulean/internal/kv/memory"
)

// TestToolsOffSayHowToTurnOn: /faults and /clock on a server started
// without them answer a JSON error naming the flag that turns them on.
func TestToolsOffSayHowToTurnOn(t *testing.T) {
	h := admin.Handler(admin.Config{Store: memory.Open()})
	for path, flag := range map[string]string{"/faults": "--fault-injection", "/clock/advance?by=1s": "--test-clock"} {
		for _, method := range []string{http.MethodGet, http.MethodPut, http.MethodPost} {
			rec := httptest.NewRecorder()
			h.ServeHTTP(rec, httptest.NewRequest(method, path, strings.NewReader("{}")))
			var body struct{ Error string }
			if err := json.Unmarshal(rec.Body.Bytes(), &body); err != nil {
				t.Fatalf("%s %s: %q is not JSON: %v", method, path, rec.Body, err)
			}
			if rec.Code != http.StatusNotFound || rec.Header().Get("Content-Type") != "application/json" || !strings.Contains(body.Error, flag) {
				t.Errorf("%s %s: %d %s %q, want 404 JSON naming %s", method, path, rec.Code, rec.Header().Get("Content-Type"), body.Error, flag)
			}
		}
	}
}
