package kv

import "errors"

// KnownWriter is implemented by a Txn layer that reads a key before
// writing it only to learn what the write replaces (kv/usage counts the
// store's bytes that way). Told what the caller already knows, it skips
// that read. On PostgreSQL the read is more than a round trip: it
// predicate-locks the key's index page, and writers that append keys to
// one page (queue messages, numbered by version) then conflict with each
// other through locks none of them needed.
type KnownWriter interface {
	// Insert is Set of a key that holds nothing as the transaction sees it.
	Insert(key, value []byte) error
	// Remove is Delete of a key that holds a value of size bytes as the
	// transaction sees it.
	Remove(key []byte, size int) error
}

// Insert writes value under key, which the caller knows holds nothing as
// tx sees it: a key made unique by tx.Version(), or one the transaction
// has just deleted. On a plain Txn it is Set.
func Insert(tx Txn, key, value []byte) error {
	if k, ok := tx.(KnownWriter); ok {
		return k.Insert(key, value)
	}
	return tx.Set(key, value)
}

// OwningWriter is implemented by a Txn layer that can keep a value handed
// over to it instead of copying it. Set copies its value because a caller
// may reuse the slice; a transaction carrying megabytes of new content
// (an upload's chunks) otherwise holds that content twice, in the
// upload's buffer and in its writes, until it commits.
type OwningWriter interface {
	// InsertOwned is Insert of a value the transaction may keep as it is.
	InsertOwned(key, value []byte) error
}

// InsertOwned is Insert of a value that the caller hands over: from the
// call on, nothing changes value's bytes again (reading them stays
// allowed), so a transaction, and an engine after the commit, may keep
// value itself rather than a copy. On a Txn that cannot keep it, it is
// Insert.
func InsertOwned(tx Txn, key, value []byte) error {
	if o, ok := tx.(OwningWriter); ok {
		return o.InsertOwned(key, value)
	}
	return Insert(tx, key, value)
}

// Remove deletes key, which the caller knows holds a value of size bytes
// as tx sees it (one it read in this transaction and has not written
// since). On a plain Txn it is Delete.
func Remove(tx Txn, key []byte, size int) error {
	if k, ok := tx.(KnownWriter); ok {
		return k.Remove(key, size)
	}
	return tx.Delete(key)
}

// Creator is implemented by a Txn that can write a key on the condition
// that it holds nothing without reading it first: the engine checks the
// condition as the write reaches it, so concurrent creators of nearby
// keys do not meet through what they read (on PostgreSQL, a read of an
// absent key predicate-locks its index page).
type Creator interface {
	// Create is Insert of a key that must hold nothing: when it does,
	// Create, a later call of the transaction, or its Update's commit
	// fails with ErrExists, and nothing of the transaction is applied.
	Create(key, value []byte) error
}

// Create writes value under key, which must hold nothing: otherwise it
// fails with ErrExists, now or (on a Creator) as late as the commit, and
// the Update returns ErrExists with nothing applied. On a plain Txn it
// reads key, then Inserts.
func Create(tx Txn, key, value []byte) error {
	if c, ok := tx.(Creator); ok {
		return c.Create(key, value)
	}
	if _, err := tx.Get(key); err == nil {
		return ErrExists
	} else if !errors.Is(err, ErrNotFound) {
		return err
	}
	return Insert(tx, key, value)
}

// SharedReader is implemented by a Reader that can serve records most
// requests read and few write from memory instead of the engine.
type SharedReader interface {
	// GetShared is Get of such a record, with Get's snapshot and
	// conflict rules.
	GetShared(key []byte) ([]byte, error)
}

// GetShared reads key like r.Get. The caller says the record is one that
// nearly every request reads and few write — a container, a table, a
// queue, a share — so that an engine may answer it from memory; what the
// reader sees and what a transaction conflicts with are Get's. On a plain
// Reader it is Get.
func GetShared(r Reader, key []byte) ([]byte, error) {
	if s, ok := r.(SharedReader); ok {
		return s.GetShared(key)
	}
	return r.Get(key)
}

// RangeRemover is implemented by a Txn layer that reads what a range
// deletion removes only to learn how much it was (kv/usage). Told, it
// skips the read, which for a data object of gigabytes would outlast
// MaxTxnDuration.
type RangeRemover interface {
	// RemoveRange is DeleteRange of [start, end), which holds exactly
	// keys keys whose keys and values add up to bytes as the transaction
	// sees it, all of them pieces of content (chunks), none a record
	// that stands for an object of its own.
	RemoveRange(start, end []byte, keys, bytes int64) error
}

// RemoveRange deletes [start, end), which the caller knows holds keys
// keys of bytes bytes (keys and values), all chunks of content, as tx
// sees it. On a plain Txn it is DeleteRange.
func RemoveRange(tx Txn, start, end []byte, keys, bytes int64) error {
	if r, ok := tx.(RangeRemover); ok {
		return r.RemoveRange(start, end, keys, bytes)
	}
	return tx.DeleteRange(start, end)
}

// Reclaimer is implemented by a Txn whose store refuses writes while its
// volume is nearly full but admits transactions that only delete, since
// deleting is how space comes back (the embedded engine).
type Reclaimer interface {
	// SetReclaiming is Set of a small record that a deletion needs to
	// finish after its commit (what it registers to delete a piece at a
	// time): the transaction still counts as one that only deletes.
	SetReclaiming(key, value []byte) error
}

// SetReclaiming writes value under key as the bookkeeping of a deletion
// (Reclaimer), admitted on a nearly full volume as the deletion is. On a
// plain Txn it is Set.
func SetReclaiming(tx Txn, key, value []byte) error {
	if r, ok := tx.(Reclaimer); ok {
		return r.SetReclaiming(key, value)
	}
	return tx.Set(key, value)
}

// PickingScanner is implemented by a Txn whose scans can leave out of
// what the transaction has read the keys its caller passes over.
type PickingScanner interface {
	// ScanPicking is Scan, except that only the keys fn picks are read:
	// the transaction conflicts with a concurrent writer of a picked key
	// but not with one of another key in the range, nor with one that
	// adds a key to it.
	ScanPicking(start, end []byte, fn func(key, value []byte) (pick bool, err error)) error
}

// ScanPicking scans [start, end) of r as Scan does. On a PickingScanner
// only the keys fn picks are read; on any other Reader the whole range
// visited is, as with Scan. A caller that passes over keys other
// transactions are about to change (a queue's messages other consumers
// are taking) picks what it takes and does not conflict with them.
func ScanPicking(r Reader, start, end []byte, fn func(key, value []byte) (pick bool, err error)) error {
	if p, ok := r.(PickingScanner); ok {
		return p.ScanPicking(start, end, fn)
	}
	return r.Scan(start, end, func(k, v []byte) error {
		_, err := fn(k, v)
		return err
	})
}
