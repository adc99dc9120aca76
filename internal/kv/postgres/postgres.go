package postgres

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"sort"
	"sync"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"

	"github.com/cerulean-db/cerulean/internal/kv"
)

// SchemaVersion is the layout of the tables this engine reads and writes.
// A database holding a newer one is refused at open.
// Version 2 added cerulean_pending, where appends wait for their
// numbers (a version 1 database gains it at open; a version 1 front end
// still running on it numbers its appends at commit, which the others'
// Settle respects).
const SchemaVersion = 2

// retry re-runs an Update's attempt that the database aborted as a
// serialization failure (or a deadlock).
func retry(now func() time.Time) kv.Retry {
	return kv.Retry{
		Conflict:     retryable,
		Budget:       30 * time.Second,
		FirstBackoff: 100 * time.Microsecond,
		MaxBackoff:   32 * time.Millisecond,
		Now:          now,
	}
}

// scanPage is how many rows one scan query fetches; a scan reads page by
// page so that the callback may write between pages on the same connection.
const scanPage = 256

// Options tune Open.
type Options struct {
	// Schema, when set, is the PostgreSQL schema (namespace) holding the
	// tables, created if missing; empty means the search_path of the
	// connection string (postgres://...?search_path=name), created if
	// missing too, or else the server's default.
	Schema string
	// MaxConns caps the connection pool; zero means 32, or pool_max_conns
	// from the connection string.
	MaxConns int32
}

// Store is the kv contract on a PostgreSQL-wire database.
type Store struct {
	pool     *pgxpool.Pool
	closed   atomic.Bool
	inflight sync.WaitGroup
	closeMu  sync.RWMutex
	now      func() time.Time
	retry    kv.Retry
	// observer, when set, receives commit measurements.
	observer atomic.Pointer[kv.Observer]
}

// Observe implements kv.Observable. The database syncs its own commits,
// so Synced is never reported.
func (s *Store) Observe(o kv.Observer) { s.observer.Store(&o) }

// Open connects to the database named by dsn (a postgres:// URL or a
// key=value connection string), creates or checks the schema and returns
// the store.
func Open(ctx context.Context, dsn string, o Options) (*Store, error) {
	cfg, err := pgxpool.ParseConfig(dsn)
	if err != nil {
		return nil, fmt.Errorf("postgres: connection string: %w", err)
	}
	if o.MaxConns > 0 {
		cfg.MaxConns = o.MaxConns
	} else if cfg.MaxConns < 32 {
		cfg.MaxConns = 32
	}
	if o.Schema == "" {
		// A search_path in the connection string names the schema.
		o.Schema = cfg.ConnConfig.RuntimeParams["search_path"]
	}
	if o.Schema != "" {
		cfg.ConnConfig.RuntimeParams["search_path"] = o.Schema
	}
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		return nil, fmt.Errorf("postgres: %w", err)
	}
	s := &Store{pool: pool, now: time.Now, retry: retry(time.Now)}
	if err := s.migrate(ctx, o.Schema); err != nil {
		pool.Close()
		return nil, err
	}
	return s, nil
}

// schemaStatements create the layout; each is idempotent.
var schemaStatements = []string{
	`CREATE TABLE IF NOT EXISTS cerulean_kv (k BYTEA PRIMARY KEY, v BYTEA NOT NULL)`,
	`CREATE SEQUENCE IF NOT EXISTS cerulean_version`,
	`CREATE TABLE IF NOT EXISTS cerulean_meta (name TEXT PRIMARY KEY, value TEXT NOT NULL)`,
	`INSERT INTO cerulean_meta (name, value) VALUES ('schema', '1') ON CONFLICT (name) DO NOTHING`,
	// Version 2: appends waiting for their numbers (Settle), one row per
	// value: the sequence, the appending transaction's version, the
	// append's index in it, the value's index (-1 for an append of no
	// value), the value, and the append's Created adds (encodeAdds).
	`CREATE TABLE IF NOT EXISTS cerulean_pending (seq BYTEA NOT NULL, ver BIGINT NOT NULL, j INT NOT NULL, i INT NOT NULL, v BYTEA NOT NULL, created BYTEA, PRIMARY KEY (seq, ver, j, i))`,
	`UPDATE cerulean_meta SET value = '2' WHERE name = 'schema' AND value = '1'`,
}

// migrate creates the schema when missing and refuses a newer one. Front
// ends starting together may race on CREATE ... IF NOT EXISTS, which can
// fail with a duplicate error in PostgreSQL; such a failure is retried.
func (s *Store) migrate(ctx context.Context, schema string) error {
	stmts := schemaStatements
	if schema != "" {
		stmts = append([]string{"CREATE SCHEMA IF NOT EXISTS " + pgx.Identifier{schema}.Sanitize()}, stmts...)
	}
	for _, stmt := range stmts {
		var err error
		for attempt := 1; attempt <= 5; attempt++ {
			if _, err = s.pool.Exec(ctx, stmt); err == nil || !duplicateDDL(err) {
				break
			}
			if err := s.retry.Backoff(ctx, attempt); err != nil {
				return err
			}
		}
		if err != nil {
			return fmt.Errorf("postgres: creating the schema (%s): %w", stmt, err)
		}
	}
	var v string
	if err := s.pool.QueryRow(ctx, `SELECT value FROM cerulean_meta WHERE name = 'schema'`).Scan(&v); err != nil {
		return fmt.Errorf("postgres: reading the schema version: %w", err)
	}
	var n int
	if _, err := fmt.Sscanf(v, "%d", &n); err != nil || n < 1 {
		return fmt.Errorf("postgres: the database holds an unreadable schema version %q", v)
	}
	if n > SchemaVersion {
		return fmt.Errorf("postgres: the database holds schema version %d, written by a newer cerulean; this one understands up to %d", n, SchemaVersion)
	}
	return nil
}

// duplicateDDL reports the errors a concurrent CREATE ... IF NOT EXISTS
// can raise.
func duplicateDDL(err error) bool {
	var pe *pgconn.PgError
	if !errors.As(err, &pe) {
		return false
	}
	switch pe.Code {
	case "23505", "42P07", "42710", "40001":
		return true
	}
	return false
}

// retryable reports a transaction the database aborted to keep it
// serializable: serialization failure or deadlock.
func retryable(err error) bool {
	var pe *pgconn.PgError
	if !errors.As(err, &pe) {
		return false
	}
	return pe.Code == "40001" || pe.Code == "40P01"
}

func (s *Store) enter() error {
	s.closeMu.RLock()
	defer s.closeMu.RUnlock()
	if s.closed.Load() {
		return kv.ErrClosed
	}
	s.inflight.Add(1)
	return nil
}

// View implements kv.Store: a read-only REPEATABLE READ transaction is one
// consistent snapshot.
func (s *Store) View(ctx context.Context, fn func(kv.Reader) error) error {
	if err := s.enter(); err != nil {
		return err
	}
	defer s.inflight.Done()
	// The snapshot is taken by a transaction's first statement, so one is
	// sent with BEGIN, in the same round trip: the view sees the store as
	// it was when View was called.
	tx, err := s.pool.BeginTx(ctx, pgx.TxOptions{BeginQuery: "BEGIN ISOLATION LEVEL REPEATABLE READ READ ONLY; SELECT 1"})
	if err != nil {
		return fmt.Errorf("postgres: begin: %w", err)
	}
	defer func() { _ = tx.Rollback(context.WithoutCancel(ctx)) }()
	t := &txn{ctx: ctx, tx: tx}
	if err := fn(t); err != nil {
		return err
	}
	return t.failed
}

// Update implements kv.Store: each attempt is one SERIALIZABLE transaction,
// which the database aborts when it conflicts with a concurrent commit on a
// key or a range it read; the attempt is then run again.
func (s *Store) Update(ctx context.Context, fn func(kv.Txn) error) error {
	if err := s.enter(); err != nil {
		return err
	}
	defer s.inflight.Done()
	var obs kv.Observer
	if o := s.observer.Load(); o != nil {
		obs = *o
	}
	return s.retry.Transact(ctx, obs, func(hooks *kv.Hooks) error { return s.attempt(ctx, hooks, fn) })
}

func (s *Store) attempt(ctx context.Context, hooks *kv.Hooks, fn func(kv.Txn) error) (err error) {
	tx, err := s.pool.BeginTx(ctx, pgx.TxOptions{IsoLevel: pgx.Serializable})
	if err != nil {
		return fmt.Errorf("postgres: begin: %w", err)
	}
	committed := false
	defer func() {
		if !committed {
			_ = tx.Rollback(context.WithoutCancel(ctx))
		}
	}()
	t := &txn{Hooks: hooks, ctx: ctx, tx: tx, began: s.now(), writable: true}
	ferr := fn(t)
	if t.failed != nil && (retryable(t.failed) || ferr == nil || errors.Is(t.failed, kv.ErrExists)) {
		// A statement failed inside fn; whatever fn made of the error,
		// the database's verdict decides (a serialization failure is
		// retried, a Create's key found taken is ErrExists).
		return t.failed
	}
	if ferr != nil {
		return ferr
	}
	if err := t.sequence(); err != nil {
		return err
	}
	t.add()
	if err := t.flush(); err != nil {
		return err
	}
	if s.now().Sub(t.began) > kv.MaxTxnDuration {
		return kv.ErrTxnTooOld
	}
	if err := tx.Commit(ctx); err != nil {
		if retryable(err) {
			return err
		}
		return fmt.Errorf("postgres: commit: %w", err)
	}
	committed = true
	return nil
}

// Close implements kv.Store.
func (s *Store) Close() error {
	s.closeMu.Lock()
	already := s.closed.Swap(true)
	s.closeMu.Unlock()
	if already {
		return nil
	}
	s.inflight.Wait()
	s.pool.Close()
	return nil
}

// txn is one attempt. Writes are queued and sent in one batch before the
// next read and at commit, so a transaction that writes many keys costs
// one round trip for them.
type txn struct {
	*kv.Hooks // nil in a View
	ctx       context.Context
	tx        pgx.Tx
	began     time.Time
	writable  bool
	pending   pgx.Batch
	run       writeRun
	size      int
	version   uint64
	failed    error
	appends   []kv.Sequenced
	// adds are the Txn.Add deltas by key, sent after the appends.
	adds map[string]int64
}

// fail remembers the first database error; once a statement has failed
// the transaction is aborted and every later call reports the same error.
func (t *txn) fail(err error) error {
	if t.failed == nil {
		t.failed = err
	}
	return t.failed
}

func (t *txn) flush() error {
	if t.failed != nil {
		return t.failed
	}
	t.endRun()
	if t.pending.Len() == 0 {
		return nil
	}
	err := t.tx.SendBatch(t.ctx, &t.pending).Close()
	t.pending = pgx.Batch{}
	if err != nil {
		if taken(err) {
			err = kv.ErrExists
		}
		return t.fail(err)
	}
	return nil
}

// taken reports a Create's insert that found its key holding a value.
// Every other write of cerulean_kv is an upsert, so only a Create can
// violate its primary key.
func taken(err error) bool {
	var pe *pgconn.PgError
	return errors.As(err, &pe) && pe.Code == "23505" && pe.TableName == "cerulean_kv"
}

// Create implements kv.Creator: a plain INSERT, sent with the other
// writes, which the primary key refuses when the key holds a value
// (ErrExists from then on). The key is not read, so the transaction
// takes no predicate lock on its index page: creators of nearby keys do
// not conflict. When the value was inserted by a transaction that has
// not committed, the database waits for it and then either inserts or
// refuses.
func (t *txn) Create(key, value []byte) error {
	if err := t.admit(key, value); err != nil {
		return err
	}
	t.queue(createSQL, clone(key), cloneValue(value))
	return nil
}

// queue adds a statement to the batch, after the writes before it.
func (t *txn) queue(sql string, args ...any) {
	t.endRun()
	t.pending.Queue(sql, args...)
}

// Consecutive Sets, or consecutive Deletes, go to the database as one
// statement over arrays of keys (and values) instead of one statement
// per key: a Cosmos item create writes its body and every index entry
// in a row, and each statement costs the database more than its row.
// A run ends at a write of the other kind or any other statement, so
// the writes keep their order.
type runKind uint8

const (
	runNone runKind = iota
	runUpsert
	runDelete
)

type writeRun struct {
	kind   runKind
	keys   [][]byte
	values [][]byte
}

// write adds one write to the current run, starting a new run when the
// kind changes.
func (t *txn) write(kind runKind, key, value []byte) {
	if t.run.kind != kind {
		t.endRun()
		t.run.kind = kind
	}
	t.run.keys = append(t.run.keys, key)
	if kind == runUpsert {
		t.run.values = append(t.run.values, value)
	}
}

// endRun queues the current run as one statement. Its keys go in key
// order, the last write of a key winning (a statement may not upsert one
// row twice), so that concurrent transactions lock rows in one order.
func (t *txn) endRun() {
	r := t.run
	t.run = writeRun{}
	switch {
	case r.kind == runNone:
	case len(r.keys) == 1 && r.kind == runUpsert:
		t.pending.Queue(upsertSQL, r.keys[0], r.values[0])
	case len(r.keys) == 1:
		t.pending.Queue(deleteSQL, r.keys[0])
	case r.kind == runUpsert:
		keys, values := lastWriteByKey(r.keys, r.values)
		t.pending.Queue(upsertManySQL, keys, values)
	default:
		keys, _ := lastWriteByKey(r.keys, nil)
		t.pending.Queue(deleteManySQL, keys)
	}
}

// lastWriteByKey returns keys sorted and without repeats, each with the
// value of its last write (values may be nil).
func lastWriteByKey(keys, values [][]byte) ([][]byte, [][]byte) {
	order := make([]int, len(keys))
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(a, b int) bool { return bytes.Compare(keys[order[a]], keys[order[b]]) < 0 })
	outK := make([][]byte, 0, len(keys))
	var outV [][]byte
	if values != nil {
		outV = make([][]byte, 0, len(keys))
	}
	for n, i := range order {
		if n+1 < len(order) && bytes.Equal(keys[i], keys[order[n+1]]) {
			continue // a later write of the same key wins
		}
		outK = append(outK, keys[i])
		if values != nil {
			outV = append(outV, values[i])
		}
	}
	return outK, outV
}

func (t *txn) Get(key []byte) ([]byte, error) {
	if err := t.flush(); err != nil {
		return nil, err
	}
	var v []byte
	err := t.tx.QueryRow(t.ctx, `SELECT v FROM cerulean_kv WHERE k = $1`, key).Scan(&v)
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, kv.ErrNotFound
	}
	if err != nil {
		return nil, t.fail(err)
	}
	if v == nil {
		v = []byte{}
	}
	return v, nil
}

type row struct{ k, v []byte }

func (t *txn) Scan(start, end []byte, fn func(key, value []byte) error) error {
	if start == nil {
		start = []byte{}
	}
	for {
		if err := t.flush(); err != nil {
			return err
		}
		var (
			rows pgx.Rows
			err  error
		)
		if end == nil {
			rows, err = t.tx.Query(t.ctx, `SELECT k, v FROM cerulean_kv WHERE k >= $1 ORDER BY k LIMIT $2`, start, scanPage)
		} else {
			rows, err = t.tx.Query(t.ctx, `SELECT k, v FROM cerulean_kv WHERE k >= $1 AND k < $2 ORDER BY k LIMIT $3`, start, end, scanPage)
		}
		if err != nil {
			return t.fail(err)
		}
		page := make([]row, 0, scanPage)
		for rows.Next() {
			var r row
			if err := rows.Scan(&r.k, &r.v); err != nil {
				rows.Close()
				return t.fail(err)
			}
			page = append(page, r)
		}
		rows.Close()
		if err := rows.Err(); err != nil {
			return t.fail(err)
		}
		for _, r := range page {
			if err := fn(r.k, r.v); err != nil {
				if errors.Is(err, kv.ErrStopScan) {
					return nil
				}
				return err
			}
		}
		if len(page) < scanPage {
			return nil
		}
		last := page[len(page)-1].k
		start = append(append(make([]byte, 0, len(last)+1), last...), 0)
	}
}

func (t *txn) account(n int) error {
	t.size += n
	if t.size > kv.MaxTxnSize {
		return kv.ErrTooLarge
	}
	return nil
}

// admit checks a write of key and value against the limits and counts
// it toward the transaction's size.
func (t *txn) admit(key, value []byte) error {
	if len(key) > kv.MaxKeySize || len(value) > kv.MaxValueSize {
		return kv.ErrTooLarge
	}
	return t.account(len(key) + len(value))
}

// cloneValue copies a value to be sent; nil is sent as empty (the value
// column is NOT NULL).
func cloneValue(v []byte) []byte {
	if v == nil {
		return []byte{}
	}
	return clone(v)
}

func (t *txn) Set(key, value []byte) error {
	if err := t.admit(key, value); err != nil {
		return err
	}
	t.write(runUpsert, clone(key), cloneValue(value))
	return nil
}

func (t *txn) Delete(key []byte) error {
	if len(key) > kv.MaxKeySize {
		return kv.ErrTooLarge
	}
	if err := t.account(len(key)); err != nil {
		return err
	}
	t.write(runDelete, clone(key), nil)
	return nil
}

func (t *txn) DeleteRange(start, end []byte) error {
	if err := t.account(len(start) + len(end)); err != nil {
		return err
	}
	if start == nil {
		start = []byte{}
	}
	if end == nil {
		t.queue(`DELETE FROM cerulean_kv WHERE k >= $1`, clone(start))
		return nil
	}
	t.queue(`DELETE FROM cerulean_kv WHERE k >= $1 AND k < $2`, clone(start), clone(end))
	return nil
}

// Version draws the next value of the database's sequence. A transaction
// that committed before this one began drew its value before that, so the
// value is greater than every such transaction's, on every front end.
func (t *txn) Version() uint64 {
	if t.version != 0 {
		return t.version
	}
	var v int64
	if err := t.tx.QueryRow(t.ctx, `SELECT nextval('cerulean_version')`).Scan(&v); err != nil {
		_ = t.fail(err)
		// The attempt is doomed (its commit reports the error); a value
		// that no committed transaction can have keeps callers going.
		return 0
	}
	t.version = uint64(v)
	return t.version
}

// Append implements kv.Txn: the appends are made as the transaction's
// last statements (sequence).
func (t *txn) Append(w kv.Sequenced) error {
	size := len(w.Seq) + 8
	for _, v := range w.Values {
		if len(v) > kv.MaxValueSize {
			return kv.ErrTooLarge
		}
		size += len(v) + len(w.Seq) + 16
	}
	if err := t.account(size); err != nil {
		return err
	}
	vals := make([][]byte, len(w.Values))
	for i, v := range w.Values {
		vals[i] = clone(v)
	}
	w.Seq, w.Values = clone(w.Seq), vals
	t.appends = append(t.appends, w)
	return nil
}

// sequence makes the appends, as the transaction's last statements:
// each value goes to cerulean_pending under (sequence, this transaction's
// version, the append's index, the value's index), a key no other
// transaction writes, so concurrent appenders to one sequence neither
// read nor write a common row and do not conflict. Settle numbers them
// later. Took is not called: the number is not known at commit.
func (t *txn) sequence() error {
	if len(t.appends) == 0 {
		return nil
	}
	ver := int64(t.Version())
	if t.failed != nil {
		return t.failed
	}
	for j, a := range t.appends {
		created := encodeAdds(a.Created)
		if len(a.Values) == 0 {
			t.queue(pendingSQL, a.Seq, ver, j, -1, []byte{}, created)
		}
		for i, v := range a.Values {
			if i > 0 {
				created = nil
			}
			t.queue(pendingSQL, a.Seq, ver, j, i, v, created)
		}
	}
	return nil
}

// pendingSQL keeps one value of an append until Settle numbers it.
const pendingSQL = `INSERT INTO cerulean_pending (seq, ver, j, i, v, created) VALUES ($1, $2, $3, $4, $5, $6)`

// Settle implements kv.Txn: it numbers the appends to seq waiting in
// cerulean_pending, in the order of their transactions' versions and
// then of their indexes (at most kv.SettleBatch of them), after the
// sequence's last number, moves their values to their numbered keys
// (inside the database: the values do not travel) and writes the last number. A transaction that committed
// before another began drew a smaller version, and a Settle that sees
// the later one sees the earlier one too, so the numbers follow every
// dependency between writers. Concurrent Settles of one sequence
// conflict (both write its last number): one runs again and finds
// nothing left, or what committed since.
func (t *txn) Settle(seq []byte, key func(n uint64, i int) []byte) (more bool, err error) {
	if !t.writable {
		return false, kv.ErrReadOnly
	}
	if err := t.flush(); err != nil {
		return false, err
	}
	// One row per value: a page of SettleBatch rows holds at most that
	// many appends; when it is full its last append may be cut, so it is
	// left to the next Settle, unless it is the only one (then its rows
	// are read whole).
	ws, err := t.waiting(`SELECT ver, j, i, created FROM cerulean_pending WHERE seq = $1 ORDER BY ver, j, i LIMIT $2`, seq, kv.SettleBatch)
	if err != nil || len(ws) == 0 {
		return false, err
	}
	if more = len(ws) == kv.SettleBatch; more {
		last := len(ws) - 1
		for last > 0 && ws[last-1].ver == ws[last].ver && ws[last-1].j == ws[last].j {
			last--
		}
		if last > 0 {
			ws = ws[:last]
		} else if ws, err = t.waiting(`SELECT ver, j, i, created FROM cerulean_pending WHERE seq = $1 AND ver = $2 AND j = $3 ORDER BY i`, seq, ws[0].ver, ws[0].j); err != nil {
			return false, err
		}
	}
	n, err := kv.SequenceValue(t.Get(seq))
	if err != nil {
		return false, err
	}
	seq = clone(seq)
	// The values are copied to their numbered keys first, then their
	// rows deleted: a batch runs in order.
	var settled []waiting
	for k, w := range ws {
		if k == 0 || w.ver != ws[k-1].ver || w.j != ws[k-1].j {
			n++
			settled = append(settled, w)
			if n == 1 {
				adds, err := decodeAdds(w.created)
				if err != nil {
					return false, err
				}
				for _, a := range adds {
					if err := t.Add(a.Key, a.Delta); err != nil {
						return false, err
					}
				}
			}
		}
		if w.i >= 0 {
			t.queue(settleSQL, key(n, int(w.i)), seq, w.ver, w.j, w.i)
		}
	}
	for _, w := range settled {
		t.queue(`DELETE FROM cerulean_pending WHERE seq = $1 AND ver = $2 AND j = $3`, seq, w.ver, w.j)
	}
	t.write(runUpsert, seq, binary.BigEndian.AppendUint64(nil, n))
	return more, t.flush()
}

// waiting is one value of an append in cerulean_pending, as Settle
// reads it.
type waiting struct {
	ver     int64
	j, i    int32
	created []byte
}

// waiting runs a query for waiting values.
func (t *txn) waiting(query string, args ...any) ([]waiting, error) {
	rows, err := t.tx.Query(t.ctx, query, args...)
	if err != nil {
		return nil, t.fail(err)
	}
	defer rows.Close()
	var ws []waiting
	for rows.Next() {
		var w waiting
		if err := rows.Scan(&w.ver, &w.j, &w.i, &w.created); err != nil {
			return nil, t.fail(err)
		}
		ws = append(ws, w)
	}
	if err := rows.Err(); err != nil {
		return nil, t.fail(err)
	}
	return ws, nil
}

// settleSQL copies one waiting value to its numbered key $1.
const settleSQL = `INSERT INTO cerulean_kv (k, v) SELECT $1, v FROM cerulean_pending WHERE seq = $2 AND ver = $3 AND j = $4 AND i = $5
ON CONFLICT (k) DO UPDATE SET v = excluded.v`

// encodeAdds encodes an append's Created adds for cerulean_pending: per
// add, the key's length (4 bytes, big endian), the key and the delta (8
// bytes); nil for none.
func encodeAdds(adds []kv.Addition) []byte {
	if len(adds) == 0 {
		return nil
	}
	var b []byte
	for _, a := range adds {
		b = binary.BigEndian.AppendUint32(b, uint32(len(a.Key)))
		b = append(b, a.Key...)
		b = binary.BigEndian.AppendUint64(b, uint64(a.Delta))
	}
	return b
}

func decodeAdds(b []byte) ([]kv.Addition, error) {
	var out []kv.Addition
	for len(b) > 0 {
		if len(b) < 4 {
			return nil, errors.New("postgres: malformed adds of a waiting append")
		}
		n := int(binary.BigEndian.Uint32(b))
		if len(b) < 4+n+8 {
			return nil, errors.New("postgres: malformed adds of a waiting append")
		}
		out = append(out, kv.Addition{Key: b[4 : 4+n], Delta: int64(binary.BigEndian.Uint64(b[4+n:]))})
		b = b[4+n+8:]
	}
	return out, nil
}

// Add implements kv.Txn: the adds are made as the transaction's last
// statements (add).
func (t *txn) Add(key []byte, delta int64) error {
	if len(key) > kv.MaxKeySize {
		return kv.ErrTooLarge
	}
	if t.adds == nil {
		t.adds = make(map[string]int64, 4)
	}
	if _, ok := t.adds[string(key)]; !ok {
		if err := t.account(len(key) + 8); err != nil {
			return err
		}
	}
	t.adds[string(key)] += delta
	return nil
}

// add queues the adds, last, so that the rows they lock stay locked
// for as short a time as the commit allows. Each goes to the count's
// shard of this connection (its server process): a connection runs one
// transaction at a time, so concurrent adders meet on a row only when
// their connections share a shard.
func (t *txn) add() {
	if len(t.adds) == 0 {
		return
	}
	shard := int(t.tx.Conn().PgConn().PID() % kv.CountShards)
	for key, delta := range t.adds {
		t.queue(addSQL, kv.CountKey([]byte(key), shard), delta)
	}
}

// addSQL adds $2 to the big-endian count at $1 without reading it first
// in the client: the database locks the row only for the rest of the
// transaction.
const addSQL = `INSERT INTO cerulean_kv AS c (k, v) VALUES ($1, int8send($2::bigint))
ON CONFLICT (k) DO UPDATE SET v = int8send(('x' || encode(c.v, 'hex'))::bit(64)::bigint + $2::bigint)`

// createSQL writes a key that must hold nothing.
const createSQL = `INSERT INTO cerulean_kv (k, v) VALUES ($1, $2)`

// deleteSQL deletes one key.
const deleteSQL = `DELETE FROM cerulean_kv WHERE k = $1`

// upsertManySQL writes the keys of $1 with the values of $2.
const upsertManySQL = `INSERT INTO cerulean_kv (k, v) SELECT * FROM unnest($1::bytea[], $2::bytea[])
ON CONFLICT (k) DO UPDATE SET v = excluded.v`

// deleteManySQL deletes the keys of $1.
const deleteManySQL = `DELETE FROM cerulean_kv WHERE k = ANY($1::bytea[])`

// upsertSQL writes one key.
const upsertSQL = `INSERT INTO cerulean_kv (k, v) VALUES ($1, $2) ON CONFLICT (k) DO UPDATE SET v = excluded.v`

func clone(b []byte) []byte { return append(make([]byte, 0, len(b)), b...) }
