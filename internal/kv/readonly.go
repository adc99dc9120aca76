package kv

import "errors"

// ErrReadOnly is returned by the writes of a ReadOnly transaction: a
// write that reaches a snapshot is a bug in the caller, never input.
var ErrReadOnly = errors.New("kv: write on a read-only snapshot")

// ReadOnly presents a View's Reader as a Txn whose writes fail with
// ErrReadOnly, whose Version is 0 and whose OnCommit runs its function at
// once (a snapshot has nothing to commit), so that a layer's read operations can
// run the same code inside a transaction and on a snapshot (a snapshot
// read never conflicts, so it never runs twice).
func ReadOnly(r Reader) Txn { return readOnly{r} }

type readOnly struct{ Reader }

func (readOnly) Set(_, _ []byte) error         { return ErrReadOnly }
func (readOnly) Delete([]byte) error           { return ErrReadOnly }
func (readOnly) DeleteRange(_, _ []byte) error { return ErrReadOnly }
func (readOnly) Append(Sequenced) error        { return ErrReadOnly }
func (readOnly) Add([]byte, int64) error       { return ErrReadOnly }
func (readOnly) Settle([]byte, func(uint64, int) []byte) (bool, error) {
	return false, ErrReadOnly
}
func (readOnly) Version() uint64    { return 0 }
func (readOnly) OnCommit(fn func()) { fn() }

// GetShared passes kv.GetShared on to the View's Reader.
func (r readOnly) GetShared(key []byte) ([]byte, error) { return GetShared(r.Reader, key) }
