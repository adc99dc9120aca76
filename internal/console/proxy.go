package console

import (
	"crypto/tls"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httputil"
	"net/url"
	"strings"
	"time"
)

// serviceProxy forwards the page's requests to one service, signed.
type serviceProxy struct {
	name   string
	base   *url.URL // the service URL; its path ends in "/"
	signer signer
	now    func() time.Time
	log    *slog.Logger
	rp     *httputil.ReverseProxy
}

// pageOnlyHeaders are request headers that describe the browser's page
// rather than the call, and never reach a service. Authorization is the
// proxy's to set.
var pageOnlyHeaders = []string{"Authorization", "Cookie", "Origin", "Referer", ConsoleHeader, AccountHeader, "api-key"}

// AccountHeader names the Storage account a page's request is for, when
// the console reaches more than one (Config.MoreAccounts); without it a
// request is for Config.Account.
const AccountHeader = "X-Cerulean-Account"

// proxyKey is the key of a service's proxy in the map newProxies builds:
// the service's name for Config.Account and every non-Storage service,
// "service@account" for the other Storage accounts.
func proxyKey(service, account string) string {
	if account == "" {
		return service
	}
	return service + "@" + account
}

// newProxies builds a proxy for each service cfg names.
func newProxies(cfg Config) (map[string]*serviceProxy, error) {
	transport := http.DefaultTransport.(*http.Transport).Clone()
	transport.TLSClientConfig = &tls.Config{RootCAs: cfg.RootCAs, MinVersion: tls.VersionTLS12}
	// The page asks for what it wants; a body the transport decompressed
	// on its own would no longer match the Content-Length and MD5 the
	// service sent.
	transport.DisableCompression = true
	// The services are this server's own: never reach them through an
	// HTTP proxy the environment names.
	transport.Proxy = nil
	out := map[string]*serviceProxy{}
	add := func(key, name, raw string, s signer) error {
		if raw == "" {
			return nil
		}
		u, err := url.Parse(raw)
		if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return fmt.Errorf("console: the %s URL %q is not an http(s) URL", name, raw)
		}
		if !strings.HasSuffix(u.Path, "/") {
			u.Path += "/"
			u.RawPath = ""
		}
		p := &serviceProxy{name: name, base: u, signer: s, now: cfg.Now, log: cfg.Logger}
		p.rp = &httputil.ReverseProxy{
			Rewrite:        p.rewrite,
			Transport:      transport,
			ModifyResponse: dropPageHeaders,
			ErrorHandler:   p.unreachable,
		}
		out[key] = p
		return nil
	}
	if cfg.BlobURL != "" || cfg.QueueURL != "" || cfg.TableURL != "" || cfg.FileURL != "" {
		key, err := decodeKey("storage account", cfg.Key)
		if err != nil {
			return nil, err
		}
		if cfg.Account == "" {
			return nil, errors.New("console: a Storage URL is set without an account")
		}
		for _, s := range []struct{ name, url string }{{"blob", cfg.BlobURL}, {"queue", cfg.QueueURL}, {"table", cfg.TableURL}, {"file", cfg.FileURL}} {
			if err := add(s.name, s.name, s.url, sharedKey{service: s.name, acct: cfg.Account, key: key}); err != nil {
				return nil, err
			}
			for _, more := range cfg.MoreAccounts {
				if more.Name == "" || more.Name == cfg.Account || len(more.Key) == 0 {
					return nil, fmt.Errorf("console: a further Storage account %q needs a name of its own and a key", more.Name)
				}
				if s.url == "" {
					continue
				}
				if err := add(proxyKey(s.name, more.Name), s.name, accountURL(s.url, cfg.Account, more.Name), sharedKey{service: s.name, acct: more.Name, key: more.Key}); err != nil {
					return nil, err
				}
			}
		}
	}
	if cfg.CosmosURL != "" {
		key, err := decodeKey("Cosmos DB master", cfg.CosmosKey)
		if err != nil {
			return nil, err
		}
		if err := add("cosmos", "cosmos", cfg.CosmosURL, masterKey{key: key}); err != nil {
			return nil, err
		}
	}
	if cfg.SearchURL != "" {
		if cfg.SearchAdminKey == "" {
			return nil, errors.New("console: the Search URL is set without an admin key")
		}
		if err := add("search", "search", cfg.SearchURL, apiKey{key: cfg.SearchAdminKey}); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// accountURL is the Storage URL of account, from the URL of base (the
// configured account): the services are path-style, so the account is
// the path's last segment.
func accountURL(raw, base, account string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return raw // newProxies's add reports it
	}
	dir := strings.TrimSuffix(strings.TrimSuffix(u.Path, "/"), base)
	u.Path, u.RawPath = dir+account+"/", ""
	return u.String()
}

// proxyHandler routes /console/api/{service}/... to the service's proxy,
// for the account the request names (AccountHeader).
func proxyHandler(proxies map[string]*serviceProxy, log *slog.Logger) http.Handler {
	return requireConsoleHeader(log, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		p, ok := proxyFor(proxies, r.PathValue("service"), r)
		if !ok && proxies[r.PathValue("service")] != nil {
			writeJSONError(w, http.StatusNotFound, "AccountNotConfigured",
				fmt.Sprintf("%q is not a Storage account this console reaches.", r.Header.Get(AccountHeader)))
			return
		}
		if !ok {
			writeJSONError(w, http.StatusNotFound, "ServiceNotConfigured",
				fmt.Sprintf("%q is not a service this console reaches.", r.PathValue("service")))
			return
		}
		p.rp.ServeHTTP(w, r)
	}))
}

// proxyFor is the proxy of service for the Storage account r names: the
// configured account's when it names none or that one. Cosmos DB and
// Search have one account each, whatever r names.
func proxyFor(proxies map[string]*serviceProxy, service string, r *http.Request) (*serviceProxy, bool) {
	p, ok := proxies[service]
	acct := r.Header.Get(AccountHeader)
	if !ok || acct == "" || p.signer.account() == "" || p.signer.account() == acct {
		return p, ok
	}
	p, ok = proxies[proxyKey(service, acct)]
	return p, ok
}

// rewrite points the outgoing request at the service: the path after
// /console/api/{service}/ is appended, as escaped, to the service URL's
// path, the query is kept, and the request is signed last, when every
// header it is sent with is in place.
func (p *serviceProxy) rewrite(pr *httputil.ProxyRequest) {
	out := pr.Out
	rest := strings.TrimPrefix(pr.In.URL.EscapedPath(), "/console/api/"+p.name+"/")
	out.URL.Scheme, out.URL.Host = p.base.Scheme, p.base.Host
	out.URL.RawPath = p.base.EscapedPath() + rest
	out.URL.Path, _ = url.PathUnescape(out.URL.RawPath) // In's path parsed, so this does too
	out.URL.RawQuery = pr.In.URL.RawQuery
	out.Host = ""
	for _, h := range pageOnlyHeaders {
		out.Header.Del(h)
	}
	for name := range out.Header {
		if strings.HasPrefix(name, "Sec-") {
			out.Header.Del(name)
		}
	}
	if err := p.signer.sign(out, p.now()); err != nil {
		// Sent unsigned: the service's own 401 says what is wrong.
		p.log.Warn("console could not sign a request", "service", p.name, "path", out.URL.Path, "err", err)
	}
}

// dropPageHeaders keeps a service's CORS and cookie headers from the
// page: the console is same-origin and must not widen that. A body is
// data for the page's scripts, never a document of the console's origin
// (a blob stored as text/html), so it is sandboxed and never sniffed.
func dropPageHeaders(resp *http.Response) error {
	for name := range resp.Header {
		if strings.HasPrefix(name, "Access-Control-") {
			resp.Header.Del(name)
		}
	}
	resp.Header.Del("Set-Cookie")
	resp.Header.Set("Content-Security-Policy", "sandbox; default-src 'none'")
	resp.Header.Set("X-Content-Type-Options", "nosniff")
	return nil
}

// unreachable answers 502 when the service did not answer.
func (p *serviceProxy) unreachable(w http.ResponseWriter, r *http.Request, err error) {
	p.log.Warn("console proxy request failed", "service", p.name, "method", r.Method, "path", r.URL.Path, "err", err)
	writeJSONError(w, http.StatusBadGateway, "ServiceUnreachable", fmt.Sprintf("The %s service did not answer: %v", p.name, err))
}
