package console

import (
	"encoding/json"
	"log/slog"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"strconv"
	"strings"
)

// ConsoleHeader must be on every proxy request. Browsers let a page send
// a custom header cross-origin only after a CORS preflight, and the
// console approves none, so a page of another site cannot pass.
const ConsoleHeader = "X-Cerulean-Console"

// checkHost refuses requests whose Host is not the address the connection
// was accepted on (or "localhost" for a loopback address), not a loopback
// name on any port from a loopback peer (a port forward: SSH -L, VS Code,
// kubectl port-forward), and not in allowed: a DNS name an attacker
// rebinds to 127.0.0.1 reaches the port, but under its own name. An
// Origin, when the browser sends one, must name the same host.
func checkHost(log *slog.Logger, allowed []string, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		local, _ := r.Context().Value(http.LocalAddrContextKey).(net.Addr)
		if !hostIsLocal(r.Host, local) && !forwardedLoopback(r.Host, r.RemoteAddr) && !hostListed(r.Host, allowed) {
			refuse(w, log, r, "HostNotAllowed", "The Host header "+quote(r.Host)+" does not name the address this console was reached on; "+
				"to reach it through a proxy or a port forward under another name, list that name with --admin-allowed-hosts (CERULEAN_ADMIN_ALLOWED_HOSTS).")
			return
		}
		if o := r.Header.Get("Origin"); o != "" && !originIsHost(o, r.Host) {
			refuse(w, log, r, "OriginNotAllowed", "The Origin "+quote(o)+" is not this console.")
			return
		}
		next.ServeHTTP(w, r)
	})
}

// hostIsLocal reports whether host (a Host header) names local: the same
// port, and the same IP address or, for a loopback address, "localhost".
func hostIsLocal(host string, local net.Addr) bool {
	tcp, ok := local.(*net.TCPAddr)
	if !ok || tcp == nil {
		return false
	}
	addr := tcp.AddrPort()
	name, port, err := net.SplitHostPort(host)
	if err != nil || port != strconv.Itoa(int(addr.Port())) {
		return false
	}
	ip := addr.Addr().Unmap()
	if got, err := netip.ParseAddr(name); err == nil {
		return got.Unmap() == ip
	}
	name = strings.TrimSuffix(strings.ToLower(name), ".")
	return ip.IsLoopback() && name == "localhost"
}

// forwardedLoopback reports whether host names this machine's loopback
// (localhost, 127.0.0.0/8, ::1) on any port and the peer is on loopback
// too: a port forward's local end connects from there, and keeps the Host
// the browser gave it, whose port is the forward's.
func forwardedLoopback(host, peer string) bool {
	peerHost, _, err := net.SplitHostPort(peer)
	if err != nil {
		return false
	}
	if ip, err := netip.ParseAddr(peerHost); err != nil || !ip.Unmap().IsLoopback() {
		return false
	}
	name, _, err := net.SplitHostPort(host)
	if err != nil {
		return false
	}
	if ip, err := netip.ParseAddr(name); err == nil {
		return ip.Unmap().IsLoopback()
	}
	return strings.TrimSuffix(strings.ToLower(name), ".") == "localhost"
}

// hostListed reports whether host is in allowed: an entry with a port
// names that host:port, one without any port of that host.
func hostListed(host string, allowed []string) bool {
	name, _, err := net.SplitHostPort(host)
	if err != nil {
		name = host
	}
	for _, a := range allowed {
		if strings.EqualFold(a, host) || strings.EqualFold(strings.Trim(a, "[]"), strings.Trim(name, "[]")) {
			return true
		}
	}
	return false
}

// originIsHost reports whether an Origin header is http(s)://host.
func originIsHost(origin, host string) bool {
	u, err := url.Parse(origin)
	return err == nil && (u.Scheme == "http" || u.Scheme == "https") && strings.EqualFold(u.Host, host) && u.Path == ""
}

// requireConsoleHeader refuses requests without ConsoleHeader, and so
// every CORS preflight.
func requireConsoleHeader(log *slog.Logger, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Header.Get(ConsoleHeader) == "" {
			refuse(w, log, r, "ConsoleHeaderMissing", "Requests to the console's proxy must carry the "+ConsoleHeader+" header.")
			return
		}
		next.ServeHTTP(w, r)
	})
}

// refuse answers 403 with a JSON error the page shows as it shows the
// services' errors.
func refuse(w http.ResponseWriter, log *slog.Logger, r *http.Request, code, msg string) {
	log.Warn("console request refused", "method", r.Method, "path", r.URL.Path, "host", r.Host, "origin", r.Header.Get("Origin"), "code", code)
	writeJSONError(w, http.StatusForbidden, code, msg)
}

// writeJSONError writes {"code": ..., "message": ...}, the shape of a
// Cosmos DB error, which the page already reads.
func writeJSONError(w http.ResponseWriter, status int, code, msg string) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(map[string]string{"code": code, "message": msg})
}

func quote(s string) string { b, _ := json.Marshal(s); return string(b) }
