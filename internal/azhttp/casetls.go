package azhttp

import (
	"crypto/tls"
	"net"
	"net/http"
)

// Storage services keep each connection's raw header bytes (CaseListener)
// so that metadata names keep their case. Over HTTPS the bytes worth
// keeping are the decrypted ones, so the CaseListener wraps the TLS
// listener; the HTTP server then no longer sees a *tls.Conn and leaves
// r.TLS unset. CaseTLSListener and CaseTLS put the two together.

// CaseTLSListener serves TLS with cfg on ln, keeping the decrypted header
// bytes for OriginalHeaderNames. Handlers behind it must be wrapped with
// CaseTLS to see r.TLS.
func CaseTLSListener(ln net.Listener, cfg *tls.Config) net.Listener {
	return CaseListener(tls.NewListener(ln, cfg))
}

// CaseTLS sets r.TLS for requests that arrived over a CaseTLSListener, so
// that HTTPS-only rules (a SAS's spr=https) and the URLs written back see
// the request as HTTPS.
func CaseTLS(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.TLS == nil {
			if cc, ok := r.Context().Value(caseConnKey{}).(*caseConn); ok {
				if tc, ok := cc.Conn.(*tls.Conn); ok {
					state := tc.ConnectionState()
					r = r.WithContext(r.Context())
					r.TLS = &state
				}
			}
		}
		h.ServeHTTP(w, r)
	})
}
