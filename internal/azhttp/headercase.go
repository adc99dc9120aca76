package azhttp

import (
	"bytes"
	"context"
	"net"
	"net/http"
	"strings"
	"sync"
)

// Go's HTTP server canonicalizes header names before a handler sees them,
// but Azure keeps the case of metadata names as the client wrote them. A
// CaseListener keeps the last bytes read on each connection, so a handler
// can recover the original names from the raw header block of its request.

const (
	// caseKeep is how many recent bytes a connection keeps: the current
	// request's header block and the read-ahead behind it fit.
	caseKeep = 64 << 10
)

type caseConnKey struct{}

// CaseListener wraps ln so that OriginalHeaderNames works for requests
// served from it (the server must use CaseConnContext).
func CaseListener(ln net.Listener) net.Listener { return caseListener{ln} }

// CaseConnContext is the http.Server ConnContext that goes with
// CaseListener.
func CaseConnContext(ctx context.Context, c net.Conn) context.Context {
	if cc, ok := c.(*caseConn); ok {
		return context.WithValue(ctx, caseConnKey{}, cc)
	}
	return ctx
}

type caseListener struct{ net.Listener }

func (l caseListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	return &caseConn{Conn: c}, nil
}

type caseConn struct {
	net.Conn
	mu  sync.Mutex
	buf []byte
}

func (c *caseConn) Read(p []byte) (int, error) {
	n, err := c.Conn.Read(p)
	if n > 0 {
		c.mu.Lock()
		if len(c.buf)+n > 2*caseKeep {
			keep := c.buf[max(0, len(c.buf)-caseKeep):]
			c.buf = append(c.buf[:0], keep...)
		}
		if n > caseKeep {
			c.buf = append(c.buf[:0], p[n-caseKeep:n]...)
		} else {
			c.buf = append(c.buf, p[:n]...)
		}
		c.mu.Unlock()
	}
	return n, err
}

// OriginalHeaderNames returns, for the request's headers whose names start
// with prefix (case-insensitively), the names as the client wrote them,
// keyed by their lower-case form. It returns nil when the raw header block
// is not available (a listener without CaseListener, or a huge header).
func OriginalHeaderNames(r *http.Request, prefix string) map[string]string {
	cc, ok := r.Context().Value(caseConnKey{}).(*caseConn)
	if !ok {
		return nil
	}
	line := []byte(r.Method + " " + r.RequestURI + " ")
	lp := strings.ToLower(prefix)
	want := map[string]bool{}
	for k := range r.Header {
		if low := strings.ToLower(k); strings.HasPrefix(low, lp) {
			want[low] = true
		}
	}
	cc.mu.Lock()
	defer cc.mu.Unlock()
	// The newest occurrence of the request line whose header block names
	// exactly the request's headers is the request itself (a body that
	// merely contains such a line is skipped).
	for limit := len(cc.buf); ; {
		start := bytes.LastIndex(cc.buf[:limit], line)
		if start < 0 {
			return nil
		}
		limit = start
		if names := prefixedNames(cc.buf[start:], lp); names != nil && sameKeys(names, want) {
			return names
		}
	}
}

// prefixedNames parses a raw header block (up to its blank line) and maps
// the lower-case form of each header name with the prefix to its original.
func prefixedNames(raw []byte, lowerPrefix string) map[string]string {
	end := bytes.Index(raw, []byte("\r\n\r\n"))
	if end < 0 {
		return nil
	}
	out := map[string]string{}
	for _, l := range bytes.Split(raw[:end], []byte("\r\n"))[1:] {
		name, _, ok := bytes.Cut(l, []byte(":"))
		if !ok {
			return nil
		}
		n := strings.TrimSpace(string(name))
		if low := strings.ToLower(n); strings.HasPrefix(low, lowerPrefix) {
			out[low] = n
		}
	}
	return out
}

func sameKeys(names map[string]string, want map[string]bool) bool {
	if len(names) != len(want) {
		return false
	}
	for k := range names {
		if !want[k] {
			return false
		}
	}
	return true
}

// ParseRequestMetadata is ParseMetadata keeping the case in which the
// client wrote each metadata name, where the connection allows it.
func ParseRequestMetadata(r *http.Request) (Metadata, error) {
	m, err := ParseMetadata(r.Header)
	if err != nil || len(m) == 0 {
		return m, err
	}
	names := OriginalHeaderNames(r, metaPrefix)
	for i, kv := range m {
		if orig, ok := names[metaPrefix+kv[0]]; ok {
			m[i][0] = orig[len(metaPrefix):]
		}
	}
	return m, nil
}
