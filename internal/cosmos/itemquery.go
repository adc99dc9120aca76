package cosmos

import (
	"context"
	"encoding/json"
	"reflect"
	"time"

	"github.com/cerulean-db/cerulean/internal/cosmos/query"
)

// itemQueryOptions say how a query of items is run beyond its text.
type itemQueryOptions struct {
	// gateway applies the gateway's rules for a query sent without a
	// query plan (no partition key range named): a query that spans
	// logical partitions needs crossPartition, and one needing state
	// across partitions (ORDER BY, aggregates, …) is refused with
	// sub-status 1004 so that the SDK fetches a plan.
	gateway        bool
	crossPartition bool
	// scanNeedsHeader applies Azure's rule for a container that indexes
	// nothing: a filtered query needs enableScan (the
	// x-ms-documentdb-query-enable-scan header).
	scanNeedsHeader, enableScan bool
	// stats, when set, receives what the run read and how long it took.
	stats *queryStats
}

// queryStats are the measurements behind the query metrics header.
type queryStats struct {
	retrievedCount int
	retrievedSize  int
	load, exec     time.Duration
	// bodies are the stored bodies of the whole items read, by their
	// decoded documents (itemBodies).
	bodies itemBodies
}

// itemBodies remember the stored body of each whole item a query read, by
// the identity of the document decoded from it, so that a result that is
// the document itself (SELECT *, SELECT VALUE c) is answered with the
// item as stored: its properties in the client's order, the system ones
// after them, as Azure answers it (and as a point read does). An object
// or array taken whole from an item (SELECT c.address) is answered with
// its text in the stored body, found the first time one is asked for
// (index). Other results are encoded from their values.
type itemBodies map[uintptr]notedBody

// notedBody is the stored text of a whole item (doc set) or of an object
// or array inside one; elems is an array's length, which a value that
// shares its address must have too (a slice of it from the start does
// not).
type notedBody struct {
	doc   map[string]any
	body  []byte
	elems int
	// part says doc holds only some of the item's properties (a query
	// that reads no others): its objects and arrays are the item's, but
	// it is not the item.
	part bool
}

// indexedMark is the key under which itemBodies notes that the objects
// and arrays inside its items have been indexed: no value's address is 0.
const indexedMark = 0

// note remembers body as the stored form of doc, which holds every
// property of the item when all is set, or only those a query reads.
func (st *queryStats) note(doc map[string]any, body []byte, all bool) {
	if st.bodies == nil {
		st.bodies = itemBodies{}
	}
	st.bodies[reflect.ValueOf(doc).Pointer()] = notedBody{doc: doc, body: body, part: !all}
}

// of is the stored text of v when v is a document noted in b, or an
// object or array inside one.
func (b itemBodies) of(v any) ([]byte, bool) {
	if b == nil {
		return nil, false
	}
	var p uintptr
	switch x := v.(type) {
	case map[string]any:
		p = reflect.ValueOf(x).Pointer()
	case []any:
		if len(x) == 0 {
			return nil, false // empty slices need not have an address of their own
		}
		p = reflect.ValueOf(x).Pointer()
	default:
		return nil, false
	}
	n, ok := b[p]
	if _, done := b[indexedMark]; !ok && !done {
		b.index()
		n, ok = b[p]
	}
	if n.part {
		return nil, false
	}
	if x, isArray := v.([]any); ok && isArray && n.elems != len(x) {
		return nil, false
	}
	return n.body, ok
}

// index notes the text of every object and array inside the noted
// items, by the address of the value decoded from it. A body that is not
// the JSON its document was decoded from indexes nothing.
func (b itemBodies) index() {
	docs := make([]notedBody, 0, len(b))
	for _, n := range b {
		if n.doc != nil {
			docs = append(docs, n)
		}
	}
	b[indexedMark] = notedBody{}
	add := func(v any, text []byte) {
		p := reflect.ValueOf(v).Pointer()
		if n, ok := b[p]; ok && n.doc != nil {
			return
		}
		n := notedBody{body: text}
		if x, ok := v.([]any); ok {
			n.elems = len(x)
		}
		// A property named twice decodes to its last value: the last
		// text read is the one to keep.
		b[p] = n
	}
	for _, n := range docs {
		walkBody(n.body, skipSpace(n.body, 0), n.doc, add)
	}
}

// walkBody walks the JSON value at body[i] beside v, the value decoded
// from it, and adds the text of each object and array below the top. It
// returns the index after the value, or -1 when the text does not match.
func walkBody(body []byte, i int, v any, add func(any, []byte)) int {
	switch x := v.(type) {
	case map[string]any:
		if i >= len(body) || body[i] != '{' {
			return -1
		}
		j := skipSpace(body, i+1)
		for j < len(body) && body[j] != '}' {
			e := skipString(body, j)
			if e < 0 {
				return -1
			}
			name, err := jsonString(body[j:e])
			if err != nil {
				return -1
			}
			j = skipSpace(body, e)
			if j >= len(body) || body[j] != ':' {
				return -1
			}
			start := skipSpace(body, j+1)
			if j = walkBody(body, start, x[name], add); j < 0 {
				return -1
			}
			if child, ok := x[name]; ok && isContainer(child) {
				add(child, body[start:j])
			}
			if j = skipSpace(body, j); j < len(body) && body[j] == ',' {
				j = skipSpace(body, j+1)
			}
		}
		if j >= len(body) {
			return -1
		}
		return j + 1
	case []any:
		if i >= len(body) || body[i] != '[' {
			return -1
		}
		j := skipSpace(body, i+1)
		k := 0
		for ; j < len(body) && body[j] != ']'; k++ {
			if k >= len(x) {
				return -1
			}
			start := j
			if j = walkBody(body, start, x[k], add); j < 0 {
				return -1
			}
			if isContainer(x[k]) {
				add(x[k], body[start:j])
			}
			if j = skipSpace(body, j); j < len(body) && body[j] == ',' {
				j = skipSpace(body, j+1)
			}
		}
		if j >= len(body) || k != len(x) {
			return -1
		}
		return j + 1
	}
	return skipValue(body, i)
}

// isContainer reports an object, or an array with elements (an empty
// slice need not have an address of its own).
func isContainer(v any) bool {
	switch x := v.(type) {
	case map[string]any:
		return true
	case []any:
		return len(x) > 0
	}
	return false
}

// encode is a query result as answered: the stored text when v is a
// document noted in b or taken whole from one, else v encoded with the
// objects the query built in shape's order (encodeShaped).
func (b itemBodies) encode(v any, shape *query.Shape) ([]byte, error) {
	if body, ok := storedText(v, shape, b); ok {
		return body, nil
	}
	return encodeShaped(v, shape, b)
}

// Sub-status of the gateway's refusal of a cross-partition query it
// cannot serve without a query plan (CrossPartitionQueryNotServable).
const subStatusCrossPartitionQueryNotServable = "1004"

func crossPartitionDisabled() *Error {
	return badRequest("Cross partition query is required but disabled. Please set x-ms-documentdb-query-enablecrosspartition to true, specify x-ms-documentdb-partitionkey, or revise your query to avoid this exception.")
}

// errCrossPartitionNotServable is that refusal; the handler recognises
// it (by identity: every 400 matches ErrBadRequest) to add the sub-status.
// Its additionalErrorInfo is the query plan, which is what tells the
// JavaScript SDK to run the query through its plan.
var errCrossPartitionNotServable = withQueryPlan(badRequest("The provided cross partition query can not be directly served by the gateway. This is a first chance (internal) exception that all newer clients will know how to handle gracefully. This exception is traced, but unless you see it bubble up as an exception (which only happens on older SDK clients), then you can safely ignore this message."))

func withQueryPlan(e *Error) *Error {
	b, _ := json.Marshal(queryPlan())
	e.AdditionalErrorInfo = string(b)
	return e
}

// engine returns the parsed query of package query behind q.
func (q *Query) engine() *query.Query {
	if q == nil {
		return nil
	}
	if e, ok := q.q.(engineQuery); ok {
		return e.q
	}
	return nil
}

// pinnedPartition returns the logical partition a query's filter pins
// every partition-key path of c to (WHERE c.pk = 'a' AND …), or nil.
func (c *container) pinnedPartition(q *Query, params map[string]any) []string {
	e := q.engine()
	if e == nil || len(c.pkPaths) == 0 {
		return nil
	}
	var comps []string
	for _, path := range c.pkPaths {
		v, ok := e.PinnedValue(path, params)
		if _, object := v.(map[string]any); !ok || object {
			return nil
		}
		comp, err := pkComponent(normalizeValue(v))
		if err != nil {
			return nil
		}
		comps = append(comps, comp)
	}
	return comps
}

// queryScope resolves the container and the partitions a query reads
// (nil comps: all), applying the gateway's rules.
func (t *Tx) queryScope(db, coll string, pk PartitionKey, q *Query, params map[string]any, o itemQueryOptions) (*container, []string, error) {
	hdr, ok, err := pk.components()
	if err != nil {
		return nil, nil, err
	}
	c, err := t.container(db, coll)
	if err != nil {
		return nil, nil, err
	}
	if err := t.indexState(c); err != nil {
		return nil, nil, err
	}
	comps, err := c.scopePartitionKey(hdr, ok)
	if err != nil {
		return nil, nil, err
	}
	if o.gateway && comps == nil && len(c.pkPaths) > 0 {
		if pinned := c.pinnedPartition(q, params); pinned != nil {
			comps = pinned
		} else if !o.crossPartition {
			return nil, nil, crossPartitionDisabled()
		} else if e := q.engine(); e != nil && e.NeedsQueryPlan() {
			return nil, nil, errCrossPartitionNotServable
		}
	}
	return c, comps, nil
}

// scanDocsForQuery decodes every live item of the partitions comps
// names (only the properties names lists, when not nil).
func (t *Tx) scanDocsForQuery(c *container, comps []string, names []string, st *queryStats) ([]map[string]any, error) {
	var docs []map[string]any
	err := scanItems(t.rd, partitionPrefix(c.db, c.id, comps), nil, func(_, v []byte) error {
		m, err := decodeDoc(v, names)
		if err != nil {
			return err
		}
		if !c.expired(m, t.ts) {
			st.retrievedCount++
			st.retrievedSize += len(v)
			docs = append(docs, m)
			st.note(m, v, names == nil)
		}
		return nil
	})
	return docs, err
}

// queryItems is QueryItems with options: the whole result at once, over
// the documents the range index narrows the query to, or every one.
func (t *Tx) queryItems(db, coll string, pk PartitionKey, q *Query, params map[string]any, o itemQueryOptions) (*Feed, error) {
	c, comps, err := t.queryScope(db, coll, pk, q, params, o)
	if err != nil {
		return nil, err
	}
	var plan query.IndexPlan
	if e := q.engine(); e != nil {
		plan = e.IndexPlan(params)
		if err := c.queryPlanErrors(plan, e.HasWhere(), !o.scanNeedsHeader || o.enableScan); err != nil {
			return nil, err
		}
	}
	start := time.Now()
	var st queryStats
	docs, err := t.queryDocs(c, comps, plan, q, &st)
	if err != nil {
		return nil, err
	}
	st.load = time.Since(start)
	start = time.Now()
	res, err := q.runBodies(docs, params, t.udfs(db, coll), st.bodies)
	if err != nil {
		return nil, err
	}
	st.exec = time.Since(start)
	if o.stats != nil {
		*o.stats = st
	}
	return &Feed{ResourceID: c.rid(), Items: res}, nil
}

// queryItemsAsGateway runs a query request for one page on a committed
// snapshot with the gateway's rules and measurements.
func (s *Service) queryItemsAsGateway(ctx context.Context, db, coll string, pk PartitionKey, q *Query, params map[string]any, o itemQueryOptions, page pageRequest) (*Feed, error) {
	var f *Feed
	err := s.view(ctx, func(t *Tx) error {
		var err error
		f, err = t.queryItemsPage(db, coll, pk, q, params, o, page)
		return err
	})
	if err != nil {
		return nil, err
	}
	return f, nil
}

// queryDocs reads the documents a full run of q needs: those the index
// admits when plan narrows the query, else every item of comps' scope.
func (t *Tx) queryDocs(c *container, comps []string, plan query.IndexPlan, q *Query, st *queryStats) ([]map[string]any, error) {
	keys, narrowed, err := t.candidateKeys(c, comps, plan)
	if err != nil {
		return nil, err
	}
	if !narrowed {
		return t.scanDocsForQuery(c, comps, queryProperties(q), st)
	}
	var docs []map[string]any
	for _, k := range keys {
		doc, err := t.readDoc(c, k, nil, queryProperties(q), st)
		if err != nil {
			return nil, err
		}
		if doc != nil {
			docs = append(docs, doc)
		}
	}
	return docs, nil
}
