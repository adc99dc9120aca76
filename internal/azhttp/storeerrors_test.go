package azhttp

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/cerulean-db/cerulean/internal/kv"
)

func TestStoreErrorsAreNever500Unmapped(t *testing.T) {
	tests := []struct {
		err    error
		status int
		code   string
	}{
		{kv.ErrConflict, 503, "ServerBusy"},
		{kv.ErrTxnTooOld, 500, "OperationTimedOut"},
		{kv.ErrTooLarge, 413, "RequestBodyTooLarge"},
		{kv.ErrClosed, 503, "ServerBusy"},
	}
	for _, tc := range tests {
		for _, write := range []func(w *httptest.ResponseRecorder, err error){
			func(w *httptest.ResponseRecorder, err error) {
				WriteError(w, httptest.NewRequest("PUT", "/a/c", nil), err)
			},
			func(w *httptest.ResponseRecorder, err error) {
				WriteErrorJSON(w, httptest.NewRequest("PUT", "/a/t", nil), err)
			},
		} {
			w := httptest.NewRecorder()
			write(w, fmt.Errorf("commit block list: %w", tc.err))
			if w.Code != tc.status || w.Header().Get("x-ms-error-code") != tc.code {
				t.Errorf("%v: got %d %q, want %d %q", tc.err, w.Code, w.Header().Get("x-ms-error-code"), tc.status, tc.code)
			}
		}
	}
	if ClassifyStore(errors.New("other")) != NotAStoreFailure || StoreError(context.Background(), errors.New("x")) != nil {
		t.Fatal("a service error was classified as a store failure")
	}
}

func TestErrorDetailsAreWritten(t *testing.T) {
	w := httptest.NewRecorder()
	WriteError(w, httptest.NewRequest("GET", "/a/c", nil), fmt.Errorf("parse: %w", InvalidHeaderValue("x-ms-range", "bytes=<9")))
	body, _ := io.ReadAll(w.Result().Body)
	want := "</Message><HeaderName>x-ms-range</HeaderName><HeaderValue>bytes=&lt;9</HeaderValue></Error>"
	if w.Code != 400 || !strings.Contains(string(body), want) {
		t.Fatalf("status %d body %s", w.Code, body)
	}
	e := OutOfRangeQueryParameterValue("maxresults", "0", 1, 5000)
	if !errors.Is(e, ErrOutOfRangeQueryParameterValue) || e.Detail("MaximumAllowed") != "5000" || len(ErrOutOfRangeQueryParameterValue.Details) != 0 {
		t.Fatalf("details %+v leaked into or lost from the sentinel", e.Details)
	}
	if r := InvalidQueryParameterValue("timeout", "abc", ""); len(r.Details) != 2 {
		t.Fatalf("empty reason written: %+v", r.Details)
	}
}
