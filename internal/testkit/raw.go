package testkit

import (
	"bytes"
	"fmt"
	"io"
	"net/http"
	"strings"
	"testing"
	"time"
)

// Request is an HTTP request built by hand, for what the SDKs cannot
// express: malformed bodies, unusual headers, exact wire output.
type Request struct {
	Method string
	URL    string
	// Header names starting with x-ms- go on the wire spelled as given, as
	// the SDKs send metadata names (the service keeps their case), and so
	// does Content-MD5; others are canonicalised.
	Header map[string]string
	Body   []byte // nil sends no body
}

// setHeader sets one of a Request's headers on h.
func setHeader(h http.Header, name, value string) {
	// Content-MD5 too goes as the SDKs spell it: their Shared Key signing
	// looks it up by that spelling, not the canonical Content-Md5.
	if len(name) >= 5 && strings.EqualFold(name[:5], "x-ms-") || strings.EqualFold(name, "Content-MD5") {
		h.Del(name)
		h[name] = []string{value}
		return
	}
	h.Set(name, value)
}

// Response is what the server answered to a Request; its body has been
// read in full.
type Response struct {
	StatusCode int
	// Code is the x-ms-error-code header, or else the <Code> element of an
	// XML error body; empty for success.
	Code   string
	Header http.Header
	Body   []byte
}

// Check reports a failure, without stopping the test, unless the response
// has the given status and error code; it returns whether it had.
func (r Response) Check(t testing.TB, status int, code, what string) bool {
	t.Helper()
	if r.StatusCode != status || r.Code != code {
		t.Errorf("%s: got HTTP %d %q, want HTTP %d %q\n%s", what, r.StatusCode, r.Code, status, code, r.Body)
		return false
	}
	return true
}

var rawClient = &http.Client{Timeout: time.Minute}

// Send sends req as it is: no signature is added, so it is anonymous or
// authorised by a SAS in its URL. Transport errors stop the test.
func Send(t testing.TB, req Request) Response {
	t.Helper()
	var body io.Reader
	if req.Body != nil {
		body = bytes.NewReader(req.Body)
	}
	hr, err := http.NewRequestWithContext(t.Context(), req.Method, req.URL, body)
	if err != nil {
		t.Fatalf("building %s %s: %v", req.Method, req.URL, err)
	}
	for k, v := range req.Header {
		setHeader(hr.Header, k, v)
	}
	resp, err := rawClient.Do(hr)
	if err != nil {
		t.Fatalf("%s %s: %v", req.Method, req.URL, err)
	}
	r, err := readResponse(resp)
	if err != nil {
		t.Fatalf("%s %s: %v", req.Method, req.URL, err)
	}
	return r
}

// readResponse reads and closes resp's body.
func readResponse(resp *http.Response) (Response, error) {
	defer func() { _ = resp.Body.Close() }()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		return Response{}, fmt.Errorf("reading body: %w", err)
	}
	code := resp.Header.Get("X-Ms-Error-Code")
	if code == "" {
		if i := bytes.Index(b, []byte("<Code>")); i >= 0 {
			if j := bytes.Index(b[i:], []byte("</Code>")); j > 0 {
				code = string(b[i+len("<Code>") : i+j])
			}
		}
	}
	return Response{StatusCode: resp.StatusCode, Code: code, Header: resp.Header, Body: b}, nil
}
