// Package usage keeps, in the store itself, how many bytes (keys and
// values), records (keys) and objects each storage service holds, so
// that reading them costs the same with ten objects or ten million.
//
// Store wraps a kv.Store. Each Update's writes under a service's prefix
// change its three counts in the same transaction, with kv.Txn.Add:
// writers never conflict through the counts, and the counts are exactly
// what the committed data makes of them, after a crash too. To know what
// a write replaces, the layer reads the key's current size in the
// transaction before writing it — unless the transaction has already read
// the key with Get or written it (the layer keeps those sizes), or the
// caller said what the key holds (kv.Insert, kv.Remove: on PostgreSQL a
// read of an absent key locks the index page where it would go) — and a
// range deletion is preceded by a scan of what it removes, unless the
// caller said what the range holds (kv.RemoveRange: a data object of
// gigabytes, read, would outlast kv.MaxTxnDuration). Serializability makes the
// sizes exact: a concurrent change to a key the layer read makes one of
// the transactions run again.
//
// A store written before the counts existed is counted once, in the
// background, page by page: each page is one transaction that adds what
// it scanned and moves a cursor, so a crash resumes where the last page
// ended. Meanwhile writes count only the keys before the cursor (the
// scan counts the rest as it reaches them), reading the cursor in their
// transaction so that a page that moves it past their keys makes them
// run again. An empty store starts counted. Scan counts by reading
// everything: the check that the counts are right.
package usage
