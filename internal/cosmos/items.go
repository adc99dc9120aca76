package cosmos

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"strings"

	"github.com/cerulean-db/cerulean/internal/conditions"
	"github.com/cerulean-db/cerulean/internal/kv"
)

// opKind is an item operation, named as in Cosmos DB's batch wire format.
type opKind string

const (
	opCreate  opKind = "Create"
	opUpsert  opKind = "Upsert"
	opReplace opKind = "Replace"
	opDelete  opKind = "Delete"
	opRead    opKind = "Read"
	opPatch   opKind = "Patch"
)

// itemOp is one operation on one item of a logical partition.
type itemOp struct {
	kind  opKind
	id    string
	doc   map[string]any // Create, Upsert, Replace
	patch *patchRequest  // Patch
	cond  conditions.Conditions
}

// opResult is an applied operation: its status and the item after it
// (before it, for Delete; nil when none).
type opResult struct {
	status int
	etag   string
	item   []byte
}

// partition applies item operations to one logical partition inside one
// kv transaction.
type partition struct {
	s   *Service
	c   *container
	pk  []string
	tx  kv.Txn
	ts  int64
	seq int // items created so far in this transaction, for unique _rids
}

// storedItem is an item as read from the store.
type storedItem struct {
	raw []byte
	doc map[string]any
}

func (p *partition) key(id string) []byte { return itemKey(p.c.db, p.c.id, p.pk, id) }

func (p *partition) get(id string) (*storedItem, error) {
	b, err := p.tx.Get(p.key(id))
	if errors.Is(err, kv.ErrNotFound) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	doc, err := decodeObject(b)
	if err != nil {
		return nil, err
	}
	if p.c.expired(doc, p.ts) {
		// Expired: gone for every purpose, so remove it now.
		if err := p.unindex(doc); err != nil {
			return nil, err
		}
		return nil, p.tx.Delete(p.key(id))
	}
	return &storedItem{raw: b, doc: doc}, nil
}

func (it *storedItem) etag() string {
	if it == nil {
		return ""
	}
	e, _ := it.doc["_etag"].(string)
	return e
}

func itemNotFound() *Error {
	return notFound("Entity with the specified id does not exist in the system.")
}

// apply runs one operation. A returned *Error is the operation's failure
// (the caller rolls the transaction back).
func (p *partition) apply(op itemOp) (opResult, error) {
	if op.kind == opCreate || op.kind == opUpsert || op.kind == opReplace {
		id, _ := op.doc["id"].(string)
		if op.kind == opReplace && id != op.id {
			return opResult{}, badRequest("The id in the body (%q) must match the id in the request (%q).", id, op.id)
		}
		op.id = id
	}
	if err := validID("item", op.id); err != nil {
		return opResult{}, err
	}
	old, err := p.get(op.id)
	if err != nil {
		return opResult{}, err
	}
	exists := old != nil
	switch op.kind {
	case opRead:
		if !exists {
			return opResult{}, itemNotFound()
		}
		if err := checkConditions(op.cond, conditions.Read, true, old.etag()); err != nil {
			return opResult{status: http.StatusNotModified, etag: old.etag()}, err
		}
		return opResult{status: http.StatusOK, etag: old.etag(), item: old.raw}, nil
	case opCreate:
		if exists {
			return opResult{}, conflict("Entity with the specified id already exists in the system.")
		}
		return p.write(op.doc, nil, http.StatusCreated)
	case opUpsert:
		if err := checkConditions(op.cond, conditions.Write, exists, old.etag()); err != nil {
			return opResult{}, err
		}
		if exists {
			return p.write(op.doc, old, http.StatusOK)
		}
		return p.write(op.doc, nil, http.StatusCreated)
	}
	// Replace, Delete and Patch need the item.
	if !exists {
		return opResult{}, itemNotFound()
	}
	if err := checkConditions(op.cond, conditions.Write, true, old.etag()); err != nil {
		return opResult{}, err
	}
	switch op.kind {
	case opReplace:
		return p.write(op.doc, old, http.StatusOK)
	case opPatch:
		doc, err := op.patch.apply(old.doc, p.c)
		if err != nil {
			return opResult{}, err
		}
		return p.write(doc, old, http.StatusOK)
	case opDelete:
		if err := p.unindex(old.doc); err != nil {
			return opResult{}, err
		}
		if err := p.tx.Delete(p.key(op.id)); err != nil {
			return opResult{}, err
		}
		return opResult{status: http.StatusNoContent, etag: old.etag()}, nil
	}
	return opResult{}, badRequest("The operation type %q is not supported.", op.kind)
}

// write stores doc as the new version of an item (old is its previous
// version, nil on create): it checks the partition key, sets the system
// properties and maintains the unique-key index.
func (p *partition) write(doc map[string]any, old *storedItem, status int) (opResult, error) {
	pk, err := p.c.partitionKeyOf(doc)
	if err != nil {
		return opResult{}, err
	}
	if !samePK(pk, p.pk) {
		return opResult{}, badRequest("PartitionKey extracted from document doesn't match the one specified in the header.")
	}
	id, _ := doc["id"].(string)
	stripItemSystem(doc)
	v := p.tx.Version()
	var rid string
	if old != nil {
		rid, _ = old.doc["_rid"].(string)
		if err := p.unindex(old.doc); err != nil {
			return opResult{}, err
		}
	} else {
		p.seq++
		rid = encodeRID(ridFromVersion(ridFromVersion(p.c.ridBytes, v, 6), uint64(p.seq), 2))
	}
	etag := etagOf(v)
	doc["_rid"] = rid
	doc["_self"] = p.c.rec.str("_self") + "docs/" + rid + "/"
	doc["_etag"] = etag
	doc["_attachments"] = "attachments/"
	doc["_ts"] = p.ts
	b, err := marshal(doc)
	if err != nil {
		return opResult{}, badRequest("The item cannot be encoded: %v", err)
	}
	if len(b) > kv.MaxValueSize-1000 {
		return opResult{}, tooLarge("Request size is too large: an item may be at most %d bytes in cerulean.", kv.MaxValueSize-1000)
	}
	if err := p.index(doc, id); err != nil {
		return opResult{}, err
	}
	if err := p.tx.Set(p.key(id), b); err != nil {
		return opResult{}, err
	}
	p.s.noteVersion(v)
	return opResult{status: status, etag: etag, item: b}, nil
}

// uniqueValues renders an item's values for unique key idx.
func (p *partition) uniqueValues(doc map[string]any, idx int) string {
	vals := make([]any, 0, len(p.c.unique[idx]))
	for _, path := range p.c.unique[idx] {
		v, _ := lookupPath(doc, path)
		vals = append(vals, v)
	}
	b, _ := json.Marshal(normalizeValue(vals))
	return string(b)
}

// normalizeValue turns json.Number into float64 so 1 and 1.0 collide.
func normalizeValue(v any) any {
	switch x := v.(type) {
	case json.Number:
		f, err := x.Float64()
		if err != nil {
			return x.String()
		}
		return f
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = normalizeValue(e)
		}
		return out
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			out[k] = normalizeValue(e)
		}
		return out
	}
	return v
}

func (p *partition) index(doc map[string]any, id string) error {
	for i := range p.c.unique {
		k := uniqueKey(p.c.db, p.c.id, p.pk, i, p.uniqueValues(doc, i))
		cur, err := p.tx.Get(k)
		if err == nil && string(cur) != id {
			// The holder may have expired; get removes it if so.
			holder, herr := p.get(string(cur))
			if herr != nil {
				return herr
			}
			if holder != nil {
				return conflict("Unique index constraint violation.")
			}
		}
		if err != nil && !errors.Is(err, kv.ErrNotFound) {
			return err
		}
		if err := p.tx.Set(k, []byte(id)); err != nil {
			return err
		}
	}
	return nil
}

func (p *partition) unindex(doc map[string]any) error {
	for i := range p.c.unique {
		if err := p.tx.Delete(uniqueKey(p.c.db, p.c.id, p.pk, i, p.uniqueValues(doc, i))); err != nil {
			return err
		}
	}
	return nil
}

// inPartition runs fn in one transaction on the logical partition named
// by the request's x-ms-documentdb-partitionkey header; when the header is
// absent, doc (the item a write carries) supplies the key.
func (s *Service) inPartition(q *request, db, coll string, doc map[string]any, fn func(*partition) error) error {
	hdr, ok, err := parsePartitionKeyHeader(q.r.Header.Get("x-ms-documentdb-partitionkey"))
	if err != nil {
		return err
	}
	return s.inPartitionKey(q.r.Context(), db, coll, hdr, ok, doc, fn)
}

// inPartitionKey is inPartition with the partition key given (ok=false
// when the request named none).
func (s *Service) inPartitionKey(ctx context.Context, db, coll string, hdr []string, ok bool, doc map[string]any, fn func(*partition) error) error {
	return s.store.Update(ctx, func(tx kv.Txn) error {
		c, err := loadContainer(tx, db, coll)
		if err != nil {
			return err
		}
		var pk []string
		if !ok && doc != nil {
			pk, err = c.partitionKeyOf(doc)
		} else {
			pk, err = c.requestPartitionKey(hdr, ok)
		}
		if err != nil {
			return err
		}
		return fn(&partition{s: s, c: c, pk: pk, tx: tx, ts: s.unixNow()})
	})
}

// runItemOp runs one operation in its own transaction and answers it.
func (s *Service) runItemOp(q *request, db, coll string, op itemOp) error {
	var res opResult
	sent := op.doc
	err := s.inPartition(q, db, coll, op.doc, func(p *partition) error {
		if sent != nil {
			op.doc = deepCopy(sent).(map[string]any) // a retry must see the request as sent
		}
		var err error
		res, err = p.apply(op)
		return err
	})
	if err != nil {
		if errors.Is(err, errNotModified) {
			q.w.Header().Set("etag", res.etag)
		}
		return err
	}
	q.w.Header().Set("etag", res.etag)
	q.w.Header().Set("x-ms-alt-content-path", "dbs/"+db+"/colls/"+coll)
	q.w.Header().Set("x-ms-content-path", "dbs/"+db+"/colls/"+coll)
	body := res.item
	if res.status == http.StatusNoContent || (op.kind != opRead && preferMinimal(q.r)) {
		body = nil
	}
	return s.writeJSON(q, res.status, body)
}

func preferMinimal(r *http.Request) bool {
	return strings.Contains(strings.ToLower(r.Header.Get("Prefer")), "return=minimal")
}

// bodyObject reads the request body as one JSON object.
func (s *Service) bodyObject(q *request) (map[string]any, error) {
	b, err := readBody(q.r)
	if err != nil {
		return nil, err
	}
	return decodeObject(b)
}

func (s *Service) createItem(q *request, db, coll string) error {
	doc, err := s.bodyObject(q)
	if err != nil {
		return err
	}
	kind := opCreate
	if strings.EqualFold(q.r.Header.Get("x-ms-documentdb-is-upsert"), "true") {
		kind = opUpsert
	}
	return s.runItemOp(q, db, coll, itemOp{kind: kind, doc: doc, cond: ifHeaders(q.r.Header)})
}

func (s *Service) replaceItem(q *request, db, coll, id string) error {
	doc, err := s.bodyObject(q)
	if err != nil {
		return err
	}
	return s.runItemOp(q, db, coll, itemOp{kind: opReplace, id: id, doc: doc, cond: ifHeaders(q.r.Header)})
}

func (s *Service) deleteItem(q *request, db, coll, id string) error {
	return s.runItemOp(q, db, coll, itemOp{kind: opDelete, id: id, cond: ifHeaders(q.r.Header)})
}

func (s *Service) patchItem(q *request, db, coll, id string) error {
	b, err := readBody(q.r)
	if err != nil {
		return err
	}
	pr, err := parsePatch(b)
	if err != nil {
		return err
	}
	return s.runItemOp(q, db, coll, itemOp{kind: opPatch, id: id, patch: pr, cond: ifHeaders(q.r.Header)})
}

// readItem reads from a snapshot (no transaction to commit).
func (s *Service) readItem(q *request, db, coll, id string) error {
	hdr, ok, err := parsePartitionKeyHeader(q.r.Header.Get("x-ms-documentdb-partitionkey"))
	if err != nil {
		return err
	}
	var raw []byte
	err = s.store.View(q.r.Context(), func(rd kv.Reader) error {
		c, err := loadContainer(rd, db, coll)
		if err != nil {
			return err
		}
		pk, err := c.requestPartitionKey(hdr, ok)
		if err != nil {
			return err
		}
		raw, err = rd.Get(itemKey(db, coll, pk, id))
		if errors.Is(err, kv.ErrNotFound) {
			return itemNotFound()
		}
		if err != nil {
			return err
		}
		if doc, err := decodeForQuery(raw); err != nil {
			return err
		} else if c.expired(doc, s.unixNow()) {
			return itemNotFound()
		}
		return nil
	})
	if err != nil {
		return err
	}
	var sys struct {
		ETag string `json:"_etag"`
	}
	if err := json.Unmarshal(raw, &sys); err != nil {
		return err
	}
	q.w.Header().Set("etag", sys.ETag)
	if err := checkConditions(ifHeaders(q.r.Header), conditions.Read, true, sys.ETag); err != nil {
		return err
	}
	q.w.Header().Set("x-ms-alt-content-path", "dbs/"+db+"/colls/"+coll)
	q.w.Header().Set("x-ms-content-path", "dbs/"+db+"/colls/"+coll)
	return s.writeJSON(q, http.StatusOK, raw)
}
