package cosmos

import (
	"context"
	"errors"
	"strings"
)

// OperationType is the kind of one operation of a batch, named as in
// Cosmos DB's batch format.
type OperationType string

// The operation types of a batch.
const (
	OperationCreate  OperationType = "Create"
	OperationUpsert  OperationType = "Upsert"
	OperationReplace OperationType = "Replace"
	OperationDelete  OperationType = "Delete"
	OperationRead    OperationType = "Read"
	OperationPatch   OperationType = "Patch"
)

// BatchOperation is one operation of a transactional batch or a bulk
// request.
type BatchOperation struct {
	Type OperationType
	// ID names the item of Replace, Delete, Read and Patch.
	ID string
	// Doc is the document of Create, Upsert and Replace.
	Doc []byte
	// Patch is the patch of Patch.
	Patch   *Patch
	Options ItemOptions
	// PartitionKey is the operation's own partition key in a bulk request
	// (a transactional batch has one for all).
	PartitionKey PartitionKey
}

// BatchResult is one operation's outcome: the item it wrote or read (for
// Delete, the item as it was), or its error (with the item when a read's
// condition failed, to name its ETag). Created tells an Upsert that created its item from one that
// replaced it.
type BatchResult struct {
	Item    *Item
	Created bool
	Err     error
}

// ErrBatchFailed is returned by ExecuteBatch when an operation failed, so
// that none was applied; the results name the failing operation's error
// and mark every other ErrFailedDependency.
var ErrBatchFailed = errors.New("cosmos: transactional batch failed")

// apply runs one batch operation on the partition pk names.
func (t *Tx) apply(db, coll string, pk PartitionKey, op BatchOperation) BatchResult {
	var r BatchResult
	switch op.Type {
	case OperationCreate:
		r.Item, r.Err = t.CreateItem(CollectionRef{DB: db, Coll: coll}, pk, op.Doc, op.Options)
		r.Created = r.Err == nil
	case OperationUpsert:
		r.Item, r.Created, r.Err = t.UpsertItem(CollectionRef{DB: db, Coll: coll}, pk, op.Doc, op.Options)
	case OperationReplace:
		r.Item, r.Err = t.ReplaceItem(ItemRef{CollectionRef: CollectionRef{DB: db, Coll: coll}, PartitionKey: pk, ID: op.ID}, op.Doc, op.Options)
	case OperationPatch:
		r.Item, r.Err = t.PatchItem(ItemRef{CollectionRef: CollectionRef{DB: db, Coll: coll}, PartitionKey: pk, ID: op.ID}, op.Patch, op.Options)
	case OperationDelete:
		r.Item, r.Err = t.DeleteItem(ItemRef{CollectionRef: CollectionRef{DB: db, Coll: coll}, PartitionKey: pk, ID: op.ID}, op.Options)
	case OperationRead:
		// A batch checks a read's id like a write's, where a point read
		// of an impossible id simply finds nothing.
		if r.Err = validID("item", op.ID); r.Err == nil {
			r.Item, r.Err = t.ReadItem(ItemRef{CollectionRef: CollectionRef{DB: db, Coll: coll}, PartitionKey: pk, ID: op.ID}, op.Options)
		}
	default:
		r.Err = badRequest("The operation type %q is not supported.", op.Type)
	}
	return r
}

// ExecuteBatch runs a transactional batch: every operation on the logical
// partition pk names, in one kv transaction. Either all commit, or an
// operation fails with an *Error and none does: then the results come with
// ErrBatchFailed. Any other error fails the whole request.
func (s *Service) ExecuteBatch(ctx context.Context, ref CollectionRef, pk PartitionKey, ops []BatchOperation) ([]BatchResult, error) {
	db, coll := ref.DB, ref.Coll
	if strings.TrimSpace(string(pk)) == "" {
		return nil, badRequest("A transactional batch must name its partition key in x-ms-documentdb-partitionkey.")
	}
	var results []BatchResult
	err := s.Update(ctx, func(t *Tx) error {
		// The container and partition key are the request's, not an
		// operation's: their errors fail the whole batch.
		if _, err := t.partition(db, coll, pk, nil); err != nil {
			return err
		}
		results = make([]BatchResult, len(ops))
		for i, op := range ops {
			r := t.apply(db, coll, pk, op)
			var ce *Error
			if errors.As(r.Err, &ce) {
				for j := range results {
					results[j] = BatchResult{Err: ErrFailedDependency}
				}
				results[i] = BatchResult{Err: ce}
				if errors.Is(ce, ErrNotModified) {
					results[i].Item = r.Item
				}
				return ErrBatchFailed
			}
			if r.Err != nil {
				return r.Err
			}
			results[i] = r
		}
		return nil
	})
	switch {
	case errors.Is(err, ErrBatchFailed):
		return results, ErrBatchFailed
	case err != nil:
		return nil, err
	}
	return results, nil
}

// ExecuteBulk runs a non-atomic batch (the SDKs' bulk mode): each
// operation in its own transaction on its own partition (op.PartitionKey,
// or its document's), with its conditions honoured exactly as a single
// request's. An operation's *Error is its result; unless o.ContinueOnError,
// the operations after the first failure are not run (ErrFailedDependency).
// Any other error fails the whole request.
func (s *Service) ExecuteBulk(ctx context.Context, ref CollectionRef, ops []BatchOperation, o BulkOptions) ([]BatchResult, error) {
	db, coll, continueOnError := ref.DB, ref.Coll, o.ContinueOnError
	results := make([]BatchResult, len(ops))
	failed := false
	for i, op := range ops {
		if failed && !continueOnError {
			results[i] = BatchResult{Err: ErrFailedDependency}
			continue
		}
		var r BatchResult
		err := s.Update(ctx, func(t *Tx) error {
			r = t.apply(db, coll, op.PartitionKey, op)
			return r.Err
		})
		var ce *Error
		switch {
		case errors.As(err, &ce):
			failed = true
			// A read whose condition failed still names the item's ETag.
			results[i] = BatchResult{Item: r.Item, Err: ce}
		case err != nil:
			return nil, err
		default:
			results[i] = r
		}
	}
	return results, nil
}
