package kv

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"time"
)

// Limits every engine enforces, chosen so that a FoundationDB or TiKV engine can
// honour the same contract.
const (
	// MaxKeySize bounds one key.
	MaxKeySize = 10_000
	// MaxValueSize bounds one value; payload bytes are chunked below it.
	MaxValueSize = 100_000
	// MaxTxnSize bounds the keys and values one transaction writes.
	MaxTxnSize = 10_000_000
	// MaxTxnDuration bounds the time from an Update attempt's snapshot to its commit.
	MaxTxnDuration = 5 * time.Second
)

var (
	// ErrNotFound is returned by Get for an absent key.
	ErrNotFound = errors.New("kv: key not found")
	// ErrConflict is returned by Update when a transaction kept conflicting
	// with concurrent commits until its retries ran out.
	ErrConflict = errors.New("kv: transaction conflict")
	// ErrExists is returned by Create, or by the Update whose commit
	// found the key a Create wrote already holding a value.
	ErrExists = errors.New("kv: key exists")
	// ErrTooLarge is returned when a key, value or transaction exceeds a limit.
	ErrTooLarge = errors.New("kv: key, value or transaction too large")
	// ErrTxnTooOld is returned when a transaction ran longer than MaxTxnDuration.
	ErrTxnTooOld = errors.New("kv: transaction too old")
	// ErrClosed is returned by every call on a closed store.
	ErrClosed = errors.New("kv: store closed")
	// ErrNoSpace is returned by a commit that writes while the data
	// volume has less free space than the store keeps in reserve; reads
	// and deletions go on, and writes resume once space is freed.
	ErrNoSpace = errors.New("kv: the data volume is nearly full")
	// ErrStopScan, returned by a Scan callback, ends the scan early
	// without an error: Scan returns nil.
	ErrStopScan = errors.New("kv: scan stopped")
)

// Reader reads one consistent snapshot of the store.
//
// Byte slices passed to Scan's callback are valid only during the call; Get
// returns a slice the caller owns. A Reader must not be used after the closure
// it was handed to has returned.
type Reader interface {
	// Get returns the value of key, or ErrNotFound.
	Get(key []byte) ([]byte, error)
	// Scan calls fn for every key in [start, end) in ascending order. A nil
	// end means "to the end of the keyspace". An error from fn stops the
	// scan: ErrStopScan makes Scan return nil, any other error is returned
	// unchanged (errors.Is and errors.As see it as fn returned it).
	// Inside an Update, only the part of the range actually visited counts as
	// read for conflict detection.
	Scan(start, end []byte, fn func(key, value []byte) error) error
}

// Writer buffers writes; they become visible to others atomically at commit.
type Writer interface {
	Set(key, value []byte) error
	Delete(key []byte) error
	// DeleteRange deletes every key in [start, end).
	DeleteRange(start, end []byte) error
}

// Txn is a serializable read-write transaction. Its reads observe its own
// writes. It conflicts with every concurrent commit that wrote a key or a
// range it read (phantom-safe).
type Txn interface {
	Reader
	Writer
	// Version returns this attempt's commit version: unique across the store's
	// life (restarts included) and greater than the version of every
	// transaction that committed before this one began.
	Version() uint64
	// OnCommit registers fn to run once this attempt has committed and
	// everything it wrote is durable, before Update returns: the place for
	// effects outside the store (waking waiters, notifying caches,
	// counting). fn never runs for an attempt that fails, rolls back or
	// loses a conflict (a retry starts with no registrations). Functions
	// run in the order registered, on the goroutine that called Update;
	// an attempt that wrote nothing commits too.
	OnCommit(fn func())
	// Append writes values under keys numbered from a sequence (see
	// Sequenced), the numbers taken at commit or by a later Settle.
	// Appending reads nothing: transactions that append to one sequence
	// do not conflict through it, and one that committed before another
	// began takes smaller numbers.
	Append(w Sequenced) error
	// Settle numbers the appends to seq that committed before this
	// transaction began and are not numbered yet, the oldest first and
	// at most SettleBatch of them, writing each one's values under
	// key(n, i) (the Key of the appends to seq) and seq's last number;
	// more reports that some were left for another Settle. On an engine
	// that numbers appends at commit there are none and it does nothing.
	// A reader of a sequence's log settles it first (kv.Settle) to see
	// every committed append; a transaction that deletes a sequence (Seq
	// and its keys) settles it first until nothing is left, so that no
	// append made before the deletion is numbered after it.
	Settle(seq []byte, key func(n uint64, i int) []byte) (more bool, err error)
	// Add adds delta to the count at key (see Count), at commit and
	// without reading it, after the transaction's own writes:
	// transactions that add to one count do not conflict through it, and
	// a reader sees the sum of every committed add. A transaction's own
	// reads do not see its adds. The count's keys (CountKey) are written
	// only by Add; Delete and DeleteRange clear them.
	Add(key []byte, delta int64) error
}

// Addition is one Txn.Add.
type Addition struct {
	Key   []byte
	Delta int64
}

// Sequenced is an append to a sequence. The append takes the
// sequence's next number n (one more than the last number taken, 1 for
// the first) and writes Values[i] under Key(n, i); the sequence's key
// Seq then holds n (8 bytes, big endian). The numbers of one sequence
// have no gaps, and a reader that sees the keys of number n sees those
// of every number below it: a log reader that resumes after a number
// misses nothing and sees nothing twice. Several appends of one
// transaction take consecutive numbers in the order they were made, and
// a transaction that committed before another began takes smaller
// numbers (so every dependency between writers is in the order).
//
// When the number is taken depends on the engine, and the conformance
// suite holds both to the rules above. The embedded engines take it at
// commit, under their commit lock, in commit order. PostgreSQL, where
// concurrent writers of one counter row abort each other under
// SERIALIZABLE, keeps the append unnumbered under (Seq, the
// transaction's Version, its index), a key no other transaction writes,
// and numbers the settled appends in version order when a reader asks
// (Txn.Settle): the FoundationDB versionstamp's idea, with the stamp
// turned into a dense number once the commit is settled.
//
// A transaction's own reads do not see its appends (they are made at
// commit), and a transaction must not also write Seq itself. The
// sequence's log is what the keys of its numbers make of it: appends
// are how writers that all add to one log stop conflicting on its
// counter. Key(n, i) must have one length for every n and sort after the
// keys of every number below n: kv/usage counts the keys before their
// numbers are known.
type Sequenced struct {
	Seq    []byte
	Key    func(n uint64, i int) []byte
	Values [][]byte
	// Took, when set, is told the number by an engine that takes it at
	// commit, before Update returns and only for the attempt that
	// commits; an engine that numbers appends later (Settle) never calls
	// it, so a caller may use it only as a hint.
	Took func(n uint64)
	// Created, when set, are adds (Txn.Add) made, at commit or by the
	// Settle that numbers the append, only for an append that takes
	// number 1, that is, that writes Seq where it was absent: how a layer
	// that counts the store's keys learns of a key that only the numbering
	// knows it creates.
	Created []Addition
}

// CountShards is how many keys a count that Txn.Add keeps may be spread
// over: an engine that locks rows (PostgreSQL) adds to the shard of the
// connection, so that concurrent adds to one count rarely meet on one
// row; the embedded engines, which add under their commit lock, keep
// each count in its shard 0. 255 (one key byte numbers the shards, and
// CountKey(key, CountShards) ends their scan): with 16 transactions
// adding at once, two meet on one row in about a third of the rounds,
// where 32 shards made that nearly certain, and each meeting is a
// serialization failure and a retry.
const CountShards = 255

// CountKey is the key of one shard of the count at key: key followed by
// the shard's byte.
func CountKey(key []byte, shard int) []byte {
	return append(append(make([]byte, 0, len(key)+1), key...), byte(shard))
}

// Count reads the count at key that Txn.Add keeps: the sum of its
// shards. Shard 0 is read with a point read, the others with one scan:
// an LSM engine keeps every overwritten version of a key until
// compaction, and a scan would step over all of them where a point read
// seeks straight to the newest; the embedded engines write shard 0 only,
// so the scan meets nothing there, and PostgreSQL answers it in one query.
func Count(r Reader, key []byte) (int64, error) {
	total, err := CountValue(r.Get(CountKey(key, 0)))
	if err != nil {
		return 0, err
	}
	err = r.Scan(CountKey(key, 1), CountKey(key, CountShards), func(_, v []byte) error {
		n, err := CountValue(v, nil)
		total += n
		return err
	})
	if err != nil {
		return 0, err
	}
	return total, nil
}

// CountValue decodes one shard of a count (0 when absent).
func CountValue(v []byte, err error) (int64, error) {
	if errors.Is(err, ErrNotFound) {
		return 0, nil
	}
	if err != nil {
		return 0, err
	}
	if len(v) != 8 {
		return 0, fmt.Errorf("kv: count value of %d bytes", len(v))
	}
	return int64(binary.BigEndian.Uint64(v)), nil
}

// SequenceValue decodes a sequence's stored last number (0 when absent).
func SequenceValue(v []byte, err error) (uint64, error) {
	if errors.Is(err, ErrNotFound) {
		return 0, nil
	}
	if err != nil {
		return 0, err
	}
	if len(v) != 8 {
		return 0, fmt.Errorf("kv: sequence value of %d bytes", len(v))
	}
	return binary.BigEndian.Uint64(v), nil
}

// Settle numbers the appends to seq committed so far (Txn.Settle), in a
// transaction of its own: what a reader of the sequence's log runs
// before reading it. A store that numbers appends at commit and says so
// (NumbersAtCommit) is left alone; on another it is an Update.
func Settle(ctx context.Context, s Store, seq []byte, key func(n uint64, i int) []byte) error {
	if a, ok := s.(NumbersAtCommit); ok && a.NumbersAppendsAtCommit() {
		return nil
	}
	for {
		more, err := Returning(ctx, s.Update, func(tx Txn) (bool, error) { return tx.Settle(seq, key) })
		if err != nil || !more {
			return err
		}
	}
}

// SettleAll settles seq in tx until nothing committed before tx began is
// left unnumbered: what a transaction that deletes the sequence runs
// first (after kv.Settle outside it, so that it has little left to do).
func SettleAll(tx Txn, seq []byte, key func(n uint64, i int) []byte) error {
	for {
		more, err := tx.Settle(seq, key)
		if err != nil || !more {
			return err
		}
	}
}

// SettleBatch bounds the appends one Txn.Settle numbers, so that a
// backlog (appends nobody read for long) is numbered in transactions
// that stay well under MaxTxnDuration and MaxTxnSize.
const SettleBatch = 512

// NumbersAtCommit is implemented by a store that may number appends at
// commit (the embedded engines), and by a wrapper of stores that asks
// the store it wraps: when NumbersAppendsAtCommit reports true, nothing
// ever waits for Settle, and kv.Settle skips its transaction.
type NumbersAtCommit interface {
	NumbersAppendsAtCommit() bool
}

// Store is the storage contract every engine implements.
//
// View and Update may run concurrently from many goroutines. Neither returns
// before everything it observed or wrote is durable (an engine never lets a
// response expose data that a crash could take back).
type Store interface {
	// View runs fn against a consistent committed snapshot.
	View(ctx context.Context, fn func(Reader) error) error
	// Update runs fn in a transaction. A nil return commits; an error or a
	// panic discards every write. On a conflict fn runs again on a fresh
	// snapshot, so fn must have no side effects outside the transaction:
	// those are registered with Txn.OnCommit.
	Update(ctx context.Context, fn func(Txn) error) error
	// Close releases the store; in-flight calls finish first.
	Close() error
}

// PrefixEnd returns the first key after every key that starts with prefix,
// or nil when no such key exists (prefix is all 0xff).
func PrefixEnd(prefix []byte) []byte {
	end := append([]byte(nil), prefix...)
	for i := len(end) - 1; i >= 0; i-- {
		if end[i] < 0xff {
			end[i]++
			return end[:i+1]
		}
	}
	return nil
}

// IsRetryable reports whether err is a conflict the caller may retry.
func IsRetryable(err error) bool { return errors.Is(err, ErrConflict) }

// DeletePrefixes deletes every key that starts with one of prefixes.
func DeletePrefixes[P ~[]byte](w Writer, prefixes ...P) error {
	for _, p := range prefixes {
		if err := w.DeleteRange(p, PrefixEnd(p)); err != nil {
			return err
		}
	}
	return nil
}

// Returning runs op in a transaction of any kind X through run (a store's
// Update, or a View over its own transaction type) and returns op's
// result, so that a caller need not capture it in the closure.
func Returning[X, T any](ctx context.Context, run func(context.Context, func(X) error) error, op func(X) (T, error)) (T, error) {
	var out T
	err := run(ctx, func(x X) error {
		var err error
		out, err = op(x)
		return err
	})
	return out, err
}
