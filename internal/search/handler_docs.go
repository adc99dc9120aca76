package search

import (
	"encoding/json"
	"net/http"
	"net/url"
	"strconv"
	"strings"

	"github.com/cerulean-db/cerulean/internal/search/query"
)

// docs serves /indexes('name')/docs…:
//
//	GET  docs                          search (query parameters)
//	GET  docs('key') or docs/key       lookup
//	GET  docs/$count                   count
//	POST docs/search.index, docs/index batch
//	POST docs/search.post.search       search (body); GET/POST docs/search too
//	GET  docs/search.suggest, POST docs/search.post.suggest (and docs/suggest)
//	GET  docs/search.autocomplete, POST docs/search.post.autocomplete
func (h *handler) docs(q *request) error {
	m := q.r.Method
	docs := q.rest[0]
	switch {
	case len(q.rest) == 1 && docs.hasKey:
		if m != http.MethodGet {
			return methodNotAllowed(m)
		}
		return h.lookup(q, docs.key)
	case len(q.rest) == 1:
		if m != http.MethodGet {
			return methodNotAllowed(m)
		}
		return h.searchGet(q)
	case len(q.rest) != 2 || docs.hasKey || q.rest[1].hasKey:
		return notFound("The resource '%s' was not found.", q.r.URL.Path)
	}
	op := q.rest[1].name
	switch op {
	case "$count":
		if m != http.MethodGet {
			return methodNotAllowed(m)
		}
		return h.count(q)
	case "index", "search.index":
		if m != http.MethodPost {
			return methodNotAllowed(m)
		}
		return h.indexBatch(q)
	case "search", "search.post.search":
		switch {
		case m == http.MethodPost:
			return h.searchPost(q)
		case m == http.MethodGet && op == "search":
			return h.searchGet(q)
		}
		return methodNotAllowed(m)
	case "suggest", "search.suggest", "search.post.suggest", "autocomplete", "search.autocomplete", "search.post.autocomplete":
		auto := strings.HasSuffix(op, "autocomplete")
		post := strings.HasPrefix(op, "search.post.") || (m == http.MethodPost && !strings.HasPrefix(op, "search."))
		switch {
		case post && m == http.MethodPost:
			return h.suggestPost(q, auto)
		case !post && m == http.MethodGet:
			return h.suggestGet(q, auto)
		}
		return methodNotAllowed(m)
	}
	if m == http.MethodGet {
		// docs/{key}
		return h.lookup(q, op)
	}
	return notFound("The resource '%s' was not found.", q.r.URL.Path)
}

func (h *handler) lookup(q *request, key string) error {
	ix, err := h.svc.ResolveIndex(q.r.Context(), q.name)
	if err != nil {
		return err
	}
	parsed, err := ParseIndex(ix.Definition)
	if err != nil {
		return err
	}
	selected, err := query.ParseSelect(q.r.URL.Query().Get("$select"), newSchema(parsed))
	if err != nil {
		return queryError(err)
	}
	doc, err := h.svc.LookupDocument(q.r.Context(), q.name, key, selected)
	if err != nil {
		return err
	}
	return h.writeValue(q, http.StatusOK, doc)
}

func (h *handler) count(q *request) error {
	n, err := h.svc.CountDocuments(q.r.Context(), q.name)
	if err != nil {
		return err
	}
	body := []byte(strconv.FormatInt(n, 10))
	hdr := q.w.Header()
	commonHeaders(hdr, q.r)
	hdr.Set("Preference-Applied", appliedPreference)
	hdr.Set("Content-Type", "text/plain; charset=utf-8")
	hdr.Set("Content-Length", strconv.Itoa(len(body)))
	q.w.WriteHeader(http.StatusOK)
	_, _ = q.w.Write(body)
	return nil
}

func (h *handler) indexBatch(q *request) error {
	body, err := readBody(q.r)
	if err != nil {
		return err
	}
	actions, err := ParseIndexBatch(body)
	if err != nil {
		return err
	}
	results, err := h.svc.IndexDocuments(q.r.Context(), q.name, actions)
	if err != nil {
		return err
	}
	status := http.StatusOK
	values := make([]any, len(results))
	for i, r := range results {
		if !r.Status {
			status = http.StatusMultiStatus
		}
		var msg *string
		if r.ErrorMessage != "" {
			msg = &r.ErrorMessage
		}
		values[i] = indexingResult{Key: r.Key, Status: r.Status, ErrorMessage: msg, StatusCode: r.StatusCode}
	}
	return h.writeValue(q, status, map[string]any{"value": values})
}

// indexingResult is one document's outcome in an indexing answer, its
// keys in Azure's order (the Java SDK's recordings, e.g.
// IndexingTests.canIndexStaticallyTypedDocumentsSync): key, status,
// errorMessage, statusCode.
type indexingResult struct {
	Key          string  `json:"key"`
	Status       bool    `json:"status"`
	ErrorMessage *string `json:"errorMessage"`
	StatusCode   int     `json:"statusCode"`
}

// readJSON reads and decodes a JSON request body, numbers kept exact.
func readJSON(r *http.Request, v any) error {
	body, err := readBody(r)
	if err != nil {
		return err
	}
	if err := unmarshalJSON(body, v); err != nil {
		return badRequest("The request is invalid. Details: The request body is not valid JSON for this operation: %v", err)
	}
	return nil
}

// searchBody is the POST search body as the REST API names it.
type searchBody struct {
	Search            *string           `json:"search"`
	QueryType         string            `json:"queryType"`
	SearchMode        string            `json:"searchMode"`
	SearchFields      string            `json:"searchFields"`
	Filter            string            `json:"filter"`
	OrderBy           string            `json:"orderby"`
	Select            string            `json:"select"`
	Top               *int              `json:"top"`
	Skip              *int              `json:"skip"`
	Count             bool              `json:"count"`
	Facets            []string          `json:"facets"`
	Highlight         string            `json:"highlight"`
	HighlightPreTag   string            `json:"highlightPreTag"`
	HighlightPostTag  string            `json:"highlightPostTag"`
	ScoringProfile    string            `json:"scoringProfile"`
	ScoringParameters []string          `json:"scoringParameters"`
	MinimumCoverage   *float64          `json:"minimumCoverage"`
	ScoringStatistics string            `json:"scoringStatistics"`
	SessionID         string            `json:"sessionId"`
	VectorQueries     []json.RawMessage `json:"vectorQueries"`
	VectorFilterMode  string            `json:"vectorFilterMode"`
	// Semantic ranking is not served.
	SemanticConfiguration string `json:"semanticConfiguration"`
	Answers               string `json:"answers"`
	Captions              string `json:"captions"`
	SemanticQuery         string `json:"semanticQuery"`
	Debug                 string `json:"debug"`
}

func (h *handler) searchPost(q *request) error {
	var b searchBody
	if err := readJSON(q.r, &b); err != nil {
		return err
	}
	if b.SemanticConfiguration != "" || b.Answers != "" || b.Captions != "" || b.SemanticQuery != "" || strings.EqualFold(b.QueryType, "semantic") {
		return NotImplemented("Semantic ranking (queryType semantic, answers, captions)")
	}
	if b.Debug != "" && b.Debug != "disabled" {
		return NotImplemented("Query debugging (debug)")
	}
	req := &SearchRequest{QueryType: b.QueryType, SearchMode: b.SearchMode, SearchFields: b.SearchFields,
		Filter: b.Filter, OrderBy: b.OrderBy, Select: b.Select, Top: b.Top, Count: b.Count, Facets: b.Facets,
		Highlight: b.Highlight, HighlightPreTag: b.HighlightPreTag, HighlightPostTag: b.HighlightPostTag,
		ScoringProfile: b.ScoringProfile, ScoringParameters: b.ScoringParameters, VectorFilterMode: b.VectorFilterMode,
		MinimumCoverage: b.MinimumCoverage}
	if b.Search != nil {
		req.Search = *b.Search
	}
	if b.Skip != nil {
		req.Skip = *b.Skip
	}
	for i, raw := range b.VectorQueries {
		vq, err := parseVectorQuery(raw, i)
		if err != nil {
			return err
		}
		req.VectorQueries = append(req.VectorQueries, vq)
	}
	switch req.VectorFilterMode {
	case "", "preFilter", "postFilter":
	default:
		return badRequest("The vectorFilterMode '%s' is not preFilter or postFilter.", req.VectorFilterMode)
	}
	return h.runSearch(q, req)
}

func parseVectorQuery(raw json.RawMessage, i int) (VectorQuery, error) {
	var v struct {
		Kind       string    `json:"kind"`
		Vector     []float64 `json:"vector"`
		Fields     string    `json:"fields"`
		K          *int      `json:"k"`
		Exhaustive *bool     `json:"exhaustive"`
		Weight     *float64  `json:"weight"`
	}
	if err := json.Unmarshal(raw, &v); err != nil {
		return VectorQuery{}, badRequest("The request is invalid. Details: vectorQueries[%d] : %v", i, err)
	}
	if v.Kind != "vector" {
		return VectorQuery{}, NotImplemented("Vector queries of kind '" + v.Kind + "' (only kind 'vector', a raw vector, is served; there is no vectorizer)")
	}
	vq := VectorQuery{Vector: v.Vector, Fields: v.Fields}
	if v.K != nil {
		if *v.K < 1 {
			return vq, badRequest("The request is invalid. Details: vectorQueries[%d].k must be a positive number.", i)
		}
		vq.K = *v.K
	}
	if v.Weight != nil {
		if *v.Weight <= 0 {
			return vq, badRequest("The request is invalid. Details: vectorQueries[%d].weight must be a positive number.", i)
		}
		vq.Weight = *v.Weight
	}
	return vq, nil
}

func (h *handler) searchGet(q *request) error {
	p := q.r.URL.Query()
	req := &SearchRequest{Search: p.Get("search"), QueryType: p.Get("queryType"), SearchMode: p.Get("searchMode"),
		SearchFields: p.Get("searchFields"), Filter: p.Get("$filter"), OrderBy: p.Get("$orderby"), Select: p.Get("$select"),
		Facets: p["facet"], Highlight: p.Get("highlight"), HighlightPreTag: p.Get("highlightPreTag"),
		HighlightPostTag: p.Get("highlightPostTag"), ScoringProfile: p.Get("scoringProfile"), ScoringParameters: p["scoringParameter"]}
	if strings.EqualFold(req.QueryType, "semantic") || p.Get("semanticConfiguration") != "" || p.Get("answers") != "" || p.Get("captions") != "" {
		return NotImplemented("Semantic ranking (queryType semantic, answers, captions)")
	}
	var err error
	if v := p.Get("minimumCoverage"); v != "" {
		c, err := strconv.ParseFloat(v, 64)
		if err != nil {
			return badRequest("Invalid value '%s' for the query parameter 'minimumCoverage'; expected a number.", v)
		}
		req.MinimumCoverage = &c
	}
	if req.Top, err = intParam(p, "$top"); err != nil {
		return err
	}
	skip, err := intParam(p, "$skip")
	if err != nil {
		return err
	}
	if skip != nil {
		req.Skip = *skip
	}
	if v := p.Get("$count"); v != "" {
		if req.Count, err = strconv.ParseBool(v); err != nil {
			return badRequest("Invalid value '%s' for the query parameter '$count'; expected true or false.", v)
		}
	}
	return h.runSearch(q, req)
}

func intParam(p url.Values, name string) (*int, error) {
	v := p.Get(name)
	if v == "" {
		return nil, nil
	}
	n, err := strconv.Atoi(v)
	if err != nil {
		return nil, badRequest("Invalid value '%s' for the query parameter '%s'; expected an integer.", v, name)
	}
	return &n, nil
}

func (h *handler) runSearch(q *request, req *SearchRequest) error {
	res, err := h.svc.Search(q.r.Context(), q.name, req)
	if err != nil {
		return err
	}
	values := make([]any, 0, len(res.Hits))
	for _, hit := range res.Hits {
		annotations := object{{"@search.score", hit.Score}}
		if hit.Highlights != nil {
			annotations = append(annotations, member{"@search.highlights", highlightsInOrder(hit.Document.Fields, hit.Highlights)})
		}
		values = append(values, resultDocument{annotations, hit.Document})
	}
	// The answer's properties in the order the service writes them: the
	// count, coverage or facets before the documents (the Java SDK's
	// recordings SearchTests.canGetResultCountInSearchSync,
	// canSearchWithMinimumCoverageSync, canSearchWithRangeFacetsSync).
	body := object{{"@odata.context", h.docsContext(q)}}
	if res.Count != nil {
		body = append(body, member{"@odata.count", *res.Count})
	}
	if req.MinimumCoverage != nil {
		body = append(body, member{"@search.coverage", fullCoverage})
	}
	if res.Facets != nil {
		facets := map[string]any{}
		for name, buckets := range res.Facets {
			list := make([]any, len(buckets))
			for i, b := range buckets {
				// count first, then value or the range's from and to
				// (canSearchWithValueFacetsSync, canSearchWithRangeFacetsSync).
				m := object{{"count", b.Count}}
				if b.Value != nil {
					m = append(m, member{"value", b.Value})
				}
				if b.From != nil {
					m = append(m, member{"from", b.From})
				}
				if b.To != nil {
					m = append(m, member{"to", b.To})
				}
				list[i] = &m
			}
			facets[name] = list
		}
		body = append(body, member{"@search.facets", facets})
	}
	// No recording shows a next page: its parameters go before the
	// documents and its link after them, as in the REST reference's
	// example answer.
	var nextLink string
	if res.Next != nil {
		body = append(body, member{"@search.nextPageParameters", nextPageParameters(res.Next)})
		u := *q.r.URL
		u.Path = strings.TrimSuffix(strings.TrimSuffix(u.Path, "/search"), "/search.post.search")
		if !strings.HasSuffix(u.Path, "/docs") {
			u.Path = strings.TrimSuffix(u.Path, "/")
		}
		u.Path += "/search.post.search"
		u.RawQuery = "api-version=" + url.QueryEscape(q.r.URL.Query().Get("api-version"))
		nextLink = serviceURL(q.r) + u.Path + "?" + u.RawQuery
	}
	body = append(body, member{"value", values})
	if nextLink != "" {
		body = append(body, member{"@odata.nextLink", nextLink})
	}
	return h.writeValue(q, http.StatusOK, &body)
}

// nextPageParameters is the POST body that fetches the next page.
func nextPageParameters(r *SearchRequest) map[string]any {
	m := map[string]any{"search": r.Search, "skip": r.Skip}
	if r.Top != nil {
		m["top"] = *r.Top
	}
	set := func(k, v string) {
		if v != "" {
			m[k] = v
		}
	}
	set("queryType", r.QueryType)
	set("searchMode", r.SearchMode)
	set("searchFields", r.SearchFields)
	set("filter", r.Filter)
	set("orderby", r.OrderBy)
	set("select", r.Select)
	set("highlight", r.Highlight)
	set("highlightPreTag", r.HighlightPreTag)
	set("highlightPostTag", r.HighlightPostTag)
	set("scoringProfile", r.ScoringProfile)
	set("vectorFilterMode", r.VectorFilterMode)
	if r.MinimumCoverage != nil {
		m["minimumCoverage"] = *r.MinimumCoverage
	}
	if r.Count {
		m["count"] = true
	}
	if len(r.Facets) > 0 {
		m["facets"] = r.Facets
	}
	if len(r.ScoringParameters) > 0 {
		m["scoringParameters"] = r.ScoringParameters
	}
	if len(r.VectorQueries) > 0 {
		vqs := make([]any, len(r.VectorQueries))
		for i, v := range r.VectorQueries {
			vq := map[string]any{"kind": "vector", "vector": v.Vector, "fields": v.Fields}
			if v.K > 0 {
				vq["k"] = v.K
			}
			if v.Weight > 0 {
				vq["weight"] = v.Weight
			}
			vqs[i] = vq
		}
		m["vectorQueries"] = vqs
	}
	return m
}

type suggestBody struct {
	Search           string   `json:"search"`
	SuggesterName    string   `json:"suggesterName"`
	Fuzzy            bool     `json:"fuzzy"`
	Filter           string   `json:"filter"`
	OrderBy          string   `json:"orderby"`
	Select           string   `json:"select"`
	SearchFields     string   `json:"searchFields"`
	AutocompleteMode string   `json:"autocompleteMode"`
	HighlightPreTag  string   `json:"highlightPreTag"`
	HighlightPostTag string   `json:"highlightPostTag"`
	MinimumCoverage  *float64 `json:"minimumCoverage"`
	Top              *int     `json:"top"`
}

func (h *handler) suggestPost(q *request, auto bool) error {
	var b suggestBody
	if err := readJSON(q.r, &b); err != nil {
		return err
	}
	req := &SuggestRequest{Search: b.Search, SuggesterName: b.SuggesterName, Fuzzy: b.Fuzzy, Filter: b.Filter,
		OrderBy: b.OrderBy, Select: b.Select, SearchFields: b.SearchFields, AutocompleteMode: b.AutocompleteMode,
		HighlightPreTag: b.HighlightPreTag, HighlightPostTag: b.HighlightPostTag, Top: b.Top, MinimumCoverage: b.MinimumCoverage}
	return h.runSuggest(q, req, auto)
}

func (h *handler) suggestGet(q *request, auto bool) error {
	p := q.r.URL.Query()
	req := &SuggestRequest{Search: p.Get("search"), SuggesterName: p.Get("suggesterName"), Filter: p.Get("$filter"),
		OrderBy: p.Get("$orderby"), Select: p.Get("$select"), SearchFields: p.Get("searchFields"),
		AutocompleteMode: p.Get("autocompleteMode"), HighlightPreTag: p.Get("highlightPreTag"), HighlightPostTag: p.Get("highlightPostTag")}
	if v := p.Get("fuzzy"); v != "" {
		b, err := strconv.ParseBool(v)
		if err != nil {
			return badRequest("Invalid value '%s' for the query parameter 'fuzzy'; expected true or false.", v)
		}
		req.Fuzzy = b
	}
	var err error
	if req.Top, err = intParam(p, "$top"); err != nil {
		return err
	}
	return h.runSuggest(q, req, auto)
}

func (h *handler) runSuggest(q *request, req *SuggestRequest, auto bool) error {
	if auto {
		res, err := h.svc.Autocomplete(q.r.Context(), q.name, req)
		if err != nil {
			return err
		}
		values := make([]any, len(res))
		for i, c := range res {
			values[i] = c
		}
		return h.writeValue(q, http.StatusOK, &object{{"@odata.context", h.docsContext(q)}, {"value", values}})
	}
	res, err := h.svc.Suggest(q.r.Context(), q.name, req)
	if err != nil {
		return err
	}
	values := make([]any, len(res))
	for i, s := range res {
		values[i] = resultDocument{object{{"@search.text", s.Text}}, s.Document}
	}
	// The coverage before the suggestions (the Java SDK's recording
	// SuggestTests.testCanSuggestWithMinimumCoverageSync).
	body := object{{"@odata.context", h.docsContext(q)}}
	if req.MinimumCoverage != nil {
		body = append(body, member{"@search.coverage", fullCoverage})
	}
	body = append(body, member{"value", values})
	return h.writeValue(q, http.StatusOK, &body)
}

// fullCoverage is @search.coverage as Azure writes it, a double (100.0),
// answered where the request gave a minimumCoverage: one replica of one
// partition covers the whole index (the Java SDK's recordings
// SearchTests.canSearchWithMinimumCoverageSync and
// SuggestTests.testCanSuggestWithMinimumCoverageSync).
const fullCoverage = json.Number("100.0")

// docsContext is the @odata.context of a document listing: the index's
// own $metadata ("https://svc.search.windows.net/indexes('hotels')/$metadata#docs(*)").
func (h *handler) docsContext(q *request) string {
	return serviceURL(q.r) + entityPath(Indexes, q.name) + "/$metadata#docs(*)"
}
