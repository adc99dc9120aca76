package cosmos

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"

	"github.com/cerulean-db/cerulean/internal/azhttp"
	"github.com/cerulean-db/cerulean/internal/conditions"
)

// maxBody bounds a request body: the largest item plus the envelope of a
// batch of them is far below it, and Cosmos DB answers 413 beyond 2 MB.
const maxBody = 2 << 20

// handler serves a Service over the Cosmos DB gateway protocol: it
// authenticates, parses headers and bodies into domain values, makes one
// call into the Service and writes its answer.
type handler struct {
	svc  *Service
	keys [][]byte // accepted master keys
	now  func() time.Time
	// clientNow is the clock x-ms-date is checked against.
	clientNow func() time.Time
	log       *slog.Logger
}

// NewHandler returns the gateway's HTTP handler for svc, wrapped in the
// shared plumbing (request ids, logging, panic recovery).
func NewHandler(svc *Service) http.Handler {
	h := &handler{svc: svc, keys: svc.keys, now: svc.now, clientNow: svc.clientNow, log: svc.log}
	return azhttp.Wrap("cosmos", h.log, nil, h.writeError, http.HandlerFunc(h.serve))
}

// request is one parsed call.
type request struct {
	w    http.ResponseWriter
	r    *http.Request
	segs []string // unescaped path segments
}

func (h *handler) serve(w http.ResponseWriter, r *http.Request) {
	q := &request{w: w, r: r}
	var err error
	q.segs, err = splitPath(r.URL.EscapedPath())
	var signed []string // the path as the client addressed (and signed) it
	if err == nil {
		signed = q.segs
		q.segs, err = h.byNames(r, q.segs)
	}
	if err == nil {
		if isResourceToken(r.Header.Get("Authorization")) {
			err = h.authorizeResourceToken(r, q.segs)
		} else {
			err = h.authenticate(r, signed)
		}
	}
	if err == nil {
		err = rejectUnsupportedHeaders(r)
	}
	if err == nil {
		err = azhttp.Routed(w, r, operationName(r, q.segs))
	}
	if err == nil && isItemRead(r, q.segs) {
		if tok := r.Header.Get("X-Ms-Session-Token"); tok != "" {
			if err = h.svc.checkSession(r.Context(), tok); errors.Is(err, ErrNotFound) {
				w.Header().Set("X-Ms-Substatus", "1002")
			}
		}
	}
	if err == nil {
		err = h.route(q)
	}
	if err != nil {
		h.writeError(w, r, err)
	}
}

// splitPath returns the unescaped segments of a path, ignoring empty ones
// (a trailing slash).
func splitPath(p string) ([]string, error) {
	var segs []string
	for _, s := range strings.Split(p, "/") {
		if s == "" {
			continue
		}
		u, err := url.PathUnescape(s)
		if err != nil {
			return nil, badRequest("The path segment %q is not URL-encoded correctly.", s)
		}
		segs = append(segs, u)
	}
	return segs, nil
}

// route dispatches on the resource path:
//
//	/                                      database account
//	/dbs[/{db}]                            databases
//	/dbs/{db}/colls[/{coll}]               containers
//	/dbs/{db}/colls/{coll}/docs[/{id}]     items, queries, batches
//	/dbs/{db}/colls/{coll}/pkranges        partition key ranges
//	/dbs/{db}/colls/{coll}/sprocs[/{id}]   stored procedures (POST {id}: execute)
//	/dbs/{db}/colls/{coll}/triggers[/{id}] triggers
//	/dbs/{db}/colls/{coll}/udfs[/{id}]     user-defined functions
func (h *handler) route(q *request) error {
	segs, m := q.segs, q.r.Method
	n := len(segs)
	if n == 0 {
		if m != http.MethodGet {
			return methodNotAllowed(m)
		}
		return h.getAccount(q)
	}
	if segs[0] == "offers" {
		return h.routeOffers(q)
	}
	if segs[0] != "dbs" {
		return unsupported(fmt.Sprintf("The resource type %q", segs[0]))
	}
	switch {
	case n == 1:
		switch m {
		case http.MethodGet:
			return h.listDatabases(q)
		case http.MethodPost:
			if isQuery(q.r) {
				return h.queryDatabases(q)
			}
			return h.createDatabase(q)
		}
	case n == 2:
		switch m {
		case http.MethodGet:
			return h.getDatabase(q, segs[1])
		case http.MethodDelete:
			return h.deleteDatabase(q, segs[1])
		}
	case n >= 3 && segs[2] == "users":
		return h.routeUsers(q)
	case n >= 3 && segs[2] != "colls":
		return unsupported(fmt.Sprintf("The resource type %q", segs[2]))
	case n == 3:
		switch m {
		case http.MethodGet:
			return h.listContainers(q, segs[1])
		case http.MethodPost:
			if isQuery(q.r) {
				return h.queryContainers(q, segs[1])
			}
			return h.createContainer(q, segs[1])
		}
	case n == 4:
		switch m {
		case http.MethodGet:
			return h.getContainer(q, segs[1], segs[3])
		case http.MethodPut:
			return h.replaceContainer(q, segs[1], segs[3])
		case http.MethodDelete:
			return h.deleteContainer(q, segs[1], segs[3])
		}
	case n == 5 && segs[4] == "pkranges":
		if m == http.MethodGet {
			return h.listPartitionKeyRanges(q, segs[1], segs[3])
		}
	case n <= 6 && isScriptKind(segs[4]):
		return h.routeScript(q)
	case segs[4] != "docs":
		return unsupported(fmt.Sprintf("The resource type %q", segs[4]))
	case n == 5:
		switch m {
		case http.MethodGet:
			if isChangeFeed(q.r) {
				return h.readChangeFeed(q, segs[1], segs[3])
			}
			return h.readItemFeed(q, segs[1], segs[3])
		case http.MethodPost:
			switch {
			case strings.EqualFold(q.r.Header.Get("X-Ms-Cosmos-Is-Batch-Request"), "true"):
				return h.batch(q, segs[1], segs[3])
			case isQuery(q.r):
				return h.queryItems(q, segs[1], segs[3])
			}
			return h.createItem(q, segs[1], segs[3])
		}
	case n == 6:
		switch m {
		case http.MethodGet:
			return h.readItem(q, segs[1], segs[3], segs[5])
		case http.MethodPut:
			return h.replaceItem(q, segs[1], segs[3], segs[5])
		case http.MethodDelete:
			return h.deleteItem(q, segs[1], segs[3], segs[5])
		case http.MethodPatch:
			return h.patchItem(q, segs[1], segs[3], segs[5])
		}
	default:
		return notFound("The resource path %q does not exist.", q.r.URL.Path)
	}
	return methodNotAllowed(m)
}

func isScriptKind(seg string) bool {
	_, ok := ParseScriptKind(seg)
	return ok
}

// routeScript dispatches /dbs/{db}/colls/{coll}/{sprocs|triggers|udfs}[/{id}].
func (h *handler) routeScript(q *request) error {
	segs, m := q.segs, q.r.Method
	db, coll := segs[1], segs[3]
	kind, _ := ParseScriptKind(segs[4])
	if len(segs) == 5 {
		switch m {
		case http.MethodGet:
			return h.listScripts(q, db, coll, kind)
		case http.MethodPost:
			if isQuery(q.r) {
				return h.queryScripts(q, db, coll, kind)
			}
			return h.createScript(q, db, coll, kind)
		}
		return methodNotAllowed(m)
	}
	id := segs[5]
	switch m {
	case http.MethodGet:
		return h.getScript(q, db, coll, kind, id)
	case http.MethodPut:
		return h.replaceScript(q, db, coll, kind, id)
	case http.MethodDelete:
		return h.deleteScript(q, db, coll, kind, id)
	case http.MethodPost:
		if kind == StoredProcedures {
			return h.executeStoredProcedure(q, db, coll, id)
		}
	}
	return methodNotAllowed(m)
}

// rejectUnsupportedHeaders refuses requests whose meaning depends on a
// feature cerulean does not serve, rather than silently ignoring it.
// A-IM (an incremental feed) is served on GETs of feeds: documents (the
// change feed) and partition key ranges.
func rejectUnsupportedHeaders(r *http.Request) error {
	switch {
	case r.Header.Get("A-Im") != "" && !incrementalFeedTarget(r):
		return unsupported("An incremental feed (A-IM) of this resource")
	case strings.EqualFold(r.Header.Get("X-Ms-Cosmos-Is-Batch-Request"), "true") &&
		(r.Header.Get("X-Ms-Documentdb-Pre-Trigger-Include") != "" || r.Header.Get("X-Ms-Documentdb-Post-Trigger-Include") != ""):
		return unsupported("Triggers on a batch")
	}
	return nil
}

func methodNotAllowed(m string) *Error {
	return newError(http.StatusMethodNotAllowed, "MethodNotAllowed", "The method %s is not allowed on this resource.", m)
}

// queryHeaders are the headers an SDK marks a query POST with, in the
// form http.Header keeps names (a lookup by another spelling converts the
// name, and allocates, on every request).
var queryHeaders = []string{"X-Ms-Documentdb-Isquery", "X-Ms-Documentdb-Query", "X-Ms-Cosmos-Is-Query-Plan-Request"}

// isQuery reports whether a POST is a query: SDKs mark it with either
// header, or with the query content type.
func isQuery(r *http.Request) bool {
	for _, h := range queryHeaders {
		if strings.EqualFold(r.Header.Get(h), "true") {
			return true
		}
	}
	ct, _, _ := strings.Cut(r.Header.Get("Content-Type"), ";")
	return strings.EqualFold(strings.TrimSpace(ct), "application/query+json")
}

// readBody reads a request body up to maxBody.
func readBody(r *http.Request) ([]byte, error) {
	b, err := io.ReadAll(io.LimitReader(r.Body, maxBody+1))
	if err != nil {
		return nil, badRequest("The request body could not be read: %v", err)
	}
	if len(b) > maxBody {
		return nil, tooLarge("%s", gatewayMessage("Request size is too large"))
	}
	return b, nil
}

// partitionKey is the request's x-ms-documentdb-partitionkey.
func partitionKey(r *http.Request) PartitionKey {
	return PartitionKey(r.Header.Get("X-Ms-Documentdb-Partitionkey"))
}

// preconditions are the request's ETag conditions; Cosmos DB honours no
// date conditions.
func preconditions(r *http.Request) Preconditions {
	c := conditions.FromHeader(r.Header, "")
	return Preconditions{IfMatch: c.IfMatch, IfNoneMatch: c.IfNoneMatch}
}

func preferMinimal(r *http.Request) bool {
	return strings.Contains(strings.ToLower(r.Header.Get("Prefer")), "return=minimal")
}

// pageSize reads x-ms-max-item-count; absent or -1 ("let the service
// decide") is defaultPageSize.
func pageSize(q *request) (int, error) {
	v := q.r.Header.Get("X-Ms-Max-Item-Count")
	if v == "" {
		return defaultPageSize, nil
	}
	n, err := strconv.Atoi(v)
	if err != nil || n == 0 || n < -1 {
		return 0, badRequest("Invalid value %q for x-ms-max-item-count.", v)
	}
	if n == -1 {
		return defaultPageSize, nil
	}
	return n, nil
}

// sessionToken is "<partition key range>:<version>#<lsn>", the shape the
// SDKs parse; cerulean is strongly consistent, so it is informational.
func (h *handler) sessionToken() string {
	return "0:-1#" + strconv.FormatUint(max(h.svc.lastVersion.Load(), 1), 10)
}

// commonHeaders sets the headers every Cosmos response carries, unless the
// handler already set them. They go in under the lower-case names Azure
// sends (the shared writer would otherwise re-case each one as the
// header goes out, allocating every time); a value a handler set under
// Go's canonical form of a name wins over the default, as the writer's
// re-casing keeps the canonical key's values.
func (h *handler) commonHeaders(w http.ResponseWriter, r *http.Request) {
	hdr := w.Header()
	unset := func(n headerName) bool {
		_, canonical := hdr[n.canonical]
		_, low := hdr[n.low]
		return !canonical && !low
	}
	if unset(hdrActivityID) {
		activity := r.Header.Get("X-Ms-Activity-Id")
		if activity == "" {
			activity = azhttp.RequestID(r.Context())
		}
		hdr[hdrActivityID.low] = []string{activity}
	}
	if unset(hdrRequestCharge) {
		hdr[hdrRequestCharge.low] = []string{"1"}
	}
	if unset(hdrSessionToken) {
		hdr[hdrSessionToken.low] = []string{h.sessionToken()}
	}
	if unset(hdrETag) {
		hdr[hdrETag.low] = []string{etagOf(max(h.svc.lastVersion.Load(), 1))}
	} else if v, ok := hdr[hdrETag.canonical]; ok {
		// The gateway sends etag in lower case too.
		delete(hdr, hdrETag.canonical)
		hdr[hdrETag.low] = v
	}
	for _, d := range versionHeaders {
		if unset(d.name) {
			hdr[d.name.low] = []string{d.value}
		}
	}
	delete(hdr, hdrVersion.canonical)
	delete(hdr, hdrVersion.low)
	if v := r.Header.Get("X-Ms-Version"); v != "" {
		hdr[hdrVersion.low] = []string{v}
	}
}

// headerName is a response header's name as Azure sends it and as Go's
// http.Header.Set stores it.
type headerName struct{ low, canonical string }

func newHeaderName(low string) headerName {
	return headerName{low: low, canonical: http.CanonicalHeaderKey(low)}
}

var (
	hdrActivityID    = newHeaderName("x-ms-activity-id")
	hdrRequestCharge = newHeaderName("x-ms-request-charge")
	hdrSessionToken  = newHeaderName("x-ms-session-token")
	hdrETag          = newHeaderName("etag")
	hdrVersion       = newHeaderName("x-ms-version")
	// versionHeaders are the gateway's own versions, the same on every
	// answer.
	versionHeaders = []struct {
		name  headerName
		value string
	}{
		{newHeaderName("x-ms-gatewayversion"), "version=2.14.0"},
		{newHeaderName("x-ms-serviceversion"), "version=2.14.0.0"},
		{newHeaderName("x-ms-schemaversion"), "1.20"},
	}
)

// writeJSON answers with a JSON body (nil for none).
func (h *handler) writeJSON(q *request, status int, body []byte) error {
	h.commonHeaders(q.w, q.r)
	hdr := q.w.Header()
	if body != nil {
		hdr.Set("Content-Type", "application/json")
		hdr.Set("Content-Length", strconv.Itoa(len(body)))
	} else {
		hdr.Set("Content-Length", "0")
	}
	q.w.WriteHeader(status)
	if body != nil && q.r.Method != http.MethodHead {
		_, _ = q.w.Write(body)
	}
	return nil
}

func (h *handler) writeValue(q *request, status int, v any) error {
	b, err := marshal(v)
	if err != nil {
		return err
	}
	return h.writeJSON(q, status, b)
}

// writeFeed answers a feed page: {"_rid":…,"<name>":[…],"_count":n}.
func (h *handler) writeFeed(q *request, rid, name string, items []json.RawMessage) error {
	if items == nil {
		items = []json.RawMessage{}
	}
	q.w.Header().Set("X-Ms-Item-Count", strconv.Itoa(len(items)))
	return h.writeValue(q, http.StatusOK, map[string]any{"_rid": rid, name: items, "_count": len(items)})
}

// writeResource answers with a database or container.
func (h *handler) writeResource(q *request, status int, etag string, body []byte) error {
	q.w.Header().Set("Etag", etag)
	return h.writeJSON(q, status, body)
}
