// Package indexer runs Azure AI Search indexers over this server's own
// data: it reads Blob containers, tables and Cosmos DB containers through
// their domain Services (never over HTTP), turns what changed since the
// last run into index actions, and hands them to a Sink, the document
// store's batch write.
//
// An Engine runs one indexer at a time per indexer name across every
// process sharing the store: a run starts by claiming the indexer in a kv
// transaction (a claim with an expiry, renewed after every batch), so two
// front ends, or the schedule loop and a manual run, never run it twice.
// Everything a run must remember lives in kv, not in memory:
//
//	"Si" name "s"        the indexer's state: high-water mark, run claim,
//	                     the result in progress, next scheduled run
//	"Si" name "h" ^n     result n of the execution history (newest first)
//
// Change detection is by high-water mark: a blob's Last-Modified, an
// entity's Timestamp (both always on, as Azure's blob and table indexers
// do) and a Cosmos item's _ts when the data source has a
// HighWaterMarkChangeDetectionPolicy. The mark advances after each batch
// the Sink accepted, so a rerun reads only what changed since. Soft
// deletes (SoftDeleteColumnDeletionDetectionPolicy on a column, or on blob
// metadata) become delete actions.
package indexer
