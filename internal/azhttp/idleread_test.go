package azhttp

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"
)

// TestIdleReadTimeout sends a body in two halves with a pause between
// them: a pause shorter than the idle timeout is waited out, a much
// longer one cuts the read; and a handler that keeps working after the
// body is read is not cut by the body's deadline.
func TestIdleReadTimeout(t *testing.T) {
	const idle = 300 * time.Millisecond
	srv := httptest.NewServer(IdleReadTimeout(idle, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, err := io.ReadAll(r.Body)
		if err != nil {
			w.WriteHeader(http.StatusRequestTimeout)
			return
		}
		if r.URL.Path == "/slow" {
			time.Sleep(2 * idle) // past the body's deadline, after the body
			if err := r.Context().Err(); err != nil {
				w.WriteHeader(http.StatusInternalServerError)
				return
			}
		}
		_, _ = w.Write(b)
	})))
	t.Cleanup(srv.Close)

	send := func(path string, pause time.Duration) (int, string) {
		t.Helper()
		c, err := net.Dial("tcp", srv.Listener.Addr().String())
		if err != nil {
			t.Fatal(err)
		}
		defer func() { _ = c.Close() }()
		_, _ = fmt.Fprintf(c, "PUT %s HTTP/1.1\r\nHost: x\r\nContent-Length: 10\r\n\r\nhello", path)
		time.Sleep(pause)
		_, _ = io.WriteString(c, "world")
		resp, err := http.ReadResponse(bufio.NewReader(c), nil)
		if err != nil {
			t.Fatal(err)
		}
		defer func() { _ = resp.Body.Close() }()
		b, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(b)
	}
	if code, body := send("/", idle/3); code != http.StatusOK || body != "helloworld" {
		t.Errorf("pause shorter than the timeout: %d %q, want 200 helloworld", code, body)
	}
	if code, _ := send("/", 4*idle); code != http.StatusRequestTimeout {
		t.Errorf("pause past the timeout: %d, want the read cut (408 here)", code)
	}
	if code, body := send("/slow", 0); code != http.StatusOK || !strings.HasPrefix(body, "hello") {
		t.Errorf("handler working past the body's deadline: %d %q, want 200", code, body)
	}
}
