package server

import (
	"context"
	"crypto/tls"
	"os"
	"path/filepath"
	"time"

	"github.com/cerulean-db/cerulean/internal/blob"
	"github.com/cerulean-db/cerulean/internal/cosmos"
	"github.com/cerulean-db/cerulean/internal/metrics"
	"github.com/cerulean-db/cerulean/internal/search"
	"github.com/cerulean-db/cerulean/internal/search/indexer"
	"github.com/cerulean-db/cerulean/internal/table"
)

// sources are the services Search indexers read, through their domain
// APIs.
type sources struct {
	blobs  *blob.Service
	tables *table.Service
	cosmos *cosmos.Service
}

// indexerSchedule is how often the server looks for scheduled indexers
// that are due (each run is claimed in the store, so several front ends
// never run one indexer twice).
const indexerSchedule = 30 * time.Second

// startSearch serves Azure AI Search: the resource and document service,
// the loop that keeps its bleve indexes caught up with kv, and the
// indexer engine, which writes what it reads through IndexDocuments.
func (s *Server) startSearch(cfg Config, src sources) error {
	dir, releaseDir := searchDir(cfg)
	svc := search.New(search.Config{Store: s.store, Dir: dir, AdminKeys: cfg.SearchAdminKeys, QueryKeys: cfg.SearchQueryKeys, Now: cfg.Now, Logger: cfg.Logger})
	s.checkInvariantsOf("search", svc)
	engine, err := indexer.New(indexer.Config{Store: s.store, Search: svc, Blob: src.blobs, Table: src.tables, Cosmos: src.cosmos,
		Accounts: cfg.Accounts, Sink: documentSink(svc), Now: cfg.Now, Logger: cfg.Logger})
	if err != nil {
		releaseDir()
		return err
	}
	s.indexers = engine
	s.stopIndexerSchedule = engine.StartScheduler(indexerSchedule)
	svc.UseIndexers(runner{engine})
	stopCatchUp := svc.StartCatchUp()
	s.stopSearchCatchUp = func() {
		stopCatchUp()
		if err := svc.Close(); err != nil {
			s.log.Warn("close search indexes", "err", err)
		}
		releaseDir()
	}
	s.metrics.Register(metrics.SearchLag(svc.IndexingLag))
	var tlsCfg *tls.Config
	s.searchScheme = "http"
	if cfg.SearchHTTPS {
		cert, err := s.certificate(cfg)
		if err != nil {
			return err
		}
		tlsCfg = &tls.Config{Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS12}
		s.searchScheme = "https"
	}
	s.searchAddr, err = s.listenTLS(cfg.Host, cfg.SearchPort, "search", search.NewHandler(svc), tlsCfg)
	return err
}

// searchDir is where the Search service keeps its bleve indexes: under the
// data directory, beside the embedded store (or, with PostgreSQL, this
// front end's own indexes derived from the shared store). An in-memory
// server, or one whose store is on a test file system, keeps them in
// memory, and so does one that cannot have the directory to itself: with
// a shared store the data directory is not locked, so two front ends
// started with the same --data would otherwise build over each other's
// files. release gives the directory up.
func searchDir(cfg Config) (dir string, release func()) {
	if cfg.InMemory || cfg.FS != nil || cfg.DataDir == "" {
		return "", func() {}
	}
	dir = filepath.Join(cfg.DataDir, "search")
	if err := os.MkdirAll(dir, 0o755); err != nil {
		cfg.Logger.Warn("search indexes are kept in memory and rebuilt at each start: no directory for them", "err", err)
		return "", func() {}
	}
	if cfg.Store == "" {
		return dir, func() {} // the data directory's lock covers it
	}
	lock, err := lockDataDir(dir)
	if err != nil {
		cfg.Logger.Warn("search indexes are kept in memory and rebuilt at each start: another front end uses this data directory's", "err", err)
		return "", func() {}
	}
	return dir, lock.release
}

// documentSink writes an indexer's actions as one document batch.
func documentSink(svc *search.Service) indexer.Sink {
	return func(ctx context.Context, index string, actions []indexer.Action) ([]indexer.ItemResult, error) {
		batch := make([]search.IndexAction, len(actions))
		for i, a := range actions {
			batch[i] = search.IndexAction{Action: a.Action, Doc: a.Doc}
		}
		res, err := svc.IndexDocuments(ctx, index, batch)
		if err != nil {
			return nil, err
		}
		out := make([]indexer.ItemResult, len(res))
		for i, r := range res {
			out[i] = indexer.ItemResult{Key: r.Key, Status: r.Status, StatusCode: r.StatusCode, ErrorMessage: r.ErrorMessage}
		}
		return out, nil
	}
}

// runner is the engine as the Search handler calls it.
type runner struct{ *indexer.Engine }

func (r runner) Status(ctx context.Context, name string) (any, error) {
	return r.Engine.Status(ctx, name)
}

// WaitForIndexers returns once every Search indexer run started in the
// background has ended (indexer.Engine.Wait); at once without Search.
func (s *Server) WaitForIndexers() {
	if s.indexers != nil {
		s.indexers.Wait()
	}
}
