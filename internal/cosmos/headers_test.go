package cosmos

import (
	"bufio"
	"encoding/json"
	"net"
	"net/http"
	"net/textproto"
	"strings"
	"testing"
)

// rawHeaders sends req over its own connection and returns the response's
// header lines as they came over the wire, names in their own case.
func rawHeaders(t *testing.T, g *gateway, req *http.Request) map[string]string {
	t.Helper()
	conn, err := net.Dial("tcp", g.srv.Listener.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = conn.Close() }()
	req.Close = true
	if err := req.Write(conn); err != nil {
		t.Fatal(err)
	}
	r := textproto.NewReader(bufio.NewReader(conn))
	status, err := r.ReadLine()
	if err != nil || !strings.Contains(status, " 200 ") {
		t.Fatalf("status line %q: %v", status, err)
	}
	lines := map[string]string{}
	for {
		line, err := r.ReadLine()
		if err != nil {
			t.Fatal(err)
		}
		if line == "" {
			return lines
		}
		name, value, _ := strings.Cut(line, ":")
		if _, dup := lines[name]; dup {
			t.Fatalf("header %s sent twice", name)
		}
		lines[name] = strings.TrimSpace(value)
	}
}

// The gateway sends its own headers in lower case, etag included (the
// legacy Python SDK looks them up case-sensitively), each once; a value
// the operation set (the resource's etag) wins over the default, and
// x-ms-version echoes the request's.
func TestCommonHeadersAsTheGatewaySendsThem(t *testing.T) {
	g := newGateway(t, newScriptService(t, 0))
	req := g.request("GET", "dbs/db/colls/items", "", map[string]string{
		"x-ms-version":     "2018-12-31",
		"x-ms-activity-id": "5cc7a5b4-3a4c-4a5e-9a55-0d3d5b0f0b1e",
	})
	h := rawHeaders(t, g, req)
	want := map[string]string{
		"x-ms-activity-id":    "5cc7a5b4-3a4c-4a5e-9a55-0d3d5b0f0b1e",
		"x-ms-request-charge": "1",
		"x-ms-gatewayversion": "version=2.14.0",
		"x-ms-serviceversion": "version=2.14.0.0",
		"x-ms-schemaversion":  "1.20",
		"x-ms-version":        "2018-12-31",
	}
	for name, v := range want {
		if h[name] != v {
			t.Errorf("%s: %q, want %q (headers %v)", name, h[name], v, h)
		}
	}
	if !strings.Contains(h["x-ms-session-token"], ":") {
		t.Errorf("x-ms-session-token: %q", h["x-ms-session-token"])
	}
	for name := range h {
		if strings.HasPrefix(name, "X-Ms-") || name == "Etag" || name == "ETag" {
			t.Errorf("header %s not in the gateway's lower case", name)
		}
	}
	_, body := g.expect(http.StatusOK, "GET", "dbs/db/colls/items", "", nil)
	var c struct {
		ETag string `json:"_etag"`
	}
	if err := json.Unmarshal([]byte(body), &c); err != nil || c.ETag == "" || h["etag"] != c.ETag {
		t.Errorf("etag %q is not the container's: %s", h["etag"], body)
	}
}
