package table

import (
	"context"

	"github.com/cerulean-db/cerulean/internal/kv"
)

// Tx runs entity operations inside a transaction its caller owns: they
// see each other's writes and commit or roll back together with the
// caller's. The writes of a Tx share one tick of the ETag clock, taken
// at its first write, hence one ETag and Timestamp, unless the Tx writes
// an entity it already wrote: that write takes a new tick, which the
// later writes then share, so an entity's ETag still changes.
//
// A Tx must not be used after the transaction it was made from has ended.
type Tx struct {
	tx    kv.Txn
	clock *etagClock
	tick  uint64 // 0 until the first write
	// unreadInsert makes an Insert write the entity without first
	// reading its key (kv.Create): the write or the commit fails with
	// kv.ErrExists when the entity exists (Service.WriteEntity).
	unreadInsert bool
}

// In returns a Tx over tx.
func (s *Service) In(tx kv.Txn) *Tx { return &Tx{tx: tx, clock: s.etags} }

// stamp returns the tick of a write replacing an entity whose ETag and
// Timestamp are at most floor (0 for a new entity).
func (t *Tx) stamp(floor uint64) (uint64, error) {
	if t.tick > floor {
		return t.tick, nil
	}
	tick, err := t.clock.next(t.tx, floor)
	if err != nil {
		return 0, err
	}
	t.tick = tick
	return tick, nil
}

// Update runs fn in one kv transaction: fn's nil return commits every
// operation it ran, an error or a panic discards them all. On a conflict
// fn runs again on a fresh snapshot (and a fresh tick), so it
// must have no side effects outside the Tx.
func (s *Service) Update(ctx context.Context, fn func(*Tx) error) error {
	if err := s.etags.reserve(ctx, s.store); err != nil {
		return err
	}
	return s.store.Update(ctx, func(tx kv.Txn) error { return fn(s.In(tx)) })
}

// view runs read-only operations on a committed snapshot: a snapshot read
// never conflicts, so a query never runs twice however busy the table.
func (s *Service) view(ctx context.Context, fn func(*Tx) error) error {
	return s.store.View(ctx, func(r kv.Reader) error { return fn(s.In(kv.ReadOnly(r))) })
}
