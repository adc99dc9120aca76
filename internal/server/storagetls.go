package server

import (
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"net"
	"net/http"
	"strconv"

	"github.com/cerulean-db/cerulean/internal/azhttp"
)

// setupStorageTLS decides how the Storage services (Blob, Queue, Table,
// File) are served: HTTPS with the PEM pair named in cfg, HTTPS with the
// certificate the Cosmos gateway uses when cfg.StorageHTTPS, else plain
// HTTP as the emulators default to.
func (s *Server) setupStorageTLS(cfg Config) error {
	var cert tls.Certificate
	switch {
	case cfg.StorageCertFile != "" || cfg.StorageKeyFile != "":
		if cfg.StorageCertFile == "" || cfg.StorageKeyFile == "" {
			return errors.New("storage https: a certificate needs both its certificate and its key file")
		}
		var err error
		if cert, err = tls.LoadX509KeyPair(cfg.StorageCertFile, cfg.StorageKeyFile); err != nil {
			return fmt.Errorf("storage https: load certificate: %w", err)
		}
	case cfg.StorageHTTPS:
		var err error
		if cert, err = s.certificate(cfg); err != nil {
			return err
		}
	default:
		return nil
	}
	if cert.Leaf == nil && len(cert.Certificate) > 0 {
		leaf, err := x509.ParseCertificate(cert.Certificate[0])
		if err != nil {
			return fmt.Errorf("storage https: parse certificate: %w", err)
		}
		cert.Leaf = leaf
	}
	s.storageTLS = &tls.Config{Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS12}
	return nil
}

// listenStorage serves a Storage service, over HTTPS when configured; the
// raw header bytes are kept either way (see azhttp.CaseTLSListener).
func (s *Server) listenStorage(host string, port int, name string, h http.Handler) (string, error) {
	if s.storageTLS == nil {
		return s.listen(host, port, name, h)
	}
	ln, err := net.Listen("tcp", net.JoinHostPort(host, strconv.Itoa(port)))
	if err != nil {
		return "", fmt.Errorf("listen for %s: %w", name, err)
	}
	ln = limitConnections(ln, s.maxConns, name, s.log)
	return s.serve(azhttp.CaseTLSListener(ln, s.storageTLS), name, "https", azhttp.CaseTLS(h)), nil
}

// StorageScheme is "https" when the Storage services are served over
// HTTPS, else "http".
func (s *Server) StorageScheme() string {
	if s.storageTLS != nil {
		return "https"
	}
	return "http"
}

// StorageCertificate is the certificate the Storage services present over
// HTTPS (nil over HTTP), for clients to trust.
func (s *Server) StorageCertificate() *x509.Certificate {
	if s.storageTLS == nil {
		return nil
	}
	return s.storageTLS.Certificates[0].Leaf
}

// ConnectionString is the connection string of acct with key, naming each
// Storage service's path-style endpoint with the scheme it is served on.
func (s *Server) ConnectionString(acct, key string) string {
	return StorageConnectionString(s.StorageScheme(), acct, key, s.blobAddr, s.queueAddr, s.tableAddr, s.fileAddr)
}

// StorageURLs are the Storage services' URLs for one account,
// path-style and ending in "/" (http://127.0.0.1:10000/devstoreaccount1/).
type StorageURLs struct{ Blob, Queue, Table, File string }

// StorageURLs are the Storage services' URLs for acct.
func (s *Server) StorageURLs(acct string) StorageURLs {
	url := func(addr string) string { return s.StorageScheme() + "://" + addr + "/" + acct + "/" }
	return StorageURLs{Blob: url(s.blobAddr), Queue: url(s.queueAddr), Table: url(s.tableAddr), File: url(s.fileAddr)}
}

// StorageConnectionString is the connection string of acct with key for
// Storage services at the given host:port addresses, path-style, over
// scheme ("http" or "https").
func StorageConnectionString(scheme, acct, key, blobAddr, queueAddr, tableAddr, fileAddr string) string {
	return fmt.Sprintf("DefaultEndpointsProtocol=%[1]s;AccountName=%[2]s;AccountKey=%[3]s;BlobEndpoint=%[1]s://%[4]s/%[2]s;QueueEndpoint=%[1]s://%[5]s/%[2]s;TableEndpoint=%[1]s://%[6]s/%[2]s;FileEndpoint=%[1]s://%[7]s/%[2]s;",
		scheme, acct, key, blobAddr, queueAddr, tableAddr, fileAddr)
}
