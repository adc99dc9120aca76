package indexer

import (
	"context"
	"fmt"
	"strings"

	"github.com/cerulean-db/cerulean/internal/search"
)

// item is one source document a run may index.
type item struct {
	// fields are the document as the source gives it, metadata included.
	fields map[string]any
	// mark is the item's position for change detection (Unix nanoseconds
	// for Last-Modified and Timestamp, seconds for _ts); hasMark is false
	// when the source has none.
	mark    int64
	hasMark bool
	// deleted marks an item the deletion policy says is gone.
	deleted bool
	// ident names this version of the item: the items already indexed at
	// the mark are remembered by it, so a rerun, which reads the mark's
	// own instant again, skips them.
	ident string
	// name identifies the item in errors when no key could be made.
	name string
	// oneToMany marks a document among several made from one blob, whose
	// key defaults to AzureSearch_DocumentKey.
	oneToMany bool
	// failure is a problem reading the item: it is counted as a failed
	// item with this message.
	failure string
	// warnings are problems that did not stop the item.
	warnings []string
}

// source reads the items of a data source that changed after a mark.
type source interface {
	// read calls fn, in mark order, for every item whose mark is at or
	// after since (every item when since is nil).
	read(ctx context.Context, since *int64, fn func(item) error) error
	// defaultKey is the source field mapped to the index key when no
	// field mapping targets it and the source has no field of its name
	// ("" for none), and whether it is base64-encoded on the way.
	defaultKey(it item) (field string, encode bool)
}

// deletionPolicy is a data source's SoftDeleteColumnDeletionDetectionPolicy.
type deletionPolicy struct {
	column, marker string
}

func (p *deletionPolicy) deleted(get func(string) (any, bool)) bool {
	if p == nil {
		return false
	}
	v, ok := get(p.column)
	if !ok || v == nil {
		return false
	}
	return strings.EqualFold(fmt.Sprint(v), p.marker)
}

// dataSource is the parts of a stored data source definition a run needs.
type dataSource struct {
	typ, conn, container, query string
	changeColumn                string // "" without a change detection policy
	deletion                    *deletionPolicy
}

func parseDataSource(def search.Definition) (*dataSource, error) {
	d, ok := def.(*search.DataSource)
	if !ok {
		return nil, fmt.Errorf("the data source definition is a %T", def)
	}
	ds := &dataSource{typ: d.Type, conn: d.ConnectionString()}
	if c := d.Container; c != nil {
		ds.container = c.Name
		if c.Query != nil {
			ds.query = *c.Query
		}
	}
	if p := d.DataChangeDetectionPolicy; p != nil {
		ds.changeColumn = p.HighWaterMarkColumnName
	}
	if p := d.DataDeletionDetectionPolicy; p != nil {
		if p.SoftDeleteColumnName == "" {
			return nil, fmt.Errorf("the data source's deletion detection policy has no softDeleteColumnName")
		}
		ds.deletion = &deletionPolicy{column: p.SoftDeleteColumnName}
		if p.SoftDeleteMarkerValue != nil {
			ds.deletion.marker = *p.SoftDeleteMarkerValue
		}
	}
	if ds.conn == "" || ds.container == "" {
		return nil, fmt.Errorf("the data source has no connection string or container")
	}
	return ds, nil
}
