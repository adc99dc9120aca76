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
// Azure sends, with seven fractional digits and its colons escaped (%3A),
// and <time> is the entity's Timestamp: both render one tick of the ETag
// clock (etagclock.go), the server's UTC time at the write raised one
// tick past the last tick issued. Ticks are unique and increasing, across
// restarts too: the key
//
//	Tc                            ETag watermark: no committed tick reaches it
//
// is raised (one second ahead) in a transaction of its own before a
// write begins whenever the clock has come within half a second of it,
// and read back before the first write after a start, so that writes
// never read or write it and do not conflict through it; a write whose
// tick still reaches it raises it in its own transaction. So two versions of an entity — even across a delete and
// re-insert, a deleted and re-created table, a restart, or a clock
// stepping back — never share an ETag. If-Match takes "*" or one weak
// ETag and compares the tick exactly (parsing the ETag back); entities
// stored before ETags carried the time keep their version, a small
// counter rendered as a 1970 time, and still compare exactly.
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
