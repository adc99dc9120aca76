package blob

import (
	"context"
	"time"

	"github.com/cerulean-db/cerulean/internal/kv"
)

// Tx runs item operations inside a kv transaction its caller owns, so that
// they commit or roll back together with everything else it does. Its
// methods take no context and never commit. The time they stamp on records
// and judge leases by is read once, when the Tx is made.
//
// Data objects of content written through a Tx are numbered by the
// transaction's version, so one transaction writes at most one payload per
// blob: a second PutBlob of the same blob replaces the first.
type Tx struct {
	r   kv.Reader // where reads go: tx, or a view's snapshot
	tx  kv.Txn    // nil in a view, which only reads
	now time.Time
	dp  dataProtection
}

// In returns the item operations of s bound to tx.
func (s *Service) In(tx kv.Txn) *Tx {
	return &Tx{r: tx, tx: tx, now: s.clock(), dp: s.dp}
}

// Update runs fn in one transaction: a nil return commits everything fn
// did through its Tx, an error or a panic discards all of it. On a
// conflict fn runs again on a fresh snapshot, so it must have no effects
// outside the Tx (kv.Txn.OnCommit is where those go).
func (s *Service) Update(ctx context.Context, fn func(*Tx) error) error {
	return s.store.Update(ctx, func(tx kv.Txn) error { return fn(s.In(tx)) })
}

// view runs fn on one committed snapshot. Reads need no transaction (and a
// snapshot never conflicts), so fn may call only the Tx's reading methods.
func (s *Service) view(ctx context.Context, fn func(*Tx) error) error {
	return s.store.View(ctx, func(r kv.Reader) error { return fn(&Tx{r: r, now: s.clock(), dp: s.dp}) })
}
