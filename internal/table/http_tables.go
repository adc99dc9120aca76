package table

import (
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/url"
	"strconv"

	"github.com/cerulean-db/cerulean/internal/azerr"
	"github.com/cerulean-db/cerulean/internal/azhttp"
	"github.com/cerulean-db/cerulean/internal/table/odata"
)

// readBody reads a bounded request body.
func readBody(r *http.Request, limit int64) ([]byte, error) {
	// A body of a stated length is read into one buffer of its size (and
	// the byte that would show it too long), not grown from 512 bytes.
	size := int64(512)
	if n := r.ContentLength; n >= 0 && n <= limit {
		size = n + 1
	}
	body := make([]byte, 0, size)
	src := io.LimitReader(r.Body, limit+1)
	for {
		if len(body) == cap(body) {
			body = append(body, 0)[:len(body)]
		}
		n, err := src.Read(body[len(body):cap(body)])
		body = body[:len(body)+n]
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return nil, err
		}
	}
	if int64(len(body)) > limit {
		return nil, azerr.ErrRequestBodyTooLarge
	}
	return body, nil
}

// entityBufSize is the first capacity of a single entity's JSON answer:
// the metadata links and a few properties fit without growing it.
const entityBufSize = 512

// parseTop reads $top: 0 to 1000, default 1000. $top=0 is a query that
// returns no entities, as Azure answers it (a user's report against Azure
// in Azurite issue #1428: the query Azure Storage Explorer sends with
// $top=0 answers 200 there); its continuation points where the scan began,
// so paging on from it loses nothing.
func parseTop(q map[string][]string) (int, error) {
	vs := q["$top"]
	if len(vs) == 0 {
		return maxPageSize, nil
	}
	n, err := strconv.Atoi(vs[0])
	if err != nil || n < 0 || n > maxPageSize {
		return 0, azerr.ErrInvalidInput.WithMessage("The value %q of $top is not valid: it must be an integer from 0 to %d.", vs[0], maxPageSize)
	}
	return n, nil
}

// parseFilterTop parses the $filter and $top that Query Tables and Query
// Entities share, in that order.
func parseFilterTop(q map[string][]string) (*odata.Filter, int, error) {
	filter, err := parseFilter(q)
	if err != nil {
		return nil, 0, err
	}
	top, err := parseTop(q)
	if err != nil {
		return nil, 0, err
	}
	return filter, top, nil
}

// continuation decodes the continuation token in the query parameter
// name; ok is false where the query sends none.
func continuation(q url.Values, name string) (token string, ok bool, err error) {
	v := q.Get(name)
	if v == "" {
		return "", false, nil
	}
	token, err = decodeContinuation(v)
	return token, true, err
}

// parseFilter parses $filter; a malformed filter is InvalidInput.
func parseFilter(q map[string][]string) (*odata.Filter, error) {
	vs := q["$filter"]
	if len(vs) == 0 || vs[0] == "" {
		return nil, nil
	}
	f, err := odata.Parse(vs[0])
	if err != nil {
		return nil, azerr.ErrInvalidInput.WithMessage("%s\n%v", azerr.ErrInvalidInput.Message, err)
	}
	return f, nil
}

// tableJSON renders one table of a Query Tables or Create Table answer.
func tableJSON(b []byte, q *request, level metadataLevel, t *Table, single bool) []byte {
	start := len(b)
	base := baseURL(q.r, q.acct)
	if single && level != noMetadata {
		b = appendMember(b, "odata.metadata", base+"$metadata#Tables/@Element")
	}
	if level == fullMetadata {
		b = appendMember(b, "odata.type", q.acct+".Tables")
		b = appendMember(b, "odata.id", base+"Tables('"+t.Name+"')")
		b = appendMember(b, "odata.editLink", "Tables('"+t.Name+"')")
	}
	b = appendMember(b, "TableName", t.Name)
	return closeObject(b, start)
}

func (h *handler) createTable(q *request) error {
	level, err := responseFormat(q.r, q.q)
	if err != nil {
		return err
	}
	hdr := q.w.Header()
	noContent := applyPreference(q.r.Header, hdr)
	body, err := readBody(q.r, 64<<10)
	if err != nil {
		return err
	}
	var doc struct{ TableName *string }
	if err := json.Unmarshal(body, &doc); err != nil {
		return azerr.ErrInvalidInput.WithMessage("The request body is not a valid JSON table.")
	}
	if doc.TableName == nil {
		return azerr.ErrPropertiesNeedValue.WithMessage("The TableName property needs a value.")
	}
	t, err := h.svc.CreateTable(q.ctx(), q.acct, *doc.TableName)
	if err != nil {
		return err
	}
	loc := baseURL(q.r, q.acct) + "Tables('" + t.Name + "')"
	hdr.Set("Location", loc)
	setAzureSpelling(hdr, "DataServiceId", loc)
	if noContent {
		setODataHeaders(hdr)
		return azhttp.WriteEmpty(q.w, http.StatusNoContent)
	}
	return writeJSON(q.w, http.StatusCreated, level, tableJSON(nil, q, level, t, true))
}

func (h *handler) getTable(q *request) error {
	level, err := responseFormat(q.r, q.q)
	if err != nil {
		return err
	}
	t, err := h.svc.GetTable(q.ctx(), q.acct, q.res.table)
	if err != nil {
		return err
	}
	return writeJSON(q.w, http.StatusOK, level, tableJSON(nil, q, level, t, true))
}

func (h *handler) queryTables(q *request) error {
	level, err := responseFormat(q.r, q.q)
	if err != nil {
		return err
	}
	filter, top, err := parseFilterTop(q.q)
	if err != nil {
		return err
	}
	next, _, err := continuation(q.q, "NextTableName")
	if err != nil {
		return err
	}
	page, err := h.svc.QueryTables(q.ctx(), q.acct, filter, top, next)
	if err != nil {
		return err
	}
	if page.Next != "" {
		q.w.Header().Set("X-Ms-Continuation-Nexttablename", encodeContinuation(page.Next))
	}
	b := []byte{'{'}
	if level != noMetadata {
		b = appendJSONString(b, "odata.metadata")
		b = append(b, ':')
		b = appendJSONString(b, baseURL(q.r, q.acct)+"$metadata#Tables")
		b = append(b, ',')
	}
	b = append(b, `"value":[`...)
	for i, t := range page.Tables {
		if i > 0 {
			b = append(b, ',')
		}
		b = tableJSON(b, q, level, t, false)
	}
	b = append(b, "]}"...)
	return writeJSON(q.w, http.StatusOK, level, b)
}

func (h *handler) deleteTable(q *request) error {
	err := h.svc.DeleteTable(q.ctx(), q.acct, q.res.table)
	if errors.Is(err, azerr.ErrTableNotFound) {
		// Delete Table names a missing table ResourceNotFound, where the
		// operations on its entities and ACL say TableNotFound (recorded
		// in go-storage StorageClientSuite TestReturnsStorageServiceError).
		return azerr.ErrResourceNotFound
	}
	if err != nil {
		return err
	}
	setODataHeaders(q.w.Header())
	return azhttp.WriteEmpty(q.w, http.StatusNoContent)
}

func (h *handler) getTableACL(q *request) error {
	t, err := h.svc.GetTable(q.ctx(), q.acct, q.res.table)
	if err != nil {
		return err
	}
	return azhttp.WriteSignedIdentifiers(q.w, t.ACL)
}

func (h *handler) setTableACL(q *request) error {
	acl, err := azhttp.ParseSignedIdentifiers(q.r)
	if e, ok := errors.AsType[*azerr.Error](err); ok && errors.Is(e, azerr.ErrInvalidXmlNodeValue) {
		// The Table service refuses a malformed signed identifier as a
		// malformed document: one without an Id, its expiry in
		// nanoseconds, is 400 InvalidXmlDocument (recorded in go-aztables
		// TestSetInvalidAccessPolicy).
		return azerr.ErrInvalidXmlDocument.WithMessage("%s\n%s", azerr.ErrInvalidXmlDocument.Message, e.Message)
	}
	if err != nil {
		return err
	}
	if err := h.svc.SetTableACL(q.ctx(), q.acct, q.res.table, acl); err != nil {
		return err
	}
	return azhttp.WriteEmpty(q.w, http.StatusNoContent)
}

// getServiceStats answers as the emulators do: one store is its own
// secondary, always live and in sync.
func (h *handler) getServiceStats(q *request) error {
	return azhttp.WriteServiceStats(q.w, "live", h.svc.now())
}

func (h *handler) getServiceProperties(q *request) error {
	return h.props.ServeGet(q.w, q.r, q.acct)
}

func (h *handler) setServiceProperties(q *request) error {
	return h.props.ServeSet(q.w, q.r, q.acct)
}
