// Package table serves Azure's Table REST protocol (OData v3 JSON) over
// the kv store.
//
// Data model (keys built with package tuple, all under the tag "T"):
//
//	Ta acct p                     service properties (XML document as JSON)
//	Ta acct t table               table record: name as created, ACL
//	Ta acct e table pk rk         entity head: chunk count + first chunk
//	Ta acct e table pk rk i       entity chunk i (i >= 1), for large entities
//
// Table names are case-insensitive, so table elements are lower-cased.
// Entities sort by PartitionKey, then RowKey: a partition is one
// contiguous key range, and a query whose $filter fixes PartitionKey
// scans that range only (package odata works out the range). An entity
// is one binary record (see codec.go) holding its commit version, its
// Timestamp and its typed properties; an entity may reach 1 MiB and a kv
// value 100 kB, so the record is cut into 64 KiB chunks stored right
// after the head.
//
// Transactions: every operation is one kv transaction, and an
// entity-group transaction ($batch) is one transaction for all its
// operations, so it applies completely or not at all and no reader sees
// it half done. Every entity operation reads the table record, so it
// conflicts with (and is ordered against) Delete Table.
//
// ETags and Timestamp. An entity's ETag is W/"datetime'<time>'", the form
// Azure sends, where <time> is the commit version of the write read as a
// count of 100 ns ticks after 1970-01-01T00:00:00Z, rendered with seven
// fractional digits and its colons escaped (%3A). Commit versions are
// unique and increasing for the life of the store, so two versions of an
// entity — even across a delete and re-insert, a deleted and re-created
// table, a restart, or a clock stepping back — never share an ETag, and
// If-Match compares versions exactly (parsing the ETag back). The
// Timestamp property is separate: the server's clock at commit, at 100 ns
// precision, raised when needed to stay strictly above the entity's
// previous Timestamp, so it increases with every write of an entity.
//
// Concurrency follows Azure: Update, Merge and Delete Entity require
// If-Match (an ETag, or * for last-writer-wins); Update and Merge without
// it are Insert Or Replace and Insert Or Merge, which check nothing.
//
// Layers: Service holds the table rules over the store and knows nothing
// of HTTP or OData; NewHandler's handler parses requests, authenticates
// them, makes one Service call and renders the answer. Entity operations
// are written once, on Tx, so that a caller can run several of them in one
// kv transaction (Service.Update, Service.In); an entity-group
// transaction is exactly that. Store failures pass through unmapped, for
// azhttp to answer.
package table
