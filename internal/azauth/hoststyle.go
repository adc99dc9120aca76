package azauth

import (
	"net/http"
	"strings"
)

// HostStyleKey is the context key under which HostStyle records the HostStyleRequest.
type HostStyleKey struct{}

// HostStyleRequest is the request as the client addressed it, before HostStyle
// put the account in front of its path.
type HostStyleRequest struct {
	Account       string // the host's first label: an account, or account-secondary
	Path, Escaped string // r.URL.Path and r.URL.EscapedPath() as sent
}

// signedPaths returns, for a host-style request, the forms of the path the
// client may have signed (what it sent: the account is in the host, so the
// canonicalized resource is "/account" + path), and false for a path-style
// one.
func signedPaths(r *http.Request) ([]string, bool) {
	style, ok := r.Context().Value(HostStyleKey{}).(*HostStyleRequest)
	if !ok {
		return nil, false
	}
	paths := []string{rawPath(r), style.Escaped}
	if !strings.ContainsFunc(style.Path, func(c rune) bool { return c < 0x20 || c == 0x7f }) {
		paths = append(paths, style.Path)
	}
	for i, p := range paths {
		if p == "" {
			paths[i] = "/"
		}
	}
	return uniq(paths), true
}
