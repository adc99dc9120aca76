package table

import (
	"context"
	"errors"
	"fmt"

	"github.com/cerulean-db/cerulean/internal/azerr"
	"github.com/cerulean-db/cerulean/internal/kv"
	"github.com/cerulean-db/cerulean/internal/table/odata"
)

// WriteKind is what an entity write does.
type WriteKind int

const (
	// WriteInsert is Insert Entity: 409 EntityAlreadyExists if present.
	WriteInsert WriteKind = iota
	// WriteReplace is Update Entity: the entity must exist and match If-Match.
	WriteReplace
	// WriteMerge is Merge Entity: the entity must exist and match If-Match.
	WriteMerge
	// WriteInsertOrReplace is Insert Or Replace Entity: no concurrency check.
	WriteInsertOrReplace
	// WriteInsertOrMerge is Insert Or Merge Entity: no concurrency check.
	WriteInsertOrMerge
	// WriteDelete is Delete Entity: the entity must exist and match If-Match.
	WriteDelete
)

func (k WriteKind) String() string {
	switch k {
	case WriteInsert:
		return "Insert Entity"
	case WriteReplace:
		return "Update Entity"
	case WriteMerge:
		return "Merge Entity"
	case WriteInsertOrReplace:
		return "Insert Or Replace Entity"
	case WriteInsertOrMerge:
		return "Insert Or Merge Entity"
	}
	return "Delete Entity"
}

// EntityWrite is one entity write, alone or inside a batch.
type EntityWrite struct {
	Kind                 WriteKind
	PartitionKey, RowKey string
	// IfMatch is the condition of WriteReplace, WriteMerge and WriteDelete;
	// the other kinds ignore it.
	IfMatch IfMatch
	// Properties replace (or, merging, overlay) the entity's; deletes
	// ignore them.
	Properties []Property
}

// Write runs w on a table that must exist and returns the entity as
// written (nil after a delete). A failed condition is an error, which
// the caller must let abort the transaction.
func (t *Tx) Write(acct, table string, w EntityWrite) (*Entity, error) {
	if err := checkTable(t.tx, acct, table); err != nil {
		return nil, err
	}
	key := entityKey(acct, table, w.PartitionKey, w.RowKey)
	var old *Entity
	var st storedEntity
	var err error
	switch {
	case w.Kind == WriteMerge || w.Kind == WriteInsertOrMerge:
		old, st, err = loadEntity(t.tx, key, w.PartitionKey, w.RowKey)
	case w.Kind == WriteInsert && t.unreadInsert:
		st.create = true // nothing read: storeEntity writes with kv.Create
	default:
		st, err = loadHead(t.tx, key)
	}
	if err != nil {
		return nil, err
	}
	switch w.Kind {
	case WriteInsert:
		if st.found {
			return nil, azerr.ErrEntityAlreadyExists
		}
	case WriteReplace, WriteMerge, WriteDelete:
		if !st.found {
			return nil, azerr.ErrResourceNotFound
		}
		if !w.IfMatch.matches(st.version) {
			if w.IfMatch.Unreadable {
				return nil, azerr.ErrConditionNotMet
			}
			return nil, azerr.ErrUpdateConditionNotSatisfied
		}
	}
	if w.Kind == WriteDelete {
		return nil, removeEntity(t.tx, key, st)
	}
	// The new tick must pass the entity's own: its ETag and Timestamp
	// change with every write, whatever the clock does.
	var floor uint64
	if st.found {
		floor = max(st.version, unixTicks(odata.TicksTime(st.stamp)))
	}
	tick, err := t.stamp(floor)
	if err != nil {
		return nil, err
	}
	e := &Entity{PartitionKey: w.PartitionKey, RowKey: w.RowKey, Version: tick, Timestamp: int64(tick) + unixEpochTicks}
	if old != nil {
		e.Properties = old.Properties
		e.merge(w.Properties)
	} else {
		e.Properties = w.Properties
	}
	if w.Kind != WriteInsert {
		sortProperties(e.Properties)
	}
	if err := e.validate(); err != nil {
		return nil, err
	}
	return e, storeEntity(t.tx, key, e, st)
}

// InsertEntity inserts an entity, or fails with EntityAlreadyExists.
func (t *Tx) InsertEntity(acct, table, pk, rk string, props []Property) (*Entity, error) {
	return t.Write(acct, table, EntityWrite{Kind: WriteInsert, PartitionKey: pk, RowKey: rk, Properties: props})
}

// UpdateEntity replaces the properties of an entity that exists and
// satisfies cond (Update Entity).
func (t *Tx) UpdateEntity(acct, table, pk, rk string, cond IfMatch, props []Property) (*Entity, error) {
	return t.Write(acct, table, EntityWrite{Kind: WriteReplace, PartitionKey: pk, RowKey: rk, IfMatch: cond, Properties: props})
}

// MergeEntity overlays props onto an entity that exists and satisfies
// cond (Merge Entity).
func (t *Tx) MergeEntity(acct, table, pk, rk string, cond IfMatch, props []Property) (*Entity, error) {
	return t.Write(acct, table, EntityWrite{Kind: WriteMerge, PartitionKey: pk, RowKey: rk, IfMatch: cond, Properties: props})
}

// InsertOrReplaceEntity writes the entity whether or not it exists,
// replacing its properties; it checks no condition.
func (t *Tx) InsertOrReplaceEntity(acct, table, pk, rk string, props []Property) (*Entity, error) {
	return t.Write(acct, table, EntityWrite{Kind: WriteInsertOrReplace, PartitionKey: pk, RowKey: rk, Properties: props})
}

// InsertOrMergeEntity writes the entity whether or not it exists,
// merging props into any it has; it checks no condition.
func (t *Tx) InsertOrMergeEntity(acct, table, pk, rk string, props []Property) (*Entity, error) {
	return t.Write(acct, table, EntityWrite{Kind: WriteInsertOrMerge, PartitionKey: pk, RowKey: rk, Properties: props})
}

// DeleteEntity removes an entity that exists and satisfies cond.
func (t *Tx) DeleteEntity(acct, table, pk, rk string, cond IfMatch) error {
	_, err := t.Write(acct, table, EntityWrite{Kind: WriteDelete, PartitionKey: pk, RowKey: rk, IfMatch: cond})
	return err
}

// GetEntity returns one entity, or ResourceNotFound.
func (t *Tx) GetEntity(acct, table, pk, rk string) (*Entity, error) {
	if err := checkTable(t.tx, acct, table); err != nil {
		return nil, err
	}
	e, _, err := loadEntity(t.tx, entityKey(acct, table, pk, rk), pk, rk)
	if err != nil {
		return nil, err
	}
	if e == nil {
		return nil, azerr.ErrResourceNotFound
	}
	return e, nil
}

// WriteEntity runs Tx.Write in a transaction of its own.
func (s *Service) WriteEntity(ctx context.Context, acct, table string, w EntityWrite) (*Entity, error) {
	var out *Entity
	err := s.Update(ctx, func(t *Tx) (err error) {
		// A single Insert does not read its key: on PostgreSQL that read
		// would lock the key's index page against inserts near it.
		t.unreadInsert = true
		out, err = t.Write(acct, table, w)
		return err
	})
	if errors.Is(err, kv.ErrExists) {
		err = azerr.ErrEntityAlreadyExists
	}
	if err != nil {
		return nil, fmt.Errorf("%s: %w", w.Kind, err)
	}
	return out, nil
}

// GetEntity runs Tx.GetEntity on a snapshot.
func (s *Service) GetEntity(ctx context.Context, acct, table, pk, rk string) (*Entity, error) {
	var out *Entity
	err := s.view(ctx, func(t *Tx) (err error) {
		out, err = t.GetEntity(acct, table, pk, rk)
		return err
	})
	if err != nil {
		return nil, fmt.Errorf("get entity: %w", err)
	}
	return out, nil
}

// BatchError is a failed entity-group transaction: Index is the failing
// operation (0-based, as Azure reports it) and Err its error.
type BatchError struct {
	Index int
	Err   error
}

func (e *BatchError) Error() string { return fmt.Sprintf("operation %d: %v", e.Index, e.Err) }
func (e *BatchError) Unwrap() error { return e.Err }

// Batch runs writes, all on one partition of table, in one transaction:
// every write takes effect or none does, and no reader ever sees a part
// of it. It returns the entity each write left (nil for deletes), or a
// *BatchError naming the first write that failed.
func (s *Service) Batch(ctx context.Context, acct, table string, writes []EntityWrite) ([]*Entity, error) {
	out := make([]*Entity, len(writes))
	err := s.Update(ctx, func(t *Tx) error {
		for i, w := range writes {
			e, err := t.Write(acct, table, w)
			if err != nil {
				return &BatchError{Index: i, Err: err}
			}
			out[i] = e
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("entity group transaction: %w", err)
	}
	return out, nil
}
