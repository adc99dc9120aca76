package indexer

import (
	"context"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"math"
	"strconv"
	"time"

	"github.com/cerulean-db/cerulean/internal/table"
	"github.com/cerulean-db/cerulean/internal/table/odata"
)

// tableSource reads a table's entities through the Table Service, with
// the data source's query as the $filter.
type tableSource struct {
	svc      *table.Service
	account  string
	table    string
	filter   *odata.Filter
	deletion *deletionPolicy
}

// Entities are keyed by "Key", PartitionKey and RowKey concatenated, as
// Azure's table indexer composes it.
func (s *tableSource) defaultKey(item) (string, bool) { return "Key", false }

func (s *tableSource) read(ctx context.Context, since *int64, fn func(item) error) error {
	var items []item
	q := table.EntityQuery{Filter: s.filter, Top: 1000}
	for {
		page, err := s.svc.QueryEntities(ctx, s.account, s.table, q)
		if err != nil {
			return fmt.Errorf("query table '%s': %w", s.table, err)
		}
		for _, e := range page.Entities {
			mark := odata.TicksTime(e.Timestamp).UnixNano()
			if since != nil && mark < *since {
				continue
			}
			it := item{fields: entityFields(e), mark: mark, hasMark: true, name: e.PartitionKey + e.RowKey,
				ident: e.PartitionKey + "\x00" + e.RowKey + "@" + strconv.FormatUint(e.Version, 10)}
			it.deleted = s.deletion.deleted(func(name string) (any, bool) {
				v, ok := it.fields[name]
				return v, ok
			})
			items = append(items, it)
		}
		if !page.HasNext {
			break
		}
		q.NextPK, q.NextRK, q.HasNext = page.NextPK, page.NextRK, true
	}
	sortByMark(items)
	for _, it := range items {
		if err := fn(it); err != nil {
			return err
		}
	}
	return nil
}

// entityFields renders an entity as a document: its properties as JSON
// values, the system properties, and Key.
func entityFields(e *table.Entity) map[string]any {
	m := make(map[string]any, len(e.Properties)+4)
	for _, p := range e.Properties {
		m[p.Name] = odataJSON(p.Value)
	}
	m["PartitionKey"] = e.PartitionKey
	m["RowKey"] = e.RowKey
	m["Timestamp"] = odata.TicksTime(e.Timestamp).UTC().Format(time.RFC3339Nano)
	m["Key"] = e.PartitionKey + e.RowKey
	return m
}

func odataJSON(v odata.Value) any {
	switch v.Type {
	case odata.Int32, odata.Int64:
		return json.Number(strconv.FormatInt(v.Num, 10))
	case odata.Double:
		switch {
		case math.IsNaN(v.Float):
			return "NaN"
		case math.IsInf(v.Float, 1):
			return "INF"
		case math.IsInf(v.Float, -1):
			return "-INF"
		}
		return json.Number(strconv.FormatFloat(v.Float, 'g', -1, 64))
	case odata.Boolean:
		return v.Bool()
	case odata.DateTime:
		return v.Time().UTC().Format(time.RFC3339Nano)
	case odata.Binary:
		return base64.StdEncoding.EncodeToString([]byte(v.Str))
	}
	return v.Str
}
