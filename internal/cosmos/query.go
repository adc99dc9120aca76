package cosmos

import (
	"context"
	"encoding/json"

	"github.com/cerulean-db/cerulean/internal/cosmos/query"
	"github.com/cerulean-db/cerulean/internal/kv"
	kvrecord "github.com/cerulean-db/cerulean/internal/kv/record"
)

// compiledQuery is a parsed SQL query, as the query engine provides it.
type compiledQuery interface {
	// run evaluates the query over docs, returning every result in order;
	// udfs (nil for none) calls the container's user-defined functions.
	run(docs []map[string]any, params map[string]any, udfs query.UDFs) ([]any, error)
	// shape is the order of the properties of the objects the query
	// builds (query.Shape).
	shape() *query.Shape
}

// Query is a parsed Cosmos DB SQL query.
type Query struct{ q compiledQuery }

// ParseQuery parses a SQL query ("SELECT … FROM c WHERE …"); a syntax
// error is ErrBadRequest with the engine's message.
func ParseQuery(text string) (*Query, error) {
	cq, err := compileQuery(text)
	if err != nil {
		return nil, err
	}
	return &Query{q: cq}, nil
}

// run evaluates q over docs with params ("@name" → value) and encodes each
// result.
func (q *Query) run(docs []map[string]any, params map[string]any) ([]json.RawMessage, error) {
	return q.runWith(docs, params, nil)
}

// runWith is run with the user-defined functions of udfs.
func (q *Query) runWith(docs []map[string]any, params map[string]any, udfs query.UDFs) ([]json.RawMessage, error) {
	return q.runBodies(docs, params, udfs, nil)
}

// runBodies is runWith answering a result that is one of the items read
// with its stored body (itemBodies).
func (q *Query) runBodies(docs []map[string]any, params map[string]any, udfs query.UDFs, bodies itemBodies) ([]json.RawMessage, error) {
	if q == nil || q.q == nil {
		return nil, badRequest("The query text is missing.")
	}
	res, err := q.q.run(docs, params, udfs)
	if err != nil {
		return nil, err
	}
	out := make([]json.RawMessage, len(res))
	for i, v := range res {
		b, err := bodies.encode(v, q.q.shape())
		if err != nil {
			return nil, err
		}
		out[i] = b
	}
	return out, nil
}

// decodeForQuery decodes a stored item (JSON) or resource record (binary,
// or JSON from an earlier release) the way the query engine takes it
// (numbers as float64).
func decodeForQuery(b []byte) (map[string]any, error) {
	var m map[string]any
	if err := kvrecord.Decode(b, &m); err != nil {
		return nil, err
	}
	return m, nil
}

// scanDocs decodes every record under prefix, leaving out those keep
// rejects (nil keeps all). Items kept are noted in st, when not nil, so
// that a query answers them as stored (itemBodies).
func scanDocs(rd kv.Reader, prefix []byte, keep func(map[string]any) bool, st *queryStats) ([]map[string]any, error) {
	var out []map[string]any
	// scanItems reassembles items stored across values (other resources
	// are always one value, which it passes through).
	err := scanItems(rd, prefix, nil, func(_, v []byte) error {
		m, err := decodeForQuery(v)
		if err != nil {
			return err
		}
		if keep == nil || keep(m) {
			out = append(out, m)
			if st != nil {
				st.note(m, v, true)
			}
		}
		return nil
	})
	return out, err
}

// QueryItems runs q with params ("@name" → value) over the items of one
// logical partition (or a hierarchical key prefix, or the whole container
// when pk is empty) and returns every result, in the query's order.
// Expired items are left out.
func (t *Tx) QueryItems(ref CollectionRef, pk PartitionKey, q *Query, params map[string]any) (*Feed, error) {
	db, coll := ref.DB, ref.Coll
	return t.queryItems(db, coll, pk, q, params, itemQueryOptions{})
}

// QueryItems is Tx.QueryItems on a committed snapshot.
func (s *Service) QueryItems(ctx context.Context, ref CollectionRef, pk PartitionKey, q *Query, params map[string]any) (*Feed, error) {
	var f *Feed
	err := s.view(ctx, func(t *Tx) error {
		var err error
		f, err = t.QueryItems(ref, pk, q, params)
		return err
	})
	if err != nil {
		return nil, err
	}
	return f, nil
}

// QueryDatabases runs q over the databases.
func (s *Service) QueryDatabases(ctx context.Context, q *Query, params map[string]any) (*Feed, error) {
	return s.queryFeed(ctx, nil, databasesPrefix(), q, params)
}

// QueryContainers runs q over the containers of db.
func (s *Service) QueryContainers(ctx context.Context, db string, q *Query, params map[string]any) (*Feed, error) {
	return s.queryFeed(ctx, databaseRID(db), containersPrefix(db), q, params)
}

// evalCondition evaluates a patch condition ("FROM c WHERE …") on doc.
func evalCondition(cond string, doc map[string]any) (bool, error) {
	cq, err := compileQuery("SELECT VALUE 1 " + cond)
	if err != nil {
		return false, err
	}
	b, err := marshal(doc)
	if err != nil {
		return false, err
	}
	m, err := decodeForQuery(b)
	if err != nil {
		return false, err
	}
	res, err := cq.run([]map[string]any{m}, nil, nil)
	if err != nil {
		return false, err
	}
	return len(res) > 0, nil
}
