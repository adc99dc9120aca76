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

// errBatchFailed rolls a batch's transaction back once an operation failed.
var errBatchFailed = errors.New("batch operation failed")

// parseBatch turns the wire operations into item operations (and each
// one's own partition key, for bulk).
func parseBatch(b []byte) ([]itemOp, []string, error) {
	var wire []batchOperation
	if err := json.Unmarshal(b, &wire); err != nil {
		return nil, nil, badRequest("The batch request body must be a JSON array of operations.")
	}
	if len(wire) == 0 {
		return nil, nil, badRequest("The batch request did not have any operations to be executed.")
	}
	if len(wire) > maxBatchOperations {
		return nil, nil, badRequest("The batch request has more operations than the maximum allowed (%d).", maxBatchOperations)
	}
	ops := make([]itemOp, len(wire))
	pks := make([]string, len(wire))
	for i, w := range wire {
		pks[i] = w.PartitionKey
		op := itemOp{kind: opKind(w.OperationType), id: w.ID}
		if w.IfMatch != "" {
			op.cond.IfMatch = []string{w.IfMatch}
		}
		if w.IfNoneMatch != "" {
			op.cond.IfNoneMatch = []string{w.IfNoneMatch}
		}
		switch op.kind {
		case opCreate, opUpsert, opReplace:
			doc, err := decodeObject(w.ResourceBody)
			if err != nil {
				return nil, nil, badRequest("Batch operation %d: the resource body must be a JSON object.", i)
			}
			op.doc = doc
		case opPatch:
			pr, err := parsePatch(w.ResourceBody)
			if err != nil {
				return nil, nil, err
			}
			op.patch = pr
		case opRead, opDelete:
		default:
			return nil, nil, badRequest("Batch operation %d has an unknown operationType %q.", i, w.OperationType)
		}
		ops[i] = op
	}
	return ops, pks, nil
}

// batch runs a transactional batch: every operation on the request's
// logical partition in one kv transaction. All commit together (200), or
// none does (207: the failing operation's status, 424 for the others).
func (s *Service) batch(q *request, db, coll string) error {
	b, err := readBody(q.r)
	if err != nil {
		return err
	}
	ops, pks, err := parseBatch(b)
	if err != nil {
		return err
	}
	if v := q.r.Header.Get("x-ms-cosmos-batch-atomic"); v != "" && !strings.EqualFold(v, "true") {
		return s.bulk(q, db, coll, ops, pks)
	}
	if _, ok, _ := parsePartitionKeyHeader(q.r.Header.Get("x-ms-documentdb-partitionkey")); !ok {
		return badRequest("A transactional batch must name its partition key in x-ms-documentdb-partitionkey.")
	}
	minimal := preferMinimal(q.r)
	var results []batchResult
	err = s.inPartition(q, db, coll, nil, func(p *partition) error {
		results = make([]batchResult, len(ops))
		for i, op := range ops {
			if op.doc != nil {
				op.doc = deepCopy(op.doc).(map[string]any) // a retry must see the request as sent
			}
			res, err := p.apply(op)
			var ce *Error
			if errors.As(err, &ce) {
				for j := range results {
					results[j] = batchResult{StatusCode: http.StatusFailedDependency, RequestCharge: 1}
				}
				results[i] = batchResult{StatusCode: ce.Status, RequestCharge: 1}
				if ce.Status == http.StatusNotModified {
					results[i].ETag = res.etag
				}
				return errBatchFailed
			}
			if err != nil {
				return err
			}
			r := batchResult{StatusCode: res.status, RequestCharge: 1, ETag: res.etag}
			if res.item != nil && (op.kind == opRead || !minimal) {
				r.ResourceBody = res.item
			}
			results[i] = r
		}
		return nil
	})
	status := http.StatusOK
	switch {
	case errors.Is(err, errBatchFailed):
		status = http.StatusMultiStatus
	case err != nil:
		return err
	}
	return s.writeValue(q, status, results)
}

// bulk runs a non-atomic batch (the SDKs' bulk mode): each operation in
// its own transaction on its own partition, with its conditions honoured
// exactly as a single request's. Unless x-ms-cosmos-batch-continue-on-error
// is true, the operations after the first failure are not run (424).
func (s *Service) bulk(q *request, db, coll string, ops []itemOp, pks []string) error {
	continueOnError := strings.EqualFold(q.r.Header.Get("x-ms-cosmos-batch-continue-on-error"), "true")
	minimal := preferMinimal(q.r)
	results := make([]batchResult, len(ops))
	failed := false
	for i, op := range ops {
		if failed && !continueOnError {
			results[i] = batchResult{StatusCode: http.StatusFailedDependency, RequestCharge: 1}
			continue
		}
		hdr, ok, err := parsePartitionKeyHeader(pks[i])
		var res opResult
		if err == nil {
			sent := op.doc
			err = s.inPartitionKey(q.r.Context(), db, coll, hdr, ok, op.doc, func(p *partition) error {
				if sent != nil {
					op.doc = deepCopy(sent).(map[string]any)
				}
				var err error
				res, err = p.apply(op)
				return err
			})
		}
		var ce *Error
		switch {
		case errors.As(err, &ce):
			failed = true
			results[i] = batchResult{StatusCode: ce.Status, RequestCharge: 1, ETag: res.etag}
		case err != nil:
			return err
		default:
			r := batchResult{StatusCode: res.status, RequestCharge: 1, ETag: res.etag}
			if res.item != nil && (op.kind == opRead || !minimal) {
				r.ResourceBody = res.item
			}
			results[i] = r
		}
	}
	status := http.StatusOK
	if failed {
		status = http.StatusMultiStatus
	}
	return s.writeValue(q, status, results)
}
