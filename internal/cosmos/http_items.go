package cosmos

import (
	"net/http"
	"strings"
)

// writeItem answers an item operation: the item with its ETag and content
// paths, its body left out for a delete and for a write that asked for
// return=minimal.
func (h *handler) writeItem(q *request, db, coll string, status int, it *Item, withBody bool) error {
	q.w.Header().Set("Etag", it.ETag)
	q.w.Header().Set("X-Ms-Alt-Content-Path", "dbs/"+db+"/colls/"+coll)
	// The content path is the container's _rid, as Azure answers it
	// (the Rust SDK's recorded item tests): SDKs key the session tokens
	// they keep by it.
	q.w.Header().Set("X-Ms-Content-Path", containerRIDOf(it.Self))
	var body []byte
	if withBody {
		body = it.Body
	}
	return h.writeJSON(q, status, body)
}

// containerRIDOf reads the container's _rid out of an item's _self
// ("dbs/<db rid>/colls/<container rid>/docs/<item rid>/").
func containerRIDOf(self string) string {
	s := strings.Trim(self, "/")
	for range 3 {
		_, rest, ok := strings.Cut(s, "/")
		if !ok {
			return ""
		}
		s = rest
	}
	seg, _, _ := strings.Cut(s, "/")
	return seg
}

// itemRef names item id of db/coll in the request's partition key.
func itemRef(r *http.Request, db, coll, id string) ItemRef {
	return ItemRef{CollectionRef: CollectionRef{DB: db, Coll: coll}, PartitionKey: partitionKey(r), ID: id}
}

func itemOptions(r *http.Request) ItemOptions {
	o := ItemOptions{
		Preconditions: preconditions(r),
		Triggers: TriggerNames{
			Pre:  ParseTriggerNames(r.Header.Get("X-Ms-Documentdb-Pre-Trigger-Include")),
			Post: ParseTriggerNames(r.Header.Get("X-Ms-Documentdb-Post-Trigger-Include")),
		},
	}
	if o.Triggers.any() {
		o.Triggers.Headers = make(map[string]string, len(r.Header))
		for name, vs := range r.Header {
			o.Triggers.Headers[name] = strings.Join(vs, ",")
		}
	}
	return o
}

// createItem creates, or with x-ms-documentdb-is-upsert upserts, an item.
func (h *handler) createItem(q *request, db, coll string) error {
	doc, err := readBody(q.r)
	if err != nil {
		return err
	}
	status := http.StatusCreated
	var it *Item
	if strings.EqualFold(q.r.Header.Get("X-Ms-Documentdb-Is-Upsert"), "true") {
		var created bool
		it, created, err = h.svc.UpsertItem(q.r.Context(), CollectionRef{DB: db, Coll: coll}, partitionKey(q.r), doc, itemOptions(q.r))
		if !created {
			status = http.StatusOK
		}
	} else {
		it, err = h.svc.CreateItem(q.r.Context(), CollectionRef{DB: db, Coll: coll}, partitionKey(q.r), doc, itemOptions(q.r))
	}
	if err != nil {
		return err
	}
	return h.writeItem(q, db, coll, status, it, !preferMinimal(q.r))
}

func (h *handler) replaceItem(q *request, db, coll, id string) error {
	doc, err := readBody(q.r)
	if err != nil {
		return err
	}
	it, err := h.svc.ReplaceItem(q.r.Context(), itemRef(q.r, db, coll, id), doc, itemOptions(q.r))
	if err != nil {
		return err
	}
	return h.writeItem(q, db, coll, http.StatusOK, it, !preferMinimal(q.r))
}

func (h *handler) patchItem(q *request, db, coll, id string) error {
	b, err := readBody(q.r)
	if err != nil {
		return err
	}
	patch, err := ParsePatch(b)
	if err != nil {
		return err
	}
	it, err := h.svc.PatchItem(q.r.Context(), itemRef(q.r, db, coll, id), patch, itemOptions(q.r))
	if err != nil {
		return err
	}
	return h.writeItem(q, db, coll, http.StatusOK, it, !preferMinimal(q.r))
}

func (h *handler) deleteItem(q *request, db, coll, id string) error {
	it, err := h.svc.DeleteItem(q.r.Context(), itemRef(q.r, db, coll, id), itemOptions(q.r))
	if err != nil {
		return err
	}
	return h.writeItem(q, db, coll, http.StatusNoContent, it, false)
}

func (h *handler) readItem(q *request, db, coll, id string) error {
	// Triggers run on writes only; a read ignores them, as Cosmos DB does.
	opts := itemOptions(q.r)
	opts.Triggers = TriggerNames{}
	it, err := h.svc.ReadItem(q.r.Context(), itemRef(q.r, db, coll, id), opts)
	if it != nil {
		// A failed condition still names the item's version.
		q.w.Header().Set("Etag", it.ETag)
	}
	if err != nil {
		return err
	}
	return h.writeItem(q, db, coll, http.StatusOK, it, true)
}

// readItemFeed answers GET …/docs: the container's items (or one logical
// partition's, or a hierarchical prefix's), a page at a time.
func (h *handler) readItemFeed(q *request, db, coll string) error {
	size, err := pageSize(q)
	if err != nil {
		return err
	}
	f, err := h.svc.ReadItemFeed(q.r.Context(), CollectionRef{DB: db, Coll: coll}, partitionKey(q.r), FeedOptions{MaxItemCount: size, Continuation: q.r.Header.Get("X-Ms-Continuation")})
	if err != nil {
		return err
	}
	if f.Continuation != "" {
		q.w.Header().Set("X-Ms-Continuation", f.Continuation)
	}
	return h.writeFeed(q, f.ResourceID, "Documents", f.Items)
}
