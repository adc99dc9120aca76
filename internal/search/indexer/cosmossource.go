package indexer

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"
	"strconv"

	"github.com/cerulean-db/cerulean/internal/cosmos"
)

// defaultCosmosQuery is the query Azure runs with a high-water mark
// policy and no query of the data source's own.
const defaultCosmosQuery = "SELECT * FROM c WHERE c._ts >= @HighWaterMark ORDER BY c._ts"

// cosmosSource reads a Cosmos DB container's items with the data
// source's query through the Cosmos Service. With a high-water mark
// policy the query receives @HighWaterMark, and, as Azure's query reads
// _ts >= @HighWaterMark, items of the last indexed second are read again.
type cosmosSource struct {
	svc          *cosmos.Service
	db, coll     string
	query        string
	changeColumn string
	deletion     *deletionPolicy
}

func (s *cosmosSource) defaultKey(item) (string, bool) { return "", false }

func (s *cosmosSource) read(ctx context.Context, since *int64, fn func(item) error) error {
	text := s.query
	params := map[string]any{}
	if s.changeColumn != "" {
		if text == "" {
			text = defaultCosmosQuery
		}
		hw := int64(0)
		if since != nil {
			hw = *since
		}
		params["@HighWaterMark"] = float64(hw)
	}
	if text == "" {
		text = "SELECT * FROM c"
	}
	q, err := cosmos.ParseQuery(text)
	if err != nil {
		return fmt.Errorf("the data source's query is not valid: %w", err)
	}
	feed, err := s.svc.QueryItems(ctx, cosmos.CollectionRef{DB: s.db, Coll: s.coll}, "", q, params)
	if err != nil {
		return fmt.Errorf("query container '%s' of database '%s': %w", s.coll, s.db, err)
	}
	items := make([]item, 0, len(feed.Items))
	for i, raw := range feed.Items {
		v, err := decodeJSON(raw)
		doc, ok := v.(map[string]any)
		if err != nil || !ok {
			items = append(items, item{name: fmt.Sprintf("result %d", i+1), failure: "The query result is not a JSON object; the data source's query must select whole documents (SELECT * or SELECT c.field, …)."})
			continue
		}
		it := item{fields: doc}
		it.name, _ = doc["id"].(string)
		rid, _ := doc["_rid"].(string)
		if etag, _ := doc["_etag"].(string); rid != "" && etag != "" {
			it.ident = rid + "@" + etag
		}
		if s.changeColumn != "" {
			if n, ok := doc[s.changeColumn].(json.Number); ok {
				if ts, err := strconv.ParseInt(n.String(), 10, 64); err == nil {
					it.mark, it.hasMark = ts, true
				}
			}
			if !it.hasMark {
				it.warnings = append(it.warnings, fmt.Sprintf("The item has no numeric '%s'; the data source's query must select it for change detection.", s.changeColumn))
			}
		}
		it.deleted = s.deletion.deleted(func(name string) (any, bool) {
			v, ok := doc[name]
			return v, ok
		})
		items = append(items, it)
	}
	sortByMark(items)
	for _, it := range items {
		if err := fn(it); err != nil {
			return err
		}
	}
	return nil
}

// sortByMark orders items by mark, keeping the source's order among
// equal marks (and items without one first).
func sortByMark(items []item) {
	sort.SliceStable(items, func(i, j int) bool { return items[i].mark < items[j].mark })
}
