package occ

// Snapshot is an engine's immutable read view.
type Snapshot interface {
	// Get returns the value of key or kv.ErrNotFound.
	Get(key []byte) ([]byte, error)
	// Scan visits [start, end) in ascending order until fn returns an
	// error, which it returns unchanged (kv.ErrStopScan included); a nil
	// end is unbounded. Slices are valid only during fn.
	Scan(start, end []byte, fn func(key, value []byte) error) error
	// Release frees the snapshot.
	Release()
}

// Engine is what a storage engine supplies to the Manager.
type Engine interface {
	// Snapshot returns a view of every write applied so far. The manager
	// calls it under its commit lock (shared), so no Apply runs meanwhile.
	Snapshot() Snapshot
	// Apply makes the writes visible atomically (range deletions first, then
	// point writes in order). It is called under the exclusive commit lock and
	// must not wait for durability; the returned func waits for it and is
	// called after the lock is released (nil means already durable).
	Apply(w *WriteSet) (wait func() error, err error)
	// LoadVersion returns the persisted version reservation (0 when none).
	LoadVersion() (uint64, error)
	// SaveVersion durably records a new version reservation.
	SaveVersion(v uint64) error
}
