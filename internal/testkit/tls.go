package testkit

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"fmt"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/cerulean-db/cerulean/internal/selfsigned"
)

// TLSCertFiles writes a self-signed certificate for the DNS names (and
// 127.0.0.1) and its key as PEM files in a temporary directory, the way a
// user hands them to --cert and --key (servertest.WithStorageCert).
func TLSCertFiles(t testing.TB, names ...string) (certFile, keyFile string) {
	t.Helper()
	certPEM, keyPEM, err := selfsigned.PEM(selfsigned.Options{
		Subject:   pkix.Name{CommonName: names[0]},
		DNSNames:  names,
		IPs:       []net.IP{net.IPv4(127, 0, 0, 1)},
		NotBefore: time.Now().Add(-time.Hour),
		NotAfter:  time.Now().Add(24 * time.Hour),
	})
	if err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	certFile, keyFile = filepath.Join(dir, "cert.pem"), filepath.Join(dir, "key.pem")
	if err := os.WriteFile(certFile, certPEM, 0o600); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(keyFile, keyPEM, 0o600); err != nil {
		t.Fatal(err)
	}
	return certFile, keyFile
}

// ResolvingClient is an HTTP client that trusts pool (nil: the system's
// roots) and connects to hosts[name] whenever a URL names the host name,
// whatever port it names: production-style URLs
// (https://devstoreaccount1.blob.core.windows.net/) resolved to a local
// server, as a hosts file would. IP addresses are dialled as they are; a
// host name it does not know is refused.
func ResolvingClient(pool *x509.CertPool, hosts map[string]string) *http.Client {
	d := &net.Dialer{Timeout: 10 * time.Second}
	return &http.Client{Transport: &http.Transport{
		TLSClientConfig: &tls.Config{RootCAs: pool, MinVersion: tls.VersionTLS12},
		DialContext: func(ctx context.Context, network, addr string) (net.Conn, error) {
			host, _, err := net.SplitHostPort(addr)
			if err != nil {
				return nil, err
			}
			if net.ParseIP(host) != nil {
				return d.DialContext(ctx, network, addr) // an address needs no resolving
			}
			to, ok := hosts[host]
			if !ok {
				return nil, fmt.Errorf("resolve %s: not a test host", host)
			}
			return d.DialContext(ctx, network, to)
		},
	}}
}

// CertPool is a pool holding the certificates of the PEM file certFile
// (such as the one the server writes to its data directory for its
// HTTPS endpoints); a file without a certificate stops the test.
func CertPool(t testing.TB, certFile string) *x509.CertPool {
	t.Helper()
	pem, err := os.ReadFile(certFile)
	if err != nil {
		t.Fatal(err)
	}
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(pem) {
		t.Fatalf("no certificate in %s", certFile)
	}
	return pool
}
