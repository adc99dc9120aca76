package azhttp

import (
	"bytes"
	"errors"
	"net"
	"net/http"
	"strings"
	"testing"
)

// TestOriginalHeaderNames: metadata names keep the client's case across
// keep-alive requests, large bodies and on listeners without the wrapper.
func TestOriginalHeaderNames(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	got := make(chan Metadata, 4)
	srv := &http.Server{ConnContext: CaseConnContext, Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		m, err := ParseRequestMetadata(r)
		if err != nil {
			t.Error(err)
		}
		_, _ = bytes.NewBuffer(nil).ReadFrom(r.Body)
		got <- m
	})}
	go func() {
		if err := srv.Serve(CaseListener(ln)); !errors.Is(err, http.ErrServerClosed) {
			t.Error(err)
		}
	}()
	t.Cleanup(func() {
		if err := srv.Close(); err != nil {
			t.Error(err)
		}
	})
	client := &http.Client{}
	send := func(name string, body []byte) Metadata {
		req, _ := http.NewRequest(http.MethodPut, "http://"+ln.Addr().String()+"/acct/c/b?comp=metadata", bytes.NewReader(body))
		req.Header["x-ms-meta-"+name] = []string{"v"}
		resp, err := client.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		if err := resp.Body.Close(); err != nil {
			t.Fatal(err)
		}
		return <-got
	}
	for _, tc := range []struct {
		name string
		body []byte
	}{
		{"GammaRay", nil},
		{"alphaBeta", bytes.Repeat([]byte("\r\n\r\nPUT /acct/c/b?comp=metadata x-ms-meta-WRONG: v\r\n"), 20000)},
		{"Third_One", []byte(strings.Repeat("z", 300<<10))},
	} {
		m := send(tc.name, tc.body)
		if len(m) != 1 || m[0][0] != tc.name {
			t.Errorf("metadata %v, want name %q", m, tc.name)
		}
	}

	// Without the wrapper, names fall back to lower case.
	r, _ := http.NewRequest(http.MethodPut, "/x", nil)
	r.Header.Set("x-ms-meta-CamelCase", "v")
	m, err := ParseRequestMetadata(r)
	if err != nil || len(m) != 1 || m[0][0] != "camelcase" {
		t.Fatalf("fallback: %v %v", m, err)
	}
}
