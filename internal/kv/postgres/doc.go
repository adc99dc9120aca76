// Package postgres is the kv contract on a PostgreSQL-wire database, for
// running several cerulean front ends over one shared store.
//
// Layout: one table cerulean_kv (k BYTEA PRIMARY KEY, v BYTEA), ordered by
// the key's bytes, so range scans are index range scans; a sequence
// cerulean_version for Txn.Version; cerulean_pending (seq, ver, j, i, v,
// created), where appends wait for their numbers; and cerulean_meta
// holding the schema version, which Open creates, migrates (1 to 2 adds
// cerulean_pending) and refuses when newer.
//
// Appends (Txn.Append) are numbered after commit. Under SERIALIZABLE,
// writers of one counter row abort each other (a row lock does not help:
// the waiter's snapshot predates the holder's commit), so an append
// writes each value to cerulean_pending under (sequence, the
// transaction's Version, the append's index, the value's index), which
// no other transaction writes: concurrent appenders of one sequence
// share no row. Txn.Settle, run by a reader of the log first (kv.Settle),
// numbers what waits, in version order, after the sequence's last
// number, copies the values to their numbered keys inside the database
// and deletes their rows, in one transaction; two Settles of one
// sequence conflict on its last number and one runs again. A
// transaction that committed before another began drew a smaller
// version, and a Settle that sees the later sees the earlier, so the
// dense numbers follow every dependency between writers; a reader that
// resumes after a number misses nothing and sees nothing twice. This is
// FoundationDB's versionstamp with the stamp (the version) turned into a
// dense number when the log is read. Took is never told a number.
//
// Transactions: Update runs each attempt as one SERIALIZABLE transaction.
// The database detects conflicts on the keys and the ranges read (its
// predicate locks cover index ranges, so phantoms conflict too) and aborts
// one side with SQLSTATE 40001; the attempt is then run again with
// backoff, for up to 30 s. Writes are queued and sent as one batch before
// the transaction's next read and at commit; consecutive Sets, or
// Deletes, are one statement over arrays of keys. View is one READ ONLY
// REPEATABLE READ transaction: a consistent snapshot. A commit is durable
// when PostgreSQL acknowledges it (synchronous_commit on, the default),
// and with a synchronous standby when the standby has it too.
//
// Version draws from the sequence: a transaction that committed before
// another began drew its value before that one can, on every front end.
//
// Portability: only statements that CockroachDB and YugabyteDB also
// accept are used — CREATE TABLE/SEQUENCE/SCHEMA IF NOT EXISTS, INSERT ...
// ON CONFLICT (k) DO UPDATE SET v = excluded.v (also from a SELECT),
// DELETE by key and by key range, SELECT ... ORDER BY k LIMIT n,
// UPDATE of cerulean_meta, nextval, and SERIALIZABLE /
// REPEATABLE READ READ ONLY transactions — no advisory locks, no
// extensions, no PostgreSQL-only types.
package postgres
