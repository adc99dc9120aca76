package console_test

import (
	"io"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/cerulean-db/cerulean/internal/console"
)

// send is a request with the given Host and headers; the console header
// is not added.
func send(t *testing.T, site *httptest.Server, method, url, host string, header map[string]string) (*http.Response, string) {
	t.Helper()
	req := newRequest(t, method, url, nil)
	if host != "" {
		req.Host = host
	}
	return exchange(t, site, req, header)
}

// newRequest is http.NewRequest that stops the test on error.
func newRequest(t *testing.T, method, url string, body io.Reader) *http.Request {
	t.Helper()
	req, err := http.NewRequest(method, url, body)
	if err != nil {
		t.Fatal(err)
	}
	return req
}

// exchange sets header on req (over what the caller set), sends it with
// site's client and reads the whole answer, so send and consoleCall
// differ only in how they build the request.
func exchange(t *testing.T, site *httptest.Server, req *http.Request, header map[string]string) (*http.Response, string) {
	t.Helper()
	for k, v := range header {
		req.Header.Set(k, v)
	}
	resp, err := site.Client().Do(req)
	if err != nil {
		t.Fatal(err)
	}
	b, err := io.ReadAll(resp.Body)
	_ = resp.Body.Close()
	if err != nil {
		t.Fatal(err)
	}
	return resp, string(b)
}

// TestProxyRefusesRequestsWithoutTheConsoleHeader: a page of another
// site can make the browser send a simple request (a form POST, a GET)
// but not one with a custom header, so such a request is refused before
// it reaches a service, and so is the CORS preflight that would ask to
// send the header.
func TestProxyRefusesRequestsWithoutTheConsoleHeader(t *testing.T) {
	site, _ := startConsole(t)
	resp, body := send(t, site, "PUT", site.URL+"/console/api/blob/stolen?restype=container", "", nil)
	if resp.StatusCode != http.StatusForbidden || !strings.Contains(body, "ConsoleHeaderMissing") {
		t.Fatalf("PUT without the console header: got %d %s, want 403 ConsoleHeaderMissing", resp.StatusCode, body)
	}
	// The container was not made.
	resp, _ = consoleCall(t, site, "GET", "/console/api/blob/stolen?restype=container", nil, "")
	if resp.StatusCode != http.StatusNotFound || resp.Header.Get("x-ms-error-code") != "ContainerNotFound" {
		t.Fatalf("the refused PUT reached the service: container read answers %d %s", resp.StatusCode, resp.Header.Get("x-ms-error-code"))
	}

	resp, body = send(t, site, "OPTIONS", site.URL+"/console/api/blob/?comp=list", "", map[string]string{
		"Origin": "https://attacker.example", "Access-Control-Request-Method": "PUT", "Access-Control-Request-Headers": "x-cerulean-console",
	})
	if resp.StatusCode != http.StatusForbidden {
		t.Fatalf("CORS preflight: got %d %s, want 403", resp.StatusCode, body)
	}
	for name := range resp.Header {
		if strings.HasPrefix(name, "Access-Control-") {
			t.Errorf("the preflight's answer carries %s: %q", name, resp.Header.Get(name))
		}
	}
}

// TestConsoleRefusesOtherHosts: a DNS name rebound to the loopback
// address reaches the port, but the browser sends that name as Host.
func TestConsoleRefusesOtherHosts(t *testing.T) {
	site, _ := startConsole(t)
	port := site.URL[strings.LastIndexByte(site.URL, ':')+1:]
	cases := []struct {
		host, origin string
		want         int
		code         string
	}{
		{host: "attacker.example:" + port, want: http.StatusForbidden, code: "HostNotAllowed"},
		{host: "rebound.example:1", want: http.StatusForbidden, code: "HostNotAllowed"},
		{host: "attacker.example", want: http.StatusForbidden, code: "HostNotAllowed"},
		// A loopback name on another port from a loopback peer is a port
		// forward's (SSH -L 8080:localhost:PORT): answered.
		{host: "127.0.0.2:" + port, want: http.StatusOK},
		{host: "localhost:1", origin: "http://localhost:1", want: http.StatusOK},
		{host: "[::1]:8080", want: http.StatusOK},
		{host: "127.0.0.1", want: http.StatusForbidden, code: "HostNotAllowed"},
		{host: "127.0.0.1:" + port, origin: "https://attacker.example", want: http.StatusForbidden, code: "OriginNotAllowed"},
		{host: "127.0.0.1:" + port, origin: "null", want: http.StatusForbidden, code: "OriginNotAllowed"},
		{host: "127.0.0.1:" + port, want: http.StatusOK},
		{host: "localhost:" + port, origin: "http://localhost:" + port, want: http.StatusOK},
		{host: "LOCALHOST.:" + port, want: http.StatusOK},
	}
	for _, c := range cases {
		header := map[string]string{console.ConsoleHeader: "1"}
		if c.origin != "" {
			header["Origin"] = c.origin
		}
		for _, path := range []string{"/console/api/blob/?comp=list", "/"} {
			resp, body := send(t, site, "GET", site.URL+path, c.host, header)
			if resp.StatusCode != c.want || !strings.Contains(body, c.code) {
				t.Errorf("GET %s with Host %q, Origin %q: got %d %.200s, want %d %s", path, c.host, c.origin, resp.StatusCode, body, c.want, c.code)
			}
		}
	}
}

// TestConsoleAllowedHosts: names listed in AllowedHosts (a reverse
// proxy's, a container's) are answered, on any port when the entry names
// none; other names still are not.
func TestConsoleAllowedHosts(t *testing.T) {
	h, err := console.New(console.Config{AllowedHosts: []string{"cerulean.internal", "devbox:8443"}})
	if err != nil {
		t.Fatal(err)
	}
	site := httptest.NewServer(h)
	t.Cleanup(site.Close)
	for host, want := range map[string]int{
		"cerulean.internal:10080": http.StatusOK, "CERULEAN.internal:1": http.StatusOK, "devbox:8443": http.StatusOK,
		"devbox:8444": http.StatusForbidden, "attacker.example:10080": http.StatusForbidden,
	} {
		resp, body := send(t, site, "GET", site.URL+"/", host, nil)
		if resp.StatusCode != want {
			t.Errorf("Host %q: %d %.200s, want %d", host, resp.StatusCode, body, want)
		}
		if want == http.StatusForbidden && !strings.Contains(body, "--admin-allowed-hosts") {
			t.Errorf("Host %q refused without naming --admin-allowed-hosts: %s", host, body)
		}
	}
}

// TestFavicon: the icon browsers ask for on their own is there.
func TestFavicon(t *testing.T) {
	h, err := console.New(console.Config{})
	if err != nil {
		t.Fatal(err)
	}
	site := httptest.NewServer(h)
	t.Cleanup(site.Close)
	resp, body := send(t, site, "GET", site.URL+"/favicon.ico", "", nil)
	if resp.StatusCode != http.StatusOK || resp.Header.Get("Content-Type") != "image/svg+xml" || !strings.HasPrefix(body, "<svg") {
		t.Errorf("/favicon.ico: %d %s %.80q", resp.StatusCode, resp.Header.Get("Content-Type"), body)
	}
}
