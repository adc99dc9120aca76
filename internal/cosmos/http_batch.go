package cosmos

import (
	"encoding/json"
	"errors"
	"net/http"
	"strings"
)

// maxBatchOperations is Cosmos DB's limit of operations in one
// transactional batch.
const maxBatchOperations = 100

// batchOperation is one operation of a transactional batch on the wire.
type batchOperation struct {
	OperationType string          `json:"operationType"`
	ID            string          `json:"id"`
	ResourceBody  json.RawMessage `json:"resourceBody"`
	IfMatch       string          `json:"ifMatch"`
	IfNoneMatch   string          `json:"ifNoneMatch"`
	// PartitionKey is the operation's own partition key (a JSON array in a
	// string), sent in bulk (non-atomic) batches.
	PartitionKey string `json:"partitionKey"`
}

// batchResult is one operation's outcome on the wire.
type batchResult struct {
	StatusCode    int             `json:"statusCode"`
	SubStatusCode int             `json:"subStatusCode,omitempty"`
	RequestCharge float64         `json:"requestCharge"`
	ETag          string          `json:"eTag,omitempty"`
	ResourceBody  json.RawMessage `json:"resourceBody,omitempty"`
	RetryAfter    int             `json:"retryAfterMilliseconds,omitempty"`
}

// parseBatch turns the wire operations into batch operations.
func parseBatch(b []byte) ([]BatchOperation, error) {
	var wire []batchOperation
	if err := json.Unmarshal(b, &wire); err != nil {
		return nil, badRequest("The batch request body must be a JSON array of operations.")
	}
	if len(wire) == 0 {
		return nil, badRequest("The batch request did not have any operations to be executed.")
	}
	if len(wire) > maxBatchOperations {
		return nil, badRequest("The batch request has more operations than the maximum allowed (%d).", maxBatchOperations)
	}
	ops := make([]BatchOperation, len(wire))
	for i, w := range wire {
		op := BatchOperation{Type: OperationType(w.OperationType), ID: w.ID, PartitionKey: PartitionKey(w.PartitionKey)}
		if w.IfMatch != "" {
			op.Options.IfMatch = []string{w.IfMatch}
		}
		if w.IfNoneMatch != "" {
			op.Options.IfNoneMatch = []string{w.IfNoneMatch}
		}
		switch op.Type {
		case OperationCreate, OperationUpsert, OperationReplace:
			if _, err := decodeObject(w.ResourceBody); err != nil {
				return nil, badRequest("Batch operation %d: the resource body must be a JSON object.", i)
			}
			op.Doc = w.ResourceBody
		case OperationPatch:
			p, err := ParsePatch(w.ResourceBody)
			if err != nil {
				return nil, err
			}
			op.Patch = p
		case OperationRead, OperationDelete:
		default:
			return nil, badRequest("Batch operation %d has an unknown operationType %q.", i, w.OperationType)
		}
		ops[i] = op
	}
	return ops, nil
}

// batch answers a transactional batch (all commit, 200, or none does, 207
// with the failing operation's status and 424 for the others) or, with
// x-ms-cosmos-batch-atomic false, a bulk request (207 when any operation
// failed).
func (h *handler) batch(q *request, db, coll string) error {
	b, err := readBody(q.r)
	if err != nil {
		return err
	}
	ops, err := parseBatch(b)
	if err != nil {
		return err
	}
	var results []BatchResult
	if v := q.r.Header.Get("X-Ms-Cosmos-Batch-Atomic"); v != "" && !strings.EqualFold(v, "true") {
		continueOnError := strings.EqualFold(q.r.Header.Get("X-Ms-Cosmos-Batch-Continue-On-Error"), "true")
		results, err = h.svc.ExecuteBulk(q.r.Context(), CollectionRef{DB: db, Coll: coll}, ops, BulkOptions{ContinueOnError: continueOnError})
	} else {
		results, err = h.svc.ExecuteBatch(q.r.Context(), CollectionRef{DB: db, Coll: coll}, partitionKey(q.r), ops)
	}
	if err != nil && !errors.Is(err, ErrBatchFailed) {
		return err
	}
	minimal := preferMinimal(q.r)
	status := http.StatusOK
	wire := make([]batchResult, len(results))
	for i, res := range results {
		wire[i] = batchResult{RequestCharge: 1}
		if res.Item != nil {
			wire[i].ETag = res.Item.ETag
		}
		if res.Err != nil {
			wire[i].StatusCode = h.resolve(q.r, res.Err).Status
			status = http.StatusMultiStatus
			continue
		}
		op := ops[i].Type
		wire[i].StatusCode = operationStatus(op, res.Created)
		if op != OperationDelete && (op == OperationRead || !minimal) {
			wire[i].ResourceBody = res.Item.Body
		}
	}
	return h.writeValue(q, status, wire)
}

// operationStatus is the status of a successful operation.
func operationStatus(op OperationType, created bool) int {
	switch {
	case op == OperationCreate || (op == OperationUpsert && created):
		return http.StatusCreated
	case op == OperationDelete:
		return http.StatusNoContent
	}
	return http.StatusOK
}
