package search

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"sync"
	"sync/atomic"
	"time"

	"github.com/blevesearch/bleve/v2"
	"github.com/blevesearch/bleve/v2/index/scorch"
	"github.com/blevesearch/bleve/v2/mapping"

	"github.com/cerulean-db/cerulean/internal/background"
	"github.com/cerulean-db/cerulean/internal/kv"
	"github.com/cerulean-db/cerulean/internal/kv/tuple"
	"github.com/cerulean-db/cerulean/internal/search/query"
)

// derivedIndexes are the bleve indexes of this process, one per search
// index, derived from the documents in kv. Nothing about them is relied on
// for correctness: before every query the index is brought up to the
// change sequence of the query's kv snapshot (catchUp), and rebuilt from
// the documents when its definition changed, its log is gone or it was
// never built in this process. Another process writing the same kv is
// therefore seen by the next query here.
type derivedIndexes struct {
	mu sync.Mutex
	m  map[string]*derived
}

// derived is one search index's bleve index and the state of kv it
// reflects: the definition's ETag and the change sequence applied.
type derived struct {
	mu   sync.Mutex
	etag string
	seq  uint64
	bi   bleve.Index
	// applied is seq, readable without waiting for mu (IndexingLag).
	applied atomic.Uint64
	// ix and schema are the parsed definition with ETag ixETag.
	ix     *Index
	schema *indexSchema
	ixETag string
}

func (d *derivedIndexes) get(name string) *derived {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.m == nil {
		d.m = map[string]*derived{}
	}
	x := d.m[name]
	if x == nil {
		x = &derived{}
		d.m[name] = x
	}
	return x
}

// catchUp brings the bleve index to the documents of snapshot rd. The
// caller holds d.mu.
func (d *derived) catchUp(rd kv.Reader, ix *Index, etag string) error {
	seq, err := readSequence(rd, ix.Name)
	if err != nil {
		return err
	}
	if d.bi != nil && d.etag == etag && seq == d.seq {
		return nil
	}
	if d.bi == nil || d.etag != etag || seq < d.seq {
		return d.rebuild(rd, ix, etag, seq)
	}
	// Apply the log from d.seq+1 to seq, unless it was trimmed past us.
	prefix := changeLogPrefix(ix.Name)
	first := uint64(0)
	if err := rd.Scan(prefix, kv.PrefixEnd(prefix), func(k, _ []byte) error {
		r, rerr := tuple.NewReader(k, len(prefix))
		if rerr == nil {
			first, _ = r.Uint()
		}
		return kv.ErrStopScan
	}); err != nil {
		return err
	}
	if first > d.seq+1 {
		return d.rebuild(rd, ix, etag, seq)
	}
	keys := map[string]bool{}
	if err := rd.Scan(prefix.Uint(d.seq+1), prefix.Uint(seq+1), func(k, _ []byte) error {
		r, rerr := tuple.NewReader(k, len(prefix))
		if rerr == nil {
			_, rerr = r.Uint()
		}
		var key string
		if rerr == nil {
			key, rerr = r.Str()
		}
		if rerr != nil {
			return fmt.Errorf("read change log of index %q: %w", ix.Name, rerr)
		}
		keys[key] = true
		return nil
	}); err != nil {
		return err
	}
	batch := d.bi.NewBatch()
	for key := range keys {
		b, err := rd.Get(DocumentKey(ix.Name, key))
		if err != nil && !errors.Is(err, kv.ErrNotFound) {
			return err
		}
		if err != nil {
			batch.Delete(key)
			continue
		}
		doc, err := decodeDocument(b)
		if err != nil {
			return fmt.Errorf("decode stored document %q: %w", key, err)
		}
		if err := batch.Index(key, bleveDocument(ix.Fields, doc)); err != nil {
			return fmt.Errorf("index document %q: %w", key, err)
		}
	}
	if err := d.bi.Batch(batch); err != nil {
		return fmt.Errorf("index batch of %q: %w", ix.Name, err)
	}
	d.seq = seq
	d.applied.Store(seq)
	return nil
}

// rebuild builds the bleve index afresh from every document of rd.
func (d *derived) rebuild(rd kv.Reader, ix *Index, etag string, seq uint64) error {
	m, err := indexMapping(ix)
	if err != nil {
		return fmt.Errorf("bleve mapping of index %q: %w", ix.Name, err)
	}
	// Scorch with no path keeps its segments in memory; it indexes
	// several times faster than NewMemOnly's upsidedown/gtreap store.
	bi, err := bleve.NewUsing("", m, scorch.Name, scorch.Name, nil)
	if err != nil {
		return fmt.Errorf("open bleve index of %q: %w", ix.Name, err)
	}
	batch := bi.NewBatch()
	prefix := documentsPrefix(ix.Name)
	// The documents' own failures carry the rebuild's prefix; the
	// store's come out as they are.
	failed := func(err error) error { return fmt.Errorf("rebuild bleve index of %q: %w", ix.Name, err) }
	err = rd.Scan(prefix, kv.PrefixEnd(prefix), func(k, v []byte) error {
		r, err := tuple.NewReader(k, len(prefix))
		if err != nil {
			return failed(err)
		}
		key, err := r.Str()
		if err != nil {
			return failed(err)
		}
		doc, err := decodeDocument(v)
		if err != nil {
			return failed(err)
		}
		if err := batch.Index(key, bleveDocument(ix.Fields, doc)); err != nil {
			return failed(err)
		}
		if batch.Size() >= 1000 {
			err = bi.Batch(batch)
			batch.Reset()
			if err != nil {
				return failed(err)
			}
		}
		return nil
	})
	if err == nil {
		if err = bi.Batch(batch); err != nil {
			err = failed(err)
		}
	}
	if err != nil {
		_ = bi.Close()
		return err
	}
	if d.bi != nil {
		_ = d.bi.Close()
	}
	d.bi, d.etag, d.seq = bi, etag, seq
	d.applied.Store(seq)
	return nil
}

// indexMapping maps an index per the query package's naming contract:
// searchable strings analyzed under FieldName with term vectors (for
// highlighting), filterable/sortable/facetable strings whole under
// ExactFieldName (through the field's normalizer when it has one),
// numbers, booleans, dates and points under FieldName. Vector fields are
// not in bleve: vector queries are exact k-NN over the stored documents.
func indexMapping(ix *Index) (*mapping.IndexMappingImpl, error) {
	m := mapping.NewIndexMapping()
	a := ix.Analysis
	for _, group := range []struct {
		defs map[string]map[string]any
		add  func(string, map[string]any) error
	}{
		{a.TokenMaps, m.AddCustomTokenMap},
		{a.CharFilters, m.AddCustomCharFilter},
		{a.Tokenizers, m.AddCustomTokenizer},
		{a.TokenFilters, m.AddCustomTokenFilter},
		{a.Analyzers, m.AddCustomAnalyzer},
	} {
		for name, cfg := range group.defs {
			if err := group.add(name, cfg); err != nil {
				return nil, err
			}
		}
	}
	m.DefaultAnalyzer = a.Analyzer["standard.lucene"]
	m.IndexDynamic, m.StoreDynamic, m.DocValuesDynamic = false, false, false
	root := mapping.NewDocumentStaticMapping()
	addFieldMappings(root, ix.Fields, a)
	m.DefaultMapping = root
	return m, nil
}

func addFieldMappings(dm *mapping.DocumentMapping, fields []*Field, a *Analysis) {
	for _, f := range fields {
		if f.IsComplex() {
			sub := mapping.NewDocumentStaticMapping()
			addFieldMappings(sub, f.Fields, a)
			dm.AddSubDocumentMapping(f.Name, sub)
			continue
		}
		if f.IsVector() {
			continue
		}
		var fms []*mapping.FieldMapping
		switch f.ElementType {
		case "Edm.String":
			if f.Searchable {
				fm := mapping.NewTextFieldMapping()
				fm.Name = f.Name
				fm.Analyzer = a.Analyzer[indexAnalyzerOf(f)]
				fm.Store, fm.IncludeInAll, fm.IncludeTermVectors, fm.DocValues = false, false, true, false
				fms = append(fms, fm)
			}
			if f.Filterable || f.Sortable || f.Facetable || f.Key {
				fm := mapping.NewKeywordFieldMapping()
				fm.Name = f.Name + query.ExactSuffix
				if f.Normalizer != "" {
					fm.Analyzer = a.Normalizer[f.Normalizer]
				}
				fm.Store, fm.IncludeInAll, fm.IncludeTermVectors, fm.DocValues = false, false, false, false
				fms = append(fms, fm)
			}
		case "Edm.Int32", "Edm.Int64", "Edm.Double":
			fm := mapping.NewNumericFieldMapping()
			fms = append(fms, fm)
		case "Edm.Boolean":
			fms = append(fms, mapping.NewBooleanFieldMapping())
		case "Edm.DateTimeOffset":
			fms = append(fms, mapping.NewDateTimeFieldMapping())
		case "Edm.GeographyPoint":
			fms = append(fms, mapping.NewGeoPointFieldMapping())
		}
		for _, fm := range fms {
			if fm.Name == "" {
				fm.Name = f.Name
			}
			fm.Store, fm.IncludeInAll, fm.DocValues = false, false, false
		}
		if len(fms) > 0 {
			dm.AddFieldMappingsAt(f.Name, fms...)
		}
	}
}

// indexAnalyzerOf is the analyzer name a searchable field is indexed with.
func indexAnalyzerOf(f *Field) string {
	switch {
	case f.IndexAnalyzer != "":
		return f.IndexAnalyzer
	case f.Analyzer != "":
		return f.Analyzer
	}
	return "standard.lucene"
}

// bleveDocument converts a stored document into the plain Go values bleve
// indexes: numbers as float64, dates as time.Time, points as
// []float64{lon, lat} (bleve's geo parser panics on json.Number).
func bleveDocument(fields []*Field, doc map[string]any) map[string]any {
	out := make(map[string]any, len(fields))
	for _, f := range fields {
		v, ok := doc[f.Name]
		if !ok || v == nil || f.IsVector() {
			continue
		}
		if f.Collection {
			arr, _ := v.([]any)
			items := make([]any, 0, len(arr))
			for _, e := range arr {
				if c := bleveValue(f, e); c != nil {
					items = append(items, c)
				}
			}
			out[f.Name] = items
			continue
		}
		if c := bleveValue(f, v); c != nil {
			out[f.Name] = c
		}
	}
	return out
}

func bleveValue(f *Field, v any) any {
	switch f.ElementType {
	case "Edm.String", "Edm.Boolean":
		return v
	case "Edm.Int32", "Edm.Int64", "Edm.Double":
		x, ok := query.ToFloat(v)
		if !ok || math.IsNaN(x) || math.IsInf(x, 0) {
			return nil
		}
		return x
	case "Edm.DateTimeOffset":
		s, _ := v.(string)
		t, err := time.Parse(time.RFC3339Nano, s)
		if err != nil {
			return nil
		}
		return t
	case "Edm.GeographyPoint":
		lon, lat, ok := geoPoint(v)
		if !ok {
			return nil
		}
		return []float64{lon, lat}
	case "Edm.ComplexType":
		m, _ := v.(map[string]any)
		if m == nil {
			return nil
		}
		return bleveDocument(f.Fields, m)
	}
	return nil
}

// jsonValue turns a stored JSON value into float64 where it is a number,
// for the Go-side sorting and faceting.
func jsonValue(v any) any {
	if n, ok := v.(json.Number); ok {
		f, err := n.Float64()
		if err == nil {
			return f
		}
	}
	return v
}

// catchUpInterval is how often StartCatchUp's loop runs: Azure indexes
// are near-real-time too, with new documents searchable within about a
// second.
const catchUpInterval = 500 * time.Millisecond

// StartCatchUp runs CatchUp at once and then every half second until the
// returned stop is called, so that bleve indexes are built at start and
// follow the documents (also those another process writes) without
// waiting for a query. Queries catch up on their own snapshot anyway;
// the loop only takes that work off their path.
func (s *Service) StartCatchUp() (stop func()) {
	return background.NowAndEvery(context.Background(), catchUpInterval, func(ctx context.Context) {
		if err := s.CatchUp(ctx); err != nil && ctx.Err() == nil {
			s.log.Warn("search index catch-up failed", "err", err)
		}
	})
}

// CatchUp brings the bleve index of every index up to the documents in
// kv, and drops those of indexes that no longer exist.
func (s *Service) CatchUp(ctx context.Context) error {
	all, err := s.List(ctx, Indexes)
	if err != nil {
		return err
	}
	live := map[string]bool{}
	var errs []error
	for _, res := range all {
		live[res.Name] = true
		err := s.store.View(ctx, func(rd kv.Reader) error {
			_, release, err := s.open(rd, res.Name)
			if err != nil {
				return err
			}
			release()
			return nil
		})
		if err != nil && !errors.Is(err, ErrNotFound) {
			errs = append(errs, fmt.Errorf("catch up index %q: %w", res.Name, err))
		}
	}
	s.derived.mu.Lock()
	var gone []*derived
	for name, d := range s.derived.m {
		if !live[name] {
			gone = append(gone, d)
			delete(s.derived.m, name)
		}
	}
	s.derived.mu.Unlock()
	for _, d := range gone {
		d.mu.Lock()
		if d.bi != nil {
			_ = d.bi.Close()
			d.bi = nil
		}
		d.mu.Unlock()
	}
	return errors.Join(errs...)
}

// IndexingLag is, for each index, how many document changes in kv its
// bleve index in this process has not applied yet: the catch-up loop's
// backlog. Queries apply what they need first, so they never see it.
func (s *Service) IndexingLag(ctx context.Context) (map[string]uint64, error) {
	all, err := s.List(ctx, Indexes)
	if err != nil {
		return nil, err
	}
	lag := make(map[string]uint64, len(all))
	err = s.store.View(ctx, func(rd kv.Reader) error {
		for _, res := range all {
			seq, err := readSequence(rd, res.Name)
			if err != nil {
				return err
			}
			s.derived.mu.Lock()
			d := s.derived.m[res.Name]
			s.derived.mu.Unlock()
			var applied uint64
			if d != nil {
				applied = d.applied.Load()
			}
			lag[res.Name] = seq - min(seq, applied)
		}
		return nil
	})
	return lag, err
}
