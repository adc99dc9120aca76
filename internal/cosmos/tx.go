package cosmos

import (
	"context"
	"errors"

	"github.com/cerulean-db/cerulean/internal/conditions"
	"github.com/cerulean-db/cerulean/internal/kv"
)

// Tx runs item operations inside one kv transaction, the way a stored
// procedure or trigger does: every operation sees the ones before it, and
// all commit or roll back together with the transaction. Cosmos DB scopes
// such a transaction to one logical partition; the caller keeps to one.
//
// A Tx is not safe for concurrent use and must not outlive the
// transaction it was made for. Its methods return *Error values for
// failures of the operation (match them with errors.Is against ErrNotFound,
// ErrConflict, ErrPreconditionFailed, …) and the store's errors as they
// are; the caller decides whether to roll back.
type Tx struct {
	s  *Service
	rd kv.Reader
	// tx is nil for a snapshot read (Service's read-only operations): the
	// reads never write, so an expired item is skipped, not removed.
	tx kv.Txn
	// ts is the request time (Unix seconds) every operation of the
	// transaction uses, for _ts and time to live alike.
	ts int64
	// seq counts the items created so far, for unique _rids within one
	// commit version.
	seq        int
	containers map[[2]string]*container
	// ctx bounds the scripts the transaction runs (triggers, UDFs).
	ctx context.Context
	// superseded counts, per container, the change records this
	// transaction made garbage (compaction.go).
	superseded map[[2]string]int
	// lastLSNs are the change-log numbers this transaction took last,
	// per container.
	lastLSNs map[[2]string]uint64
	// unreadCreate makes CreateItem write the item without first reading
	// its id (kv.Create): the commit, or the write, fails with
	// kv.ErrExists when something is there (Service.CreateItem).
	unreadCreate bool
}

// In returns the item operations of tx, a transaction the caller owns and
// commits. The clock is read once, here.
func (s *Service) In(tx kv.Txn) *Tx {
	return &Tx{s: s, rd: tx, tx: tx, ts: s.unixNow(), ctx: context.Background()}
}

// Update runs fn in one kv transaction: a nil return commits every
// operation fn ran, an error (or a panic) discards them all. On a conflict
// with a concurrent commit fn runs again on a fresh snapshot, so it must
// have no side effects outside the Tx (kv.Txn.OnCommit is where those
// go).
func (s *Service) Update(ctx context.Context, fn func(*Tx) error) error {
	var t *Tx
	err := s.store.Update(ctx, func(tx kv.Txn) error {
		t = s.In(tx)
		t.ctx = ctx
		return fn(t)
	})
	if err == nil && len(t.superseded) > 0 {
		s.compactAfterCommit(ctx, t)
	}
	return err
}

// view runs read-only operations on a committed snapshot: reads need no
// commit, so they neither wait for one nor conflict with writers.
func (s *Service) view(ctx context.Context, fn func(*Tx) error) error {
	return s.store.View(ctx, func(rd kv.Reader) error {
		return fn(&Tx{s: s, rd: rd, ts: s.unixNow(), ctx: ctx})
	})
}

// container loads a container once per transaction: its definition cannot
// change under the transaction's snapshot.
func (t *Tx) container(db, coll string) (*container, error) {
	k := [2]string{db, coll}
	if c, ok := t.containers[k]; ok {
		return c, nil
	}
	c, err := t.s.loadContainer(t.rd, db, coll)
	if err != nil {
		return nil, err
	}
	if t.containers == nil {
		t.containers = make(map[[2]string]*container)
	}
	t.containers[k] = c
	return c, nil
}

// partition resolves the logical partition of a point operation: the one
// pk names or, when pk is empty and the operation carries a document
// (doc non-nil), the document's own.
func (t *Tx) partition(db, coll string, pk PartitionKey, doc map[string]any) (*partition, error) {
	hdr, ok, err := pk.components()
	if err != nil {
		return nil, err
	}
	c, err := t.container(db, coll)
	if err != nil {
		return nil, err
	}
	var comps []string
	if !ok && doc != nil {
		comps, err = c.partitionKeyOf(doc)
	} else {
		comps, err = c.requestPartitionKey(hdr, ok)
	}
	if err != nil {
		return nil, err
	}
	return &partition{t: t, c: c, pk: comps}, nil
}

// Preconditions are the ETag conditions of an operation, as the If-Match
// and If-None-Match headers carry them ("*" matches any version). Cosmos
// DB honours no date conditions.
type Preconditions struct {
	IfMatch     []string
	IfNoneMatch []string
}

func (p Preconditions) conditions() conditions.Conditions {
	return conditions.Conditions{IfMatch: p.IfMatch, IfNoneMatch: p.IfNoneMatch}
}

// ItemOptions are the options of one item operation. Create takes no
// precondition (an existing id is ErrConflict); a read whose IfNoneMatch
// matches answers ErrNotModified; every other failed condition is
// ErrPreconditionFailed.
//
// Triggers names the triggers a create, replace, upsert or delete runs
// around its write, in the same transaction (see Tx.triggered); a patch
// refuses them.
type ItemOptions struct {
	Preconditions
	Triggers TriggerNames
}

// untriggered is o without its triggers, for the write the triggers wrap.
func (o ItemOptions) untriggered() ItemOptions {
	o.Triggers = TriggerNames{}
	return o
}

// check maps a condition outcome to Cosmos DB's errors.
func (p Preconditions) check(kind conditions.Kind, exists bool, etag string) error {
	err := p.conditions().Check(kind, conditions.State{Exists: exists, ETag: etag})
	switch {
	case err == nil:
		return nil
	case errors.Is(err, conditions.ErrNotModified):
		return ErrNotModified
	case errors.Is(err, conditions.ErrAlreadyExists):
		return idTaken()
	default:
		return preconditionFailed()
	}
}

// checkWrite checks a write's conditions on the record a load returned,
// or passes the load's error on: pre.checkWrite(loadUser(tx, db, user)).
func (p Preconditions) checkWrite(r record, err error) error {
	if err != nil {
		return err
	}
	return p.check(conditions.Write, true, r.str("_etag"))
}
