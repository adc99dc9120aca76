package testkit

import (
	"io"
	"testing"
)

// ReadBody reads an HTTP response body to its end and closes it; a read
// error fails the test.
func ReadBody(t testing.TB, body io.ReadCloser) []byte {
	t.Helper()
	defer func() { _ = body.Close() }()
	b, err := io.ReadAll(body)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
