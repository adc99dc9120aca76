package search

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
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
// index, derived from the documents in kv. kv stays the source of truth:
// before every query the index is brought up to the change sequence of the
// query's kv snapshot (bringUp), and rebuilt from the documents when its
// definition changed, its log is gone or nothing usable was kept. Another
// process writing the same kv is therefore seen by the next query here.
//
// With a directory, each index is a scorch index on disk that carries the
// change sequence it reflects (in the batch that applied it, so the two
// never disagree), and a restart catches up from the change log past that
// mark instead of rebuilding.
type derivedIndexes struct {
	// dir holds <index>/<generation> directories; empty keeps every
	// bleve index in memory.
	dir string
	log *slog.Logger

	// mu guards m; a derived is taken out of m (and its files removed)
	// with mu held, so that no second derived opens the same directory.
	mu sync.Mutex
	m  map[string]*derived

	// stats count the work done, for tests and logs.
	stats derivedStats
}

// derivedStats count what the derived indexes did since the Service
// started: documents indexed by rebuilds, document changes applied from
// the change log, on-disk indexes reopened without a rebuild.
type derivedStats struct {
	rebuilds, rebuiltDocs, appliedChanges, reopened atomic.Uint64
}

// derived is one search index's bleve index and the state of kv it
// reflects: the definition's ETag and the change sequence applied.
//
// mu is held shared by every query that uses bi (several at once, as bleve
// readers are concurrent) and exclusively to change bi, etag or seq, so a
// query's searches all see one state of bi.
type derived struct {
	name string
	mu   sync.RWMutex
	// removed: the index is gone and this derived out of the map; a
	// query that still holds it takes the map's current one.
	removed bool
	etag    string
	seq     uint64
	bi      bleve.Index
	// path is bi's directory, empty when bi is in memory.
	path string
	// ix and schema are the parsed definition bi was built for.
	ix     *Index
	schema *indexSchema
	// applied is seq, readable without waiting for mu (IndexingLag).
	applied atomic.Uint64
}

// get returns the derived of index name, created empty when there is none.
func (d *derivedIndexes) get(name string) *derived {
	d.mu.Lock()
	defer d.mu.Unlock()
	if d.m == nil {
		d.m = map[string]*derived{}
	}
	x := d.m[name]
	if x == nil {
		x = &derived{name: name}
		d.m[name] = x
	}
	return x
}

// freshness is where a derived stands relative to a kv snapshot.
type freshness int

const (
	// behind: the snapshot holds changes bi lacks (or bi is of another
	// definition, or there is none yet).
	behind freshness = iota
	// current: bi is exactly the snapshot's documents.
	current
	// ahead: bi already holds changes committed after the snapshot was
	// taken (another query caught it up further).
	ahead
)

// freshness compares the derived's state with a snapshot in which the
// index definition has ETag etag and the change sequence is seq. The
// caller holds d.mu (shared or exclusive).
func (d *derived) freshness(etag string, seq uint64) freshness {
	if d.bi == nil {
		return behind
	}
	if d.etag != etag {
		// A later definition has a greater ETag (the commit version):
		// bi already reflects the newer one when its ETag is greater.
		mine, ok1 := etagVersion(d.etag)
		theirs, ok2 := etagVersion(etag)
		if ok1 && ok2 && mine > theirs {
			return ahead
		}
		return behind
	}
	switch {
	case d.seq == seq:
		return current
	case d.seq > seq:
		return ahead
	}
	return behind
}

// etagVersion is the commit version an ETag was made from (etagOf).
func etagVersion(etag string) (uint64, bool) {
	s := strings.Trim(etag, `"`)
	if !strings.HasPrefix(s, "0x8D") {
		return 0, false
	}
	v, err := strconv.ParseUint(s[4:], 16, 64)
	return v, err == nil
}

// errStaleSnapshot says a query's kv snapshot is older than the bleve
// index it would search; viewIndex runs it again on a newer snapshot.
var errStaleSnapshot = errors.New("bleve index is ahead of the snapshot")

// staleRetries is how many newer snapshots a query tries before it
// searches a bleve index that is ahead of its snapshot (aheadTolerant).
const staleRetries = 8

// aheadTolerant marks the snapshot of a query's last attempt: it searches
// the bleve index as it is even when that already holds later changes
// (documents that are not in the snapshot are then dropped when their
// stored documents are read), so a query always ends.
type aheadTolerant struct{ kv.Reader }

// viewIndex runs fn, which opens an index for a query, on a kv snapshot,
// and on a newer one when the index's bleve index had already moved past
// the snapshot. Only queries need the retry: without a per-index lock
// held across the whole query, another query may catch the bleve index
// up between this query's snapshot and its search.
func (s *Service) viewIndex(ctx context.Context, fn func(rd kv.Reader) error) error {
	for attempt := 0; ; attempt++ {
		err := s.store.View(ctx, func(rd kv.Reader) error {
			if attempt == staleRetries {
				rd = aheadTolerant{rd}
			}
			return fn(rd)
		})
		if !errors.Is(err, errStaleSnapshot) || attempt == staleRetries {
			return err
		}
	}
}

// bringUp makes d at least as fresh as the snapshot rd, in which the index
// has definition res and change sequence seq. The caller holds d.mu
// exclusively.
func (x *derivedIndexes) bringUp(d *derived, rd kv.Reader, res *Resource, seq uint64) error {
	if d.removed || d.freshness(res.ETag, seq) != behind {
		return nil
	}
	if d.bi == nil || d.etag != res.ETag {
		ix, err := ParseIndex(res.Definition)
		if err != nil {
			return fmt.Errorf("parse stored index %q: %w", res.Name, err)
		}
		x.close(d, false)
		d.ix, d.schema, d.etag = ix, newSchema(ix), res.ETag
		if x.dir != "" && x.reopen(d, seq) {
			return x.catchUp(d, rd, seq)
		}
		return x.rebuild(d, rd, seq)
	}
	return x.catchUp(d, rd, seq)
}

// catchUp applies the change log from d.seq+1 to seq, or rebuilds when
// the log was trimmed past d.seq or kv is behind d (a store restored from
// an older copy).
func (x *derivedIndexes) catchUp(d *derived, rd kv.Reader, seq uint64) error {
	ix := d.ix
	if seq == d.seq {
		return nil
	}
	if seq < d.seq {
		return x.rebuild(d, rd, seq)
	}
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
		return x.rebuild(d, rd, seq)
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
	// The mark goes in the batch it describes: on disk the two are
	// persisted together or not at all.
	setMark(batch, d.etag, seq)
	if err := d.bi.Batch(batch); err != nil {
		return fmt.Errorf("index batch of %q: %w", ix.Name, err)
	}
	x.stats.appliedChanges.Add(uint64(len(keys)))
	d.seq = seq
	d.applied.Store(seq)
	return nil
}

// rebuild builds d's bleve index afresh from every document of rd, on disk
// in the directory of d's generation (whatever was there is removed
// first) or in memory.
func (x *derivedIndexes) rebuild(d *derived, rd kv.Reader, seq uint64) error {
	ix := d.ix
	x.close(d, false)
	start := time.Now()
	m, err := indexMapping(ix)
	if err != nil {
		return fmt.Errorf("bleve mapping of index %q: %w", ix.Name, err)
	}
	path := ""
	if x.dir != "" {
		path = x.generationPath(d.name, d.etag)
		if err := x.clearIndexDir(d.name); err != nil {
			return err
		}
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			return fmt.Errorf("create directory of index %q: %w", ix.Name, err)
		}
	}
	// Scorch indexes several times faster than the upsidedown store; with
	// no path it keeps its segments in memory.
	bi, err := bleve.NewUsing(path, m, scorch.Name, scorch.Name, scorchConfig())
	if err != nil {
		return fmt.Errorf("open bleve index of %q: %w", ix.Name, err)
	}
	batch := bi.NewBatch()
	prefix := documentsPrefix(ix.Name)
	// The documents' own failures carry the rebuild's prefix; the
	// store's come out as they are.
	failed := func(err error) error { return fmt.Errorf("rebuild bleve index of %q: %w", ix.Name, err) }
	var n uint64
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
		n++
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
		// The mark goes in the last batch: an index on disk without it
		// is one whose rebuild did not finish, and is rebuilt again.
		setMark(batch, d.etag, seq)
		if err = bi.Batch(batch); err != nil {
			err = failed(err)
		}
	}
	if err != nil {
		_ = bi.Close()
		if path != "" {
			_ = os.RemoveAll(path)
		}
		return err
	}
	d.bi, d.path, d.seq = bi, path, seq
	d.applied.Store(seq)
	x.stats.rebuilds.Add(1)
	x.stats.rebuiltDocs.Add(n)
	x.log.Info("search index rebuilt from the store", "index", ix.Name, "documents", n, "on_disk", path != "", "took", time.Since(start))
	return nil
}

// close closes d's bleve index, if any, leaving its files where they are;
// keep waits a while for its in-memory segments to reach them (an index
// about to be rebuilt or removed need not wait).
func (x *derivedIndexes) close(d *derived, keep bool) {
	if d.bi == nil {
		return
	}
	if keep && d.path != "" {
		waitPersisted(d.bi)
	}
	if err := d.bi.Close(); err != nil {
		x.log.Warn("close search index", "index", d.name, "err", err)
	}
	d.bi, d.path = nil, ""
}

// remove closes d, takes it out of the map and deletes its files. The
// caller holds x.mu, so no other derived of the same name opens them
// meanwhile.
func (x *derivedIndexes) remove(d *derived) {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.removed = true
	x.close(d, false)
	delete(x.m, d.name)
	if x.dir != "" {
		if err := os.RemoveAll(x.indexPath(d.name)); err != nil {
			x.log.Warn("remove search index files", "index", d.name, "err", err)
		}
	}
}

// indexMapping maps an index per the query package's naming contract:
// searchable strings analyzed under FieldName with term vectors (for
// highlighting), filterable/sortable/facetable strings whole under
// ExactFieldName (through the field's normalizer when it has one),
// numbers, booleans, dates and points under FieldName. Vector fields are
// not in bleve: vector queries are exact k-NN over the stored documents.
func indexMapping(ix *Index) (*mapping.IndexMappingImpl, error) {
	m, err := analysisMapping(ix.Analysis)
	if err != nil {
		return nil, err
	}
	a := ix.Analysis
	m.DefaultAnalyzer = a.Analyzer["standard.lucene"]
	m.IndexDynamic, m.StoreDynamic, m.DocValuesDynamic = false, false, false
	root := mapping.NewDocumentStaticMapping()
	addFieldMappings(root, ix.Fields, a)
	m.DefaultMapping = root
	return m, nil
}

// analysisMapping is a bleve mapping that knows a's components.
func analysisMapping(a *Analysis) (*mapping.IndexMappingImpl, error) {
	m := mapping.NewIndexMapping()
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
// kv, and drops those (and their files) of indexes that no longer exist.
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
			return s.bringUp(rd, res.Name)
		})
		if err != nil && !errors.Is(err, ErrNotFound) {
			errs = append(errs, fmt.Errorf("catch up index %q: %w", res.Name, err))
		}
	}
	s.derived.mu.Lock()
	for name, d := range s.derived.m {
		if !live[name] {
			s.derived.remove(d)
		}
	}
	s.derived.mu.Unlock()
	s.derived.sweep(live)
	return errors.Join(errs...)
}

// bringUp brings the bleve index of index up to the snapshot rd, or
// leaves it when it is already there or past it.
func (s *Service) bringUp(rd kv.Reader, index string) error {
	res, err := s.resolveIndex(rd, index)
	if err != nil {
		return err
	}
	seq, err := readSequence(rd, res.Name)
	if err != nil {
		return err
	}
	d := s.derived.get(res.Name)
	d.mu.Lock()
	defer d.mu.Unlock()
	return s.derived.bringUp(d, rd, res, seq)
}

// Close closes every bleve index, waiting a while for what is in memory to
// reach the disk. Call it once nothing queries the Service any more (after
// the catch-up loop stopped); the Service is not used afterwards.
func (s *Service) Close() error {
	s.derived.mu.Lock()
	defer s.derived.mu.Unlock()
	for _, d := range s.derived.m {
		d.mu.Lock()
		d.removed = true
		s.derived.close(d, true)
		d.mu.Unlock()
	}
	s.derived.m = nil
	return nil
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
