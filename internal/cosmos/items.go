package cosmos

import (
	"context"
	"encoding/json"
	"errors"
	"slices"

	"github.com/cerulean-db/cerulean/internal/conditions"
	"github.com/cerulean-db/cerulean/internal/kv"
)

// Item is one stored item.
//
// Documents cross this API as JSON text ([]byte) both ways, rather than as
// map[string]any: script bindings hand over JSON.stringify output and
// JSON.parse what they get back, numbers keep the precision they were
// written with (an id-like 2^60 or 1.10 survives, as in Cosmos DB), and an
// operation that a conflict retries decodes its input afresh instead of
// reusing a map an earlier attempt changed.
type Item struct {
	ID   string
	RID  string // _rid
	Self string // _self
	ETag string // _etag, rendered from the commit version that wrote it
	TS   int64  // _ts, Unix seconds of that write
	// Body is the item as stored: the document with its system properties.
	Body []byte
}

func newItem(raw []byte, doc map[string]any) *Item {
	it := &Item{Body: raw}
	it.ID, _ = doc["id"].(string)
	it.RID, _ = doc["_rid"].(string)
	it.Self, _ = doc["_self"].(string)
	it.ETag, _ = doc["_etag"].(string)
	it.TS, _ = ttlNumber(doc["_ts"])
	return it
}

func itemNotFound() *Error {
	return notFound("Entity with the specified id does not exist in the system.")
}

// partition applies item operations to one logical partition of a
// container inside a Tx.
type partition struct {
	t  *Tx
	c  *container
	pk []string
}

// storedItem is an item as read from the store.
type storedItem struct {
	raw []byte
	doc map[string]any
}

func (it *storedItem) etag() string {
	if it == nil {
		return ""
	}
	e, _ := it.doc["_etag"].(string)
	return e
}

func (it *storedItem) item() *Item { return newItem(it.raw, it.doc) }

func (p *partition) key(id string) []byte { return itemKey(p.c.db, p.c.id, p.pk, id) }

// get reads an item; nil when absent or expired.
func (p *partition) get(id string) (*storedItem, error) {
	b, err := p.t.rd.Get(p.key(id))
	if errors.Is(err, kv.ErrNotFound) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	if b, err = itemBody(p.t.rd, p.key(id), b); err != nil {
		return nil, err
	}
	doc, err := decodeObject(b)
	if err != nil {
		return nil, err
	}
	if p.c.expired(doc, p.t.ts) {
		if p.t.tx == nil {
			return nil, nil
		}
		// Expired: gone for every purpose, so remove it now.
		if err := p.unindex(doc); err != nil {
			return nil, err
		}
		if err := p.recordChange(opDelete, id, b, true); err != nil {
			return nil, err
		}
		return nil, deleteItemBody(p.t.tx, p.key(id))
	}
	return &storedItem{raw: b, doc: doc}, nil
}

// write stores doc as the new version of an item (old is its previous
// version, nil on create): it checks the partition key, sets the system
// properties and maintains the unique-key index.
func (p *partition) write(doc map[string]any, raw []byte, old *storedItem) (*Item, error) {
	if old == nil {
		return p.put(doc, raw, nil, bodyFresh)
	}
	return p.put(doc, raw, old, bodyReplaces)
}

// put is write with the body stored as mode says. raw is the body doc was
// decoded from, as the client sent it (nil for a body the server made):
// its properties keep their order (orderedBody).
func (p *partition) put(doc map[string]any, raw []byte, old *storedItem, mode bodyMode) (*Item, error) {
	pk, err := p.c.partitionKeyOf(doc)
	if err != nil {
		return nil, err
	}
	if !slices.Equal(pk, p.pk) {
		return nil, badRequest("PartitionKey extracted from document doesn't match the one specified in the header.")
	}
	if err := p.c.checkItemTTL(doc); err != nil {
		return nil, err
	}
	id, _ := doc["id"].(string)
	stripItemSystem(doc)
	v := p.t.tx.Version()
	var rid string
	if old != nil {
		rid, _ = old.doc["_rid"].(string)
		if err := p.unindex(old.doc); err != nil {
			return nil, err
		}
	} else {
		p.t.seq++
		rid = encodeRID(ridFromVersion(ridFromVersion(p.c.ridBytes, v, 6), uint64(p.t.seq), 2))
	}
	it := &Item{ID: id, RID: rid, Self: p.c.rec.str("_self") + "docs/" + rid + "/", ETag: etagOf(v), TS: p.t.ts}
	doc["_rid"] = it.RID
	doc["_self"] = it.Self
	doc["_etag"] = it.ETag
	doc["_attachments"] = "attachments/"
	doc["_ts"] = it.TS
	ordered := false
	if raw != nil {
		it.Body, ordered = orderedBody(raw, it)
	}
	if !ordered {
		if it.Body, err = marshal(doc); err != nil {
			return nil, badRequest("The item cannot be encoded: %v", err)
		}
	}
	if len(it.Body) > maxItemSize {
		return nil, tooLarge("%s", gatewayMessage("Request size is too large"))
	}
	if err := p.index(doc, id); err != nil {
		return nil, err
	}
	if err := putItemBody(p.t.tx, p.key(id), it.Body, mode); err != nil {
		return nil, err
	}
	op := opCreate
	if old != nil {
		op = opReplace
	}
	if err := p.recordWrite(op, id, it.Body); err != nil {
		return nil, err
	}
	p.t.s.noteCommit(p.t.tx)
	return it, nil
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
		cur, err := p.t.tx.Get(k)
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
		if err := p.t.tx.Set(k, []byte(id)); err != nil {
			return err
		}
	}
	// The entries name the item, whose old entries (of a replace) unindex
	// has just deleted: they are new.
	return p.rangeIndex(doc, true)
}

func (p *partition) unindex(doc map[string]any) error {
	for i := range p.c.unique {
		if err := p.t.tx.Delete(uniqueKey(p.c.db, p.c.id, p.pk, i, p.uniqueValues(doc, i))); err != nil {
			return err
		}
	}
	return p.rangeUnindex(doc)
}

// itemPartition decodes item doc and finds the partition it goes to.
func (t *Tx) itemPartition(db, coll string, pk PartitionKey, doc []byte) (map[string]any, *partition, error) {
	m, err := decodeItem(doc)
	if err != nil {
		return nil, nil, err
	}
	p, err := t.partition(db, coll, pk, m)
	if err != nil {
		return nil, nil, err
	}
	return m, p, nil
}

// present reads item id for an operation that needs it: an absent or
// expired one is ErrNotFound.
func (p *partition) present(id string) (*storedItem, error) {
	it, err := p.get(id)
	if err != nil {
		return nil, err
	}
	if it == nil {
		return nil, itemNotFound()
	}
	return it, nil
}

// existing reads the item an operation needs (Replace, Patch, Delete):
// the id must be valid, the item present and opts' conditions met.
func (p *partition) existing(id string, opts ItemOptions) (*storedItem, error) {
	if err := validID("item", id); err != nil {
		return nil, err
	}
	old, err := p.present(id)
	if err != nil {
		return nil, err
	}
	if err := opts.check(conditions.Write, true, old.etag()); err != nil {
		return nil, err
	}
	return old, nil
}

// existingItem finds the partition of an item an operation needs (Patch,
// Delete) and reads it there, as partition.existing does.
func (t *Tx) existingItem(db, coll string, pk PartitionKey, id string, opts ItemOptions) (*partition, *storedItem, error) {
	p, err := t.partition(db, coll, pk, nil)
	if err != nil {
		return nil, nil, err
	}
	old, err := p.existing(id, opts)
	if err != nil {
		return nil, nil, err
	}
	return p, old, nil
}

// ---- item operations in a transaction ----

// CreateItem stores doc (a JSON object with an "id") as a new item; an
// existing id is ErrConflict. An empty pk takes the partition key from doc,
// else doc's must match it. Create honours no preconditions, as in Cosmos
// DB; opts is there for the options a create may carry.
func (t *Tx) CreateItem(ref CollectionRef, pk PartitionKey, doc []byte, opts ItemOptions) (*Item, error) {
	db, coll := ref.DB, ref.Coll
	if opts.Triggers.any() {
		pk, err := t.triggerPartition(db, coll, pk, doc)
		if err != nil {
			return nil, err
		}
		return t.triggered(db, coll, pk, "Create", doc, opts.Triggers, func(doc []byte) (*Item, error) {
			return t.CreateItem(ref, pk, doc, opts.untriggered())
		})
	}
	m, p, err := t.itemPartition(db, coll, pk, doc)
	if err != nil {
		return nil, err
	}
	id, _ := m["id"].(string)
	if err := validID("item", id); err != nil {
		return nil, err
	}
	// Unique keys are checked by reading their entries, which would also
	// find an item already holding this id and answer for it; so a
	// container with unique keys reads the id first.
	if t.unreadCreate && len(p.c.unique) == 0 {
		return p.put(m, doc, nil, bodyCreates)
	}
	old, err := p.get(id)
	if err != nil {
		return nil, err
	}
	if old != nil {
		return nil, idTaken()
	}
	return p.write(m, doc, nil)
}

// UpsertItem creates doc (ignoring opts' conditions), or replaces the
// item with its id (subject to them). created says which.
func (t *Tx) UpsertItem(ref CollectionRef, pk PartitionKey, doc []byte, opts ItemOptions) (item *Item, created bool, err error) {
	db, coll := ref.DB, ref.Coll
	if opts.Triggers.any() {
		pk, err := t.triggerPartition(db, coll, pk, doc)
		if err != nil {
			return nil, false, err
		}
		item, err = t.triggered(db, coll, pk, "Upsert", doc, opts.Triggers, func(doc []byte) (*Item, error) {
			it, c, err := t.UpsertItem(ref, pk, doc, opts.untriggered())
			created = c
			return it, err
		})
		return item, created && err == nil, err
	}
	m, p, err := t.itemPartition(db, coll, pk, doc)
	if err != nil {
		return nil, false, err
	}
	id, _ := m["id"].(string)
	if err := validID("item", id); err != nil {
		return nil, false, err
	}
	old, err := p.get(id)
	if err != nil {
		return nil, false, err
	}
	// An upsert that creates ignores its conditions; one that replaces
	// honours them, as Azure does (the .NET SDK's IfMatchEtag and
	// IfNoneMatchEtag: "ignored when materialized as Create, otherwise for
	// Replace the ETag constraint is applied"). First-write-wins schemes
	// built on ETags depend on it.
	if old != nil {
		if err := opts.check(conditions.Write, true, old.etag()); err != nil {
			return nil, false, err
		}
	}
	item, err = p.write(m, doc, old)
	return item, old == nil && err == nil, err
}

// ReplaceItem replaces item id with doc, whose "id" must be id; the item
// must exist (ErrNotFound) and meet opts' conditions: IfMatch with a stale
// ETag is ErrPreconditionFailed.
func (t *Tx) ReplaceItem(ref ItemRef, doc []byte, opts ItemOptions) (*Item, error) {
	db, coll, pk, id := ref.DB, ref.Coll, ref.PartitionKey, ref.ID
	if opts.Triggers.any() {
		pk, err := t.triggerPartition(db, coll, pk, doc)
		if err != nil {
			return nil, err
		}
		return t.triggered(db, coll, pk, "Replace", doc, opts.Triggers, func(doc []byte) (*Item, error) {
			return t.ReplaceItem(ItemRef{CollectionRef: ref.CollectionRef, PartitionKey: pk, ID: id}, doc, opts.untriggered())
		})
	}
	m, p, err := t.itemPartition(db, coll, pk, doc)
	if err != nil {
		return nil, err
	}
	if bodyID, _ := m["id"].(string); bodyID != id {
		return nil, badRequest("The id in the body (%q) must match the id in the request (%q).", bodyID, id)
	}
	old, err := p.existing(id, opts)
	if err != nil {
		return nil, err
	}
	return p.write(m, doc, old)
}

// PatchItem applies a patch (see ParsePatch) to item id, which must exist
// and meet opts' conditions and the patch's own condition.
func (t *Tx) PatchItem(ref ItemRef, patch *Patch, opts ItemOptions) (*Item, error) {
	db, coll, pk, id := ref.DB, ref.Coll, ref.PartitionKey, ref.ID
	if opts.Triggers.any() {
		return nil, noTriggersForPatch()
	}
	if patch == nil || patch.req == nil {
		return nil, badRequest("The patch request has no operations.")
	}
	p, old, err := t.existingItem(db, coll, pk, id, opts)
	if err != nil {
		return nil, err
	}
	doc, err := patch.req.apply(old.doc, p.c)
	if err != nil {
		return nil, err
	}
	return p.write(doc, nil, old)
}

// DeleteItem deletes item id, which must exist and meet opts'
// conditions, and returns it as it was.
func (t *Tx) DeleteItem(ref ItemRef, opts ItemOptions) (*Item, error) {
	db, coll, pk, id := ref.DB, ref.Coll, ref.PartitionKey, ref.ID
	if opts.Triggers.any() {
		return t.triggered(db, coll, pk, "Delete", nil, opts.Triggers, func([]byte) (*Item, error) {
			return t.DeleteItem(ref, opts.untriggered())
		})
	}
	p, old, err := t.existingItem(db, coll, pk, id, opts)
	if err != nil {
		return nil, err
	}
	if err := p.unindex(old.doc); err != nil {
		return nil, err
	}
	if err := deleteItemBody(p.t.tx, p.key(id)); err != nil {
		return nil, err
	}
	if err := p.recordChange(opDelete, id, old.raw, false); err != nil {
		return nil, err
	}
	return old.item(), nil
}

// ReadItem reads item id; an absent or expired one is ErrNotFound. When
// opts' conditions fail (ErrNotModified when IfNoneMatch matches,
// ErrPreconditionFailed when IfMatch does not) it returns the item along
// with the error, so that the caller can still name its ETag.
func (t *Tx) ReadItem(ref ItemRef, opts ItemOptions) (*Item, error) {
	db, coll, pk, id := ref.DB, ref.Coll, ref.PartitionKey, ref.ID
	p, err := t.partition(db, coll, pk, nil)
	if err != nil {
		return nil, err
	}
	it, err := p.present(id)
	if err != nil {
		return nil, err
	}
	if err := opts.check(conditions.Read, true, it.etag()); err != nil {
		return it.item(), err
	}
	return it.item(), nil
}

// ---- single operations, each its own transaction ----

// CreateItem is Tx.CreateItem in a transaction of its own.
//
// It first writes the item without reading its id (kv.Create), so that
// on PostgreSQL creators of nearby ids do not conflict through the index
// pages they read. When something is there — an item, or one whose time
// to live has run out, which a create replaces — the create runs again
// reading the id, which tells the two apart.
func (s *Service) CreateItem(ctx context.Context, ref CollectionRef, pk PartitionKey, doc []byte, opts ItemOptions) (*Item, error) {
	if !opts.Triggers.any() {
		it, err := s.updateItem(ctx, func(t *Tx) (*Item, error) {
			t.unreadCreate = true
			return t.CreateItem(ref, pk, doc, opts)
		})
		if !errors.Is(err, kv.ErrExists) {
			return it, err
		}
	}
	return s.updateItem(ctx, func(t *Tx) (*Item, error) { return t.CreateItem(ref, pk, doc, opts) })
}

// UpsertItem is Tx.UpsertItem in a transaction of its own.
func (s *Service) UpsertItem(ctx context.Context, ref CollectionRef, pk PartitionKey, doc []byte, opts ItemOptions) (*Item, bool, error) {
	var created bool
	it, err := s.updateItem(ctx, func(t *Tx) (*Item, error) {
		var it *Item
		var err error
		it, created, err = t.UpsertItem(ref, pk, doc, opts)
		return it, err
	})
	return it, created && err == nil, err
}

// ReplaceItem is Tx.ReplaceItem in a transaction of its own.
func (s *Service) ReplaceItem(ctx context.Context, ref ItemRef, doc []byte, opts ItemOptions) (*Item, error) {
	return s.updateItem(ctx, func(t *Tx) (*Item, error) { return t.ReplaceItem(ref, doc, opts) })
}

// PatchItem is Tx.PatchItem in a transaction of its own.
func (s *Service) PatchItem(ctx context.Context, ref ItemRef, patch *Patch, opts ItemOptions) (*Item, error) {
	return s.updateItem(ctx, func(t *Tx) (*Item, error) { return t.PatchItem(ref, patch, opts) })
}

// DeleteItem is Tx.DeleteItem in a transaction of its own.
func (s *Service) DeleteItem(ctx context.Context, ref ItemRef, opts ItemOptions) (*Item, error) {
	return s.updateItem(ctx, func(t *Tx) (*Item, error) { return t.DeleteItem(ref, opts) })
}

// ReadItem is Tx.ReadItem on a committed snapshot: a read commits nothing,
// so it never waits for a commit or conflicts with a writer.
func (s *Service) ReadItem(ctx context.Context, ref ItemRef, opts ItemOptions) (*Item, error) {
	var it *Item
	err := s.view(ctx, func(t *Tx) error {
		var err error
		it, err = t.ReadItem(ref, opts)
		return err
	})
	if err != nil && !errors.Is(err, ErrNotModified) && !errors.Is(err, ErrPreconditionFailed) {
		return nil, err
	}
	return it, err
}

// updateItem runs op in a transaction of its own; the item is dropped
// when the transaction did not commit (done).
func (s *Service) updateItem(ctx context.Context, op func(*Tx) (*Item, error)) (*Item, error) {
	var it *Item
	err := s.Update(ctx, func(t *Tx) error {
		var err error
		it, err = op(t)
		return err
	})
	return done(it, err)
}

// done drops the result of an operation that did not commit.
func done(it *Item, err error) (*Item, error) {
	if err != nil {
		return nil, err
	}
	return it, nil
}
