package cosmos

import (
	"crypto/ecdsa"
	"crypto/elliptic"
	"crypto/rand"
	"crypto/tls"
	"crypto/x509"
	"crypto/x509/pkix"
	"encoding/pem"
	"errors"
	"fmt"
	"io/fs"
	"math/big"
	"net"
	"os"
	"path/filepath"
	"time"
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
	key, err := ecdsa.GenerateKey(elliptic.P256(), rand.Reader)
	if err != nil {
		return nil, nil, fmt.Errorf("generate cosmos key: %w", err)
	}
	serial, err := rand.Int(rand.Reader, new(big.Int).Lsh(big.NewInt(1), 120))
	if err != nil {
		return nil, nil, fmt.Errorf("generate cosmos serial: %w", err)
	}
	// The Storage services share the certificate (--storage-https) and
	// answer production-style host names under localhost
	// (devstoreaccount1.blob.localhost), hence the wildcard names.
	tmpl := &x509.Certificate{
		SerialNumber:          serial,
		Subject:               pkix.Name{CommonName: "localhost", Organization: []string{"cerulean"}},
		NotBefore:             now.Add(-time.Hour),
		NotAfter:              now.AddDate(5, 0, 0),
		KeyUsage:              x509.KeyUsageDigitalSignature | x509.KeyUsageCertSign,
		ExtKeyUsage:           []x509.ExtKeyUsage{x509.ExtKeyUsageServerAuth},
		BasicConstraintsValid: true,
		IsCA:                  true,
		DNSNames:              []string{"localhost", "*.localhost", "*.blob.localhost", "*.queue.localhost", "*.table.localhost", "*.file.localhost"},
		IPAddresses:           []net.IP{net.IPv4(127, 0, 0, 1), net.IPv6loopback},
	}
	der, err := x509.CreateCertificate(rand.Reader, tmpl, tmpl, &key.PublicKey, key)
	if err != nil {
		return nil, nil, fmt.Errorf("create cosmos certificate: %w", err)
	}
	keyDER, err := x509.MarshalECPrivateKey(key)
	if err != nil {
		return nil, nil, fmt.Errorf("marshal cosmos key: %w", err)
	}
	return pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: der}),
		pem.EncodeToMemory(&pem.Block{Type: "EC PRIVATE KEY", Bytes: keyDER}), nil
}
