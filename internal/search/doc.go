// Package search is the Azure AI Search service: indexes, synonym maps,
// data sources, indexers, skillsets and aliases over the kv store, served
// by NewHandler over the Search REST protocol (api-version 2024-07-01 and
// later, as @azure/search-documents sends it).
//
// Service is the domain: it validates definitions, fills in the defaults
// the real service returns (a field is retrievable unless told otherwise,
// and so on), refuses index updates Azure refuses, and keeps every
// definition with an ETag taken from the commit version of the
// transaction that wrote it, so equal ETags mean the same write.
//
// A definition is a Go type per kind (Index, SynonymMap, DataSource,
// Indexer, Skillset, Alias; the Definition interface), decoded with
// encoding/json after a walk of the request's JSON alongside the type
// refuses values of the wrong JSON type at their path. Analysis
// components and skills are tagged unions on @odata.type: one Go type per
// type, found in a small registry, and a catch-all for the rest. Each
// type's Validate answers the service's 400 naming the JSON path of the
// value at fault. map[string]any remains only for documents and for
// values Azure leaves free-form (indexer configuration, mapping function
// parameters, the properties of skills cerulean does not run).
//
// Text analysis runs in bleve. What bleve has (the standard, letter and
// whitespace tokenizers, the Lucene language analyzers, stop lists,
// light stemmers) is used as it is; the Lucene components Azure names
// that bleve lacks or orders differently (n-gram, path hierarchy and
// classic tokenizers, ASCII folding, shingles, Snowball stemming, word
// delimiting, common grams, pattern capture, the mapping char filter,
// …) are cerulean's own bleve tokenizers and token filters, registered
// under names of their own, each following the Lucene component's
// documented output. A predefined tokenizer or filter of that kind is
// added to an index's bleve mapping only when the index names it. A
// custom analyzer with a mapping char
// filter runs as an analyzer type of cerulean's own that maps token
// offsets back to the text given, as Lucene's char filters do; what
// cannot be reproduced exactly is refused with a 400 naming it.
//
// The service writes the properties of its answers in an order of its
// own, which cerulean follows as the recorded answers show it. Each
// definition type lists its fields in that order, and a resource's body
// is an ordered object (object) through the api-version shaping and
// $select, which insert what a version adds where the service puts it.
// Documents are written in the order of their index's fields (simple
// fields, then complex ones), after the result's annotations. Definitions
// stored by earlier releases (the same JSON, its properties sorted) read
// back unchanged and are answered in the service's order. The
// handler only translates the wire (api-key, api-version, If-Match /
// If-None-Match, Prefer, OData paths such as /indexes('name')) to one
// Service call.
//
// # Key layout
//
//	"Sr" kind name          one resource definition (record.Encode of stored):
//	                        kind is the collection's path segment ("indexes",
//	                        "synonymmaps", "datasources", "indexers",
//	                        "skillsets", "aliases"), name its name
//	"Sc" kind name i        chunk i of a definition too large for its
//	                        resource's value (kv/chunk layout); the
//	                        resource record then holds only its size
//	"Sd" index key          one document of an index (JSON), keyed by the
//	                        index name and the document's key value; the
//	                        source of truth the bleve index is derived from
//	"Sq" index              the index's change sequence: how many document
//	                        batches committed (8-byte big-endian)
//	"Sl" index seq key      change log: batch seq changed document key
//	"Si" indexer …          the indexer's run state and execution history,
//	                        laid out by package indexer under
//	                        IndexerStatePrefix
//
// Resource names are case-sensitive as stored, and Azure's naming rules
// allow only lower-case names for every kind, so two names never differ
// by case alone. A resource and its documents share the prefix of its
// name, so deleting an index removes its documents in the same
// transaction, as deleting an indexer removes its run state.
//
// # Documents and queries
//
// IndexDocuments applies a batch in one kv transaction that also reads
// the index definition (so it conflicts with a concurrent definition
// change) and bumps the index's change sequence, logging the keys it
// changed; the answer is sent only once the transaction is durable.
//
// The bleve index of each search index is derived from kv, which stays
// the source of truth. With Config.Dir (the server's <data>/search) it is
// a scorch index on disk, <dir>/<index>/<generation>, the generation
// naming the mapping version and the definition's ETag; every batch
// applied to it carries, in the same bleve batch, the change sequence it
// brings the index to, so what is on disk and its mark are persisted
// together or not at all. Without a Dir (--in-memory, a test file system)
// it is kept in memory. Before a query runs, the bleve index is brought up
// to the change sequence of the query's kv snapshot: by replaying the
// log past its mark, or, when the definition's ETag changed, the log was
// trimmed past the mark, kv is behind the mark or the directory is
// missing, damaged or unfinished, by rebuilding it from the documents (a
// rebuild first removes every other generation of the index). A restart
// therefore reopens the index and replays only the batches committed
// since its last persisted mark; StartCatchUp does the same in the
// background every half second and removes the directories of deleted
// indexes. So a query sees every batch acknowledged before it, also those
// another process wrote to the same store (each process keeps its own
// bleve indexes), and a restart after kill -9 loses nothing.
//
// Queries share a bleve index: each holds it under a read lock for its
// whole run, so that its several bleve searches see one state of it, and
// only bringing it up to date takes the lock exclusively. A query whose
// snapshot is older than the bleve index (another query caught it up
// meanwhile) runs again on a newer snapshot, which also holds every batch
// acknowledged before the query began.
//
// The text part of a search (with the $filter as a bleve filter) runs in
// bleve; the exact $filter predicate where bleve's is a superset,
// ordering, facets, vector queries (exact k-NN), hybrid RRF fusion,
// paging and projection run over the documents of the same snapshot. A
// search that needs nothing of its matches but its page and their count
// (no ordering, facets, scoring functions, highlights or vectors, and a
// $filter bleve answers exactly) keeps neither the matches nor their
// keys: a handler of bleve's search steps the filter's unscored searcher
// along the text's matches, counts those that pass and reads the keys
// of only the few that can be on the page (pagedHits). Otherwise every
// match is collected, and a $filter next to a text query is searched
// among the text's matches when they are a small part of the index, so
// that its cost follows them. Synonym maps and scoring
// profile text weights rewrite the parsed search before translation.
//
// Indexer runs are not served yet: the handler answers them 501
// NotImplemented in the service's error shape.
package search
