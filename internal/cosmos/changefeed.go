package cosmos

import (
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/cerulean-db/cerulean/internal/cosmos/epk"
	"github.com/cerulean-db/cerulean/internal/kv"
)

// ChangeFeedMode selects what a change feed reports.
type ChangeFeedMode int

const (
	// LatestVersion reports each changed item once, as it is now, in the
	// order of its last change; deletes are not reported.
	LatestVersion ChangeFeedMode = iota
	// AllVersionsAndDeletes reports every change — creates, replaces,
	// deletes and TTL expiries — with its metadata.
	AllVersionsAndDeletes
)

// ChangeFeedOptions scope and position a change feed read.
type ChangeFeedOptions struct {
	Mode ChangeFeedMode
	// MaxItemCount bounds the page; 0 or less means defaultPageSize.
	MaxItemCount int
	// PartitionKey limits the feed to one logical partition (or a prefix of
	// a hierarchical key); empty means the whole container.
	PartitionKey PartitionKey
	// MinEPK and MaxEPK limit the feed to the items whose effective
	// partition key is in [MinEPK, MaxEPK); empty bounds are open.
	MinEPK, MaxEPK string
	// After resumes after a previous page's ETag (HasAfter); FromNow
	// starts at the current end of the log; otherwise the feed starts at
	// the beginning, or at Since when it is set.
	After    uint64
	HasAfter bool
	FromNow  bool
	Since    time.Time
}

// ChangeFeed is one page of a change feed.
type ChangeFeed struct {
	// ResourceID is the container's _rid.
	ResourceID string
	// Items are the changes: documents (LatestVersion) or change entries
	// {current, previous, metadata} (AllVersionsAndDeletes).
	Items []json.RawMessage
	// ETag resumes the feed after this page: a quoted LSN.
	ETag string
}

// ParseChangeFeedETag reads a change feed's ETag (`"12"` or 12) as the
// LSN to resume after.
func ParseChangeFeedETag(s string) (uint64, error) {
	v := strings.Trim(strings.TrimSpace(s), `"`)
	if strings.HasPrefix(v, "W/") {
		v = strings.Trim(v[2:], `"`)
	}
	n, err := strconv.ParseUint(v, 10, 64)
	if err != nil {
		return 0, badRequest("The continuation (If-None-Match) %q is not a change feed ETag.", s)
	}
	return n, nil
}

func changeFeedETag(lsn uint64) string { return `"` + strconv.FormatUint(lsn, 10) + `"` }

// ReadChangeFeed reads the next page of a container's change feed from a
// committed snapshot. A page with no changes comes back empty with the
// ETag to poll with (the gateway answers it 304 Not Modified).
func (s *Service) ReadChangeFeed(ctx context.Context, ref CollectionRef, opts ChangeFeedOptions) (*ChangeFeed, error) {
	db, coll := ref.DB, ref.Coll
	if opts.Mode == AllVersionsAndDeletes {
		if err := s.markAllVersionsRead(ctx, db, coll); err != nil {
			return nil, err
		}
	}
	if err := s.settleChangeLogs(ctx, db, coll); err != nil {
		return nil, err
	}
	var f *ChangeFeed
	err := s.view(ctx, func(t *Tx) error {
		var err error
		f, err = t.readChangeFeed(db, coll, opts)
		return err
	})
	return f, err
}

func (t *Tx) readChangeFeed(db, coll string, opts ChangeFeedOptions) (*ChangeFeed, error) {
	size := opts.MaxItemCount
	if size <= 0 {
		size = defaultPageSize
	}
	hdr, ok, err := opts.PartitionKey.components()
	if err != nil {
		return nil, err
	}
	c, err := t.container(db, coll)
	if err != nil {
		return nil, err
	}
	scope, err := c.scopePartitionKey(hdr, ok)
	if err != nil {
		return nil, err
	}
	last, err := lastLSN(t.rd, db, coll)
	if err != nil {
		return nil, err
	}
	f := &ChangeFeed{ResourceID: c.rid(), Items: []json.RawMessage{}, ETag: changeFeedETag(last)}
	if opts.FromNow {
		return f, nil
	}
	from := uint64(1)
	if opts.HasAfter {
		if opts.After > last {
			return nil, badRequest("The continuation (If-None-Match) %d is ahead of this container's change feed.", opts.After)
		}
		from = opts.After + 1
	}
	prefix := changesPrefix(db, coll)
	var (
		cur  uint64
		buf  []byte
		stop bool
	)
	// flush handles the record assembled in buf; it reports whether the
	// page is full.
	flush := func() (bool, error) {
		if buf == nil {
			return false, nil
		}
		var rec changeRecord
		if err := json.Unmarshal(buf, &rec); err != nil {
			return true, errors.New("change log: malformed record")
		}
		rec.LSN = cur // the key's
		buf = nil
		f.ETag = changeFeedETag(rec.LSN)
		item, err := t.changeEntry(c, &rec, scope, opts)
		if err != nil {
			return true, err
		}
		if item != nil {
			f.Items = append(f.Items, item)
		}
		return len(f.Items) == size, nil
	}
	err = t.rd.Scan(prefix.Uint(from), kv.PrefixEnd(prefix), func(k, v []byte) error {
		rest := k[len(prefix):]
		if len(rest) != 16 {
			return errors.New("change log: malformed key")
		}
		lsn, part := binary.BigEndian.Uint64(rest), binary.BigEndian.Uint64(rest[8:])
		if lsn != cur || part == 0 {
			full, err := flush()
			if err != nil {
				return err
			}
			if full {
				stop = true
				return kv.ErrStopScan
			}
			cur = lsn
		}
		buf = append(buf, v...)
		return nil
	})
	if err == nil && !stop {
		var full bool
		if full, err = flush(); err == nil && !full {
			// Everything up to the snapshot's last LSN was read.
			f.ETag = changeFeedETag(last)
		}
	}
	if err != nil {
		return nil, err
	}
	return f, nil
}

// changeEntry renders one record for the feed, or nil when the feed does
// not report it: out of scope, before Since, or (latest version) a delete
// or a version superseded since.
func (t *Tx) changeEntry(c *container, rec *changeRecord, scope []string, opts ChangeFeedOptions) (json.RawMessage, error) {
	if len(rec.PK) < len(scope) || !slices.Equal(rec.PK[:len(scope)], scope) {
		return nil, nil
	}
	if (opts.MinEPK != "" || opts.MaxEPK != "") && !epk.InRange(rec.EPK, opts.MinEPK, opts.MaxEPK) {
		return nil, nil
	}
	if !opts.Since.IsZero() && rec.TS < opts.Since.Unix() {
		return nil, nil
	}
	if opts.Mode == AllVersionsAndDeletes {
		return allVersionsEntry(c, rec)
	}
	b, ok, err := t.recordedItem(c, rec)
	if err != nil || !ok {
		return nil, err
	}
	// Only what tells whether rec is the item's current, unexpired
	// version is decoded; the item goes out as stored.
	doc, err := decodeProperties(b, currentVersionProps)
	if err != nil {
		return nil, err
	}
	if e, _ := doc["_etag"].(string); e != rec.ETag || c.expired(doc, t.ts) {
		return nil, nil
	}
	return withLSN(b, rec.LSN), nil
}

// currentVersionProps are the item properties changeEntry reads.
var currentVersionProps = []string{"_etag", "ttl", "_ts"}

// allVersionsEntry is the all-versions-and-deletes shape (wire format
// 2021-09-15): the item as written in "current", the deleted item's id and
// partition key in "previous", and "metadata".
func allVersionsEntry(c *container, rec *changeRecord) (json.RawMessage, error) {
	meta := map[string]any{
		"operationType": rec.Op,
		"lsn":           rec.LSN,
		"crts":          rec.TS,
	}
	entry := map[string]any{"metadata": meta}
	if rec.Op == opDelete {
		meta["timeToLiveExpired"] = rec.TTLExpired
		entry["previous"] = deletedIdentity(c, rec)
	} else {
		entry["current"] = json.RawMessage(withLSN(rec.Doc, rec.LSN))
	}
	return marshal(entry)
}

// deletedIdentity is what the feed keeps of a deleted item: its id, _rid
// and partition-key properties.
func deletedIdentity(c *container, rec *changeRecord) map[string]any {
	out := map[string]any{"id": rec.ID}
	doc, err := decodeObject(rec.Doc)
	if err != nil {
		return out
	}
	if rid, ok := doc["_rid"]; ok {
		out["_rid"] = rid
	}
	for _, path := range c.pkPaths {
		v, ok := lookupPath(doc, path)
		if !ok {
			continue
		}
		m := out
		for _, p := range path[:len(path)-1] {
			next, ok := m[p].(map[string]any)
			if !ok {
				next = map[string]any{}
				m[p] = next
			}
			m = next
		}
		m[path[len(path)-1]] = v
	}
	return out
}
