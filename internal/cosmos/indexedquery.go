package cosmos

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"errors"
	"slices"
	"time"

	"github.com/cerulean-db/cerulean/internal/cosmos/query"
	"github.com/cerulean-db/cerulean/internal/kv"
	"github.com/cerulean-db/cerulean/internal/kv/tuple"
)

// Paged item queries. A query whose results are each document's own,
// in the order documents are read (query.IndexPlan's PerDocument), is
// run one document at a time and stops once the page is full: the
// continuation token names the key to resume at. Which keys are read
// depends on the plan:
//
//   - ORDER BY one path that a WHERE term also bounds: that range of the
//     path's index, in the order asked for (the term implies every
//     matching document has a value there, so none is missed);
//   - no ORDER BY, a term pinning a path to one value: that value's
//     index entries, which run in item key order;
//   - no ORDER BY, other indexable terms: the matching entries' items,
//     sorted into item key order;
//   - no ORDER BY and no indexable term: the items themselves.
//
// Anything else (aggregates, DISTINCT, TOP, OFFSET/LIMIT, GROUP BY, an
// ORDER BY the index cannot serve) runs in full over the documents the
// index narrows it to, or over every document, and is paged by an
// offset into the result, the token shape older servers handed out.
// The query is always evaluated over each document read, so the index
// only ever decides what is read, never what matches.

// maxResponseBytes is Azure's limit on a query response page.
const maxResponseBytes = 4 << 20

// pageToken is the continuation of a streamed query: the mode that
// read the page (a token of another plan is refused), the key to resume
// at and how many results of that key's document were already sent.
type pageToken struct {
	Mode string `json:"mode"`
	Key  string `json:"key"`
	Skip int    `json:"skip,omitempty"`
	// Offset is the older shape: results already sent of a full run.
	Offset *int `json:"offset,omitempty"`
}

func invalidContinuation(v string) *Error {
	return badRequest("The continuation token %q is invalid.", v)
}

func parsePageToken(v string) (pageToken, error) {
	var tok pageToken
	if v == "" {
		return tok, nil
	}
	if err := json.Unmarshal([]byte(v), &tok); err != nil {
		return tok, invalidContinuation(v)
	}
	if tok.Offset != nil && *tok.Offset < 0 || tok.Skip < 0 {
		return tok, invalidContinuation(v)
	}
	return tok, nil
}

// pageRequest is the page a query request asks for.
type pageRequest struct {
	size         int
	continuation string
}

// readKey is one key a streamed plan reads: an item key or an index
// entry, the item it stands for and, when the read already has it, the
// item's stored value.
type readKey struct {
	key, item, value []byte
	// scope, when set, maps key (an index entry) to item.
	scope *entryScope
}

// itemKey returns the item k stands for.
func (k readKey) itemKey() []byte {
	if k.scope != nil {
		return k.scope.itemOf(k.key)
	}
	return k.item
}

// keySource yields the keys a streamed plan reads, in the plan's order.
type keySource struct {
	mode string
	// batch returns up to n keys starting at from (the first key when
	// from is nil) and the key after them, nil at the end. Keys for
	// items outside the query's partitions are left out.
	batch func(from []byte, n int) (keys []readKey, next []byte, err error)
}

// queryPlanErrors enforces what Azure refuses for the container's
// indexing policy.
func (c *container) queryPlanErrors(plan query.IndexPlan, hasWhere, enableScan bool) error {
	if len(plan.OrderBy) == 1 && !c.index.indexed(plan.OrderBy[0].Path) {
		return badRequest("Order-by item requires a range index to be defined on the corresponding index path.")
	}
	if len(plan.OrderBy) > 1 {
		keys := make([]compositePath, len(plan.OrderBy))
		for i, k := range plan.OrderBy {
			keys[i] = compositePath{path: k.Path, desc: k.Desc}
		}
		if c.index.compositeFor(keys) == nil {
			return badRequest("The order by query does not have a corresponding composite index that it can be served from.")
		}
	}
	if c.index.none && hasWhere && !enableScan {
		return badRequest("An invalid query has been specified with filters against path(s) excluded from indexing. Consider adding allow scan header in the request.")
	}
	return nil
}

// indexUsable reports whether queries may read c's range index.
func (c *container) indexUsable() bool {
	return c.maintained() && c.indexReady
}

// valueRange is a span of encoded values of one path: [lo, hi).
type valueRange struct{ lo, hi []byte }

// filterRanges turns a filter into value spans, in ascending order; ok
// is false when some value cannot be indexed.
func filterRanges(f query.PathFilter) ([]valueRange, bool) {
	if f.Values != nil {
		var out []valueRange
		seen := map[string]bool{}
		for _, v := range f.Values {
			enc, ok := indexValue(v)
			if !ok || possiblyTruncated(enc) {
				return nil, false
			}
			if seen[string(enc)] {
				continue
			}
			seen[string(enc)] = true
			out = append(out, valueRange{enc, kv.PrefixEnd(enc)})
		}
		slices.SortFunc(out, func(a, b valueRange) int { return bytes.Compare(a.lo, b.lo) })
		return out, true
	}
	for _, b := range []any{f.Lo, f.Hi} {
		if enc, ok := indexValue(b); ok && possiblyTruncated(enc) {
			return nil, false
		}
	}
	bound := f.Lo
	if bound == nil {
		bound = f.Hi
	}
	tag := byte(tagNumber)
	if _, ok := bound.(string); ok {
		tag = tagString
	}
	r := valueRange{lo: []byte{tag}, hi: []byte{tag + 1}}
	if f.Lo != nil {
		enc, _ := indexValue(f.Lo)
		if r.lo = enc; !f.LoIncl {
			r.lo = kv.PrefixEnd(enc)
		}
	}
	if f.Hi != nil {
		enc, _ := indexValue(f.Hi)
		if r.hi = enc; f.HiIncl {
			r.hi = kv.PrefixEnd(enc)
		}
	}
	if bytes.Compare(r.lo, r.hi) >= 0 {
		return nil, true
	}
	return []valueRange{r}, true
}

// narrowest picks the filter to read the index by: one on path when
// path is given (merging that path's range terms), else the one with
// fewest values, equality before ranges.
func (c *container) narrowest(filters []query.PathFilter, path []string) ([]valueRange, []string, bool) {
	var best []valueRange
	var bestPath []string
	bestScore := -1
	for _, f := range filters {
		if (path != nil && !samePath(f.Path, path)) || !c.index.indexed(f.Path) || !pathIndexable(f.Path) {
			continue
		}
		rs, ok := filterRanges(f)
		if !ok {
			continue
		}
		score := 1 << 20 // a range
		if f.Values != nil {
			score = len(rs)
		}
		if bestScore >= 0 && samePath(f.Path, bestPath) && f.Values == nil && len(best) == 1 && bestScore == 1<<20 && len(rs) == 1 {
			best = []valueRange{intersect(best[0], rs[0])}
			continue
		}
		if bestScore < 0 || score < bestScore {
			best, bestPath, bestScore = rs, f.Path, score
		}
	}
	return best, bestPath, bestScore >= 0
}

func intersect(a, b valueRange) valueRange {
	r := valueRange{lo: a.lo, hi: a.hi}
	if bytes.Compare(b.lo, r.lo) > 0 {
		r.lo = b.lo
	}
	if bytes.Compare(b.hi, r.hi) < 0 {
		r.hi = b.hi
	}
	if bytes.Compare(r.lo, r.hi) > 0 {
		r.hi = r.lo
	}
	return r
}

// entryScope reads index entries of one path for the queried
// partitions.
type entryScope struct {
	rd        kv.Reader
	prefix    []byte // Cx db coll path
	pkPrefix  []byte // the partition key components the query is scoped to
	itemsBase []byte // Ci db coll
}

// inScope reports whether an entry is well formed and in the scope's
// partitions.
func (s *entryScope) inScope(key []byte) bool {
	if !bytes.HasPrefix(key, s.prefix) {
		return false
	}
	rest := key[len(s.prefix):]
	n := indexValueLen(rest)
	return n >= 0 && bytes.HasPrefix(rest[n:], s.pkPrefix)
}

// itemOf maps an entry key to its item key, or nil when the entry is
// malformed or outside the scope's partitions.
func (s *entryScope) itemOf(key []byte) []byte {
	if !bytes.HasPrefix(key, s.prefix) {
		return nil
	}
	rest := key[len(s.prefix):]
	n := indexValueLen(rest)
	if n < 0 {
		return nil
	}
	tail := rest[n:]
	if !bytes.HasPrefix(tail, s.pkPrefix) {
		return nil
	}
	return append(slices.Clip(s.itemsBase), tail...)
}

// value returns the encoded value of an entry key.
func (s *entryScope) value(key []byte) []byte {
	rest := key[len(s.prefix):]
	return rest[:max(indexValueLen(rest), 0)]
}

// scanRanges returns up to n entries in rs (ascending) from from on,
// and the entry after them.
func (s *entryScope) scanRanges(rs []valueRange, from []byte, n int) ([]readKey, []byte, error) {
	var out []readKey
	var next []byte
	for _, r := range rs {
		start := append(slices.Clip(s.prefix), r.lo...)
		end := append(slices.Clip(s.prefix), r.hi...)
		if from != nil && bytes.Compare(from, end) >= 0 {
			continue
		}
		if from != nil && bytes.Compare(from, start) > 0 {
			start = from
		}
		err := s.rd.Scan(start, end, func(k, _ []byte) error {
			if !s.inScope(k) {
				return nil
			}
			if len(out) == n {
				next = slices.Clone(k)
				return kv.ErrStopScan
			}
			out = append(out, readKey{key: slices.Clone(k), scope: s})
			return nil
		})
		if err != nil || next != nil {
			return out, next, err
		}
	}
	return out, nil, nil
}

// collect returns every entry in rs.
func (s *entryScope) collect(rs []valueRange) ([]readKey, error) {
	out, _, err := s.scanRanges(rs, nil, -1)
	return out, err
}

// descending reorders ascending entries for ORDER BY … DESC: values
// from high to low, and within one value the items in key order, as the
// query engine's stable sort leaves them.
func (s *entryScope) descending(keys []readKey) []readKey {
	out := make([]readKey, 0, len(keys))
	for end := len(keys); end > 0; {
		v := s.value(keys[end-1].key)
		start := end - 1
		for start > 0 && bytes.Equal(s.value(keys[start-1].key), v) {
			start--
		}
		out = append(out, keys[start:end]...)
		end = start
	}
	return out
}

// listSource yields a fixed list of keys, resuming at the position of
// the resume key.
func listSource(mode string, keys []readKey) *keySource {
	return &keySource{
		mode: mode,
		batch: func(from []byte, n int) ([]readKey, []byte, error) {
			i := 0
			if from != nil {
				i = slices.IndexFunc(keys, func(k readKey) bool { return bytes.Equal(k.key, from) })
				if i < 0 {
					// The resume entry is gone (its item changed since):
					// the page before was the last.
					return nil, nil, nil
				}
			}
			end := min(i+n, len(keys))
			var next []byte
			if end < len(keys) {
				next = keys[end].key
			}
			return keys[i:end], next, nil
		},
	}
}

// streamSource chooses how to stream a PerDocument query, or returns nil
// when the query must run in full.
func (t *Tx) streamSource(c *container, comps []string, plan query.IndexPlan, from []byte) (*keySource, error) {
	scope := func(path []string) *entryScope { return t.entryScope(c, comps, path) }
	usable := c.indexUsable()
	if plan.HasOrderBy {
		if !usable || len(plan.OrderBy) != 1 {
			return nil, nil
		}
		ob := plan.OrderBy[0]
		rs, _, ok := c.narrowest(plan.Filters, ob.Path)
		if !ok {
			return nil, nil
		}
		sc := scope(ob.Path)
		if !ob.Desc && numeric(rs) {
			return &keySource{mode: "asc", batch: func(from []byte, n int) ([]readKey, []byte, error) {
				return sc.scanRanges(rs, from, n)
			}}, nil
		}
		if ob.Desc && from != nil && bytes.HasPrefix(from, sc.prefix) {
			// A later page needs nothing above the resume entry's value.
			rs = below(rs, kv.PrefixEnd(sc.value(from)))
		}
		keys, err := sc.collect(rs)
		if err != nil {
			return nil, err
		}
		for _, k := range keys {
			if possiblyTruncated(sc.value(k.key)) {
				// Strings past the indexed prefix: the index does not
				// know their order.
				return nil, nil
			}
		}
		if !ob.Desc {
			return listSource("asc", keys), nil
		}
		return listSource("desc", sc.descending(keys)), nil
	}
	if usable {
		if rs, path, ok := c.narrowest(plan.Filters, nil); ok {
			sc := scope(path)
			if len(rs) == 1 && indexValueLen(rs[0].lo) == len(rs[0].lo) && bytes.Equal(rs[0].hi, kv.PrefixEnd(rs[0].lo)) {
				// One value: its entries are in item key order already.
				return &keySource{mode: "eq", batch: func(from []byte, n int) ([]readKey, []byte, error) {
					return sc.scanRanges(rs, from, n)
				}}, nil
			}
			keys, err := sc.collect(rs)
			if err != nil {
				return nil, err
			}
			items := make([]readKey, 0, len(keys))
			for _, k := range keys {
				item := k.itemKey()
				items = append(items, readKey{key: item, item: item})
			}
			slices.SortFunc(items, func(a, b readKey) int { return bytes.Compare(a.key, b.key) })
			items = slices.CompactFunc(items, func(a, b readKey) bool { return bytes.Equal(a.key, b.key) })
			return listSource("keys", items), nil
		}
	}
	prefix := partitionPrefix(c.db, c.id, comps)
	return &keySource{mode: "scan", batch: func(from []byte, n int) ([]readKey, []byte, error) {
		start := []byte(prefix)
		if from != nil && bytes.Compare(from, start) > 0 {
			start = from
		}
		var out []readKey
		var next []byte
		err := t.rd.Scan(start, kv.PrefixEnd(prefix), func(k, v []byte) error {
			if len(out) == n {
				next = slices.Clone(k)
				return kv.ErrStopScan
			}
			k = slices.Clone(k)
			out = append(out, readKey{key: k, item: k, value: slices.Clone(v)})
			return nil
		})
		return out, next, err
	}}, nil
}

// below cuts the spans rs at the encoded value hi.
func below(rs []valueRange, hi []byte) []valueRange {
	var out []valueRange
	for _, r := range rs {
		if bytes.Compare(r.lo, hi) >= 0 {
			break
		}
		if bytes.Compare(r.hi, hi) > 0 {
			r.hi = hi
		}
		out = append(out, r)
	}
	return out
}

// numeric reports whether every span holds numbers only (a number
// entry's value is exact, so the index orders them fully).
func numeric(rs []valueRange) bool {
	for _, r := range rs {
		if len(r.lo) == 0 || r.lo[0] != tagNumber || len(r.hi) == 0 || r.hi[0] > tagNumber+1 || (r.hi[0] == tagNumber+1 && len(r.hi) > 1) {
			return false
		}
	}
	return true
}

// entryScope reads the index entries of path for the partitions comps
// names (all when nil).
func (t *Tx) entryScope(c *container, comps []string, path []string) *entryScope {
	pkPrefix := tuple.Key(nil)
	for _, comp := range comps {
		pkPrefix = pkPrefix.Str(comp)
	}
	return &entryScope{rd: t.rd, prefix: indexPathPrefix(c.db, c.id, path), pkPrefix: pkPrefix, itemsBase: itemsPrefix(c.db, c.id)}
}

// candidateKeys returns the item keys a full run needs: those the
// narrowest indexable filter admits, in item key order; narrowed is
// false when the index cannot narrow the query.
func (t *Tx) candidateKeys(c *container, comps []string, plan query.IndexPlan) (keys [][]byte, narrowed bool, err error) {
	if !c.indexUsable() {
		return nil, false, nil
	}
	rs, path, ok := c.narrowest(plan.Filters, nil)
	if !ok {
		return nil, false, nil
	}
	entries, err := t.entryScope(c, comps, path).collect(rs)
	if err != nil {
		return nil, false, err
	}
	for _, e := range entries {
		keys = append(keys, e.itemKey())
	}
	slices.SortFunc(keys, bytes.Compare)
	return slices.CompactFunc(keys, bytes.Equal), true, nil
}

// readDoc reads and decodes the item under key (whose stored value is
// v, when the caller has it) for a query, only the properties names
// lists when not nil; nil when it is absent or expired.
func (t *Tx) readDoc(c *container, key, v []byte, names []string, st *queryStats) (map[string]any, error) {
	if v == nil {
		var err error
		v, err = t.rd.Get(key)
		if errors.Is(err, kv.ErrNotFound) {
			return nil, nil
		}
		if err != nil {
			return nil, err
		}
	}
	v, err := itemBody(t.rd, key, v)
	if err != nil {
		return nil, err
	}
	m, err := decodeDoc(v, names)
	if err != nil {
		return nil, err
	}
	if c.expired(m, t.ts) {
		return nil, nil
	}
	st.retrievedCount++
	st.retrievedSize += len(v)
	st.note(m, v, names == nil)
	return m, nil
}

// streamBatch is how many keys a streamed page reads at a time.
const streamBatch = 64

// queryItemsPage runs an item query for one page.
func (t *Tx) queryItemsPage(db, coll string, pk PartitionKey, q *Query, params map[string]any, o itemQueryOptions, page pageRequest) (*Feed, error) {
	c, comps, err := t.queryScope(db, coll, pk, q, params, o)
	if err != nil {
		return nil, err
	}
	tok, err := parsePageToken(page.continuation)
	if err != nil {
		return nil, err
	}
	e := q.engine()
	if e == nil {
		return nil, badRequest("The query text is missing.")
	}
	plan := e.IndexPlan(params)
	if err := c.queryPlanErrors(plan, e.HasWhere(), !o.scanNeedsHeader || o.enableScan); err != nil {
		return nil, err
	}
	var from []byte
	if tok.Key != "" {
		if from, err = base64.RawURLEncoding.DecodeString(tok.Key); err != nil {
			return nil, invalidContinuation(page.continuation)
		}
	}
	var src *keySource
	if plan.PerDocument && tok.Offset == nil {
		if src, err = t.streamSource(c, comps, plan, from); err != nil {
			return nil, err
		}
	}
	if src == nil {
		return t.fullPage(c, comps, q, params, o, plan, tok, page)
	}
	if page.continuation != "" && tok.Mode != src.mode {
		return nil, invalidContinuation(page.continuation)
	}
	var st queryStats
	start := time.Now()
	run := q.docRunner(params, t.udfs(db, coll))
	names := queryProperties(q)
	var out []json.RawMessage
	size, skip := 0, tok.Skip
	next := ""
	for {
		keys, after, err := src.batch(from, streamBatch)
		if err != nil {
			return nil, err
		}
		for _, k := range keys {
			doc, err := t.readDoc(c, k.itemKey(), k.value, names, &st)
			if err != nil {
				return nil, err
			}
			if doc == nil {
				continue
			}
			rows, err := run(doc, st.bodies)
			if err != nil {
				return nil, err
			}
			// One document at a time: its body is not kept past its rows.
			clear(st.bodies)
			// skip counts the rows of the resume document sent before.
			done := min(skip, len(rows))
			skip = 0
			if done == len(rows) {
				continue
			}
			if len(out) >= page.size || size >= maxResponseBytes {
				next = encodePageToken(src.mode, k.key, done)
				break
			}
			for _, r := range rows[done:] {
				if len(out) >= page.size || size >= maxResponseBytes {
					break
				}
				out = append(out, r)
				size += len(r)
				done++
			}
			if done < len(rows) {
				next = encodePageToken(src.mode, k.key, done)
				break
			}
		}
		if next != "" || after == nil {
			break
		}
		from = after
	}
	st.exec = time.Since(start)
	if o.stats != nil {
		*o.stats = st
	}
	return &Feed{ResourceID: c.rid(), Items: out, Continuation: next}, nil
}

func encodePageToken(mode string, key []byte, skip int) string {
	b, _ := json.Marshal(pageToken{Mode: mode, Key: base64.RawURLEncoding.EncodeToString(key), Skip: skip})
	return string(b)
}

// fullPage runs the query in full, over the documents the index admits
// when it can narrow them, and answers the page at the token's offset.
func (t *Tx) fullPage(c *container, comps []string, q *Query, params map[string]any, o itemQueryOptions, plan query.IndexPlan, tok pageToken, page pageRequest) (*Feed, error) {
	if page.continuation != "" && tok.Offset == nil {
		return nil, invalidContinuation(page.continuation)
	}
	offset := 0
	if tok.Offset != nil {
		offset = *tok.Offset
	}
	var st queryStats
	start := time.Now()
	docs, err := t.queryDocs(c, comps, plan, q, &st)
	if err != nil {
		return nil, err
	}
	st.load = time.Since(start)
	start = time.Now()
	res, err := q.runBodies(docs, params, t.udfs(c.db, c.id), st.bodies)
	if err != nil {
		return nil, err
	}
	st.exec = time.Since(start)
	if o.stats != nil {
		*o.stats = st
	}
	offset = min(offset, len(res))
	end := min(offset+page.size, len(res))
	f := &Feed{ResourceID: c.rid(), Items: res[offset:end]}
	if end < len(res) {
		b, _ := json.Marshal(queryContinuation{Offset: end})
		f.Continuation = string(b)
	}
	return f, nil
}

// queryProperties lists the top-level properties a query needs of each
// item (with those time to live reads), or nil when it needs them all.
func queryProperties(q *Query) []string {
	e := q.engine()
	if e == nil {
		return nil
	}
	names, ok := e.RootProperties()
	if !ok {
		return nil
	}
	return append(names, "_ts", "ttl")
}

// decodeDoc decodes a stored item for a query: whole, or only names.
func decodeDoc(v []byte, names []string) (map[string]any, error) {
	if names == nil {
		return decodeForQuery(v)
	}
	return decodeProperties(v, names)
}

// docRunner returns a function running q over one document at a time,
// each result encoded (query.DocRunner).
func (q *Query) docRunner(params map[string]any, udfs query.UDFs) func(map[string]any, itemBodies) ([]json.RawMessage, error) {
	r := q.engine().NewDocRunner(params, query.Options{UDFs: udfs})
	shape := q.q.shape()
	return func(doc map[string]any, bodies itemBodies) ([]json.RawMessage, error) {
		res, err := r.Run(doc)
		if err != nil {
			return nil, queryError(err)
		}
		out := make([]json.RawMessage, len(res))
		for i, v := range res {
			if out[i], err = bodies.encode(v, shape); err != nil {
				return nil, err
			}
		}
		return out, nil
	}
}
