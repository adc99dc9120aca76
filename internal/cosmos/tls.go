package cosmos

import (
	"crypto/tls"
	"crypto/x509/pkix"
	"errors"
	"fmt"
	"io/fs"
	"net"
	"os"
	"path/filepath"
	"time"

	"github.com/cerulean-db/cerulean/internal/selfsigned"
)

// Certificate files the gateway keeps in the data directory, so that a user
// trusts the certificate once and it stays valid across restarts.
const (
	CertFile = "cosmos-cert.pem"
	KeyFile  = "cosmos-key.pem"
)

// LoadOrCreateCertificate returns the gateway's TLS certificate: the one in
// dir when present, else a new self-signed ECDSA certificate for localhost
// and the loopback addresses, written to dir. An empty dir keeps a new
// certificate in memory only. certPath is where the certificate is ("" in
// memory).
func LoadOrCreateCertificate(dir string) (cert tls.Certificate, certPath string, err error) {
	if dir != "" {
		certPath = filepath.Join(dir, CertFile)
		keyPath := filepath.Join(dir, KeyFile)
		cert, err = tls.LoadX509KeyPair(certPath, keyPath)
		if err == nil {
			return cert, certPath, nil
		}
		if !errors.Is(err, fs.ErrNotExist) {
			return cert, "", fmt.Errorf("load cosmos certificate: %w", err)
		}
	}
	certPEM, keyPEM, err := selfSigned(time.Now())
	if err != nil {
		return cert, "", err
	}
	if dir != "" {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return cert, "", fmt.Errorf("create cosmos certificate: %w", err)
		}
		if err := os.WriteFile(filepath.Join(dir, KeyFile), keyPEM, 0o600); err != nil {
			return cert, "", fmt.Errorf("write cosmos certificate key: %w", err)
		}
		if err := os.WriteFile(certPath, certPEM, 0o644); err != nil {
			return cert, "", fmt.Errorf("write cosmos certificate: %w", err)
		}
	}
	cert, err = tls.X509KeyPair(certPEM, keyPEM)
	if err != nil {
		return cert, "", fmt.Errorf("parse cosmos certificate: %w", err)
	}
	return cert, certPath, nil
}

func selfSigned(now time.Time) (certPEM, keyPEM []byte, err error) {
	// The Storage services share the certificate (--storage-https) and
	// answer production-style host names under localhost
	// (devstoreaccount1.blob.localhost), hence the wildcard names.
	certPEM, keyPEM, err = selfsigned.PEM(selfsigned.Options{
		Subject:   pkix.Name{CommonName: "localhost", Organization: []string{"cerulean"}},
		DNSNames:  []string{"localhost", "*.localhost", "*.blob.localhost", "*.queue.localhost", "*.table.localhost", "*.file.localhost"},
		IPs:       []net.IP{net.IPv4(127, 0, 0, 1), net.IPv6loopback},
		NotBefore: now.Add(-time.Hour),
		NotAfter:  now.AddDate(5, 0, 0),
	})
	if err != nil {
		return nil, nil, fmt.Errorf("cosmos certificate: %w", err)
	}
	return certPEM, keyPEM, nil
}
