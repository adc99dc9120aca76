package search

import (
	"crypto/subtle"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/cerulean-db/cerulean/internal/azerr"
	"github.com/cerulean-db/cerulean/internal/azhttp"
	"github.com/cerulean-db/cerulean/internal/conditions"
)

// maxBody bounds a request body: the largest definition kept
// (maxDefinition), so a larger one is refused before it is read.
const maxBody = maxDefinition

// handler serves a Service over the Azure AI Search REST protocol: it
// checks api-version and api-key, parses the OData path and headers into
// domain values, makes one call into the Service and writes its answer.
type handler struct {
	svc                  *Service
	adminKeys, queryKeys [][]byte
	log                  *slog.Logger
}

// NewHandler returns the search service's HTTP handler for svc, wrapped
// in the shared plumbing (request ids, logging, panic recovery).
func NewHandler(svc *Service) http.Handler {
	h := &handler{svc: svc, log: svc.log}
	for _, k := range svc.adminKeys {
		h.adminKeys = append(h.adminKeys, []byte(k))
	}
	for _, k := range svc.queryKeys {
		h.queryKeys = append(h.queryKeys, []byte(k))
	}
	return azhttp.Wrap("search", h.log, nil, h.writeError, http.HandlerFunc(h.serve))
}

// request is one parsed call.
type request struct {
	w http.ResponseWriter
	r *http.Request
	// kind and name are the resource the path names (name empty for a
	// collection); rest are the segments after it.
	kind Kind
	name string
	rest []segment
	// statsPath is /servicestats, indexStatsPath /indexstats.
	statsPath, indexStatsPath bool
}

// segment is one path segment; OData's key form name('key') sets key.
type segment struct {
	name   string
	key    string
	hasKey bool
}

var keySegment = regexp.MustCompile(`^([A-Za-z$][A-Za-z0-9_.$]*)\('(.*)'\)$`)

func parseSegment(s string) segment {
	if m := keySegment.FindStringSubmatch(s); m != nil {
		return segment{name: m[1], key: strings.ReplaceAll(m[2], "''", "'"), hasKey: true}
	}
	return segment{name: s}
}

// parsePath reads /{kind}[('name') | /name][/…] and /servicestats.
func parsePath(r *http.Request) (*request, error) {
	q := &request{r: r}
	var segs []segment
	for _, raw := range strings.Split(r.URL.EscapedPath(), "/") {
		if raw == "" {
			continue
		}
		s, err := url.PathUnescape(raw)
		if err != nil {
			return nil, badRequest("The path segment '%s' is not URL-encoded correctly.", raw)
		}
		segs = append(segs, parseSegment(s))
	}
	if len(segs) == 0 {
		return nil, notFound("The resource '%s' was not found.", r.URL.Path)
	}
	if len(segs) == 1 && !segs[0].hasKey && strings.EqualFold(segs[0].name, "servicestats") {
		q.statsPath = true
		return q, nil
	}
	if len(segs) == 1 && !segs[0].hasKey && strings.EqualFold(segs[0].name, "indexstats") {
		q.indexStatsPath = true
		return q, nil
	}
	kind, ok := ParseKind(segs[0].name)
	if !ok {
		return nil, notFound("The resource '%s' was not found.", r.URL.Path)
	}
	q.kind = kind
	rest := segs[1:]
	switch {
	case segs[0].hasKey:
		q.name = segs[0].key
	case len(rest) > 0 && !rest[0].hasKey:
		q.name, rest = rest[0].name, rest[1:]
	case len(rest) > 0:
		return nil, notFound("The resource '%s' was not found.", r.URL.Path)
	}
	if q.name == "" && (segs[0].hasKey || len(segs) > 1) {
		return nil, notFound("The resource '%s' was not found.", r.URL.Path)
	}
	q.rest = rest
	return q, nil
}

// queryOperation reports whether the request is one a query key may make:
// a search, suggest, autocomplete, lookup or count on an index's
// documents.
func (q *request) queryOperation() bool {
	if q.kind != Indexes || q.name == "" || len(q.rest) == 0 || q.rest[0].name != "docs" {
		return false
	}
	m := q.r.Method
	docs := q.rest[0]
	switch len(q.rest) {
	case 1:
		// GET docs?search=… is a search, GET docs('key') a lookup.
		return m == http.MethodGet
	case 2:
		if docs.hasKey {
			return false
		}
		switch q.rest[1].name {
		case "search", "suggest", "autocomplete":
			return m == http.MethodGet || m == http.MethodPost
		case "search.post.search", "search.post.suggest", "search.post.autocomplete":
			return m == http.MethodPost
		case "search.suggest", "search.autocomplete", "$count":
			return m == http.MethodGet
		case "index", "search.index":
			return false
		}
		// GET docs/{key} is a lookup.
		return m == http.MethodGet
	}
	return false
}

func (h *handler) serve(w http.ResponseWriter, r *http.Request) {
	if err := h.handle(w, r); err != nil {
		h.writeError(w, r, err)
	}
}

func (h *handler) handle(w http.ResponseWriter, r *http.Request) error {
	if _, err := parseAPIVersion(r.URL.Query().Get("api-version")); err != nil {
		return err
	}
	q, err := parsePath(r)
	if err != nil {
		if errors.Is(err, ErrNotFound) {
			// An unknown path must not tell an unauthenticated caller more.
			if authErr := h.authenticate(r, false); authErr != nil {
				return authErr
			}
		}
		return err
	}
	q.w = w
	if err := h.authenticate(r, q.queryOperation()); err != nil {
		return err
	}
	if err := azhttp.Routed(w, r, q.operationName()); err != nil {
		return err
	}
	return h.route(q)
}

// authenticate checks the api-key: an admin key may do everything, a
// query key only what queryOperation allows.
func (h *handler) authenticate(r *http.Request, queryAllowed bool) error {
	key := []byte(r.Header.Get("Api-Key"))
	if len(key) == 0 {
		return &Error{Status: http.StatusForbidden, Message: "Authentication failed: the request has no api-key header. Send the service's admin key or, for queries, a query key."}
	}
	if keyIn(key, h.adminKeys) {
		return nil
	}
	if keyIn(key, h.queryKeys) {
		if queryAllowed {
			return nil
		}
		return &Error{Status: http.StatusForbidden, Message: "The api-key is a query key, which may only search, suggest, autocomplete, look up and count documents. Use an admin key for this operation."}
	}
	return &Error{Status: http.StatusForbidden, Message: "Authentication failed: the api-key is not a key of this service."}
}

func keyIn(key []byte, keys [][]byte) bool {
	found := false
	for _, k := range keys {
		if subtle.ConstantTimeCompare(key, k) == 1 {
			found = true
		}
	}
	return found
}

// route dispatches on the parsed path:
//
//	/servicestats                              service statistics
//	/indexstats                                every index's statistics
//	/{kind}                                    list (GET), create (POST)
//	/{kind}('name') or /{kind}/name            get, create or update (PUT), delete
//	/indexes('name')/search.stats              index statistics (also /stats)
//	/indexes('name')/docs…                     documents and queries (h.docs)
//	/indexers('name')/search.run|reset|status  indexer runs (h.indexerAction)
func (h *handler) route(q *request) error {
	m := q.r.Method
	if q.statsPath || q.indexStatsPath {
		if m != http.MethodGet {
			return methodNotAllowed(m)
		}
		if q.indexStatsPath {
			return h.indexStatsSummary(q)
		}
		return h.serviceStats(q)
	}
	if q.name == "" {
		switch m {
		case http.MethodGet:
			return h.list(q)
		case http.MethodPost:
			return h.put(q, true)
		}
		return methodNotAllowed(m)
	}
	if len(q.rest) == 0 {
		switch m {
		case http.MethodGet:
			return h.get(q)
		case http.MethodPut:
			return h.put(q, false)
		case http.MethodDelete:
			return h.delete(q)
		}
		return methodNotAllowed(m)
	}
	op := q.rest[0].name
	switch {
	case q.kind == Indexes && (op == "search.stats" || op == "stats") && len(q.rest) == 1:
		if m != http.MethodGet {
			return methodNotAllowed(m)
		}
		return h.indexStats(q)
	case q.kind == Indexes && op == "docs":
		return h.docs(q)
	case q.kind == Indexes && (op == "search.analyze" || op == "analyze") && len(q.rest) == 1:
		if m != http.MethodPost {
			return methodNotAllowed(m)
		}
		return h.analyze(q)
	case q.kind == Indexers && len(q.rest) == 1 && isIndexerAction(strings.TrimPrefix(op, "search.")):
		if _, err := h.svc.Get(q.r.Context(), Indexers, q.name); err != nil {
			return err
		}
		return h.indexerAction(q, strings.TrimPrefix(op, "search."))
	case q.kind == Skillsets && (op == "search.resetskills" || op == "resetskills"):
		if _, err := h.svc.Get(q.r.Context(), Skillsets, q.name); err != nil {
			return err
		}
		return NotImplemented("Resetting skills")
	}
	return notFound("The resource '%s' was not found.", q.r.URL.Path)
}

// checkConnection checks a data source definition's connection string
// against this server when it carries one (an update may leave it out,
// or send "<unchanged>", to keep the stored one). A definition that does
// not decode is left to Put to refuse.
func (h *handler) checkConnection(def map[string]any) error {
	d, err := decodeDefinition(DataSources, def)
	if err != nil {
		return nil //nolint:nilerr // Put answers the definition's error
	}
	ds := d.(*DataSource)
	if conn := ds.ConnectionString(); conn == "" || conn == unchangedSecret {
		return nil
	}
	return h.svc.indexers.CheckDataSource(ds)
}

// indexerAction runs, resets or reports an existing indexer.
func (h *handler) indexerAction(q *request, op string) error {
	r := h.svc.indexers
	switch {
	case op == "resetdocs":
		return NotImplemented("Resetting documents of an indexer (a preview API)")
	case r == nil:
		return NotImplemented("Running, resetting and the status of indexers")
	case op == "run" && q.r.Method == http.MethodPost:
		if err := r.Start(q.r.Context(), q.name); err != nil {
			return err
		}
		return h.writeJSON(q, http.StatusAccepted, nil)
	case op == "reset" && q.r.Method == http.MethodPost:
		if err := r.Reset(q.r.Context(), q.name); err != nil {
			return err
		}
		return h.writeJSON(q, http.StatusNoContent, nil)
	case op == "status" && q.r.Method == http.MethodGet:
		st, err := r.Status(q.r.Context(), q.name)
		if err != nil {
			return err
		}
		body, err := orderedJSON(st)
		if err != nil {
			return err
		}
		body.prepend("@odata.context", h.context(q, typeName(q, "IndexerExecutionInfo")))
		shapeIndexerStatus(body, requestVersion(q))
		return h.writeValue(q, http.StatusOK, body)
	}
	return methodNotAllowed(q.r.Method)
}

func isIndexerAction(op string) bool {
	switch op {
	case "run", "reset", "status", "resetdocs":
		return true
	}
	return false
}

func methodNotAllowed(m string) error {
	return &Error{Status: http.StatusMethodNotAllowed, Message: "The requested resource does not support http method '" + m + "'."}
}

// preconditions are the request's If-Match / If-None-Match.
func preconditions(r *http.Request) Preconditions {
	c := conditions.FromHeader(r.Header, "")
	return Preconditions{IfMatch: c.IfMatch, IfNoneMatch: c.IfNoneMatch}
}

// prefer reads Prefer: return=representation|minimal ("" when absent).
func prefer(r *http.Request) string {
	for _, part := range strings.Split(r.Header.Get("Prefer"), ",") {
		switch strings.ToLower(strings.TrimSpace(part)) {
		case "return=representation":
			return "representation"
		case "return=minimal":
			return "minimal"
		}
	}
	return ""
}

func readBody(r *http.Request) ([]byte, error) {
	b, err := io.ReadAll(io.LimitReader(r.Body, maxBody+1))
	if err != nil {
		return nil, badRequest("The request body could not be read: %v", err)
	}
	if len(b) > maxBody {
		return nil, &Error{Status: http.StatusRequestEntityTooLarge, Message: "The request body is too large."}
	}
	return b, nil
}

func (h *handler) put(q *request, create bool) error {
	opts := PutOptions{Preconditions: preconditions(q.r), CreateOnly: create}
	if v := q.r.URL.Query().Get("allowIndexDowntime"); v != "" {
		b, err := strconv.ParseBool(v)
		if err != nil {
			return badRequest("The value '%s' of the query parameter 'allowIndexDowntime' is not true or false.", v)
		}
		opts.AllowIndexDowntime = b
	}
	body, err := readBody(q.r)
	if err != nil {
		return err
	}
	def, err := ParseDefinition(body)
	if err != nil {
		return err
	}
	name := q.name
	if name == "" {
		name, _ = def["name"].(string)
	}
	if err := checkVersion(q.kind, name, def, requestVersion(q)); err != nil {
		return err
	}
	if err := dropUnservedDefaults(q.kind, def); err != nil {
		return err
	}
	if q.kind == DataSources && h.svc.indexers != nil {
		if err := h.checkConnection(def); err != nil {
			return err
		}
	}
	res, created, err := h.svc.Put(q.r.Context(), q.kind, q.name, def, opts)
	if err != nil {
		return err
	}
	// Azure runs an indexer as soon as it is created, unless disabled. A
	// POST names it in the body only: res.Name is the name either way.
	if ix, ok := res.Definition.(*Indexer); ok && created && h.svc.indexers != nil && !deref(ix.Disabled) {
		if err := h.svc.indexers.Start(q.r.Context(), res.Name); err != nil {
			h.log.Warn("indexer did not start on create", "indexer", res.Name, "err", err)
		}
	}
	pref := prefer(q.r)
	status := http.StatusOK
	switch {
	case created:
		status = http.StatusCreated
		if pref == "minimal" {
			status = http.StatusNoContent
		}
	case pref == "representation":
	default:
		// An update answers minimal unless a representation was asked for.
		status = http.StatusNoContent
	}
	setETag(q, res)
	if status == http.StatusCreated {
		q.w.Header().Set("Location", resourceLocation(q.r, q.kind, res.Name))
	}
	if status == http.StatusNoContent {
		return h.writeJSON(q, status, nil)
	}
	return h.writeResource(q, status, res)
}

func (h *handler) get(q *request) error {
	res, err := h.svc.Get(q.r.Context(), q.kind, q.name)
	if err != nil {
		return h.aliasNotFound(q, err, "get")
	}
	setETag(q, res)
	return h.writeResource(q, http.StatusOK, res)
}

func (h *handler) delete(q *request) error {
	if err := h.svc.Delete(q.r.Context(), q.kind, q.name, preconditions(q.r)); err != nil {
		return h.aliasNotFound(q, err, "delete")
	}
	return h.writeJSON(q, http.StatusNoContent, nil)
}

// aliasNotFound is err, or, for an alias that does not exist, Azure's
// answer to reading or deleting it: 404 OperationNotAllowed with detail
// IndexAliasNotFoundInService (the Python SDK's recording
// test_search_index_client_aliases_live test_create_get_list_and_delete_alias).
func (h *handler) aliasNotFound(q *request, err error, op string) error {
	if q.kind != Aliases || !errors.Is(err, ErrNotFound) {
		return err
	}
	msg := fmt.Sprintf("The index alias needs to be a valid alias. Alias \u2013 '%s' cannot be found within the search service \u2013 '%s'. Learn more at https://learn.microsoft.com/en-us/rest/api/searchservice/aliases/%s", q.name, h.svc.name, op)
	return detailed(http.StatusNotFound, "OperationNotAllowed", "IndexAliasNotFoundInService", msg)
}

func (h *handler) list(q *request) error {
	var selected []string
	if sel := q.r.URL.Query().Get("$select"); sel != "" && strings.TrimSpace(sel) != "*" {
		for _, s := range strings.Split(sel, ",") {
			selected = append(selected, strings.TrimSpace(s))
		}
	}
	all, err := h.svc.List(q.r.Context(), q.kind)
	if err != nil {
		return err
	}
	values := make([]any, 0, len(all))
	version := requestVersion(q)
	for _, res := range all {
		body := res.Body()
		shapeBody(res.Kind, body, version)
		if selected != nil {
			// The selected properties in the body's order (the Python
			// SDK's recording test_search_index_client_indexes_live
			// test_create_or_update_index… lists name, description).
			picked := object{}
			for _, m := range *body {
				if slices.Contains(selected, m.key) {
					picked = append(picked, m)
				}
			}
			body = &picked
		}
		values = append(values, body)
	}
	return h.writeValue(q, http.StatusOK, &object{{"@odata.context", h.context(q, string(q.kind))}, {"value", values}})
}

func (h *handler) indexStats(q *request) error {
	st, err := h.svc.IndexStats(q.r.Context(), q.name)
	if err != nil {
		return err
	}
	return h.writeValue(q, http.StatusOK, &object{
		{"@odata.context", h.context(q, typeName(q, "IndexStatistics"))},
		{"documentCount", st.DocumentCount}, {"storageSize", st.StorageSize}, {"vectorIndexSize", st.VectorIndexSize},
	})
}

// analyze answers Analyze Text with the tokens the index's analysis makes.
func (h *handler) analyze(q *request) error {
	b, err := readBody(q.r)
	if err != nil {
		return err
	}
	var req AnalyzeRequest
	if err := unmarshalJSON(b, &req); err != nil {
		return invalid("request", "The request body is not an analyze request: %v", err)
	}
	tokens, err := h.svc.Analyze(q.r.Context(), q.name, req)
	if err != nil {
		return err
	}
	return h.writeValue(q, http.StatusOK, &object{
		{"@odata.context", h.context(q, typeName(q, "AnalyzeResult"))},
		{"tokens", tokens},
	})
}

// indexStatsSummary answers GET /indexstats (Get Index Stats Summary):
// each index's name and counts. Source: the .NET SDK's
// GetIndexStatsSummaryWithNoIndexes recording ({"@odata.context":
// "…/$metadata#Collection(…IndexStatisticsSummary)", "value": []}).
func (h *handler) indexStatsSummary(q *request) error {
	all, err := h.svc.IndexStatsSummary(q.r.Context())
	if err != nil {
		return err
	}
	values := make([]any, 0, len(all))
	for _, st := range all {
		values = append(values, map[string]any{"name": st.Name, "documentCount": st.DocumentCount, "storageSize": st.StorageSize, "vectorIndexSize": st.VectorIndexSize})
	}
	return h.writeValue(q, http.StatusOK, &object{
		{"@odata.context", h.context(q, "Collection("+typeName(q, "IndexStatisticsSummary")+")")},
		{"value", values},
	})
}

func (h *handler) serviceStats(q *request) error {
	st, err := h.svc.ServiceStats(q.r.Context())
	if err != nil {
		return err
	}
	counter := func(usage int64, quota any) map[string]any { return map[string]any{"usage": usage, "quota": quota} }
	body := map[string]any{
		"@odata.context": h.context(q, typeName(q, "ServiceStatistics")),
		"counters": map[string]any{
			"aliasesCount":     counter(st.Counts[Aliases], nil),
			"documentCount":    counter(st.DocumentCount, nil),
			"indexesCount":     counter(st.Counts[Indexes], nil),
			"indexersCount":    counter(st.Counts[Indexers], nil),
			"dataSourcesCount": counter(st.Counts[DataSources], nil),
			"storageSize":      counter(st.StorageSize, nil),
			"synonymMaps":      counter(st.Counts[SynonymMaps], nil),
			"skillsetCount":    counter(st.Counts[Skillsets], nil),
			"vectorIndexSize":  counter(st.VectorIndexSize, nil),
		},
		"limits": map[string]any{
			"maxFieldsPerIndex":                         1000,
			"maxFieldNestingDepthPerIndex":              10,
			"maxComplexCollectionFieldsPerIndex":        40,
			"maxComplexObjectsInCollectionsPerDocument": 3000,
			"maxStoragePerIndex":                        nil,
		},
	}
	if requestVersion(q).has(indexerRuntimeQuota) {
		// The day's indexer runtime quota (from 2025-11-01-preview, the
		// Python SDK's recording): cerulean sets none and does not meter
		// indexer time, so nothing is used and nothing is limited.
		day := h.svc.now().UTC().Truncate(24 * time.Hour)
		body["indexersRuntime"] = map[string]any{
			"usedSeconds": 0, "remainingSeconds": nil,
			"beginningTime": day.Format(time.RFC3339), "endingTime": day.Add(24 * time.Hour).Format(time.RFC3339),
		}
		body["limits"].(map[string]any)["maxCumulativeIndexerRuntimeSeconds"] = nil
	}
	return h.writeValue(q, http.StatusOK, body)
}

// context is the @odata.context of a response: the service's $metadata
// document and what the body holds. writeValue drops it when the request
// asked for odata.metadata=none.
func (h *handler) context(q *request, what string) string {
	return serviceURL(q.r) + "/$metadata#" + what
}

// setETag sets the ETag header of an answer carrying res, which aliases
// do not have at the previews (aliasWithoutETag).
func setETag(q *request, res *Resource) {
	if res.Kind == Aliases && requestVersion(q).has(aliasWithoutETag) {
		return
	}
	q.w.Header().Set("Etag", res.ETag)
}

func (h *handler) writeResource(q *request, status int, res *Resource) error {
	body := res.Body()
	shapeBody(res.Kind, body, requestVersion(q))
	if status == http.StatusCreated {
		shapeCreated(res.Kind, body, requestVersion(q))
	}
	body.prepend("@odata.context", h.context(q, string(res.Kind)+"/$entity"))
	return h.writeValue(q, status, body)
}

// writeValue writes an answer's JSON: an object's properties in its
// order, a map's sorted.
func (h *handler) writeValue(q *request, status int, v any) error {
	if requestedMetadata(q.r) == metadataNone {
		switch m := v.(type) {
		case map[string]any:
			delete(m, "@odata.context")
		case *object:
			m.del("@odata.context")
		}
	}
	w := newJSONWriter()
	if err := w.value(v); err != nil {
		return err
	}
	return h.writeJSON(q, status, w.buf.Bytes())
}

func (h *handler) writeJSON(q *request, status int, body []byte) error {
	hdr := q.w.Header()
	commonHeaders(hdr, q.r)
	hdr.Set("Preference-Applied", appliedPreference)
	if body != nil {
		hdr.Set("Content-Type", jsonContentType(q.r))
		hdr.Set("Content-Length", strconv.Itoa(len(body)))
	}
	q.w.WriteHeader(status)
	if body != nil && q.r.Method != http.MethodHead {
		_, _ = q.w.Write(body)
	}
	return nil
}

// appliedPreference is the Preference-Applied of every successful answer,
// whatever Prefer asked (a PUT sent with Prefer: return=representation
// included): the synonym map recording answers it to each list, create,
// update and delete. Of the errors, only the 400s refusing a request body
// ("The request is invalid. Details: …") carry it (the Java SDK's
// recording IndexManagementTests.testProductScoringAggregationWithOlderApiVersions);
// a refused index update, a 404 or a 412 does not.
const appliedPreference = `odata.include-annotations="*"`

// commonHeaders are the headers every answer carries: the request id
// under the names the Search service uses, and no Storage x-ms-version.
func commonHeaders(hdr http.Header, r *http.Request) {
	hdr.Del("X-Ms-Version")
	hdr.Set("Odata-Version", "4.0")
	hdr.Set("Request-Id", azhttp.RequestID(r.Context()))
	if id := r.Header.Get("Client-Request-Id"); id != "" {
		hdr.Set("Client-Request-Id", id)
	}
}

// writeError writes err as {"error":{"code","message"[,"details"]}}.
func (h *handler) writeError(w http.ResponseWriter, r *http.Request, err error) {
	e := h.resolve(r, err)
	hdr := w.Header()
	hdr.Del("Etag")
	hdr.Del("Preference-Applied")
	if e.requestInvalid {
		hdr.Set("Preference-Applied", appliedPreference)
	}
	commonHeaders(hdr, r)
	body, _ := json.Marshal(errorBody{Error: errorInner{Code: e.Code, Message: e.Message, Details: e.Details}})
	hdr.Set("Content-Type", errorContentType)
	hdr.Set("Content-Language", "en")
	hdr.Set("Content-Length", strconv.Itoa(len(body)))
	w.WriteHeader(e.Status)
	if r.Method != http.MethodHead {
		_, _ = w.Write(body)
	}
}

// errorBody is an error answer, its keys in Azure's order: code, message,
// then details when there are any (the Java SDK's recordings, e.g.
// AutocompleteTests.canAutocompleteThrowsWhenGivenBadSuggesterNameSync).
type errorBody struct {
	Error errorInner `json:"error"`
}

type errorInner struct {
	Code    string        `json:"code"`
	Message string        `json:"message"`
	Details []ErrorDetail `json:"details,omitempty"`
}

// storeErrors are the answers to the store's failures.
var storeErrors = map[azerr.StoreFailure]Error{
	azerr.StoreBusy:       {Status: http.StatusServiceUnavailable, Message: "The service is busy with conflicting writes; retry the request."},
	azerr.StoreTimedOut:   {Status: http.StatusServiceUnavailable, Message: "The request could not be completed in time; retry the request."},
	azerr.StoreTooLarge:   {Status: http.StatusRequestEntityTooLarge, Message: "The request is larger than a transaction of this server may hold."},
	azerr.StoreClosed:     {Status: http.StatusServiceUnavailable, Message: "The server is shutting down; retry the request."},
	azerr.StoreFull:       {Status: http.StatusServiceUnavailable, Message: "The server's data volume is nearly full: writes are refused until space is freed; reads and deletions are served. Retry the request later."},
	azerr.RequestCanceled: {Status: http.StatusServiceUnavailable, Message: "The request was cancelled."},
}

// resolve maps any error to a Search error; unknown errors are logged and
// become 500 so that internals never leak.
func (h *handler) resolve(r *http.Request, err error) *Error {
	var e *Error
	if errors.As(err, &e) {
		return e
	}
	var ae *azerr.Error
	if errors.As(err, &ae) {
		return &Error{Status: ae.Status, Code: ae.Code, Message: ae.Message}
	}
	if e, ok := storeErrors[azerr.ClassifyStore(err)]; ok {
		return &Error{Status: e.Status, Message: e.Message}
	}
	h.log.ErrorContext(r.Context(), "search request failed", "err", err, "path", r.URL.Path, "request_id", azhttp.RequestID(r.Context()))
	return &Error{Status: http.StatusInternalServerError, Message: "An unknown error occurred while processing this request."}
}
