package file

import (
	"net"
	"net/http"
	"net/url"
	"strings"

	"github.com/cerulean-db/cerulean/internal/azauth"
	"github.com/cerulean-db/cerulean/internal/azerr"
	"github.com/cerulean-db/cerulean/internal/azhttp"
)

// source is a file of this server that a request names by URL
// (x-ms-copy-source, x-ms-file-rename-source), in the live share or, with
// ?sharesnapshot= in the URL, in one of its snapshots.
type source struct {
	url               *url.URL
	acct, share, path string
	// snapshot is the share snapshot's time in SnapshotLayout, "" for the
	// live share.
	snapshot string
}

// readShare is the share or snapshot namespace the source is read from.
func (s source) readShare() string {
	if s.snapshot == "" {
		return s.share
	}
	return SnapshotNamespace(s.share, s.snapshot)
}

// ownHost reports whether a source URL's host names this server's File
// endpoint, as the SDKs send it: no host (a path), the host the request
// came to, a loopback name (localhost, 127.0.0.1, ::1) with the request's
// port or none, or a production-style File host of a known account
// (account.file.core.windows.net, whatever the suffix and port), since a
// client configured with such a URL reaches this server through its name
// resolution or a proxy and sends its own URL as the source.
func (h *handler) ownHost(reqHost, host string) bool {
	if host == "" || strings.EqualFold(host, reqHost) {
		return true
	}
	if _, ok := azhttp.HostAccount(host, h.svc.accounts); ok {
		_, rest, _ := strings.Cut(hostName(host), ".")
		service, _, _ := strings.Cut(rest, ".")
		return strings.EqualFold(service, "file")
	}
	name, port := splitHostPort(host)
	if !loopback(name) {
		return false
	}
	_, reqPort := splitHostPort(reqHost)
	return port == "" || port == reqPort
}

// splitHostPort splits host[:port] (an IPv6 address in brackets).
func splitHostPort(host string) (name, port string) {
	if n, p, err := net.SplitHostPort(host); err == nil {
		return n, p
	}
	return strings.Trim(host, "[]"), ""
}

func hostName(host string) string {
	name, _ := splitHostPort(host)
	return name
}

// loopback reports whether a host name is this machine's.
func loopback(name string) bool {
	if strings.EqualFold(name, "localhost") {
		return true
	}
	ip := net.ParseIP(name)
	return ip != nil && ip.IsLoopback()
}

// parseSource reads a path-style URL of a file or directory of this
// server, of its live share or of a share snapshot (?sharesnapshot=, in
// any form ParseSnapshot reads; a SAS in the URL does not sign it). bad
// is the error for a URL that names none.
func (h *handler) parseSource(q *request, raw string, bad *azerr.Error) (source, error) {
	u, err := url.Parse(raw)
	if err != nil || u.Path == "" {
		return source{}, bad
	}
	if !h.ownHost(q.r.Host, u.Host) {
		return source{}, azerr.ErrNotImplemented.WithMessage("A source outside this server's File endpoint (%s) is not supported.", u.Host)
	}
	src := source{url: u}
	if q := u.Query(); q.Has("sharesnapshot") {
		snap, ok := ParseSnapshot(q.Get("sharesnapshot"))
		if !ok {
			return source{}, bad
		}
		src.snapshot = snap
	}
	src.acct, src.share, src.path = splitPath(azhttp.AccountPath(u, h.svc.accounts))
	src.path = trailingDots(src.path, q.r.Header.Get("X-Ms-Source-Allow-Trailing-Dot"))
	if src.share == "" || src.path == "" {
		return source{}, bad
	}
	if _, ok := h.svc.accounts.Lookup(src.acct); !ok {
		return source{}, bad
	}
	if err := checkNames(src.share, src.path); err != nil {
		return source{}, err
	}
	return src, nil
}

// authorizeSource checks that the request may use the source with one
// of the given SAS permissions (the first refusal is the answer when it
// has none): through a SAS in the source URL, through Shared Key on the
// same account, or through the request's own SAS applied to the source's
// path.
func (h *handler) authorizeSource(q *request, src source, permissions ...byte) error {
	u := *src.url
	switch {
	case u.Query().Has("sig"):
	case q.access.Kind == azauth.AccessSharedKey && q.access.Account == src.acct:
		return nil
	case q.access.Kind == azauth.AccessAccountSAS || q.access.Kind == azauth.AccessServiceSAS:
		u.RawQuery = q.r.URL.RawQuery
	default:
		return azerr.ErrCannotVerifyCopySource
	}
	fake := (&http.Request{Method: http.MethodGet, URL: &u, Header: http.Header{}, RemoteAddr: q.r.RemoteAddr, TLS: q.r.TLS}).WithContext(q.ctx())
	access, err := h.auth.Authenticate(fake, src.acct, src.share, src.path)
	if err != nil {
		return err
	}
	var first error
	for _, p := range permissions {
		err := access.Allows(need('o', p))
		if err == nil {
			return nil
		}
		if first == nil {
			first = err
		}
	}
	return first
}
