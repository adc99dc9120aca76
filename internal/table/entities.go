package table

import (
	"context"

	"github.com/cerulean-db/cerulean/internal/azhttp"
	"github.com/cerulean-db/cerulean/internal/kv"
)

// opKind is what an entity write does.
type opKind int

const (
	opInsert        opKind = iota // 409 EntityAlreadyExists if present
	opReplace                     // Update Entity: If-Match required
	opMerge                       // Merge Entity: If-Match required
	opInsertReplace               // Insert Or Replace: no concurrency check
	opInsertMerge                 // Insert Or Merge: no concurrency check
	opDelete                      // Delete Entity: If-Match required
)

func (k opKind) String() string {
	switch k {
	case opInsert:
		return "Insert Entity"
	case opReplace:
		return "Update Entity"
	case opMerge:
		return "Merge Entity"
	case opInsertReplace:
		return "Insert Or Replace Entity"
	case opInsertMerge:
		return "Insert Or Merge Entity"
	}
	return "Delete Entity"
}

// writeOp is one entity write, alone or inside a batch.
type writeOp struct {
	kind   opKind
	pk, rk string
	cond   ifMatch
	props  []Property
}

// applyWrite runs op inside tx on a table known to exist and returns the
// entity as written (nil after a delete). now is the commit time in
// ticks. A failed precondition returns an error, which aborts tx.
func (s *Service) applyWrite(tx kv.Txn, acct, table string, op writeOp, now int64) (*Entity, error) {
	key := entityKey(acct, table, op.pk, op.rk)
	var old *Entity
	var st storedEntity
	var err error
	if op.kind == opMerge || op.kind == opInsertMerge {
		old, st, err = loadEntity(tx, key, op.pk, op.rk)
	} else {
		st, err = loadHead(tx, key)
	}
	if err != nil {
		return nil, err
	}
	switch op.kind {
	case opInsert:
		if st.found {
			return nil, azhttp.ErrEntityAlreadyExists
		}
	case opReplace, opMerge, opDelete:
		if !st.found {
			return nil, azhttp.ErrResourceNotFound
		}
		if !op.cond.matches(st.version) {
			return nil, azhttp.ErrUpdateConditionNotSatisfied
		}
	}
	if op.kind == opDelete {
		return nil, removeEntity(tx, key, st)
	}
	e := &Entity{PartitionKey: op.pk, RowKey: op.rk, Version: tx.Version(), Timestamp: now}
	// Timestamp is server time, kept strictly increasing per entity so
	// that it orders an entity's versions even if the clock steps back.
	if st.found && e.Timestamp <= st.stamp {
		e.Timestamp = st.stamp + 1
	}
	if old != nil {
		e.Properties = old.Properties
		e.merge(op.props)
	} else {
		e.Properties = op.props
	}
	if err := e.validate(); err != nil {
		return nil, err
	}
	return e, storeEntity(tx, key, e, st)
}

// WriteEntity runs one entity write in its own transaction.
func (s *Service) WriteEntity(ctx context.Context, acct, table string, op writeOp) (*Entity, error) {
	var out *Entity
	err := s.store.Update(ctx, func(tx kv.Txn) error {
		if _, err := loadTable(tx, acct, table); err != nil {
			return err
		}
		var err error
		out, err = s.applyWrite(tx, acct, table, op, s.clock())
		return err
	})
	return out, err
}

// GetEntity returns one entity, or ResourceNotFound.
func (s *Service) GetEntity(ctx context.Context, acct, table, pk, rk string) (*Entity, error) {
	var out *Entity
	err := s.store.View(ctx, func(r kv.Reader) error {
		if _, err := loadTable(r, acct, table); err != nil {
			return err
		}
		e, _, err := loadEntity(r, entityKey(acct, table, pk, rk), pk, rk)
		if err != nil {
			return err
		}
		if e == nil {
			return azhttp.ErrResourceNotFound
		}
		out = e
		return nil
	})
	return out, err
}

// BatchError is a failed entity-group transaction: Index is the failing
// operation (0-based, as Azure reports it) and Err its error.
type BatchError struct {
	Index int
	Err   error
}

func (e *BatchError) Error() string { return e.Err.Error() }
func (e *BatchError) Unwrap() error { return e.Err }

// Batch applies ops, all on one partition of table, in one transaction:
// every operation takes effect or none does, and no reader ever sees a
// part of it. It returns the entity each operation wrote (nil for
// deletes), or a *BatchError naming the first operation that failed.
func (s *Service) Batch(ctx context.Context, acct, table string, ops []writeOp) ([]*Entity, error) {
	out := make([]*Entity, len(ops))
	err := s.store.Update(ctx, func(tx kv.Txn) error {
		if _, err := loadTable(tx, acct, table); err != nil {
			return &BatchError{Index: 0, Err: err}
		}
		now := s.clock()
		for i, op := range ops {
			e, err := s.applyWrite(tx, acct, table, op, now)
			if err != nil {
				return &BatchError{Index: i, Err: err}
			}
			out[i] = e
		}
		return nil
	})
	return out, err
}
