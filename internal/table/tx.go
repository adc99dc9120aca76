package table

import (
	"context"

	"github.com/cerulean-db/cerulean/internal/kv"
)

// Tx runs entity operations inside a transaction its caller owns: they
// see each other's writes and commit or roll back together with the
// caller's. All writes of a Tx take their Timestamp from one clock
// reading, made with the Tx, and share one commit version, hence one ETag.
//
// A Tx must not be used after the transaction it was made from has ended.
type Tx struct {
	tx  kv.Txn
	now int64 // ticks
}

// In returns a Tx over tx, reading the clock once.
func (s *Service) In(tx kv.Txn) *Tx { return &Tx{tx: tx, now: s.clock()} }

// Update runs fn in one kv transaction: fn's nil return commits every
// operation it ran, an error or a panic discards them all. On a conflict
// fn runs again on a fresh snapshot (and a fresh clock reading), so it
// must have no side effects outside the Tx.
func (s *Service) Update(ctx context.Context, fn func(*Tx) error) error {
	return s.store.Update(ctx, func(tx kv.Txn) error { return fn(s.In(tx)) })
}

// view runs read-only operations on a committed snapshot: a snapshot read
// never conflicts, so a query never runs twice however busy the table.
func (s *Service) view(ctx context.Context, fn func(*Tx) error) error {
	return s.store.View(ctx, func(r kv.Reader) error { return fn(s.In(kv.ReadOnly(r))) })
}
