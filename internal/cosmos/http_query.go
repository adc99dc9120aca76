package cosmos

import (
	"encoding/json"
	"errors"
	"net/http"
	"strconv"
	"strings"
	"time"
)

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
	if err := checkQueryText(spec.Query); err != nil {
		return spec, nil, err
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

// queryRunner runs a parsed query for one page.
type queryRunner func(*Query, map[string]any, pageRequest) (*Feed, error)

// offsetPaged pages a query whose run computes every result: the token
// says how many were already sent.
func offsetPaged(run func(*Query, map[string]any) (*Feed, error)) queryRunner {
	return func(query *Query, params map[string]any, page pageRequest) (*Feed, error) {
		offset, err := parseQueryContinuation(page.continuation)
		if err != nil {
			return nil, err
		}
		f, err := run(query, params)
		if err != nil {
			return nil, err
		}
		results := f.Items
		offset = min(offset, len(results))
		end := min(offset+page.size, len(results))
		out := &Feed{ResourceID: f.ResourceID, Items: results[offset:end]}
		if end < len(results) {
			tok, _ := json.Marshal(queryContinuation{Offset: end})
			out.Continuation = string(tok)
		}
		return out, nil
	}
}

// runQuery answers a query whose run computes every result, paged by
// offset.
func (h *handler) runQuery(q *request, feedName string, run func(*Query, map[string]any) (*Feed, error), stats *queryStats) error {
	return h.runPagedQuery(q, feedName, offsetPaged(run), stats)
}

// runPagedQuery parses a query request, runs it with run for one page
// and answers that page under feed name; with stats (item queries), the
// page carries the query and index metrics the request asks for, from
// what run measured into stats.
func (h *handler) runPagedQuery(q *request, feedName string, run queryRunner, stats *queryStats) error {
	b, err := readBody(q.r)
	if err != nil {
		return err
	}
	spec, params, err := parseQuerySpec(b)
	if err != nil {
		return err
	}
	compileStart := time.Now()
	query, err := ParseQuery(spec.Query)
	if err != nil {
		return err
	}
	compile := time.Since(compileStart)
	if strings.EqualFold(q.r.Header.Get("X-Ms-Cosmos-Is-Query-Plan-Request"), "true") {
		return h.writeQueryPlan(q)
	}
	size, err := pageSize(q)
	if err != nil {
		return err
	}
	f, err := run(query, params, pageRequest{size: size, continuation: q.r.Header.Get("X-Ms-Continuation")})
	if err != nil {
		return err
	}
	if f.Continuation != "" {
		q.w.Header().Set("X-Ms-Continuation", f.Continuation)
	}
	if stats != nil {
		writeQueryMetrics(q, query, compile, stats, f.Items)
	}
	q.w.Header().Set("X-Ms-Item-Count", strconv.Itoa(len(f.Items)))
	return h.writeJSON(q, http.StatusOK, compactFeed(f.ResourceID, feedName, f.Items))
}

// compactFeed renders a feed page of compact JSON items exactly as
// writeFeed's marshal does ({"<name>":[…],"_count":n,"_rid":…}, keys
// sorted), without re-validating every item.
func compactFeed(rid, name string, items []json.RawMessage) []byte {
	n := 64 + len(rid)
	for _, it := range items {
		n += len(it) + 1
	}
	b := make([]byte, 0, n)
	b = append(b, '{')
	b = appendJSONString(b, name)
	b = append(b, ":["...)
	for i, it := range items {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, it...)
	}
	b = append(b, `],"_count":`...)
	b = strconv.AppendInt(b, int64(len(items)), 10)
	b = append(b, `,"_rid":`...)
	b = appendJSONString(b, rid)
	return append(b, '}')
}

// writeQueryPlan answers the SDKs' query-plan request. The server runs
// every query in full (ORDER BY, aggregates, DISTINCT, OFFSET/LIMIT
// included) over the single partition key range, so the plan asks the SDK
// for nothing but a pass-through of that range's pages.
func (h *handler) writeQueryPlan(q *request) error {
	return h.writeValue(q, http.StatusOK, queryPlan())
}

// queryPlan is the plan writeQueryPlan answers (and the gateway's refusal
// of a cross-partition query carries).
func queryPlan() map[string]any {
	return map[string]any{
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
	}
}

func (h *handler) queryItems(q *request, db, coll string) error {
	pk := partitionKey(q.r)
	// A malformed partition key is reported before anything in the body.
	if _, _, err := pk.components(); err != nil {
		return err
	}
	rng, scoped, err := epkRangeOf(q.r)
	if err != nil {
		return err
	}
	var stats queryStats
	opts := itemQueryOptions{
		// A request naming a partition key range comes from an SDK that
		// ran the query plan; the gateway routes it without judging it.
		gateway:         q.r.Header.Get("X-Ms-Documentdb-Partitionkeyrangeid") == "",
		crossPartition:  strings.EqualFold(q.r.Header.Get("X-Ms-Documentdb-Query-Enablecrosspartition"), "true"),
		scanNeedsHeader: true,
		enableScan:      strings.EqualFold(q.r.Header.Get("X-Ms-Documentdb-Query-Enable-Scan"), "true"),
		stats:           &stats,
	}
	err = h.runPagedQuery(q, "Documents", func(query *Query, params map[string]any, page pageRequest) (*Feed, error) {
		// A query scoped to an effective-partition-key range (a feed
		// range) reads exactly the items whose keys hash into it.
		if scoped && pk == "" {
			return offsetPaged(func(query *Query, params map[string]any) (*Feed, error) {
				return h.svc.QueryItemsInRange(q.r.Context(), CollectionRef{DB: db, Coll: coll}, rng, query, params)
			})(query, params, page)
		}
		return h.svc.queryItemsAsGateway(q.r.Context(), db, coll, pk, query, params, opts, page)
	}, &stats)
	if e := (*Error)(nil); errors.As(err, &e) && e == errCrossPartitionNotServable {
		q.w.Header().Set("X-Ms-Substatus", subStatusCrossPartitionQueryNotServable)
	}
	return err
}

func (h *handler) queryDatabases(q *request) error {
	return h.runQuery(q, "Databases", func(query *Query, params map[string]any) (*Feed, error) {
		return h.svc.QueryDatabases(q.r.Context(), query, params)
	}, nil)
}

func (h *handler) queryContainers(q *request, db string) error {
	return h.runQuery(q, "DocumentCollections", func(query *Query, params map[string]any) (*Feed, error) {
		return h.svc.QueryContainers(q.r.Context(), db, query, params)
	}, nil)
}
