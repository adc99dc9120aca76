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
// after them, as Azure answers it (and as a point read does). Other
// results are encoded from their values.
type itemBodies map[uintptr][]byte

// note remembers body as the stored form of doc.
func (st *queryStats) note(doc map[string]any, body []byte) {
	if st.bodies == nil {
		st.bodies = itemBodies{}
	}
	st.bodies[reflect.ValueOf(doc).Pointer()] = body
}

// of is the stored body of m when m is a document noted in b.
func (b itemBodies) of(m map[string]any) ([]byte, bool) {
	if b == nil {
		return nil, false
	}
	body, ok := b[reflect.ValueOf(m).Pointer()]
	return body, ok
}

// encode is a query result as answered: the stored body when v is a
// document noted in b, else v encoded with the objects the query built
// in shape's order (encodeShaped).
func (b itemBodies) encode(v any, shape *query.Shape) ([]byte, error) {
	if m, ok := v.(map[string]any); ok {
		if body, ok := b.of(m); ok {
			return body, nil
		}
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
			if names == nil {
				st.note(m, v)
			}
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
