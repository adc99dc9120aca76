package azhttp

import (
	"context"
	"net"
	"net/http"
	"net/url"
	"strings"

	"github.com/cerulean-db/cerulean/internal/azauth"
)

// Azure addresses an account by host name (production style:
// https://account.blob.core.windows.net/container/blob); the emulators
// address it by the first path segment (path style:
// http://127.0.0.1:10000/account/container/blob). HostStyle decides which
// style a request uses, once for every storage service, and hands the
// service's handler the path-style form it parses, so each handler sees
// the account as the first segment of r.URL.Path whatever the client
// sent. What the client actually sent is kept for the two things that
// depend on it: the Shared Key canonicalized resource and the account
// URL written back in listings.

// SecondarySuffix marks the read-only secondary endpoint of an account
// (account-secondary), which Azure serves for read-access geo-redundant
// storage and the emulators answer on the same port.
const SecondarySuffix = "-secondary"

// HostStyle serves h with host-style requests turned into path-style
// ones: when the first label of the Host is a known account (or a known
// account followed by "-secondary"), that label is put in front of the
// URL path. Requests addressed by IP address, or by a host whose first
// label is no account, pass unchanged (path style). The request line
// (r.RequestURI) is left as sent, so that the original header block can
// still be found for it (OriginalHeaderNames).
func HostStyle(accounts *azauth.Accounts, h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		acct, ok := HostAccount(r.Host, accounts)
		if !ok {
			h.ServeHTTP(w, r)
			return
		}
		style := &azauth.HostStyleRequest{Account: acct, Path: r.URL.Path, Escaped: r.URL.EscapedPath()}
		r = r.WithContext(context.WithValue(r.Context(), azauth.HostStyleKey{}, style))
		u := *r.URL
		u.Path = "/" + acct + ensureSlash(u.Path)
		if u.RawPath != "" {
			u.RawPath = "/" + acct + ensureSlash(u.RawPath)
		}
		r.URL = &u
		h.ServeHTTP(w, r)
	})
}

func ensureSlash(p string) string {
	if strings.HasPrefix(p, "/") {
		return p
	}
	return "/" + p
}

// HostAccount returns the account a host name addresses in production
// style: its first label, when that is a known account or a known
// account followed by "-secondary". IP addresses and single-label hosts
// (localhost, a container's service name) address no account.
func HostAccount(host string, accounts *azauth.Accounts) (string, bool) {
	if h, _, err := net.SplitHostPort(host); err == nil {
		host = h
	}
	host = strings.Trim(host, "[]")
	if net.ParseIP(host) != nil {
		return "", false
	}
	label, rest, ok := strings.Cut(host, ".")
	if !ok || label == "" || rest == "" {
		return "", false
	}
	label = strings.ToLower(label)
	if _, known := accounts.Lookup(label); known {
		return label, true
	}
	if base, secondary := strings.CutSuffix(label, SecondarySuffix); secondary && base != "" {
		if _, known := accounts.Lookup(base); known {
			return label, true
		}
	}
	return "", false
}

// IsHostStyle reports whether r addressed its account by host name.
func IsHostStyle(r *http.Request) bool {
	_, ok := r.Context().Value(azauth.HostStyleKey{}).(*azauth.HostStyleRequest)
	return ok
}

// AccountURL is the account's service URL as the client addressed it,
// ending in "/": "scheme://host/" in host style, "scheme://host/acct/" in
// path style. Listings carry it as ServiceEndpoint.
func AccountURL(r *http.Request, acct string) string {
	scheme := "http"
	if r.TLS != nil {
		scheme = "https"
	}
	if IsHostStyle(r) {
		return scheme + "://" + r.Host + "/"
	}
	return scheme + "://" + r.Host + "/" + acct + "/"
}

// AccountPath is the path-style form of u's (decoded) path: u.Path with
// the account in front when u names it in its host. Services parse URLs
// a request carries (copy sources, batch parts) with it, so that a
// production-style URL works wherever a path-style one does.
func AccountPath(u *url.URL, accounts *azauth.Accounts) string {
	if acct, ok := HostAccount(u.Host, accounts); ok {
		return "/" + acct + ensureSlash(u.Path)
	}
	return u.Path
}
