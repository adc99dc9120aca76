package server

import (
	"crypto/tls"
	"encoding/pem"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"path/filepath"
	"strconv"
	"time"

	"github.com/cerulean-db/cerulean/internal/cosmos"
)

// startCosmos serves the Cosmos DB gateway: HTTPS with the certificate
// kept in the data directory (generated on first start; in memory with
// --in-memory), or plain HTTP when cfg.CosmosHTTP.
func (s *Server) startCosmos(cfg Config, svc *cosmos.Service) error {
	ln, err := net.Listen("tcp", net.JoinHostPort(cfg.Host, strconv.Itoa(cfg.CosmosPort)))
	if err != nil {
		return fmt.Errorf("listen for cosmos: %w", err)
	}
	ln = limitConnections(ln, s.maxConns, "cosmos", s.log)
	srv := &http.Server{
		Handler:           s.instrument("cosmos", cosmos.NewHandler(svc)),
		ConnState:         s.metrics.ConnState("cosmos"),
		ReadHeaderTimeout: 30 * time.Second,
		IdleTimeout:       2 * time.Minute,
		MaxHeaderBytes:    1 << 20,
		ErrorLog:          slog.NewLogLogger(s.log.Handler(), slog.LevelDebug),
	}
	scheme := "http"
	if !cfg.CosmosHTTP {
		cert, err := s.certificate(cfg)
		if err != nil {
			return errors.Join(err, ln.Close())
		}
		srv.TLSConfig = &tls.Config{Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS12}
		scheme = "https"
	}
	s.servers = append(s.servers, srv)
	s.wg.Go(func() {
		var err error
		if srv.TLSConfig != nil {
			err = srv.ServeTLS(ln, "", "")
		} else {
			err = srv.Serve(ln)
		}
		if err != nil && !errors.Is(err, http.ErrServerClosed) {
			s.errs <- fmt.Errorf("cosmos service: %w", err)
		}
	})
	s.cosmosAddr = ln.Addr().String()
	s.cosmosScheme = scheme
	s.log.Info("service listening", "service", "cosmos", "addr", s.cosmosAddr, "scheme", scheme)
	return nil
}

// CosmosAddr is the Cosmos DB gateway's host:port.
func (s *Server) CosmosAddr() string { return s.cosmosAddr }

// CosmosURL is the Cosmos DB gateway's endpoint, "https://host:port/" (or
// http with CosmosHTTP).
func (s *Server) CosmosURL() string { return s.cosmosScheme + "://" + s.cosmosAddr + "/" }

// certificate is the self-signed certificate the HTTPS services (the
// Cosmos gateway, and Search with SearchHTTPS) share, kept in
// certificateDir (generated on first start) or, without one, made once
// per process; a client trusts it once for both.
func (s *Server) certificate(cfg Config) (tls.Certificate, error) {
	if s.cert != nil {
		return *s.cert, nil
	}
	cert, path, err := cosmos.LoadOrCreateCertificate(certificateDir(cfg))
	if err != nil {
		return tls.Certificate{}, err
	}
	if path != "" {
		if abs, err := filepath.Abs(path); err == nil {
			path = abs
		}
		s.certPath = path
		// The variables are the ones to set: Node's NODE_EXTRA_CA_CERTS,
		// Python's REQUESTS_CA_BUNDLE, Go's (and OpenSSL's) SSL_CERT_FILE.
		s.log.Info("TLS certificate of the HTTPS services: trust this file (or use --cosmos-http)", "path", path,
			"NODE_EXTRA_CA_CERTS", path, "REQUESTS_CA_BUNDLE", path, "SSL_CERT_FILE", path)
	} else {
		s.log.Info("TLS certificate of the HTTPS services is self-signed and kept in memory; the admin endpoint serves it at /certificate.pem")
	}
	s.cert = &cert
	return cert, nil
}

// certificateDir is where the generated certificate is kept, "" for
// memory only.
func certificateDir(cfg Config) string {
	switch {
	case cfg.CertDir != "":
		return cfg.CertDir
	case cfg.InMemory:
		return ""
	}
	return cfg.DataDir
}

// CertificatePath is the absolute path of the certificate file a server
// started with cfg generates (or reuses) for its HTTPS services, "" when
// it keeps it in memory only.
func CertificatePath(cfg Config) string {
	dir := certificateDir(cfg)
	if dir == "" {
		return ""
	}
	path := filepath.Join(dir, cosmos.CertFile)
	if abs, err := filepath.Abs(path); err == nil {
		return abs
	}
	return path
}

// CertificateFile is the absolute path of the HTTPS services' generated
// certificate, "" when it is in memory only or no service uses it.
func (s *Server) CertificateFile() string { return s.certPath }

// certificatePEM is the generated certificate in PEM, nil when no
// service uses it.
func (s *Server) certificatePEM() []byte {
	if s.cert == nil || len(s.cert.Certificate) == 0 {
		return nil
	}
	return pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: s.cert.Certificate[0]})
}
