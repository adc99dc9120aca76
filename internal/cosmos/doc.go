// Package cosmos serves the Azure Cosmos DB NoSQL (SQL) API gateway over the
// kv store: master-key auth, the database account, databases, containers,
// items with optimistic concurrency (_etag, If-Match, If-None-Match), JSON
// patch, transactional batch, the query endpoint (the query language
// itself is package query) and server-side JavaScript: stored procedures,
// triggers and user-defined functions (the runtime is package script).
//
// It has two layers. Service is the domain: databases, containers and
// items over kv, domain values in and out, failures as *Error values
// (ErrNotFound, ErrConflict, ErrPreconditionFailed, …). Item operations
// are methods of Tx, which runs them inside one kv transaction — the
// caller's (Service.In) or one of Service.Update's — so that a batch or a
// server-side script makes several of them commit or roll back together;
// Service's own item methods are each one such transaction. The handler
// (NewHandler) only translates the gateway protocol: it authenticates,
// parses headers and bodies, makes one Service call and writes the answer,
// mapping errors to the wire in one place (errors.go).
//
// Data model (keys built with package tuple, all under the tag "C"):
//
//	Cd db                                  database record
//	Cc db coll                             container record
//	Ci db coll pk1 … pkN id                item (JSON with system properties),
//	                                       or the head of a large one
//	Cj db coll pk1 … pkN id 0x01 n         piece n ≥ 1 of a large item
//	                                       (itembody.go: items up to 2 MB)
//	Cu db coll pk1 … pkN uniqueKey values  unique-key index entry → item id
//	Cs db coll kind id                     script record (kind: sprocs,
//	                                       triggers or udfs; JSON with "body")
//	Cx db coll path value pk… id           range index entry of the indexing
//	                                       policy's paths (rangeindex.go)
//	Cy db coll                             the range index's state: ready or
//	                                       building, and the policy it follows
//	Cq db coll                             the container's last change LSN
//	Cq db coll "avad"                      when its all-versions-and-deletes
//	                                       feed was last read (compaction.go)
//	Cf db coll lsn part                    change record (changelog.go)
//	Co db coll                             offer (throughput) of a container, or
//	                                       of the database when coll is ""
//	Cw db user                             user record
//	Cp db user perm                        permission record (its grant
//	                                       resolved to names)
//
// pk1 … pkN are the canonical JSON of each partition-key component (N is
// fixed per container: one, or up to three for hierarchical keys), so a
// logical partition — and every prefix of a hierarchical key — is one key
// range. Every item operation, and a whole transactional batch, is one kv
// transaction over that range: ACID per logical partition, as in Cosmos DB.
//
// Scripts run inside that transaction too. A stored procedure's run is one
// Service.Update over the partition the request names (scriptCollection
// gives the script the Tx's item operations, bound to that partition), so
// it commits whole or not at all and a conflict re-runs it; the triggers a
// write names run in the write's transaction (triggers.go); a query's
// udf.name() calls reach the script engine through the query.UDFs hook,
// reading each function from the query's snapshot. Scripts are stored next
// to their container's items (Cs …) and go with it.
//
// Every item write also appends a record to its container's change log
// in the same transaction, under the next LSN, which the store takes at
// commit or when the log is next settled (kv.Txn.Append, kv.Settle; the
// change feed, compaction and container deletion settle first): writers
// of a container do not conflict on Cq, and the change feed
// (changefeed.go), which resumes after an LSN, misses and repeats
// nothing.
// Feed ranges and x-ms-start-epk / x-ms-end-epk select items by effective
// partition key, hashed as the SDKs do (package epk); every container is
// one partition key range, "0", covering ["", "FF").
//
// Resources are addressed by names or by _rid (ridlinks.go resolves a
// rid-based link to names before routing), and a request is authorized by
// a master key or by a permission's resource token (tokens.go), which
// confines it to the permission's grant.
//
// An item's _etag is rendered from the commit version of the transaction
// that wrote it, so it changes on every write and two equal _etags mean the
// same version. Unique keys are enforced within a logical partition, as
// Cosmos DB does, by index entries written in the item's transaction.
package cosmos
