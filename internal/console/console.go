package console

import (
	"crypto/x509"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"time"
)

// Config names the services the console reaches and their credentials. A
// service whose URL is empty is left out of the console.
type Config struct {
	// BlobURL, QueueURL, TableURL and FileURL are the Storage service URLs
	// with the account path, ending in "/"
	// (http://127.0.0.1:10000/devstoreaccount1/).
	BlobURL, QueueURL, TableURL, FileURL string
	// Account and Key (base64) sign the Storage requests.
	Account, Key string
	// MoreAccounts are further Storage accounts on the same services,
	// which the page can switch to (AccountHeader): their URLs are the
	// Storage URLs with the account's name in place of Account's.
	MoreAccounts []StorageAccount
	// CosmosURL is the Cosmos DB gateway's endpoint, CosmosKey its master
	// key (base64).
	CosmosURL, CosmosKey string
	// SearchURL is the Search endpoint, SearchAdminKey its admin api-key.
	SearchURL, SearchAdminKey string
	// RootCAs trusts the services' HTTPS certificates; nil trusts the
	// system's roots.
	RootCAs *x509.CertPool
	// Logger receives one line per refused or failed proxy request; nil
	// discards them.
	Logger *slog.Logger
	// AllowedHosts are Host header values the console answers besides the
	// address it was reached on and loopback port forwards: "host:port",
	// or "host" for any port (a reverse proxy's or a container's name).
	AllowedHosts []string
	// Now dates the signatures (nil: time.Now). Pass the server's clock
	// when a test clock may move it, so that signatures stay within the
	// skew the services allow.
	Now func() time.Time
}

// StorageAccount is a Storage account's name and its key (decoded).
type StorageAccount struct {
	Name string
	Key  []byte
}

// New returns the console's handler. It serves the landing page at "/",
// the page's assets, the signing proxy and the maker of shareable blob
// links (read-only SAS URLs) under "/console/", and 404 for
// every other path, so it can sit under a mux's catch-all pattern.
func New(cfg Config) (http.Handler, error) {
	if cfg.Logger == nil {
		cfg.Logger = slog.New(slog.NewTextHandler(io.Discard, nil))
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	proxies, err := newProxies(cfg)
	if err != nil {
		return nil, err
	}
	services := map[string]bool{}
	for name := range proxies {
		services[name] = true
	}
	accounts := []string{}
	if cfg.Account != "" {
		accounts = append(accounts, cfg.Account)
	}
	for _, a := range cfg.MoreAccounts {
		accounts = append(accounts, a.Name)
	}
	servicesJSON, err := json.Marshal(map[string]any{"account": cfg.Account, "accounts": accounts, "services": services})
	if err != nil {
		return nil, fmt.Errorf("console services: %w", err)
	}
	mux := http.NewServeMux()
	page := pageHandler()
	mux.Handle("GET /{$}", page)
	mux.Handle("GET /console/{$}", page)
	mux.Handle("GET /console/static/", staticHandler())
	mux.HandleFunc("GET /console/services.json", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("Cache-Control", "no-store")
		_, _ = w.Write(servicesJSON)
	})
	mux.Handle("/console/api/{service}/", proxyHandler(proxies, cfg.Logger))
	if _, ok := proxies["blob"]; ok {
		mux.Handle("POST /console/sas/blob", requireConsoleHeader(cfg.Logger, blobLinks{proxies: proxies, now: cfg.Now}))
	}
	// Browsers ask for /favicon.ico on their own; an icon spares the
	// console's every visit a 404 in the log and the browser's console.
	mux.HandleFunc("GET /favicon.ico", func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "image/svg+xml")
		w.Header().Set("Cache-Control", "max-age=86400")
		_, _ = io.WriteString(w, favicon)
	})
	return checkHost(cfg.Logger, cfg.AllowedHosts, mux), nil
}

// favicon is the console's icon: a cerulean-blue rounded square.
const favicon = `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 16 16"><rect width="16" height="16" rx="3" fill="#2a52be"/><path d="M11.5 5.2A4 4 0 1 0 11.5 10.8" fill="none" stroke="#fff" stroke-width="2"/></svg>`

// decodeKey decodes a base64 account or master key.
func decodeKey(what, key string) ([]byte, error) {
	b, err := base64.StdEncoding.DecodeString(key)
	if err != nil || len(b) == 0 {
		return nil, fmt.Errorf("console: the %s key is not base64", what)
	}
	return b, nil
}
