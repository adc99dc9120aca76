package main

import (
	"encoding/base64"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"strconv"
	"strings"

	"github.com/cerulean-db/cerulean/internal/azauth"
	"github.com/cerulean-db/cerulean/internal/cosmos"
	"github.com/cerulean-db/cerulean/internal/server"
)

// connectionStrings prints, as shell export lines, the connection strings,
// endpoints and keys a server started with the same flags and environment
// answers on, so that a shell or a CI job can `eval` them before starting
// its tests.
func connectionStrings(args []string, getenv func(string) string, stdout, stderr io.Writer) error {
	f, err := parseFlagsOf("connection-strings", args, getenv, stderr)
	if errors.Is(err, flag.ErrHelp) {
		return nil
	}
	if err != nil {
		return err
	}
	accounts, err := azauth.LoadAccounts(getenv)
	if err != nil {
		return err
	}
	ports := []struct {
		flag string
		port port
	}{{"blob-port", f.blobPort}, {"queue-port", f.queuePort}, {"table-port", f.tablePort}, {"file-port", f.filePort},
		{"cosmos-port", f.cosmosPort}, {"search-port", f.searchPort}}
	for _, p := range ports {
		if p.port == 0 {
			return fmt.Errorf("--%s 0 picks a free port only when the server starts: name the port to print its endpoint (the server logs its connection string when it starts)", p.flag)
		}
	}
	host := clientHost(f.host)
	addr := func(p port) string { return net.JoinHostPort(host, strconv.Itoa(int(p))) }
	storageScheme := "http"
	if f.storageHTTPS || f.certFile != "" {
		storageScheme = "https"
	}
	cosmosScheme := "https"
	if f.cosmosHTTP {
		cosmosScheme = "http"
	}
	searchScheme := "http"
	if f.searchHTTPS {
		searchScheme = "https"
	}
	var b strings.Builder
	export := func(name, value string) { fmt.Fprintf(&b, "export %s=%s\n", name, shellQuote(value)) }
	names := accounts.Names()
	first := names[0]
	if _, ok := accounts.Lookup(azauth.DevAccount); ok {
		first = azauth.DevAccount
	}
	storage := func(name string) string {
		acct, _ := accounts.Lookup(name)
		key := base64.StdEncoding.EncodeToString(acct.Keys[0])
		return server.StorageConnectionString(storageScheme, name, key, addr(f.blobPort), addr(f.queuePort), addr(f.tablePort), addr(f.filePort))
	}
	export("AZURE_STORAGE_CONNECTION_STRING", storage(first))
	for _, name := range names {
		if name != first {
			export("AZURE_STORAGE_CONNECTION_STRING_"+envSuffix(name), storage(name))
		}
	}
	cosmosEndpoint := fmt.Sprintf("%s://%s/", cosmosScheme, addr(f.cosmosPort))
	export("COSMOS_ENDPOINT", cosmosEndpoint)
	export("COSMOS_KEY", cosmos.EmulatorKey)
	export("COSMOS_CONNECTION_STRING", "AccountEndpoint="+cosmosEndpoint+";AccountKey="+cosmos.EmulatorKey+";")
	export("AZURE_SEARCH_ENDPOINT", fmt.Sprintf("%s://%s", searchScheme, addr(f.searchPort)))
	export("AZURE_SEARCH_ADMIN_KEY", f.searchAdminKeys[0])
	export("AZURE_SEARCH_QUERY_KEY", f.searchQueryKeys[0])
	if f.adminPort > 0 {
		// The admin endpoint: health and readiness checks, metrics, the console.
		export("CERULEAN_ADMIN_URL", "http://"+net.JoinHostPort(clientHost(f.adminHost), strconv.Itoa(int(f.adminPort))))
	}
	if f.certFile == "" && (cosmosScheme == "https" || searchScheme == "https" || storageScheme == "https") {
		if path := server.CertificatePath(f.certConfig()); path != "" {
			// The generated certificate the HTTPS services present. Node's
			// variable adds to its roots; Python's and Go's replace the
			// system bundle, so they are printed for the shells and
			// processes that talk only to cerulean, not exported here.
			export("CERULEAN_CERT_FILE", path)
			export("NODE_EXTRA_CA_CERTS", path)
			fmt.Fprintf(&b, "# Python (requests / azure-core): export REQUESTS_CA_BUNDLE=%s  (or SSL_CERT_FILE=%[1]s); replaces the system CA bundle\n", shellQuote(path))
			fmt.Fprintf(&b, "# Go: export SSL_CERT_FILE=%s; replaces the system CA file (SSL_CERT_DIR still adds)\n", shellQuote(path))
			fmt.Fprintf(&b, "# .NET / Java: import it into the trust store (see the README: Trusting the certificate)\n")
		}
	}
	_, err = io.WriteString(stdout, b.String())
	return err
}

// clientHost is the host a client on this machine reaches a server
// listening on host with: loopback for the wildcard addresses.
func clientHost(host string) string {
	switch host {
	case "", "0.0.0.0", "::", "[::]":
		return "127.0.0.1"
	}
	return strings.Trim(host, "[]")
}

// shellQuote quotes s for a POSIX shell.
func shellQuote(s string) string { return "'" + strings.ReplaceAll(s, "'", `'\''`) + "'" }

// envSuffix turns an account name into the tail of a variable name.
func envSuffix(name string) string {
	return strings.Map(func(r rune) rune {
		switch {
		case r >= 'a' && r <= 'z':
			return r - 'a' + 'A'
		case r >= 'A' && r <= 'Z', r >= '0' && r <= '9':
			return r
		}
		return '_'
	}, name)
}
