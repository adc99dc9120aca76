package azhttp

import (
	"bytes"
	"encoding/json"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/cerulean-db/cerulean/internal/azerr"
)

var guidForm = regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$`)

func TestWrap(t *testing.T) {
	var seenID string
	h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		seenID = RequestID(r.Context())
		if r.URL.Path == "/panic" {
			panic("boom")
		}
		_, _ = w.Write([]byte("ok"))
	})
	tests := []struct {
		name       string
		path       string
		header     map[string]string
		wantStatus int
		wantCode   string
		wantVer    string
	}{
		{"defaults", "/", nil, 200, "", DefaultVersion},
		{"version echoed", "/", map[string]string{"x-ms-version": "2021-08-06"}, 200, "", "2021-08-06"},
		{"future version accepted", "/", map[string]string{"x-ms-version": "2031-01-01"}, 200, "", "2031-01-01"},
		{"a SAS's version when none is sent", "/?sv=2018-03-28&sig=x", nil, 200, "", "2018-03-28"},
		{"x-ms-version before a SAS's", "/?sv=2018-03-28&sig=x", map[string]string{"x-ms-version": "2021-08-06"}, 200, "", "2021-08-06"},
		{"far future version refused", "/", map[string]string{"x-ms-version": "2099-11-05"}, 400, "InvalidHeaderValue", DefaultVersion},
		{"too old", "/", map[string]string{"x-ms-version": "2008-01-01"}, 400, "InvalidHeaderValue", DefaultVersion},
		{"malformed", "/", map[string]string{"x-ms-version": "2021-13-45"}, 400, "InvalidHeaderValue", DefaultVersion},
		{"panic", "/panic", map[string]string{"x-ms-client-request-id": "cid-7"}, 500, "InternalError", DefaultVersion},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			var logs bytes.Buffer
			logger := slog.New(slog.NewJSONHandler(&logs, nil))
			r := httptest.NewRequest("GET", tc.path, nil)
			for k, v := range tc.header {
				r.Header.Set(k, v)
			}
			w := httptest.NewRecorder()
			Wrap("blob", logger, nil, WriteError, h).ServeHTTP(w, r)
			id := wireHeader(w).Get("x-ms-request-id")
			if w.Code != tc.wantStatus || wireHeader(w).Get("x-ms-error-code") != tc.wantCode || wireHeader(w).Get("x-ms-version") != tc.wantVer {
				t.Fatalf("status=%d headers=%v body=%s", w.Code, w.Header(), w.Body)
			}
			if !guidForm.MatchString(id) || (tc.wantCode == "" && seenID != id) {
				t.Fatalf("request id %q (handler saw %q)", id, seenID)
			}
			if wireHeader(w).Get("Server") != "cerulean" {
				t.Fatalf("Server = %q", wireHeader(w).Get("Server"))
			}
			if _, err := time.Parse(http.TimeFormat, wireHeader(w).Get("Date")); err != nil {
				t.Fatalf("Date: %v", err)
			}
			if cid := tc.header["x-ms-client-request-id"]; cid != "" && wireHeader(w).Get("x-ms-client-request-id") != cid {
				t.Fatal("client request id not echoed")
			}
			// The last log line is the request line.
			lines := bytes.Split(bytes.TrimSpace(logs.Bytes()), []byte("\n"))
			var line map[string]any
			if err := json.Unmarshal(lines[len(lines)-1], &line); err != nil {
				t.Fatal(err)
			}
			if line["msg"] != "request" || line["service"] != "blob" || line["status"] != float64(tc.wantStatus) || line["request_id"] != id || line["path"] != strings.SplitN(tc.path, "?", 2)[0] {
				t.Fatalf("log line = %v", line)
			}
			if tc.name == "panic" && len(lines) < 2 {
				t.Fatal("panic not logged")
			}
		})
	}
}

func TestNewRequestIDUnique(t *testing.T) {
	seen := map[string]bool{}
	for range 1000 {
		id := newRequestID()
		if seen[id] || !guidForm.MatchString(id) {
			t.Fatalf("bad or repeated id %q", id)
		}
		seen[id] = true
	}
}

// TestWrapLogsRefusalReason: a 403's log line carries the error code and
// the reason its answer gives (which signature, which permission), so a
// refused request can be understood from the server's log alone.
func TestWrapLogsRefusalReason(t *testing.T) {
	var logged bytes.Buffer
	logger := slog.New(slog.NewJSONHandler(&logged, nil))
	refusal := azerr.ErrAuthenticationFailed.WithMessage("The MAC signature found in the HTTP request 'x' is not the same as any computed signature.")
	h := Wrap("blob", logger, nil, nil, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		WriteError(w, r, refusal)
	}))
	h.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest(http.MethodGet, "/devstoreaccount1/c", nil))
	var line map[string]any
	if err := json.Unmarshal(logged.Bytes(), &line); err != nil {
		t.Fatalf("%q: %v", logged.String(), err)
	}
	if line["status"] != float64(http.StatusForbidden) || line["error_code"] != "AuthenticationFailed" || line["reason"] != refusal.Message {
		t.Errorf("403 logged as %v, want its code and reason", line)
	}
}
