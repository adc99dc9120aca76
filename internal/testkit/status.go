package testkit

import (
	"net/http"
	"testing"
)

// MustStatus stops the test when err is not nil and reports an error when
// the response captured with policy.WithCaptureResponse did not carry the
// status want: the SDKs treat every 2xx alike, so the suites read the
// exact status (201 against 204, 202 against 200) from the captured
// response. op says what was being done.
func MustStatus(t testing.TB, err error, raw *http.Response, want int, op string) {
	t.Helper()
	Must(t, err, "%s", op)
	if raw == nil {
		t.Errorf("%s: no response captured, want status %d", op, want)
		return
	}
	if raw.StatusCode != want {
		t.Errorf("%s: status %d, want %d", op, raw.StatusCode, want)
	}
}
