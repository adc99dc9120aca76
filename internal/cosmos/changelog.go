package cosmos

import (
	"bytes"
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"strconv"

	"github.com/cerulean-db/cerulean/internal/cosmos/epk"
	"github.com/cerulean-db/cerulean/internal/kv"
	"github.com/cerulean-db/cerulean/internal/kv/keyspace"
	"github.com/cerulean-db/cerulean/internal/kv/tuple"
)

// The change log: every item write appends a record to its container's
// log, in the write's own transaction, under the next log sequence number
// (LSN) of the container. The store takes the number at commit or when
// the log is next settled (kv.Txn.Append, kv.Settle: the embedded engines
// at commit, PostgreSQL later), without the writers reading the counter,
// so concurrent writers of a container do not conflict on it. A reader
// of the log settles it first (settleChangeLog), and so does the
// deletion of the container; once a reader sees LSN n, every LSN below n
// is there too, and a feed that resumes after n misses nothing and
// repeats nothing, across restarts and crashes alike (the log is in the
// store, written with the item it describes).
//
//	Cq db coll              last LSN of the container (8 bytes, big endian)
//	Cq db coll "avad"       when its all-versions-and-deletes feed was last
//	                        read (Unix seconds, 8 bytes; compaction.go)
//	Cf db coll lsn part     change record (JSON, split into parts so that a
//	                        record carrying a large item stays under the
//	                        store's value limit)

func changeSeqKey(db, coll string) tuple.Key {
	return tuple.New(keyspace.CosmosChangeSeq).Str(db).Str(coll)
}

// allVersionsReadKey marks a container whose all-versions-and-deletes
// feed has been read, and when (compaction.go).
func allVersionsReadKey(db, coll string) tuple.Key { return changeSeqKey(db, coll).Str("avad") }

func changeSeqOfDatabase(db string) tuple.Key { return tuple.New(keyspace.CosmosChangeSeq).Str(db) }

func changesPrefix(db, coll string) tuple.Key {
	return tuple.New(keyspace.CosmosChanges).Str(db).Str(coll)
}

// changeKey is the key function of a container's log: part part of the
// record numbered n.
func changeKey(db, coll string) func(n uint64, part int) []byte {
	prefix := changesPrefix(db, coll)
	return func(n uint64, part int) []byte { return prefix.Uint(n).Uint(uint64(part)) }
}

// settleChangeLog numbers every record appended to a container's log
// and not numbered yet (kv.SettleAll), in tx: what deleting the
// container does first, after settleChangeLogs outside it.
func settleChangeLog(tx kv.Txn, db, coll string) error {
	return kv.SettleAll(tx, changeSeqKey(db, coll), changeKey(db, coll))
}

// settleChangeLogs settles a container's log in a transaction of its
// own: what a reader of the log does first. On the embedded engines,
// which number at commit, it writes nothing.
func (s *Service) settleChangeLogs(ctx context.Context, db, coll string) error {
	return kv.Settle(ctx, s.store, changeSeqKey(db, coll), changeKey(db, coll))
}

// SettleLogs settles the change log of every container (kv.Settle), so
// that a check of the store (CheckInvariants, the stored-bytes counts)
// sees every committed record.
func (s *Service) SettleLogs(ctx context.Context) error {
	refs, err := s.containerRefs(ctx)
	if err != nil {
		return err
	}
	for _, r := range refs {
		if err := s.settleChangeLogs(ctx, r.db, r.coll); err != nil {
			return err
		}
	}
	return nil
}

func changesOfDatabase(db string) tuple.Key { return tuple.New(keyspace.CosmosChanges).Str(db) }

// changeRecordPart bounds one part of a change record.
const changeRecordPart = kv.MaxValueSize - 4096

// Change operations, as the all-versions-and-deletes feed names them.
const (
	opCreate  = "create"
	opReplace = "replace"
	opDelete  = "delete"
)

// changeRecord is one entry of the change log.
type changeRecord struct {
	// LSN is the record's key's; records written before the log was
	// numbered at commit carry it in the JSON too.
	LSN  uint64   `json:"lsn,omitempty"`
	Op   string   `json:"op"`
	ID   string   `json:"id"`
	PK   []string `json:"pk"`
	EPK  string   `json:"epk"`
	ETag string   `json:"etag"`
	TS   int64    `json:"ts"`
	// TTLExpired marks a delete that was the item's expiry.
	TTLExpired bool `json:"ttlExpired,omitempty"`
	// Doc is the item written (create, replace) or deleted (delete).
	Doc json.RawMessage `json:"doc"`
}

// epkKind is the hashing scheme of the container's partition key.
func (c *container) epkKind() epk.Kind {
	if c.pkKind == "MultiHash" {
		return epk.MultiHash
	}
	if pk, ok := c.rec["partitionKey"].(map[string]any); ok {
		if v, ok := ttlNumber(pk["version"]); ok && v == 2 {
			return epk.HashV2
		}
	}
	return epk.HashV1
}

// effectivePartitionKey is the EPK of a logical partition (or of a prefix
// of a hierarchical key), from its canonical components.
func (c *container) effectivePartitionKey(pk []string) string {
	vals := make([]any, 0, len(pk))
	for _, comp := range pk {
		if comp == undefinedComponent {
			vals = append(vals, epk.Undefined{})
			continue
		}
		var v any
		if err := json.Unmarshal([]byte(comp), &v); err != nil {
			vals = append(vals, epk.Undefined{})
			continue
		}
		vals = append(vals, v)
	}
	if len(c.pkPaths) == 0 {
		return ""
	}
	return epk.ForRouting(c.epkKind(), vals)
}

// lastLSN reads a container's last LSN (0 before its first change).
func lastLSN(rd kv.Reader, db, coll string) (uint64, error) {
	b, err := rd.Get(changeSeqKey(db, coll))
	if errors.Is(err, kv.ErrNotFound) {
		return 0, nil
	}
	if err != nil {
		return 0, err
	}
	if len(b) != 8 {
		return 0, errors.New("change log: malformed sequence")
	}
	return binary.BigEndian.Uint64(b), nil
}

// recordChange appends a change of item id to the change log of its
// container, in the partition's transaction. The store numbers it at
// commit (kv.Txn.Append), in commit order, so concurrent writers of a
// container do not conflict on its log: the record's LSN is its key's,
// not written in the record.
func (p *partition) recordChange(op, id string, doc []byte, ttlExpired bool) error {
	return p.appendChange(op, id, doc, ttlExpired, false)
}

// recordWrite is recordChange of the body a write has just encoded
// (marshal's output, compact), which the record takes as it is.
func (p *partition) recordWrite(op, id string, body []byte) error {
	return p.appendChange(op, id, body, false, true)
}

func (p *partition) appendChange(op, id string, doc []byte, ttlExpired, docCompact bool) error {
	t, c := p.t, p.c
	rec := changeRecord{Op: op, ID: id, PK: p.pk, EPK: c.effectivePartitionKey(p.pk),
		ETag: etagOf(t.tx.Version()), TS: t.ts, TTLExpired: ttlExpired, Doc: doc}
	if op == opDelete {
		rec.ETag = ""
	}
	b, err := encodeChangeRecord(rec, docCompact)
	if err != nil {
		return err
	}
	var parts [][]byte
	for len(b) > 0 || len(parts) == 0 {
		m := min(len(b), changeRecordPart)
		parts = append(parts, b[:m])
		b = b[m:]
	}
	k := [2]string{c.db, c.id}
	if op != opCreate {
		// A replace supersedes the item's previous record; a delete
		// that one and, as the latest-version feed never serves it,
		// itself.
		if t.superseded == nil {
			t.superseded = make(map[[2]string]int)
		}
		t.superseded[k]++
		if op == opDelete {
			t.superseded[k]++
		}
	}
	return t.tx.Append(kv.Sequenced{
		Seq:    changeSeqKey(c.db, c.id),
		Key:    changeKey(c.db, c.id),
		Values: parts,
		// Told on the engines that number at commit only: compaction's
		// hint of the log's length.
		Took: func(n uint64) {
			if t.lastLSNs == nil {
				t.lastLSNs = make(map[[2]string]uint64)
			}
			t.lastLSNs[k] = max(t.lastLSNs[k], n)
		},
	})
}

// encodeChangeRecord encodes rec as marshal does. The encoder copies a
// json.RawMessage through its compactor, a scan of the whole document;
// a doc known to be compact already (docCompact) is spliced in after
// the other fields instead ("doc" is the last), to the same bytes.
func encodeChangeRecord(rec changeRecord, docCompact bool) ([]byte, error) {
	if !docCompact || len(rec.Doc) == 0 {
		return marshal(rec)
	}
	doc := rec.Doc
	rec.Doc = nil
	b, err := marshal(rec)
	if err != nil {
		return nil, err
	}
	const tail = `"doc":null}`
	if !bytes.HasSuffix(b, []byte(tail)) {
		return nil, errors.New("change log: unexpected record encoding")
	}
	b = b[:len(b)-len("null}")]
	out := make([]byte, 0, len(b)+len(doc)+1)
	out = append(append(append(out, b...), doc...), '}')
	return out, nil
}

// withLSN returns doc, a JSON object, with "_lsn" added, as the change
// feed presents items; the properties keep their order.
func withLSN(doc []byte, n uint64) []byte {
	end := bytes.LastIndexByte(doc, '}')
	if end < 0 {
		return doc
	}
	out := make([]byte, 0, len(doc)+32)
	out = append(out, doc[:end]...)
	if len(bytes.TrimSpace(doc[:end])) > 1 {
		out = append(out, ',')
	}
	out = append(out, `"_lsn":`...)
	out = strconv.AppendUint(out, n, 10)
	return append(out, doc[end:]...)
}

// inEPKRange reports whether a logical partition's EPK lies in rng.
func (c *container) inEPKRange(pk []string, rng EPKRange) bool {
	return epk.InRange(c.effectivePartitionKey(pk), rng.Min, rng.Max)
}
