package queue

import (
	"context"
	"time"

	"github.com/cerulean-db/cerulean/internal/kv"
)

// Tx runs message operations inside a transaction its caller owns: they
// see each other's writes and commit or roll back together with the
// caller's. All of them share one request time, read when the Tx was made.
// Pop receipts carry the transaction's commit version, so within one Tx a
// receipt is superseded only by an operation that moves its message.
//
// A Tx must not be used after the transaction it was made from has ended.
type Tx struct {
	tx  kv.Txn
	now time.Time
	// puts counts the messages this Tx has put, so that each gets a Seq
	// of its own (see nextSeq).
	puts uint64
}

// seqShift leaves room in a Seq for the puts of one transaction: a
// message's Seq is its Put's commit version shifted left, plus its place
// among that transaction's puts. Two puts to one queue in one Tx would
// otherwise share visibility time and Seq, and so one key. Seqs stored
// before the shift (the bare version) still sort before every later one.
const seqShift = 20

// nextSeq is the Seq of the next message this Tx puts. kv.MaxTxnSize
// keeps a transaction well under 1<<seqShift puts (each writes over 64
// bytes), so the count never reaches the version's bits.
func (t *Tx) nextSeq() uint64 {
	seq := t.tx.Version()<<seqShift | t.puts
	t.puts++
	return seq
}

// In returns a Tx over tx, reading the clock once.
func (s *Service) In(tx kv.Txn) *Tx { return &Tx{tx: tx, now: s.clock()} }

// Update runs fn in one kv transaction: fn's nil return commits every
// operation it ran, an error or a panic discards them all. On a conflict
// fn runs again on a fresh snapshot (and a fresh clock reading), so it
// must have no side effects outside the Tx (kv.Txn.OnCommit is where
// those go).
func (s *Service) Update(ctx context.Context, fn func(*Tx) error) error {
	return s.store.Update(ctx, func(tx kv.Txn) error { return fn(s.In(tx)) })
}

// view runs read-only operations on a committed snapshot: a snapshot read
// never conflicts, so Peek Messages and Get Queue Metadata never run
// twice however busy the queue.
func (s *Service) view(ctx context.Context, fn func(*Tx) error) error {
	return s.store.View(ctx, func(r kv.Reader) error { return fn(s.In(kv.ReadOnly(r))) })
}
