package server

import (
	"crypto/tls"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
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
// Cosmos gateway, and Search with SearchHTTPS) share, kept in the data
// directory (generated on first start) or, in memory, made once per
// process; a client trusts it once for both.
func (s *Server) certificate(cfg Config) (tls.Certificate, error) {
	if s.cert != nil {
		return *s.cert, nil
	}
	dir := cfg.DataDir
	if cfg.InMemory {
		dir = ""
	}
	cert, path, err := cosmos.LoadOrCreateCertificate(dir)
	if err != nil {
		return tls.Certificate{}, err
	}
	if path != "" {
		s.log.Info("TLS certificate of the HTTPS services (trust it, or use --cosmos-http)", "path", path)
	} else {
		s.log.Info("TLS certificate of the HTTPS services is self-signed and kept in memory")
	}
	s.cert = &cert
	return cert, nil
}
