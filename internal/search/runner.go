package search

import "context"

// IndexerRunner runs indexers: package indexer's engine, which reads
// this server's Blob, Table and Cosmos data through their domain APIs and
// writes documents through IndexDocuments. The server connects it with
// UseIndexers; without one, indexer runs answer 501.
type IndexerRunner interface {
	// Start claims and runs an indexer in the background; one already
	// running answers 409.
	Start(ctx context.Context, name string) error
	// Reset forgets an indexer's high-water mark, so that its next run
	// reads everything again.
	Reset(ctx context.Context, name string) error
	// Status is the indexer's status, execution history included, in
	// the service's JSON shape.
	Status(ctx context.Context, name string) (any, error)
	// CheckDataSource validates a data source definition's connection
	// (accounts and keys of this server).
	CheckDataSource(ds *DataSource) error
}

// UseIndexers connects the indexer runner; call it before NewHandler.
func (s *Service) UseIndexers(r IndexerRunner) { s.indexers = r }
