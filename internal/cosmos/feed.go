package cosmos

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"strconv"

	"github.com/cerulean-db/cerulean/internal/kv"
)

// defaultPageSize is the page size when x-ms-max-item-count is absent or
// -1 ("let the service decide").
const defaultPageSize = 100

// pageSize reads x-ms-max-item-count.
func pageSize(q *request) (int, error) {
	v := q.r.Header.Get("x-ms-max-item-count")
	if v == "" {
		return defaultPageSize, nil
	}
	n, err := strconv.Atoi(v)
	if err != nil || n == 0 || n < -1 {
		return 0, badRequest("Invalid value %q for x-ms-max-item-count.", v)
	}
	if n == -1 {
		return defaultPageSize, nil
	}
	return n, nil
}

// readItemFeed answers GET …/docs: the container's items (or one logical
// partition's, or a hierarchical prefix's) in key order, paged by the
// continuation of the last key returned.
func (s *Service) readItemFeed(q *request, db, coll string) error {
	size, err := pageSize(q)
	if err != nil {
		return err
	}
	hdr, ok, err := parsePartitionKeyHeader(q.r.Header.Get("x-ms-documentdb-partitionkey"))
	if err != nil {
		return err
	}
	var start []byte
	if cont := q.r.Header.Get("x-ms-continuation"); cont != "" {
		start, err = base64.RawURLEncoding.DecodeString(cont)
		if err != nil {
			return badRequest("The continuation token %q is invalid.", cont)
		}
	}
	var items []any
	var last []byte
	more := false
	var rid string
	err = s.store.View(q.r.Context(), func(rd kv.Reader) error {
		c, err := loadContainer(rd, db, coll)
		if err != nil {
			return err
		}
		rid = c.rid()
		pk, err := c.scopePartitionKey(hdr, ok)
		if err != nil {
			return err
		}
		prefix := partitionPrefix(db, coll, pk)
		from := []byte(prefix)
		if start != nil {
			if !bytes.HasPrefix(start, prefix) {
				return badRequest("The continuation token does not belong to this feed.")
			}
			from = append(append([]byte(nil), start...), 0)
		}
		now := s.unixNow()
		var derr error
		err = rd.Scan(from, kv.PrefixEnd(prefix), func(k, v []byte) bool {
			if len(items) == size {
				more = true
				return false
			}
			if _, ok := c.defaultTTL(); ok {
				doc, err := decodeForQuery(v)
				if err != nil {
					derr = err
					return false
				}
				if c.expired(doc, now) {
					return true
				}
			}
			last = append(last[:0], k...)
			items = append(items, json.RawMessage(append([]byte(nil), v...)))
			return true
		})
		if err == nil {
			err = derr
		}
		return err
	})
	if err != nil {
		return err
	}
	if more {
		// The next page starts after the last key returned.
		q.w.Header().Set("x-ms-continuation", base64.RawURLEncoding.EncodeToString(last))
	}
	return s.writeFeed(q, rid, "Documents", items)
}
