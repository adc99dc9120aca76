package cosmos

import (
	"encoding/json"
	"net/http"
	"strings"

	"github.com/cerulean-db/cerulean/internal/kv"
)

// compiledQuery is a parsed SQL query, as the query engine provides it.
type compiledQuery interface {
	// run evaluates the query over docs, returning every result in order.
	run(docs []map[string]any, params map[string]any) ([]any, error)
}

// querySpec is the body of a query request.
type querySpec struct {
	Query      string `json:"query"`
	Parameters []struct {
		Name  string `json:"name"`
		Value any    `json:"value"`
	} `json:"parameters"`
}

func parseQuerySpec(b []byte) (querySpec, map[string]any, error) {
	var spec querySpec
	if err := json.Unmarshal(b, &spec); err != nil {
		return spec, nil, badRequest("The query request body is not valid JSON: %v", err)
	}
	if strings.TrimSpace(spec.Query) == "" {
		return spec, nil, badRequest("The query text is missing.")
	}
	params := make(map[string]any, len(spec.Parameters))
	for _, p := range spec.Parameters {
		if !strings.HasPrefix(p.Name, "@") {
			return spec, nil, badRequest("The query parameter name %q must start with '@'.", p.Name)
		}
		params[p.Name] = p.Value
	}
	return spec, params, nil
}

// queryContinuation is the paging token of a query: results are computed
// by the server in full and the token says how many were already sent.
type queryContinuation struct {
	Offset int `json:"offset"`
}

func parseQueryContinuation(v string) (int, error) {
	if v == "" {
		return 0, nil
	}
	var c queryContinuation
	if err := json.Unmarshal([]byte(v), &c); err != nil || c.Offset < 0 {
		return 0, badRequest("The continuation token %q is invalid.", v)
	}
	return c.Offset, nil
}

// runQuery parses a query request, gathers its input documents with load
// and answers one page of results under feed name.
func (s *Service) runQuery(q *request, feedName string, load func(kv.Reader) (rid string, docs []map[string]any, err error)) error {
	b, err := readBody(q.r)
	if err != nil {
		return err
	}
	spec, params, err := parseQuerySpec(b)
	if err != nil {
		return err
	}
	cq, err := compileQuery(spec.Query)
	if err != nil {
		return err
	}
	if strings.EqualFold(q.r.Header.Get("x-ms-cosmos-is-query-plan-request"), "true") {
		return s.writeQueryPlan(q, cq)
	}
	size, err := pageSize(q)
	if err != nil {
		return err
	}
	offset, err := parseQueryContinuation(q.r.Header.Get("x-ms-continuation"))
	if err != nil {
		return err
	}
	var rid string
	var docs []map[string]any
	err = s.store.View(q.r.Context(), func(rd kv.Reader) error {
		var err error
		rid, docs, err = load(rd)
		return err
	})
	if err != nil {
		return err
	}
	results, err := cq.run(docs, params)
	if err != nil {
		return err
	}
	if offset > len(results) {
		offset = len(results)
	}
	end := min(offset+size, len(results))
	if end < len(results) {
		tok, _ := json.Marshal(queryContinuation{Offset: end})
		q.w.Header().Set("x-ms-continuation", string(tok))
	}
	return s.writeFeed(q, rid, feedName, results[offset:end])
}

// writeQueryPlan answers the SDKs' query-plan request. The server runs
// every query in full (ORDER BY, aggregates, DISTINCT, OFFSET/LIMIT
// included) over the single partition key range, so the plan asks the SDK
// for nothing but a pass-through of that range's pages.
func (s *Service) writeQueryPlan(q *request, cq compiledQuery) error {
	return s.writeValue(q, http.StatusOK, map[string]any{
		"partitionedQueryExecutionInfoVersion": 2,
		"queryInfo": map[string]any{
			"distinctType":                "None",
			"top":                         nil,
			"offset":                      nil,
			"limit":                       nil,
			"orderBy":                     []any{},
			"orderByExpressions":          []any{},
			"groupByExpressions":          []any{},
			"groupByAliases":              []any{},
			"aggregates":                  []any{},
			"groupByAliasToAggregateType": map[string]any{},
			"rewrittenQuery":              "",
			"hasSelectValue":              false,
			"dCountInfo":                  nil,
			"hasNonStreamingOrderBy":      false,
		},
		"queryRanges": []any{map[string]any{"min": "", "max": "FF", "isMinInclusive": true, "isMaxInclusive": false}},
	})
}

// decodeForQuery decodes stored JSON the way the query engine takes it
// (numbers as float64).
func decodeForQuery(b []byte) (map[string]any, error) {
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		return nil, err
	}
	return m, nil
}

// scanDocs decodes every record under prefix, leaving out those keep
// rejects (nil keeps all).
func scanDocs(rd kv.Reader, prefix []byte, keep func(map[string]any) bool) ([]map[string]any, error) {
	var out []map[string]any
	var derr error
	err := rd.Scan(prefix, kv.PrefixEnd(prefix), func(_, v []byte) bool {
		m, err := decodeForQuery(v)
		if err != nil {
			derr = err
			return false
		}
		if keep != nil && !keep(m) {
			return true
		}
		out = append(out, m)
		return true
	})
	if err == nil {
		err = derr
	}
	return out, err
}

func (s *Service) queryItems(q *request, db, coll string) error {
	hdr, ok, err := parsePartitionKeyHeader(q.r.Header.Get("x-ms-documentdb-partitionkey"))
	if err != nil {
		return err
	}
	return s.runQuery(q, "Documents", func(rd kv.Reader) (string, []map[string]any, error) {
		c, err := loadContainer(rd, db, coll)
		if err != nil {
			return "", nil, err
		}
		pk, err := c.scopePartitionKey(hdr, ok)
		if err != nil {
			return "", nil, err
		}
		now := s.unixNow()
		docs, err := scanDocs(rd, partitionPrefix(db, coll, pk), func(m map[string]any) bool { return !c.expired(m, now) })
		return c.rid(), docs, err
	})
}

func (s *Service) queryDatabases(q *request) error {
	return s.runQuery(q, "Databases", func(rd kv.Reader) (string, []map[string]any, error) {
		docs, err := scanDocs(rd, databasesPrefix(), nil)
		return "", docs, err
	})
}

func (s *Service) queryContainers(q *request, db string) error {
	return s.runQuery(q, "DocumentCollections", func(rd kv.Reader) (string, []map[string]any, error) {
		dbRec, ok, err := getRecord(rd, databaseKey(db))
		if err != nil {
			return "", nil, err
		}
		if !ok {
			return "", nil, notFound("Database %q does not exist.", db)
		}
		docs, err := scanDocs(rd, containersPrefix(db), nil)
		return dbRec.str("_rid"), docs, err
	})
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
	res, err := cq.run([]map[string]any{m}, nil)
	if err != nil {
		return false, err
	}
	return len(res) > 0, nil
}
