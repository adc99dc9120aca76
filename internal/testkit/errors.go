package testkit

import (
	"errors"
	"fmt"
	"testing"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
)

// Describe renders an SDK error as `HTTP <status> "<code>"` when it carries
// an HTTP response, "success" when err is nil.
func Describe(err error) string {
	if err == nil {
		return "success"
	}
	var re *azcore.ResponseError
	if errors.As(err, &re) {
		return fmt.Sprintf("HTTP %d %q", re.StatusCode, re.ErrorCode)
	}
	return "non-HTTP error: " + err.Error()
}

// StatusOf is the HTTP status an SDK error carries, 0 when it has none.
func StatusOf(err error) int {
	var re *azcore.ResponseError
	if errors.As(err, &re) {
		return re.StatusCode
	}
	return 0
}

// Must stops the test when err is not nil; format and args say what was
// being done.
func Must(t testing.TB, err error, format string, args ...any) {
	t.Helper()
	if err != nil {
		t.Fatalf("%s: unexpected error: %s\n%v", fmt.Sprintf(format, args...), Describe(err), err)
	}
}

// CheckErr reports a failure, without stopping the test, unless err is an
// azcore.ResponseError with the given status and, when code is not empty,
// the given error code. C is any of the SDKs' code types (bloberror.Code,
// queueerror.Code, ...) or a plain string. It returns whether err matched.
func CheckErr[C ~string](t testing.TB, err error, status int, code C, format string, args ...any) bool {
	t.Helper()
	what := fmt.Sprintf(format, args...)
	want := fmt.Sprintf("HTTP %d", status)
	if code != "" {
		want += fmt.Sprintf(" %q", string(code))
	}
	if err == nil {
		t.Errorf("%s: got success, want %s", what, want)
		return false
	}
	var re *azcore.ResponseError
	if !errors.As(err, &re) {
		t.Errorf("%s: got %v, want %s", what, err, want)
		return false
	}
	if re.StatusCode != status || (code != "" && re.ErrorCode != string(code)) {
		t.Errorf("%s: got HTTP %d %q, want %s", what, re.StatusCode, re.ErrorCode, want)
		return false
	}
	return true
}

// MustErr is CheckErr that stops the test on a mismatch.
func MustErr[C ~string](t testing.TB, err error, status int, code C, format string, args ...any) {
	t.Helper()
	if !CheckErr(t, err, status, code, format, args...) {
		t.FailNow()
	}
}
