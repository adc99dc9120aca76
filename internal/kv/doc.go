// Package kv is the storage contract every service is written against: an
// ordered key-value store with serializable transactions. Engines
// implement Store; the services never see which one runs.
//
// View runs a closure against one consistent snapshot. Update runs a
// closure in a serializable transaction that reads its own writes: a nil
// return commits every write atomically, an error or a panic discards them
// all (the error is returned, the panic carries on). Each attempt gets a
// Version that is unique for the store's life, restarts included, and
// greater than that of every transaction committed before it began.
//
// Conflicts are detected optimistically at commit: a transaction conflicts
// with any concurrent commit that wrote a key it read or into a range it
// scanned (phantoms included; a Scan stopped early has read only up to
// where it stopped). Update then runs the closure again on a fresh
// snapshot, so the closure must have no effects outside the transaction:
// it registers them with Txn.OnCommit, which runs them once the attempt
// has committed and is durable. Only when retries run out does Update
// return ErrConflict. Other errors are never retried. Every engine runs
// its Updates through one retry loop, Retry.Transact.
//
// Logs that many writers add to (a Cosmos DB container's change log) are
// numbered by the store: Txn.Append writes values under keys numbered
// from a sequence, so that writers never read the counter and never
// conflict through it, while a reader that sees number n sees every
// number below it, and a transaction that committed before another began
// takes a smaller number. The embedded engines number at commit, under
// their commit lock, in commit order; PostgreSQL keeps the append
// unnumbered under the transaction's version (a versionstamp) and numbers
// it when a reader of the log settles it (Txn.Settle, kv.Settle), since
// SERIALIZABLE writers of one counter row abort each other there.
//
// Counts that many writers change (the bytes, records and objects each
// service stores, kept by kv/usage) are kept the same way: Txn.Add adds
// to a key's count at commit without reading it, so the writers do not
// conflict through the count; the embedded engines add under their
// commit lock, PostgreSQL with an upsert among the transaction's last
// statements.
//
// Scan callbacks return an error: any error stops the scan and Scan
// returns it unchanged; ErrStopScan stops it without one. ScanPicking
// lets a transaction read of a range only the keys it picks (a queue
// consumer the messages it takes), so that it does not conflict with
// writers of the keys it passed over; the embedded engines implement it
// (PickingScanner), on PostgreSQL it reads the range as Scan does.
//
// Durability: neither View nor Update returns before everything it
// observed or wrote is durable, so no response can show data that a crash
// could take back.
//
// Limits, the same in every engine so that a distributed engine could
// honour them too: keys up to MaxKeySize, values up to MaxValueSize, at
// most MaxTxnSize bytes written per transaction (ErrTooLarge), and an
// attempt that commits writes must do so within MaxTxnDuration of taking
// its snapshot (ErrTxnTooOld). Calls on a closed store return ErrClosed;
// Get of an absent key returns ErrNotFound.
//
// Engines: kv/pebble (durable, the default) and kv/memory (--in-memory),
// both on the optimistic transaction layer kv/occ; kv/kvtest is the
// conformance suite each must pass.
package kv
