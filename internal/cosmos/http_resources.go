package cosmos

import (
	"encoding/json"
	"net/http"
	"strings"
)

// bodyAndThroughput reads a create request's body and the throughput
// its headers ask to provision (none, or one).
func bodyAndThroughput(r *http.Request) ([]byte, []Throughput, error) {
	b, err := readBody(r)
	if err != nil {
		return nil, nil, err
	}
	tp, err := requestThroughput(r)
	return b, tp, err
}

// ---- databases ----

func (h *handler) createDatabase(q *request) error {
	b, tp, err := bodyAndThroughput(q.r)
	if err != nil {
		return err
	}
	d, err := h.svc.CreateDatabase(q.r.Context(), b, tp...)
	if err != nil {
		return err
	}
	return h.writeResource(q, http.StatusCreated, d.ETag, d.Body)
}

func (h *handler) getDatabase(q *request, db string) error {
	d, err := h.svc.GetDatabase(q.r.Context(), db, preconditions(q.r))
	if err != nil {
		return err
	}
	return h.writeResource(q, http.StatusOK, d.ETag, d.Body)
}

func (h *handler) deleteDatabase(q *request, db string) error {
	if err := h.svc.DeleteDatabase(q.r.Context(), db, preconditions(q.r)); err != nil {
		return err
	}
	return h.writeJSON(q, http.StatusNoContent, nil)
}

func (h *handler) listDatabases(q *request) error {
	f, err := h.svc.ListDatabases(q.r.Context())
	if err != nil {
		return err
	}
	return h.writeFeed(q, f.ResourceID, "Databases", f.Items)
}

// ---- containers ----

// systemPartitionKeyBefore is the first API version under which a
// container needs a partition key; one created without it under an older
// version is non-partitioned, and Azure describes it with its system
// partition key (the SDKs address its items with the None partition key).
const systemPartitionKeyBefore = "2018-12-31"

func (h *handler) createContainer(q *request, db string) error {
	b, tp, err := bodyAndThroughput(q.r)
	if err != nil {
		return err
	}
	if v := q.r.Header.Get("X-Ms-Version"); v != "" && v < systemPartitionKeyBefore {
		b = withSystemPartitionKey(b)
	}
	c, err := h.svc.CreateContainer(q.r.Context(), db, b, tp...)
	if err != nil {
		return err
	}
	return h.writeResource(q, http.StatusCreated, c.ETag, c.Body)
}

func (h *handler) getContainer(q *request, db, coll string) error {
	c, err := h.svc.GetContainer(q.r.Context(), CollectionRef{DB: db, Coll: coll}, preconditions(q.r))
	if err != nil {
		return err
	}
	if strings.EqualFold(q.r.Header.Get("X-Ms-Documentdb-Populatequotainfo"), "true") {
		// A read that asks for quota information learns how far the
		// index has come since the last policy change, in percent (the
		// SDKs' IndexTransformationProgress). A policy change rebuilds
		// the index before it is answered, so a read always sees it done.
		q.w.Header().Set("X-Ms-Documentdb-Collection-Index-Transformation-Progress", "100")
	}
	return h.writeResource(q, http.StatusOK, c.ETag, c.Body)
}

func (h *handler) replaceContainer(q *request, db, coll string) error {
	b, err := readBody(q.r)
	if err != nil {
		return err
	}
	c, err := h.svc.ReplaceContainer(q.r.Context(), CollectionRef{DB: db, Coll: coll}, b, preconditions(q.r))
	if err != nil {
		return err
	}
	return h.writeResource(q, http.StatusOK, c.ETag, c.Body)
}

func (h *handler) deleteContainer(q *request, db, coll string) error {
	if err := h.svc.DeleteContainer(q.r.Context(), CollectionRef{DB: db, Coll: coll}, preconditions(q.r)); err != nil {
		return err
	}
	return h.writeJSON(q, http.StatusNoContent, nil)
}

func (h *handler) listContainers(q *request, db string) error {
	f, err := h.svc.ListContainers(q.r.Context(), db)
	if err != nil {
		return err
	}
	return h.writeFeed(q, f.ResourceID, "DocumentCollections", f.Items)
}

// listPartitionKeyRanges answers with the single range that covers the
// whole hash space: cerulean keeps every container in one physical
// partition.
func (h *handler) listPartitionKeyRanges(q *request, db, coll string) error {
	c, err := h.svc.GetContainer(q.r.Context(), CollectionRef{DB: db, Coll: coll}, Preconditions{})
	if err != nil {
		return err
	}
	// Change-feed style polling of ranges sends If-None-Match; the range
	// never changes.
	if inm := q.r.Header.Get("If-None-Match"); inm != "" && inm == c.ETag {
		return ErrNotModified
	}
	rng := map[string]any{
		"_rid":               encodeRID(append(decodeRID(c.RID), 2, 0, 0, 0, 0, 0, 0, 0)),
		"id":                 "0",
		"_etag":              c.ETag,
		"minInclusive":       "",
		"maxExclusive":       "FF",
		"ridPrefix":          0,
		"_self":              c.Self + "pkranges/0/",
		"throughputFraction": 1,
		"status":             "online",
		"parents":            []any{},
		"_ts":                c.TS,
		"_lsn":               1,
	}
	b, err := marshal(rng)
	if err != nil {
		return err
	}
	q.w.Header().Set("Etag", c.ETag)
	return h.writeFeed(q, c.RID, "PartitionKeyRanges", []json.RawMessage{b})
}

// withSystemPartitionKey gives a container definition without a partition
// key the system one, {"paths":["/_partitionKey"],"kind":"Hash",
// "systemKey":true}; a definition that is not a JSON object, or has a
// partition key, is left for CreateContainer to judge.
func withSystemPartitionKey(b []byte) []byte {
	m, err := decodeObject(b)
	if err != nil || m["partitionKey"] != nil {
		return b
	}
	m["partitionKey"] = map[string]any{"paths": []any{"/_partitionKey"}, "kind": "Hash", "systemKey": true}
	out, err := marshal(m)
	if err != nil {
		return b
	}
	return out
}
