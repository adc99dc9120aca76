package table

import (
	"net/http"

	"github.com/cerulean-db/cerulean/internal/azerr"
	"github.com/cerulean-db/cerulean/internal/azhttp"
)

// checkKeys validates an addressed entity's keys and the caller's right
// to touch that entity (a table SAS may be confined to a key range).
func checkKeys(q *request, pk, rk string) error {
	if err := validKeys(pk, rk); err != nil {
		return err
	}
	if !q.access.AllowsEntity(pk, rk) {
		return azerr.ErrAuthorizationFailure.WithMessage("%s\nThe entity is outside the key range of the shared access signature.", azerr.ErrAuthorizationFailure.Message)
	}
	return nil
}

// setEntityHeaders sets what every successful entity write answers with.
func setEntityHeaders(q *request, e *Entity) {
	hdr := q.w.Header()
	setAzureSpelling(hdr, "ETag", e.ETag())
	setODataHeaders(hdr)
}

// readEntity reads and parses the entity a request's body carries.
func readEntity(q *request) (*entityBody, error) {
	body, err := readBody(q.r, maxBody)
	if err != nil {
		return nil, err
	}
	return parseEntityJSON(body)
}

func (h *handler) insertEntity(q *request) error {
	level, err := responseFormat(q.r, q.q)
	if err != nil {
		return err
	}
	hdr := q.w.Header()
	noContent := applyPreference(q.r.Header, hdr)
	doc, err := readEntity(q)
	if err != nil {
		return err
	}
	if !doc.HasPartitionKey || !doc.HasRowKey {
		return azerr.ErrPropertiesNeedValue.WithMessage("The PartitionKey and RowKey properties need values.")
	}
	if err := checkKeys(q, doc.PartitionKey, doc.RowKey); err != nil {
		return err
	}
	e, err := h.svc.WriteEntity(q.ctx(), q.acct, q.res.table, EntityWrite{Kind: WriteInsert, PartitionKey: doc.PartitionKey, RowKey: doc.RowKey, Properties: doc.Properties})
	if err != nil {
		return err
	}
	name := q.res.table
	base := baseURL(q.r, q.acct)
	loc := base + entityPath(name, e.PartitionKey, e.RowKey)
	hdr.Set("Location", loc)
	setAzureSpelling(hdr, "DataServiceId", loc)
	setEntityHeaders(q, e)
	if noContent {
		return azhttp.WriteEmpty(q.w, http.StatusNoContent)
	}
	j := entityJSON{level: level, base: base, acct: q.acct, table: name, single: base + "$metadata#" + name + "/@Element"}
	return writeJSON(q.w, http.StatusCreated, level, j.appendEntity(make([]byte, 0, entityBufSize), e))
}

// updateEntity serves Update, Merge, Insert Or Replace and Insert Or
// Merge: PUT replaces and MERGE merges; with If-Match the entity must
// exist with that ETag ("*": any), without it the write is an upsert.
func (h *handler) updateEntity(q *request) error {
	pk, rk := q.res.pk, q.res.rk
	if err := checkKeys(q, pk, rk); err != nil {
		return err
	}
	doc, err := readEntity(q)
	if err != nil {
		return err
	}
	cond, conditional, err := parseIfMatch(q.r.Header.Get("If-Match"))
	if err != nil {
		return err
	}
	w := EntityWrite{PartitionKey: pk, RowKey: rk, IfMatch: cond, Properties: doc.Properties}
	switch {
	case q.method == http.MethodPut && conditional:
		w.Kind = WriteReplace
	case q.method == http.MethodPut:
		w.Kind = WriteInsertOrReplace
	case conditional:
		w.Kind = WriteMerge
	default:
		w.Kind = WriteInsertOrMerge
	}
	e, err := h.svc.WriteEntity(q.ctx(), q.acct, q.res.table, w)
	if err != nil {
		return err
	}
	setEntityHeaders(q, e)
	// These writes answer no content whatever the client prefers; Azure
	// says so when asked for it, on success only (recorded in go-storage
	// StorageEntitySuite TestInsertOrMerge, TestInsertOrReplace and
	// TestMerge; their 412s carry no Preference-Applied).
	if noContent, _ := preferNoContent(q.r.Header); noContent {
		q.w.Header().Set("Preference-Applied", "return-no-content")
	}
	return azhttp.WriteEmpty(q.w, http.StatusNoContent)
}

func (h *handler) deleteEntity(q *request) error {
	pk, rk := q.res.pk, q.res.rk
	if err := checkKeys(q, pk, rk); err != nil {
		return err
	}
	cond, conditional, err := parseIfMatch(q.r.Header.Get("If-Match"))
	if err != nil {
		return err
	}
	if !conditional {
		return azerr.MissingRequiredHeader("If-Match").WithMessage("%s\nDelete Entity requires If-Match (an ETag, or * to delete unconditionally).", azerr.ErrMissingRequiredHeader.Message)
	}
	if _, err := h.svc.WriteEntity(q.ctx(), q.acct, q.res.table, EntityWrite{Kind: WriteDelete, PartitionKey: pk, RowKey: rk, IfMatch: cond}); err != nil {
		return err
	}
	setODataHeaders(q.w.Header())
	return azhttp.WriteEmpty(q.w, http.StatusNoContent)
}

// readShape parses how a read wants its entities answered: the metadata
// level of the JSON and the properties $select keeps.
func readShape(q *request) (metadataLevel, selection, error) {
	level, err := responseFormat(q.r, q.q)
	if err != nil {
		return level, nil, err
	}
	sel, err := parseSelect(q.q.Get("$select"))
	return level, sel, err
}

// validKeys validates an addressed entity's keys.
func validKeys(pk, rk string) error {
	if err := validateKey("PartitionKey", pk); err != nil {
		return err
	}
	return validateKey("RowKey", rk)
}

func (h *handler) getEntity(q *request) error {
	level, sel, err := readShape(q)
	if err != nil {
		return err
	}
	pk, rk := q.res.pk, q.res.rk
	if err := validKeys(pk, rk); err != nil {
		return err
	}
	if !q.access.AllowsEntity(pk, rk) {
		// A SAS confined to a key range reads nothing outside it: an
		// entity there is not found, as a query through it finds none
		// (recorded in Azure.Data.Tables' TableClientLiveTests
		// ValidateSasCredentialsWithRowKeyAndPartitionKeyRanges).
		return azerr.ErrResourceNotFound
	}
	e, err := h.svc.GetEntity(q.ctx(), q.acct, q.res.table, pk, rk)
	if err != nil {
		return err
	}
	name := q.res.table
	base := baseURL(q.r, q.acct)
	j := entityJSON{level: level, sel: sel, base: base, acct: q.acct, table: name, single: base + "$metadata#" + name + "/@Element"}
	if sel != nil {
		j.single = base + "$metadata#" + name + "/@Element&$select=" + q.q.Get("$select")
	}
	setAzureSpelling(q.w.Header(), "ETag", e.ETag())
	return writeJSON(q.w, http.StatusOK, level, j.appendEntity(make([]byte, 0, entityBufSize), e))
}

func (h *handler) queryEntities(q *request) error {
	level, sel, err := readShape(q)
	if err != nil {
		return err
	}
	filter, top, err := parseFilterTop(q.q)
	if err != nil {
		return err
	}
	query := EntityQuery{Filter: filter, Top: top, Access: q.access}
	if query.NextPK, query.HasNext, err = continuation(q.q, "NextPartitionKey"); err != nil {
		return err
	}
	if query.HasNext {
		if query.NextRK, _, err = continuation(q.q, "NextRowKey"); err != nil {
			return err
		}
	}
	page, err := h.svc.QueryEntities(q.ctx(), q.acct, q.res.table, query)
	if err != nil {
		return err
	}
	if page.HasNext {
		hdr := q.w.Header()
		hdr.Set("X-Ms-Continuation-Nextpartitionkey", encodeContinuation(page.NextPK))
		hdr.Set("X-Ms-Continuation-Nextrowkey", encodeContinuation(page.NextRK))
	}
	name := q.res.table
	base := baseURL(q.r, q.acct)
	j := entityJSON{level: level, sel: sel, base: base, acct: q.acct, table: name}
	b := []byte{'{'}
	if level != noMetadata {
		meta := base + "$metadata#" + name
		if sel != nil {
			meta += "&$select=" + q.q.Get("$select")
		}
		b = appendJSONString(b, "odata.metadata")
		b = append(b, ':')
		b = appendJSONString(b, meta)
		b = append(b, ',')
	}
	b = append(b, `"value":[`...)
	for i, e := range page.Entities {
		if i > 0 {
			b = append(b, ',')
		}
		b = j.appendEntity(b, e)
	}
	b = append(b, "]}"...)
	return writeJSON(q.w, http.StatusOK, level, b)
}
