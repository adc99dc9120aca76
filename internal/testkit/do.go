package testkit

import (
	"io"
	"net/http"
	"testing"
)

// Do sends req with the default client and returns the status and body
// of the answer; a transport error stops the test.
func Do(t testing.TB, req *http.Request) (status int, body string) {
	t.Helper()
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = resp.Body.Close() }()
	b, _ := io.ReadAll(resp.Body)
	return resp.StatusCode, string(b)
}
