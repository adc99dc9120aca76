package search

import (
	"bytes"
	"cmp"
	"context"
	"errors"
	"slices"

	"github.com/blevesearch/bleve/v2"
	"github.com/blevesearch/bleve/v2/mapping"
	"github.com/blevesearch/bleve/v2/search"
	bquery "github.com/blevesearch/bleve/v2/search/query"
	index "github.com/blevesearch/bleve_index_api"
)

// pageOnly reports whether the answer needs from the text part only its
// page of matches and their count: nothing orders, facets, rescores or
// highlights every match, and the filter, if any, is answered exactly by
// bleve without scoring. Then pagedHits collects that page and counts
// the matches without keeping them all.
func (p *searchPlan) pageOnly() bool {
	if p.functions != nil || len(p.vectors) > 0 || len(p.facets) > 0 || len(p.order) > 0 || len(p.highlights) > 0 {
		return false
	}
	return p.filter == nil || (p.exact && len(p.filter.Scoring) == 0)
}

// pagedHits returns the best n matches of the text query that pass the
// filter, ordered as bleveSearch orders them (score descending, then
// key), and how many matches pass it.
//
// bleve's own collector scores every match, sorts them all on the key
// too (reading each match's key from its stored fields) and keeps the
// page; the filter, a search of its own, then had to be matched against
// every one of them to count. Here the text query runs through bleve's
// search with a handler of its matches, which steps the filter's
// searcher (unscored) along the same snapshot: a match is counted when
// the filter's searcher lands on it, and kept as its internal number and
// score. Only the kept matches that can be on the page — those scoring
// at least the n-th — have their keys read, to order ties. Once the
// filter has no more documents the search stops: no later match passes.
func (qc *queryContext) pagedHits(p *searchPlan, n int) ([]*hit, int, error) {
	docs, err := qc.d.bi.DocCount()
	if err != nil || docs == 0 {
		return nil, 0, err
	}
	c := &pageCollector{n: n, filterQuery: p.filterQuery, mapping: qc.d.bi.Mapping()}
	if p.filter == nil {
		c.filterQuery = nil
	}
	ctx := context.WithValue(context.Background(), search.MakeDocumentMatchHandlerKey, search.MakeDocumentMatchHandler(c.handler))
	// Size and sort only shape bleve's own collector, which the handler
	// replaces; "-_score" alone keeps bleve from reading every key.
	_, err = qc.d.bi.SearchInContext(ctx, bleve.NewSearchRequestOptions(p.textQuery, 1, 0, false))
	if cerr := c.closeFilter(); cerr != nil && c.err == nil {
		c.err = cerr
	}
	switch {
	case c.err != nil:
		return nil, 0, c.err
	case err != nil && !errors.Is(err, errFilterDone):
		// As in bleveSearch: bleve refuses a query the parsers let
		// through only for query reasons.
		return nil, 0, badRequest("Invalid search query: %v", err)
	}
	return c.page, c.count, nil
}

// errFilterDone stops a search whose filter has no more documents.
var errFilterDone = errors.New("filter exhausted")

// pageCollector receives the text query's matches in the snapshot's
// document order.
type pageCollector struct {
	n           int
	filterQuery bquery.Query
	mapping     mapping.IndexMapping

	reader    index.IndexReader
	filter    search.Searcher
	filterCtx *search.SearchContext
	// at is the filter's current document (nil before the first step).
	at []byte

	count int
	kept  []keptMatch
	ids   []byte // the kept matches' internal numbers, end to end
	page  []*hit
	// err is an error of the handler's own (not the query's).
	err error
}

type keptMatch struct {
	score    float64
	from, to int // of ids
	key      string
}

func (c *pageCollector) handler(sctx *search.SearchContext) (search.DocumentMatchHandler, bool, error) {
	c.reader = sctx.IndexReader
	if c.filterQuery != nil {
		fs, err := c.filterQuery.Searcher(context.Background(), sctx.IndexReader, c.mapping, search.SearcherOptions{Score: "none"})
		if err != nil {
			// As in matchingKeys, the filter's own search.
			c.err = badRequest("Invalid $filter: %v", err)
			return nil, false, c.err
		}
		c.filter = fs
		c.filterCtx = &search.SearchContext{
			DocumentMatchPool: search.NewDocumentMatchPool(fs.DocumentMatchPoolSize()+1, 0),
			IndexReader:       sctx.IndexReader,
		}
	}
	return func(d *search.DocumentMatch) error {
		if d == nil {
			return c.finish()
		}
		id, score := d.IndexInternalID, d.Score
		pass, err := c.passes(id)
		if errors.Is(err, errFilterDone) {
			// No later match can pass: order the page now, while
			// the snapshot is open, and stop the search.
			sctx.DocumentMatchPool.Put(d)
			if ferr := c.finish(); ferr != nil {
				return ferr
			}
			return errFilterDone
		}
		if err == nil && pass {
			c.count++
			from := len(c.ids)
			c.ids = append(c.ids, id...)
			c.kept = append(c.kept, keptMatch{score: score, from: from, to: len(c.ids)})
		}
		sctx.DocumentMatchPool.Put(d)
		return err
	}, false, nil
}

// passes steps the filter's searcher to id and reports whether it
// matches there. Matches arrive in increasing internal number, so the
// filter only moves forward.
func (c *pageCollector) passes(id index.IndexInternalID) (bool, error) {
	if c.filter == nil {
		return true, nil
	}
	if c.at != nil {
		switch cmp := bytes.Compare(c.at, id); {
		case cmp == 0:
			return true, nil
		case cmp > 0:
			return false, nil
		}
	}
	m, err := c.filter.Advance(c.filterCtx, id)
	if err != nil {
		c.err = err
		return false, err
	}
	if m == nil {
		return false, errFilterDone
	}
	c.at = append(c.at[:0], m.IndexInternalID...)
	c.filterCtx.DocumentMatchPool.Put(m)
	return bytes.Equal(c.at, id), nil
}

// finish closes the filter's searcher and orders the kept matches that
// can be on the page, reading their keys, while the snapshot is open. It
// runs once, when the text query or the filter has no more matches.
func (c *pageCollector) finish() error {
	if err := c.closeFilter(); err != nil {
		c.err = err
		return err
	}
	if c.page != nil || c.n == 0 || len(c.kept) == 0 {
		return nil
	}
	slices.SortFunc(c.kept, func(a, b keptMatch) int { return cmp.Compare(b.score, a.score) })
	// Every match scoring as the n-th best or better can be on the page
	// (ties are ordered by key); none scoring less can.
	end := len(c.kept)
	if c.n < end {
		bound := c.kept[c.n-1].score
		end = c.n
		for end < len(c.kept) && c.kept[end].score == bound {
			end++
		}
	}
	cand := c.kept[:end]
	for i := range cand {
		key, err := c.reader.ExternalID(c.ids[cand[i].from:cand[i].to])
		if err != nil {
			c.err = err
			return err
		}
		cand[i].key = key
	}
	slices.SortFunc(cand, func(a, b keptMatch) int {
		if r := cmp.Compare(b.score, a.score); r != 0 {
			return r
		}
		return cmp.Compare(a.key, b.key)
	})
	c.page = make([]*hit, 0, min(c.n, len(cand)))
	for _, m := range cand[:min(c.n, len(cand))] {
		c.page = append(c.page, &hit{key: m.key, score: m.score})
	}
	return nil
}

// closeFilter closes the filter's searcher if it is open: finish closes
// it, and pagedHits when the search stopped before finishing.
func (c *pageCollector) closeFilter() error {
	if c.filter == nil {
		return nil
	}
	err := c.filter.Close()
	c.filter = nil
	return err
}
