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
// parameters, the properties of skills cerulean does not run). Responses
// are written from the types with their properties in sorted order, as
// the service writes them, and definitions stored by earlier releases (the
// same JSON, sorted) read back unchanged. The
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
//
// Resource names are case-sensitive as stored, and Azure's naming rules
// allow only lower-case names for every kind, so two names never differ
// by case alone. A resource and its documents share the prefix of its
// name, so deleting an index removes its documents in the same
// transaction.
//
// # Documents and queries
//
// IndexDocuments applies a batch in one kv transaction that also reads
// the index definition (so it conflicts with a concurrent definition
// change) and bumps the index's change sequence, logging the keys it
// changed; the answer is sent only once the transaction is durable.
//
// The bleve index of each search index is derived and in memory: before
// a query runs, it is brought up to the change sequence of the query's
// kv snapshot by replaying the log, or rebuilt from the documents when
// the definition's ETag changed, the log was trimmed past it or it was
// never built in this process; StartCatchUp does the same in the
// background every half second. So a query sees every batch acknowledged
// before it, also those another process wrote to the same store, and a
// restart after kill -9 loses nothing. The text part of a search (with
// the $filter as a bleve filter) runs in bleve; the exact $filter
// predicate where bleve's is a superset, ordering, facets, vector
// queries (exact k-NN), hybrid RRF fusion, paging and projection run
// over the documents of the same snapshot. Synonym maps and scoring
// profile text weights rewrite the parsed search before translation.
//
// Indexer runs are not served yet: the handler answers them 501
// NotImplemented in the service's error shape.
package search
