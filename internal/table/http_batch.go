package table

import (
	"errors"
	"net/http"
	"strconv"
	"strings"

	"github.com/cerulean-db/cerulean/internal/azauth"
	"github.com/cerulean-db/cerulean/internal/azerr"
	"github.com/cerulean-db/cerulean/internal/azhttp"
)

// batchOp is one parsed change set operation and how to answer it.
type batchOp struct {
	write     EntityWrite
	table     string
	level     metadataLevel
	noContent bool // Prefer: return-no-content (inserts)
	prefer    bool // a Prefer header was sent
	contentID string
}

// batch serves an entity-group transaction. The body is parsed, every
// operation checked (one table, one partition, each row once, each one
// authorized), and then all of them run in one kv transaction. Azure's
// answer is 202 with a multipart body; a failed operation is reported
// alone, its message prefixed with its 0-based index.
func (h *handler) batch(q *request) error {
	body, err := readBody(q.r, maxBody)
	if err != nil {
		return err
	}
	parts, changeset, err := parseBatch(q.r.Header.Get("Content-Type"), body)
	if errors.Is(err, errEmptyOperation) {
		return h.batchFailure(q, 0, parts[0], azerr.ErrInvalidInput)
	}
	if err != nil {
		return azerr.ErrInvalidInput.WithMessage("%s\n%v", azerr.ErrInvalidInput.Message, err)
	}
	if !changeset {
		return h.batchQuery(q, parts[0])
	}
	ops := make([]batchOp, len(parts))
	writes := make([]EntityWrite, len(parts))
	rows := make(map[string]bool, len(parts))
	for i, p := range parts {
		op, err := h.batchOperation(q, p)
		if err == nil && i > 0 {
			switch {
			case !strings.EqualFold(op.table, ops[0].table):
				err = azerr.ErrInvalidInput.WithMessage("All operations of a change set must act on one table.")
			case op.write.PartitionKey != ops[0].write.PartitionKey:
				err = azerr.ErrInvalidInput.WithMessage("All operations of a change set must act on one partition (PartitionKey %q, not %q).", ops[0].write.PartitionKey, op.write.PartitionKey)
			}
		}
		if err == nil && rows[op.write.RowKey] {
			err = azerr.ErrInvalidDuplicateRow
		}
		if err != nil {
			return h.batchFailure(q, i, p, err)
		}
		rows[op.write.RowKey] = true
		ops[i], writes[i] = op, op.write
	}
	written, err := h.svc.Batch(q.ctx(), q.acct, ops[0].table, writes)
	if be := (*BatchError)(nil); errors.As(err, &be) {
		return h.batchFailure(q, be.Index, parts[be.Index], be.Err)
	}
	if err != nil {
		return err
	}
	responses := make([]*partResponse, len(ops))
	for i, op := range ops {
		responses[i] = h.batchSuccess(q, op, written[i])
	}
	return writeBatch(q, true, responses)
}

// batchOperation turns one part into a write, checking what can be
// checked without the store.
func (h *handler) batchOperation(q *request, p batchPart) (batchOp, error) {
	method, err := tunnelledMethod(p.method, p.header.Values("X-Http-Method"))
	if err != nil {
		return batchOp{}, err
	}
	acct, rest := splitPath(azhttp.AccountPath(p.url, h.accounts))
	if acct != q.acct {
		return batchOp{}, azerr.ErrInvalidInput.WithMessage("An operation addresses account %q, not %q.", acct, q.acct)
	}
	res, err := parseResource(rest)
	if err != nil {
		return batchOp{}, err
	}
	op := batchOp{table: res.table, contentID: p.header.Get("Content-Id")}
	op.level, err = partFormat(p)
	if err != nil {
		return batchOp{}, err
	}
	op.noContent, op.prefer = preferNoContent(http.Header(p.header))
	cond, conditional, err := parseIfMatch(p.header.Get("If-Match"))
	if err != nil {
		return batchOp{}, err
	}
	switch {
	case res.kind == resEntities && method == http.MethodPost:
		op.write.Kind = WriteInsert
	case res.kind == resEntity && method == http.MethodPut:
		op.write.Kind = WriteInsertOrReplace
		if conditional {
			op.write.Kind = WriteReplace
		}
	case res.kind == resEntity && method == "MERGE":
		op.write.Kind = WriteInsertOrMerge
		if conditional {
			op.write.Kind = WriteMerge
		}
	case res.kind == resEntity && method == http.MethodDelete:
		if !conditional {
			return batchOp{}, azerr.MissingRequiredHeader("If-Match").WithMessage("%s\nDelete Entity requires If-Match.", azerr.ErrMissingRequiredHeader.Message)
		}
		op.write.Kind = WriteDelete
	default:
		return batchOp{}, azerr.ErrInvalidInput.WithMessage("%s on this resource is not an operation a change set may hold.", method)
	}
	op.write.IfMatch = cond
	op.write.PartitionKey, op.write.RowKey = res.pk, res.rk
	if op.write.Kind != WriteDelete {
		doc, err := parseEntityJSON(p.body)
		if err != nil {
			return batchOp{}, err
		}
		if op.write.Kind == WriteInsert {
			if !doc.HasPartitionKey || !doc.HasRowKey {
				return batchOp{}, azerr.ErrPropertiesNeedValue.WithMessage("The PartitionKey and RowKey properties need values.")
			}
			op.write.PartitionKey, op.write.RowKey = doc.PartitionKey, doc.RowKey
		}
		op.write.Properties = doc.Properties
	}
	if err := authorizeBatchOp(q, op.table, writeNeeds(op.write.Kind)...); err != nil {
		return batchOp{}, err
	}
	return op, checkKeys(q, op.write.PartitionKey, op.write.RowKey)
}

// authorizeBatchOp checks one operation against the caller's access; a
// table SAS covers only the table it was signed for.
func authorizeBatchOp(q *request, table string, needs ...azauth.Need) error {
	if q.access.Kind == azauth.AccessServiceSAS && !strings.EqualFold(table, q.q.Get("tn")) {
		return azerr.ErrAuthorizationFailure.WithMessage("%s\nThe shared access signature is for table %q.", azerr.ErrAuthorizationFailure.Message, q.q.Get("tn"))
	}
	return allowAll(needs...)(q.r, q.access)
}

// tunnelledMethod is effectiveMethod for a part's request line.
func tunnelledMethod(method string, xs []string) (string, error) {
	r := &http.Request{Method: method, Header: http.Header{}}
	for _, x := range xs {
		r.Header.Add("X-Http-Method", x)
	}
	return effectiveMethod(r)
}

// partFormat is responseFormat for a part.
func partFormat(p batchPart) (metadataLevel, error) {
	r := &http.Request{Header: http.Header(p.header)}
	return responseFormat(r, p.url.Query())
}

// batchSuccess renders one successful operation's answer.
func (h *handler) batchSuccess(q *request, op batchOp, e *Entity) *partResponse {
	p := &partResponse{}
	hdr := p.Header()
	hdr.Set("X-Content-Type-Options", "nosniff")
	hdr.Set("Cache-Control", "no-cache")
	if op.contentID != "" {
		hdr.Set("Content-Id", op.contentID)
	}
	if e == nil { // a delete
		hdr.Set("Dataserviceversion", "1.0;")
		p.status = http.StatusNoContent
		return p
	}
	hdr.Set("Etag", e.ETag())
	if op.write.Kind != WriteInsert {
		hdr.Set("Dataserviceversion", "1.0;")
		p.status = http.StatusNoContent
		return p
	}
	base := baseURL(q.r, q.acct)
	loc := base + entityPath(op.table, e.PartitionKey, e.RowKey)
	hdr.Set("Location", loc)
	hdr.Set("Dataserviceid", loc)
	hdr.Set("Dataserviceversion", "3.0;")
	if op.noContent {
		hdr.Set("Preference-Applied", "return-no-content")
		p.status = http.StatusNoContent
		return p
	}
	if op.prefer {
		hdr.Set("Preference-Applied", "return-content")
	}
	j := entityJSON{level: op.level, base: base, acct: q.acct, table: op.table, single: base + "$metadata#" + op.table + "/@Element"}
	hdr.Set("Content-Type", op.level.contentType())
	p.status = http.StatusCreated
	p.body = j.appendEntity(nil, e)
	return p
}

// batchFailure answers a change set whose operation index failed with
// err: 202, and a change set response holding only that failure, its
// message prefixed "index:" as Azure does.
func (h *handler) batchFailure(q *request, index int, p batchPart, err error) error {
	if se := azerr.StoreError(q.ctx(), err); se != nil {
		err = se
	}
	var e *azerr.Error
	if errors.As(err, &e) {
		err = e.WithMessage("%d:%s", index, e.Message)
	}
	part := &partResponse{}
	hdr := part.Header()
	hdr.Set("X-Content-Type-Options", "nosniff")
	hdr.Set("Cache-Control", "no-cache")
	hdr.Set("Dataserviceversion", "3.0;")
	if id := p.header.Get("Content-Id"); id != "" {
		hdr.Set("Content-Id", id)
	}
	// A failed insert still says which Prefer it honoured (recorded in
	// go-TestBatchError and go-aztables TestBatchErrorHandleResponse).
	if method, merr := tunnelledMethod(p.method, p.header.Values("X-Http-Method")); merr == nil && method == http.MethodPost {
		applyPreference(http.Header(p.header), hdr)
	}
	azhttp.WriteErrorJSON(part, q.r, err)
	return writeBatch(q, true, []*partResponse{part})
}

// batchQuery answers a batch holding one query: a point read of one
// entity, answered as the batch's only part.
func (h *handler) batchQuery(q *request, p batchPart) error {
	acct, rest := splitPath(azhttp.AccountPath(p.url, h.accounts))
	res, err := parseResource(rest)
	if err == nil && (acct != q.acct || res.kind != resEntity) {
		err = azerr.ErrInvalidInput.WithMessage("A query in a batch must read one entity of this account.")
	}
	level := minimalMetadata
	if err == nil {
		level, err = partFormat(p)
	}
	if err == nil {
		err = authorizeBatchOp(q, res.table, need('o', 'r'))
	}
	if err == nil {
		err = checkKeys(q, res.pk, res.rk)
	}
	var e *Entity
	if err == nil {
		e, err = h.svc.GetEntity(q.ctx(), q.acct, res.table, res.pk, res.rk)
	}
	part := &partResponse{}
	hdr := part.Header()
	hdr.Set("X-Content-Type-Options", "nosniff")
	hdr.Set("Cache-Control", "no-cache")
	hdr.Set("Dataserviceversion", "3.0;")
	if err != nil {
		azhttp.WriteErrorJSON(part, q.r, err)
		return writeBatch(q, false, []*partResponse{part})
	}
	base := baseURL(q.r, q.acct)
	j := entityJSON{level: level, base: base, acct: q.acct, table: res.table, single: base + "$metadata#" + res.table + "/@Element"}
	hdr.Set("Content-Type", level.contentType())
	hdr.Set("Etag", e.ETag())
	part.status = http.StatusOK
	part.body = j.appendEntity(nil, e)
	return writeBatch(q, false, []*partResponse{part})
}

// writeBatch sends the 202 multipart response.
func writeBatch(q *request, changeset bool, parts []*partResponse) error {
	b := boundary("batchresponse_")
	body := renderBatch(b, changeset, parts)
	hdr := q.w.Header()
	hdr.Set("Content-Type", "multipart/mixed; boundary="+b)
	hdr.Set("Content-Length", strconv.Itoa(len(body)))
	setODataHeaders(hdr)
	q.w.WriteHeader(http.StatusAccepted)
	_, _ = q.w.Write(body)
	return nil
}
