package search

import (
	"context"
	"errors"
	"net/http"
	"slices"
	"sort"
	"strconv"
	"strings"

	"github.com/blevesearch/bleve/v2"
	bquery "github.com/blevesearch/bleve/v2/search/query"

	"github.com/cerulean-db/cerulean/internal/kv"
	"github.com/cerulean-db/cerulean/internal/kv/record"
	"github.com/cerulean-db/cerulean/internal/search/query"
)

// SearchRequest is one docs/search call, from GET parameters or a POST
// body, in the REST API's terms.
type SearchRequest struct {
	Search, QueryType, SearchMode, SearchFields string
	Filter, OrderBy, Select                     string
	// Top is nil when not given (the service then pages by 50).
	Top   *int
	Skip  int
	Count bool
	// Facets are facet expressions ("Category,count:5").
	Facets                                       []string
	Highlight, HighlightPreTag, HighlightPostTag string
	ScoringProfile                               string
	ScoringParameters                            []string
	VectorQueries                                []VectorQuery
	// VectorFilterMode is "preFilter" (default) or "postFilter".
	VectorFilterMode string
	// MinimumCoverage, when given, makes the answer report
	// @search.coverage (always 100: one partition holds everything).
	MinimumCoverage *float64
}

// VectorQuery is one entry of vectorQueries (kind "vector": a raw query
// vector). K is the number of nearest neighbours (default 50 when 0).
type VectorQuery struct {
	Vector []float64
	Fields string
	K      int
	Weight float64
}

// SearchHit is one result document.
type SearchHit struct {
	Key        string
	Score      float64
	Document   Document
	Highlights map[string][]string
}

// FacetBucket is one bucket of a facet: a value, or a range [From, To)
// where either end may be absent (nil).
type FacetBucket struct {
	Value    any
	From, To any
	Count    int64
}

// SearchResults is the answer to a search. Next, when not nil, is the
// request for the next page (@search.nextPageParameters).
type SearchResults struct {
	Count  *int64
	Facets map[string][]FacetBucket
	// FacetOrder lists the facet fields as requested.
	FacetOrder []string
	Hits       []SearchHit
	Next       *SearchRequest
}

// Azure's paging limits.
const (
	defaultTop = 50
	maxTop     = 1000
	maxSkip    = 100000
	rrfK       = 60
)

// hit is a candidate document during a search.
type hit struct {
	key       string
	score     float64
	doc       map[string]any
	locations map[string]map[string][]location
}

type location struct {
	start, end int
	array      []uint64
}

// Search runs a search on an index (or the index an alias names). The
// text part is matched by the derived bleve index, brought up to the
// documents of the query's kv snapshot first; filters that bleve cannot
// answer exactly, ordering, facets, vectors and paging are applied to the
// documents of that snapshot.
func (s *Service) Search(ctx context.Context, index string, req *SearchRequest) (*SearchResults, error) {
	var out *SearchResults
	err := s.viewIndex(ctx, func(rd kv.Reader) error {
		var err error
		out, err = s.search(rd, index, req)
		return err
	})
	return out, err
}

// prepared is an index made ready for querying on one snapshot.
type queryContext struct {
	rd     kv.Reader
	ix     *Index
	schema *indexSchema
	d      *derived
}

// open resolves the index and brings its bleve index up to rd. The
// returned release must be called when the bleve index is no longer used;
// until then the bleve index stays as it is, and other queries may use
// it too. When the bleve index is already past rd, open answers
// errStaleSnapshot (viewIndex tries a newer snapshot), unless rd is
// aheadTolerant.
func (s *Service) open(rd kv.Reader, index string) (*queryContext, func(), error) {
	_, tolerant := rd.(aheadTolerant)
	name, etag, err := s.indexVersion(rd, index)
	if err != nil {
		return nil, nil, err
	}
	seq, err := readSequence(rd, name)
	if err != nil {
		return nil, nil, err
	}
	for {
		d := s.derived.get(name)
		d.mu.RLock()
		if d.removed {
			d.mu.RUnlock()
			continue
		}
		switch d.freshness(etag, seq) {
		case current:
			return &queryContext{rd: rd, ix: d.ix, schema: d.schema, d: d}, d.mu.RUnlock, nil
		case ahead:
			if tolerant {
				return &queryContext{rd: rd, ix: d.ix, schema: d.schema, d: d}, d.mu.RUnlock, nil
			}
			d.mu.RUnlock()
			return nil, nil, errStaleSnapshot
		}
		d.mu.RUnlock()
		res, err := s.resolveIndex(rd, index)
		if err != nil {
			return nil, nil, err
		}
		d.mu.Lock()
		err = s.derived.bringUp(d, rd, res, seq)
		d.mu.Unlock()
		if err != nil {
			return nil, nil, err
		}
	}
}

// indexVersion is the name and ETag of the index that index names (an
// index or an alias), as resolveIndex finds them. A query needs the
// definition only to bring the bleve index up; an index's own record
// gives both without decoding its definition.
func (s *Service) indexVersion(rd kv.Reader, index string) (name, etag string, err error) {
	var st stored
	found, err := record.Load(rd, resourceKey(Indexes, index), &st)
	if err != nil {
		return "", "", err
	}
	if found {
		return index, etagOf(st.Version), nil
	}
	res, err := s.resolveIndex(rd, index)
	if err != nil {
		return "", "", err
	}
	return res.Name, res.ETag, nil
}

func queryError(err error) error {
	var se *query.SyntaxError
	if errors.As(err, &se) && se.Param == query.ParamSearch {
		// A search text that does not parse (the Java SDK's recording
		// SearchTests.searchThrowsWhenSpecialCharInRegexIsUnescapedSync).
		return detailed(http.StatusBadRequest, "InvalidRequestParameter", "InvalidSearchSyntax", err.Error())
	}
	if errors.Is(err, query.ErrInvalid) {
		return badRequest("%s", err.Error())
	}
	return err
}

func (s *Service) search(rd kv.Reader, index string, req *SearchRequest) (*SearchResults, error) {
	if req.Skip < 0 || req.Skip > maxSkip {
		return nil, badRequest("Invalid request. $skip must be between 0 and %d.", maxSkip)
	}
	if req.Top != nil && *req.Top < 0 {
		return nil, badRequest("Invalid request. $top must be a non-negative number.")
	}
	if c := req.MinimumCoverage; c != nil && (*c < 0 || *c > 100) {
		return nil, badRequest("Invalid request. minimumCoverage must be between 0 and 100.")
	}
	qc, release, err := s.open(rd, index)
	if err != nil {
		return nil, err
	}
	defer release()
	p, err := s.planSearch(qc, req)
	if err != nil {
		return nil, err
	}
	// The text part: every match, in score order (or, when nothing but
	// the page needs them, the matches up to the page's end and how many
	// there are).
	var textHits []*hit
	total := -1
	switch {
	case p.pageOnly():
		if textHits, total, err = qc.pagedHits(p, pageSize(req)); err != nil {
			return nil, err
		}
	case p.hasText || len(p.vectors) == 0:
		if textHits, total, err = qc.textHits(p, p.pageEnd(req)); err != nil {
			return nil, err
		}
	}
	hits := textHits
	if len(p.vectors) > 0 {
		if hits, err = qc.vectorHits(p, textHits, req.VectorFilterMode == "postFilter"); err != nil {
			return nil, err
		}
		total = len(hits)
	}
	return qc.results(p, req, hits, total)
}

// pageEnd is how many of the best text matches the answer needs when it
// needs only its page of them: no filter to apply to the documents, no
// scoring functions, vectors, facets or ordering. Then bleve collects just
// those (and counts the rest) instead of every match. -1 means every
// match is needed.
func (p *searchPlan) pageEnd(req *SearchRequest) int {
	if p.filter != nil || p.functions != nil || len(p.vectors) > 0 || len(p.facets) > 0 || len(p.order) > 0 {
		return -1
	}
	return pageSize(req)
}

// pageSize is how many of the best matches the answer's page reaches:
// those it skips and those it returns.
func pageSize(req *SearchRequest) int {
	top := defaultTop
	if req.Top != nil {
		top = *req.Top
	}
	return req.Skip + min(top, maxTop)
}

// searchPlan is a search request parsed against the index.
type searchPlan struct {
	hasText     bool
	textQuery   bquery.Query
	filter      *query.Filter
	filterQuery bquery.Query
	exact       bool
	order       []query.OrderClause
	selected    []string
	facets      []*query.Facet
	highlights  []highlightField
	vectors     []*vectorPlan
	functions   *scoringFunctions
}

func (s *Service) planSearch(qc *queryContext, req *SearchRequest) (*searchPlan, error) {
	schema := qc.schema
	mode, err := query.ParseSearchMode(req.SearchMode)
	if err != nil {
		return nil, queryError(err)
	}
	p := &searchPlan{filterQuery: bquery.NewMatchAllQuery(), exact: true}
	text := req.Search
	// "*" alone (as SDK samples send with vector queries) matches
	// everything without ranking: next to vector queries it is no text
	// query at all.
	p.hasText = strings.TrimSpace(text) != "" && strings.TrimSpace(text) != "*"
	if strings.TrimSpace(text) == "" {
		text = "*"
	}
	node, err := query.ParseSearch(text, req.QueryType, mode)
	if err != nil {
		return nil, queryError(err)
	}
	var fields []string
	if req.SearchFields != "" {
		if fields, err = query.ParseSearchFields(req.SearchFields, schema); err != nil {
			return nil, queryError(err)
		}
	}
	weights, functions, err := s.scoringWeights(qc, req)
	if err != nil {
		return nil, err
	}
	p.functions = functions
	syn, err := s.synonymsFor(qc)
	if err != nil {
		return nil, err
	}
	if len(weights) > 0 || len(syn) > 0 {
		exp := &expander{schema: schema, fields: fields, weights: weights, synonyms: syn}
		if len(exp.fields) == 0 {
			exp.fields = schema.SearchableFields()
		}
		node = exp.node(node)
	}
	if p.textQuery, err = query.TranslateSearch(node, query.SearchOptions{Schema: schema, Fields: fields, Mode: mode}); err != nil {
		return nil, queryError(err)
	}
	if err := p.parseClauses(req, schema); err != nil {
		return nil, err
	}
	if p.vectors, err = s.vectorPlans(qc, req.VectorQueries); err != nil {
		return nil, err
	}
	return p, nil
}

// parseClauses parses $filter, $orderby, $select, facets and highlight.
func (p *searchPlan) parseClauses(req *SearchRequest, schema *indexSchema) error {
	var err error
	if strings.TrimSpace(req.Filter) != "" {
		if p.filter, err = query.ParseFilter(req.Filter, schema); err != nil {
			return queryError(err)
		}
		p.filterQuery, p.exact = p.filter.Query()
	}
	if req.OrderBy != "" {
		if p.order, err = query.ParseOrderBy(req.OrderBy, schema); err != nil {
			return queryError(err)
		}
	}
	if p.selected, err = query.ParseSelect(req.Select, schema); err != nil {
		return queryError(err)
	}
	p.facets = make([]*query.Facet, 0, len(req.Facets))
	for _, f := range req.Facets {
		pf, err := query.ParseFacet(f, schema)
		if err != nil {
			return queryError(err)
		}
		p.facets = append(p.facets, pf)
	}
	p.highlights, err = parseHighlight(req.Highlight, schema)
	return err
}

// textHits runs the text part of a search: the matches in score order,
// all of them with limit -1, else the best limit; and how many match.
func (qc *queryContext) textHits(p *searchPlan, limit int) ([]*hit, int, error) {
	q := p.textQuery
	if p.filter != nil && len(p.filter.Scoring) > 0 {
		q = bquery.NewBooleanQuery(append([]bquery.Query{p.textQuery}, p.filter.Scoring...), nil, nil)
	}
	hits, total, err := qc.bleveSearch(q, len(p.highlights) > 0, limit)
	if err != nil {
		return nil, 0, err
	}
	if p.filter != nil {
		// The filter runs as a search of its own, among the text's
		// matches only: bleve's BooleanQuery.AddFilter leaks a searcher
		// (and its index snapshot) per query, and a filter must not
		// score anyway.
		allowed, err := qc.matchingKeys(p.filterQuery, hits)
		if err != nil {
			return nil, 0, err
		}
		hits = slices.DeleteFunc(hits, func(h *hit) bool { return !allowed[h.key] })
	}
	if hits, err = qc.keepMatching(hits, p.filter, p.exact); err != nil {
		return nil, 0, err
	}
	if p.functions != nil {
		if hits, err = qc.loadDocs(hits); err != nil {
			return nil, 0, err
		}
		p.functions.apply(hits)
	}
	if limit < 0 {
		total = len(hits)
	}
	return hits, total, nil
}

// vectorHits runs the vector queries and fuses them with the text hits.
// preFilter (the default) searches the neighbours among the documents
// passing the filter; postFilter finds the k nearest of all and then
// drops those failing the filter, so fewer than k may remain, as in
// Azure.
func (qc *queryContext) vectorHits(p *searchPlan, textHits []*hit, postFilter bool) ([]*hit, error) {
	post := postFilter && p.filter != nil
	var candidates, passing []*hit
	var err error
	if post {
		candidates, err = qc.filtered(bquery.NewMatchAllQuery(), nil, true)
		if err == nil {
			passing, err = qc.filtered(p.filterQuery, p.filter, p.exact)
		}
	} else {
		candidates, err = qc.filtered(p.filterQuery, p.filter, p.exact)
	}
	if err != nil {
		return nil, err
	}
	lists := make([][]*hit, 0, len(p.vectors)+1)
	if p.hasText {
		lists = append(lists, textHits)
	}
	for _, v := range p.vectors {
		near := v.nearest(candidates)
		if post {
			near = keepKeys(near, passing)
		}
		lists = append(lists, near)
	}
	if len(lists) == 1 {
		return lists[0], nil
	}
	return fuse(lists, p.vectors, p.hasText), nil
}

// results counts, facets, orders and pages the hits.
//
// hits are every hit in order, or (total > len(hits)) the first of the
// total, as many as the page needs.
func (qc *queryContext) results(p *searchPlan, req *SearchRequest, hits []*hit, total int) (*SearchResults, error) {
	var err error
	if len(p.facets) > 0 || len(p.order) > 0 {
		if hits, err = qc.loadDocs(hits); err != nil {
			return nil, err
		}
	}
	out := &SearchResults{}
	if req.Count {
		n := int64(total)
		out.Count = &n
	}
	if len(p.facets) > 0 {
		out.Facets = map[string][]FacetBucket{}
		for _, f := range p.facets {
			out.Facets[f.Path] = facetBuckets(f, hits)
			out.FacetOrder = append(out.FacetOrder, f.Path)
		}
	}
	if len(p.order) > 0 {
		sortHits(hits, p.order, qc.schema)
	}
	top := defaultTop
	if req.Top != nil {
		top = *req.Top
	}
	page := min(top, maxTop)
	from := min(req.Skip, total)
	to := min(from+page, total)
	if (req.Top == nil || top > maxTop) && to < total && page > 0 {
		next := *req
		next.Skip = to
		if req.Top != nil {
			rest := top - page
			next.Top = &rest
		}
		out.Next = &next
	}
	pageHits, err := qc.loadDocs(hits[min(from, len(hits)):min(to, len(hits))])
	if err != nil {
		return nil, err
	}
	for _, h := range pageHits {
		sh := SearchHit{Key: h.key, Score: h.score, Document: Document{Values: project(qc.ix.Fields, h.doc, p.selected), Fields: qc.ix.Fields}}
		if len(p.highlights) > 0 {
			sh.Highlights = highlightHit(h, p.highlights, req.HighlightPreTag, req.HighlightPostTag)
		}
		out.Hits = append(out.Hits, sh)
	}
	return out, nil
}

// bleveSearch returns the documents matching q, best first: all of them
// when limit is -1, else the best limit; and how many match. loadDocs
// reads the stored documents of the hits that need them.
func (qc *queryContext) bleveSearch(q bquery.Query, locations bool, limit int) ([]*hit, int, error) {
	n, err := qc.d.bi.DocCount()
	if err != nil {
		return nil, 0, err
	}
	if n == 0 {
		return nil, 0, nil
	}
	size := int(n)
	if limit >= 0 {
		size = min(size, limit)
	}
	br := bleve.NewSearchRequestOptions(q, size, 0, false)
	br.IncludeLocations = locations
	br.SortBy([]string{"-_score", "_id"})
	res, err := qc.d.bi.Search(br)
	if err != nil {
		// bleve refuses what the parsers let through only for query
		// reasons (a regular expression RE2 cannot compile, too many
		// expanded terms).
		return nil, 0, badRequest("Invalid search query: %v", err)
	}
	out := make([]*hit, 0, len(res.Hits))
	for _, m := range res.Hits {
		h := &hit{key: m.ID, score: m.Score}
		if locations {
			h.locations = map[string]map[string][]location{}
			for field, terms := range m.Locations {
				h.locations[field] = map[string][]location{}
				for term, locs := range terms {
					for _, l := range locs {
						h.locations[field][term] = append(h.locations[field][term], location{start: int(l.Start), end: int(l.End), array: l.ArrayPositions})
					}
				}
			}
		}
		out = append(out, h)
	}
	if limit < 0 {
		return out, len(out), nil
	}
	return out, int(res.Total), nil
}

func (qc *queryContext) document(key string) (map[string]any, error) {
	b, err := qc.rd.Get(DocumentKey(qc.ix.Name, key))
	if errors.Is(err, kv.ErrNotFound) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	return decodeDocument(b)
}

// keepKeys keeps the hits whose keys are among those of passing.
func keepKeys(hits, passing []*hit) []*hit {
	ok := make(map[string]bool, len(passing))
	for _, p := range passing {
		ok[p.key] = true
	}
	out := hits[:0]
	for _, h := range hits {
		if ok[h.key] {
			out = append(out, h)
		}
	}
	return out
}

// loadDocs reads the stored document of each hit from the query's
// snapshot, dropping hits whose document is not there (the bleve index
// is caught up to that snapshot, so none should be).
func (qc *queryContext) loadDocs(hits []*hit) ([]*hit, error) {
	out := hits[:0]
	for _, h := range hits {
		if h.doc == nil {
			doc, err := qc.document(h.key)
			if err != nil {
				return nil, err
			}
			if doc == nil {
				continue
			}
			h.doc = doc
		}
		out = append(out, h)
	}
	return out, nil
}

// matchingKeys returns the keys of the documents among hits that match
// q. The search is confined to those documents, so that its cost follows
// the hits rather than every document q matches in the index, unless
// the hits are a large part of the index (then finding them by key would
// cost more than reading q's matches).
func (qc *queryContext) matchingKeys(q bquery.Query, among []*hit) (map[string]bool, error) {
	n, err := qc.d.bi.DocCount()
	if err != nil || n == 0 || len(among) == 0 {
		return map[string]bool{}, err
	}
	size := int(n)
	if len(among) <= size/confineFilterBelow {
		keys := make([]string, len(among))
		for i, h := range among {
			keys[i] = h.key
		}
		q, size = bquery.NewConjunctionQuery([]bquery.Query{q, bquery.NewDocIDQuery(keys)}), len(keys)
	}
	res, err := qc.d.bi.Search(bleve.NewSearchRequestOptions(q, size, 0, false))
	if err != nil {
		return nil, badRequest("Invalid $filter: %v", err)
	}
	keys := make(map[string]bool, len(res.Hits))
	for _, m := range res.Hits {
		keys[m.ID] = true
	}
	return keys, nil
}

// confineFilterBelow: a filter is searched among the text's matches when
// they are at most one in this many of the index's documents.
const confineFilterBelow = 4

// keepMatching applies the exact filter predicate where bleve's
// translation was a superset.
func (qc *queryContext) keepMatching(hits []*hit, f *query.Filter, exact bool) ([]*hit, error) {
	if f == nil || exact {
		return hits, nil
	}
	hits, err := qc.loadDocs(hits)
	if err != nil {
		return nil, err
	}
	out := hits[:0]
	for _, h := range hits {
		ok, err := f.Match(h.doc, qc.textMatcher(h.key))
		if err != nil {
			return nil, queryError(err)
		}
		if ok {
			out = append(out, h)
		}
	}
	return out, nil
}

// textMatcher answers search.ismatch inside a filter for one document.
func (qc *queryContext) textMatcher(key string) query.TextMatcher {
	return func(q bquery.Query) (bool, error) {
		c := bquery.NewConjunctionQuery([]bquery.Query{q, bquery.NewDocIDQuery([]string{key})})
		res, err := qc.d.bi.Search(bleve.NewSearchRequestOptions(c, 1, 0, false))
		if err != nil {
			return false, err
		}
		return res.Total > 0, nil
	}
}

// filtered returns every document passing the filter (vector candidates).
func (qc *queryContext) filtered(fq bquery.Query, f *query.Filter, exact bool) ([]*hit, error) {
	hits, _, err := qc.bleveSearch(fq, false, -1)
	if err == nil {
		hits, err = qc.loadDocs(hits)
	}
	if err != nil {
		return nil, err
	}
	return qc.keepMatching(hits, f, exact)
}

// highlightField is one field of the highlight parameter and the most
// fragments to return for it ("field-n"; 5 unless given, as Azure).
type highlightField struct {
	path string
	max  int
}

const (
	defaultHighlights = 5
	// fragmentAbove is the value length past which only the sentences
	// holding matches are returned, not the whole value.
	fragmentAbove = 200
)

// parseHighlight reads "field[-n],field…".
func parseHighlight(text string, schema *indexSchema) ([]highlightField, error) {
	if strings.TrimSpace(text) == "" {
		return nil, nil
	}
	var out []highlightField
	for _, part := range strings.Split(text, ",") {
		hf := highlightField{path: strings.TrimSpace(part), max: defaultHighlights}
		if i := strings.LastIndexByte(hf.path, '-'); i >= 0 {
			n, err := strconv.Atoi(hf.path[i+1:])
			if err != nil || n < 1 {
				return nil, badRequest("Invalid expression: '%s' is not a field name optionally followed by '-' and a positive number of highlights. Parameter name: highlight", part)
			}
			hf.path, hf.max = hf.path[:i], n
		}
		f, ok := schema.Field(hf.path)
		if !ok || !f.Searchable {
			return nil, badRequest("Invalid expression: '%s' is not a searchable field and cannot be highlighted. Parameter name: highlight", hf.path)
		}
		out = append(out, hf)
	}
	return out, nil
}

// highlightHit wraps the matched terms of each highlighted field in the
// tags (default <em></em>): a short value is one fragment, a long one
// gives the sentences holding matches; at most max fragments a field.
func highlightHit(h *hit, fields []highlightField, pre, post string) map[string][]string {
	if pre == "" && post == "" {
		pre, post = "<em>", "</em>"
	}
	out := map[string][]string{}
	for _, hf := range fields {
		terms := h.locations[query.FieldName(hf.path)]
		if len(terms) == 0 {
			continue
		}
		values := valuesAt(h.doc, hf.path)
		byValue := map[int][]location{}
		for _, locs := range terms {
			for _, l := range locs {
				idx := 0
				if len(l.array) > 0 {
					idx = int(l.array[len(l.array)-1])
				}
				byValue[idx] = append(byValue[idx], l)
			}
		}
		var frags []string
		for i, v := range values {
			s, ok := v.(string)
			locs := byValue[i]
			if !ok || len(locs) == 0 {
				continue
			}
			sort.Slice(locs, func(a, b int) bool { return locs[a].start < locs[b].start })
			spans := [][2]int{{0, len(s)}}
			if len(s) > fragmentAbove {
				spans = sentences(s)
			}
			for _, sp := range spans {
				var sb strings.Builder
				pos, marked := sp[0], false
				for _, l := range locs {
					if l.start < pos || l.end > sp[1] {
						continue
					}
					sb.WriteString(s[pos:l.start])
					sb.WriteString(pre)
					sb.WriteString(s[l.start:l.end])
					sb.WriteString(post)
					pos, marked = l.end, true
				}
				if marked {
					sb.WriteString(s[pos:sp[1]])
					frags = append(frags, strings.TrimSpace(sb.String()))
				}
			}
		}
		if len(frags) > hf.max {
			frags = frags[:hf.max]
		}
		if len(frags) > 0 {
			out[hf.path] = frags
		}
	}
	return out
}

// sentences splits text after '.', '!' or '?' followed by white space.
func sentences(text string) [][2]int {
	var out [][2]int
	start := 0
	for i := 0; i < len(text)-1; i++ {
		switch text[i] {
		case '.', '!', '?':
			if text[i+1] == ' ' || text[i+1] == '\n' || text[i+1] == '\t' {
				out = append(out, [2]int{start, i + 1})
				start = i + 1
			}
		}
	}
	return append(out, [2]int{start, len(text)})
}

// sortHits orders hits by $orderby, ties kept in score order. Nulls sort
// first ascending and last descending, as Azure does.
func sortHits(hits []*hit, order []query.OrderClause, schema *indexSchema) {
	sort.SliceStable(hits, func(i, j int) bool {
		for _, c := range order {
			var cmp int
			switch c.Kind {
			case query.OrderScore:
				cmp = compareFloat(hits[i].score, hits[j].score)
			case query.OrderGeoDistance:
				cmp = compareAny(geoDistance(hits[i].doc, c), geoDistance(hits[j].doc, c))
			default:
				cmp = compareAny(sortValue(hits[i].doc, c.Path), sortValue(hits[j].doc, c.Path))
			}
			if c.Desc {
				cmp = -cmp
			}
			if cmp != 0 {
				return cmp < 0
			}
		}
		return false
	})
}

func sortValue(doc map[string]any, path string) any {
	vs := valuesAt(doc, path)
	if len(vs) == 0 {
		return nil
	}
	return jsonValue(vs[0])
}

func geoDistance(doc map[string]any, c query.OrderClause) any {
	vs := valuesAt(doc, c.Path)
	if len(vs) == 0 {
		return nil
	}
	lon, lat, ok := geoPoint(vs[0])
	if !ok {
		return nil
	}
	return query.DistanceKm(query.GeoPoint{Lon: lon, Lat: lat}, c.Point)
}

func compareFloat(a, b float64) int {
	switch {
	case a < b:
		return -1
	case a > b:
		return 1
	}
	return 0
}

// compareAny orders JSON values of one field: null first, then numbers,
// strings (ordinal, as Azure sorts), booleans (false first).
func compareAny(a, b any) int {
	if a == nil || b == nil {
		switch {
		case a == nil && b == nil:
			return 0
		case a == nil:
			return -1
		}
		return 1
	}
	switch x := a.(type) {
	case float64:
		if y, ok := b.(float64); ok {
			return compareFloat(x, y)
		}
	case string:
		if y, ok := b.(string); ok {
			return strings.Compare(x, y)
		}
	case bool:
		if y, ok := b.(bool); ok {
			switch {
			case x == y:
				return 0
			case !x:
				return -1
			}
			return 1
		}
	}
	return 0
}

// facetBuckets counts the hits' values of one facet.
func facetBuckets(f *query.Facet, hits []*hit) []FacetBucket {
	if f.Interval > 0 || f.DateInterval != "" || len(f.Values) > 0 {
		return rangeBuckets(f, hits)
	}
	counts := map[any]int64{}
	for _, h := range hits {
		seen := map[any]bool{}
		for _, v := range valuesAt(h.doc, f.Path) {
			v = jsonValue(v)
			if v == nil || seen[v] {
				continue
			}
			seen[v] = true
			counts[v]++
		}
	}
	out := make([]FacetBucket, 0, len(counts))
	for v, n := range counts {
		out = append(out, FacetBucket{Value: v, Count: n})
	}
	sort.Slice(out, func(i, j int) bool {
		a, b := out[i], out[j]
		switch f.Sort {
		case query.FacetSortCountAsc:
			if a.Count != b.Count {
				return a.Count < b.Count
			}
		case query.FacetSortValueAsc:
			return compareAny(a.Value, b.Value) < 0
		case query.FacetSortValueDesc:
			return compareAny(a.Value, b.Value) > 0
		default:
			if a.Count != b.Count {
				return a.Count > b.Count
			}
		}
		return compareAny(a.Value, b.Value) < 0
	})
	if f.Count > 0 && len(out) > f.Count {
		out = out[:f.Count]
	}
	return out
}
