package testclock

import (
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

func TestAdvance(t *testing.T) {
	base := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	c := &Clock{real: func() time.Time { return base }}
	if now, err := c.Advance(16 * time.Second); err != nil || !now.Equal(base.Add(16*time.Second)) {
		t.Fatalf("advance: %v, %v", now, err)
	}
	if _, err := c.Advance(-time.Second); !errors.Is(err, ErrBackwards) {
		t.Fatalf("moving back: %v", err)
	}
	if c.Offset() != 16*time.Second {
		t.Fatalf("offset %v", c.Offset())
	}
	h := c.Handler()
	for _, tc := range []struct {
		method, target, body string
		status               int
		want                 string
	}{
		{http.MethodPost, "/clock/advance?by=1m", "", 200, `"offset":"1m16s"`},
		{http.MethodPost, "/clock/advance", `{"by":"4s"}`, 200, `"offset":"1m20s"`},
		{http.MethodPost, "/clock/advance?by=soon", "", 400, "soon"},
		{http.MethodPost, "/clock/advance?by=-1s", "", 400, "forward"},
		{http.MethodGet, "/clock", "", 200, `"now":"2026-01-01T00:01:20Z"`},
	} {
		w := httptest.NewRecorder()
		h.ServeHTTP(w, httptest.NewRequest(tc.method, tc.target, strings.NewReader(tc.body)))
		if w.Code != tc.status || !strings.Contains(w.Body.String(), tc.want) {
			t.Errorf("%s %s: %d %s, want %d with %s", tc.method, tc.target, w.Code, w.Body, tc.status, tc.want)
		}
	}
}
