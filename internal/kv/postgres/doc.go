// Package postgres is the kv contract on a PostgreSQL-wire database, for
// running several cerulean front ends over one shared store.
//
// Layout: one table cerulean_kv (k BYTEA PRIMARY KEY, v BYTEA), ordered by
// the key's bytes, so range scans are index range scans; a sequence
// cerulean_version for Txn.Version; and cerulean_meta holding the schema
// version, which Open creates, checks and refuses when newer.
//
// Transactions: Update runs each attempt as one SERIALIZABLE transaction.
// The database detects conflicts on the keys and the ranges read (its
// predicate locks cover index ranges, so phantoms conflict too) and aborts
// one side with SQLSTATE 40001; the attempt is then run again with
// backoff, for up to 30 s. Writes are queued and sent as one batch before
// the transaction's next read and at commit. View is one READ ONLY
// REPEATABLE READ transaction: a consistent snapshot. A commit is durable
// when PostgreSQL acknowledges it (synchronous_commit on, the default),
// and with a synchronous standby when the standby has it too.
//
// Version draws from the sequence: a transaction that committed before
// another began drew its value before that one can, on every front end.
//
// Portability: only statements that CockroachDB and YugabyteDB also
// accept are used — CREATE TABLE/SEQUENCE/SCHEMA IF NOT EXISTS, INSERT ...
// ON CONFLICT (k) DO UPDATE SET v = excluded.v, DELETE by key and by key
// range, SELECT ... ORDER BY k LIMIT n, nextval, and SERIALIZABLE /
// REPEATABLE READ READ ONLY transactions — no advisory locks, no
// extensions, no PostgreSQL-only types.
package postgres
