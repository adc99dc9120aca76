package cosmos

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/json"

	"github.com/cerulean-db/cerulean/internal/kv"
)

// defaultPageSize is the page size of an item feed when none is asked for.
const defaultPageSize = 100

// Feed is a list of resources, one page of an item feed, or the results
// of a query.
type Feed struct {
	// ResourceID is the _rid of the resource listed: the container of
	// items, the database of containers, "" for databases.
	ResourceID string
	// Items are the entries as JSON: documents with their system
	// properties, or whatever values a query selected.
	Items []json.RawMessage
	// Continuation resumes an item feed after this page; "" when it was
	// the last.
	Continuation string
}

// FeedOptions page an item feed.
type FeedOptions struct {
	// MaxItemCount bounds the page; 0 or less means defaultPageSize.
	MaxItemCount int
	// Continuation is a previous page's Feed.Continuation.
	Continuation string
}

// ReadItemFeed reads a container's items (or one logical partition's, or
// a hierarchical key prefix's, as pk names) in key order, one page at a
// time. Expired items are left out.
func (t *Tx) ReadItemFeed(ref CollectionRef, pk PartitionKey, opts FeedOptions) (*Feed, error) {
	db, coll := ref.DB, ref.Coll
	size := opts.MaxItemCount
	if size <= 0 {
		size = defaultPageSize
	}
	hdr, ok, err := pk.components()
	if err != nil {
		return nil, err
	}
	// The token is the last key returned, so a page resumes after it
	// whatever was written or deleted in between.
	var start []byte
	if opts.Continuation != "" {
		start, err = base64.RawURLEncoding.DecodeString(opts.Continuation)
		if err != nil {
			return nil, badRequest("The continuation token %q is invalid.", opts.Continuation)
		}
	}
	c, err := t.container(db, coll)
	if err != nil {
		return nil, err
	}
	comps, err := c.scopePartitionKey(hdr, ok)
	if err != nil {
		return nil, err
	}
	prefix := partitionPrefix(db, coll, comps)
	from := []byte(prefix)
	if start != nil {
		if !bytes.HasPrefix(start, prefix) {
			return nil, badRequest("The continuation token does not belong to this feed.")
		}
		from = append(append([]byte(nil), start...), 0)
	}
	f := &Feed{ResourceID: c.rid(), Items: []json.RawMessage{}}
	var last []byte
	more := false
	if start == nil {
		from = nil
	}
	err = scanItems(t.rd, prefix, from, func(k, v []byte) error {
		if len(f.Items) == size {
			more = true
			return kv.ErrStopScan
		}
		if _, ok := c.defaultTTL(); ok {
			doc, err := decodeForQuery(v)
			if err != nil {
				return err
			}
			if c.expired(doc, t.ts) {
				return nil
			}
		}
		last = append(last[:0], k...)
		f.Items = append(f.Items, json.RawMessage(v))
		return nil
	})
	if err != nil {
		return nil, err
	}
	if more {
		f.Continuation = base64.RawURLEncoding.EncodeToString(last)
	}
	return f, nil
}

// ReadItemFeed is Tx.ReadItemFeed on a committed snapshot.
func (s *Service) ReadItemFeed(ctx context.Context, ref CollectionRef, pk PartitionKey, opts FeedOptions) (*Feed, error) {
	var f *Feed
	err := s.view(ctx, func(t *Tx) error {
		var err error
		f, err = t.ReadItemFeed(ref, pk, opts)
		return err
	})
	if err != nil {
		return nil, err
	}
	return f, nil
}
