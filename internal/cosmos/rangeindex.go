package cosmos

import (
	"bytes"
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"math"
	"slices"

	"github.com/cerulean-db/cerulean/internal/kv"
	"github.com/cerulean-db/cerulean/internal/kv/keyspace"
	"github.com/cerulean-db/cerulean/internal/kv/tuple"
)

// The range index. Every scalar (null, boolean, number, string) an item
// holds at a path its container's indexing policy includes — reached
// through objects only, never inside an array — has one key:
//
//	Cx db coll path value pk… id
//
// path is the property names as a JSON array, value an order-preserving
// encoding (indexValue), pk the item's partition key components and id its
// id, all as tuple elements, so that within one path and value the
// entries run in the order of the items' own keys (Ci db coll pk… id).
// Entries have no value. They are written and removed by partition.index
// and partition.unindex, which every write, replace, delete and expiry of
// an item goes through, in the item's own transaction.
//
// Cy db coll holds the index's state: indexReady or indexBuilding, then
// the policy text the entries follow. Writes maintain entries only while
// that text is the container's current policy; queries read the index
// only when it is also ready. A container created before the index
// existed has no state and is scanned until a Replace Container builds it.

func indexPrefix(db, coll string) tuple.Key { return tuple.New(keyspace.CosmosIndex).Str(db).Str(coll) }

func indexOfDatabase(db string) tuple.Key { return tuple.New(keyspace.CosmosIndex).Str(db) }

func indexPathPrefix(db, coll string, path []string) tuple.Key {
	p, _ := json.Marshal(path)
	return indexPrefix(db, coll).Bytes(p)
}

func indexStateKey(db, coll string) tuple.Key {
	return tuple.New(keyspace.CosmosIndexStates).Str(db).Str(coll)
}

func indexStatesOfDatabase(db string) tuple.Key { return tuple.New(keyspace.CosmosIndexStates).Str(db) }

const (
	indexReady    = 'R'
	indexBuilding = 'B'
)

// Value tags, in Cosmos DB's cross-type order (undefined, having no
// entry, sorts before all).
const (
	tagNull   = 0x02
	tagFalse  = 0x03
	tagTrue   = 0x04
	tagNumber = 0x05
	tagString = 0x06
)

// indexValue encodes a scalar so that byte order is Cosmos DB's ORDER BY
// order: a tag, then for a number its float64 bits with the sign flipped
// (all bits of a negative one), for a string its escaped bytes and a
// terminator. The encoding of one value is never a prefix of another's.
// ok is false for arrays, objects and anything else.
func indexValue(v any) (enc []byte, ok bool) {
	switch x := v.(type) {
	case nil:
		return []byte{tagNull}, true
	case bool:
		if x {
			return []byte{tagTrue}, true
		}
		return []byte{tagFalse}, true
	case json.Number:
		f, err := x.Float64()
		if err != nil {
			return nil, false
		}
		return indexNumber(f), true
	case float64:
		return indexNumber(x), true
	case int64: // _ts, as write sets it
		return indexNumber(float64(x)), true
	case int:
		return indexNumber(float64(x)), true
	case string:
		if len(x) > maxIndexedString {
			x = x[:maxIndexedString]
		}
		return tuple.New("\x06").Str(x), true
	}
	return nil, false
}

// Bounds on what the index holds, so that an entry stays far below
// kv.MaxKeySize: a string is indexed by its first maxIndexedString bytes
// (a longer one shares its entry's value with that prefix: the entries
// still bound it correctly, but do not order strings past the prefix),
// and a path whose JSON exceeds maxIndexedPath bytes is not indexed.
const (
	maxIndexedString = 1024
	maxIndexedPath   = 512
)

// possiblyTruncated reports whether an encoded value is a string cut to
// maxIndexedString bytes.
func possiblyTruncated(enc []byte) bool {
	if len(enc) < maxIndexedString+2 || enc[0] != tagString {
		return false
	}
	n := 0
	for i := 1; i < len(enc)-1; i++ {
		if enc[i] == 0x00 {
			i++ // an escaped 0x00
		}
		n++
	}
	return n >= maxIndexedString
}

// pathIndexable reports whether path can have entries at all.
func pathIndexable(path []string) bool {
	p, _ := json.Marshal(path)
	return len(p) <= maxIndexedPath
}

func indexNumber(f float64) []byte {
	if f == 0 {
		f = 0 // -0 equals 0
	}
	bits := math.Float64bits(f)
	if bits&(1<<63) != 0 {
		bits = ^bits
	} else {
		bits |= 1 << 63
	}
	return binary.BigEndian.AppendUint64([]byte{tagNumber}, bits)
}

// indexValueLen is the length of the encoded value at the start of b, or
// -1 when b does not start with one.
func indexValueLen(b []byte) int {
	if len(b) == 0 {
		return -1
	}
	switch b[0] {
	case tagNull, tagFalse, tagTrue:
		return 1
	case tagNumber:
		if len(b) < 9 {
			return -1
		}
		return 9
	case tagString:
		for i := 1; i < len(b); i++ {
			if b[i] == 0x00 {
				if i+1 < len(b) && b[i+1] == 0xff {
					i++
					continue
				}
				return i + 1
			}
		}
	}
	return -1
}

// indexEntries returns the range index keys of doc, an item of p.
func (p *partition) indexEntries(doc map[string]any) [][]byte {
	pol := p.c.index
	if pol == nil || pol.none {
		return nil
	}
	tail := tuple.Key(nil)
	for _, c := range p.pk {
		tail = tail.Str(c)
	}
	id, _ := doc["id"].(string)
	tail = tail.Str(id)
	prefix := indexPrefix(p.c.db, p.c.id)
	var out [][]byte
	var pathBuf []byte
	var walk func(path []string, m map[string]any)
	walk = func(path []string, m map[string]any) {
		for k, v := range m {
			sub := append(path[:len(path):len(path)], k)
			if o, ok := v.(map[string]any); ok {
				walk(sub, o)
				continue
			}
			enc, ok := indexValue(v)
			if !ok || !pol.indexed(sub) {
				continue
			}
			// The path's JSON, once: pathIndexable's limit and
			// indexPathPrefix's element.
			pathBuf = appendPathJSON(pathBuf[:0], sub)
			if len(pathBuf) > maxIndexedPath {
				continue
			}
			key := prefix.Bytes(pathBuf)
			key = append(append(key, enc...), tail...)
			out = append(out, key)
		}
	}
	walk(nil, doc)
	// In key order, not the map's: concurrent writes of one item then
	// lock the entries in the same order, where the PostgreSQL engine
	// would otherwise deadlock them (a second each, until detected).
	slices.SortFunc(out, bytes.Compare)
	return out
}

// appendPathJSON appends path as json.Marshal encodes it. Property names
// of printable ASCII that the encoder leaves as they are (most) are
// quoted here, without the encoder's reflection; any other name sends
// the whole path through json.Marshal.
func appendPathJSON(dst []byte, path []string) []byte {
	if path == nil {
		return append(dst, "null"...)
	}
	start := len(dst)
	dst = append(dst, '[')
	for i, name := range path {
		if i > 0 {
			dst = append(dst, ',')
		}
		dst = append(dst, '"')
		for j := 0; j < len(name); j++ {
			c := name[j]
			if c < 0x20 || c > 0x7e || c == '"' || c == '\\' || c == '<' || c == '>' || c == '&' {
				b, _ := json.Marshal(path)
				return append(dst[:start], b...)
			}
			dst = append(dst, c)
		}
		dst = append(dst, '"')
	}
	return append(dst, ']')
}

// maintained reports whether writes to the container keep its range
// index.
func (c *container) maintained() bool {
	return c.index != nil && !c.index.none && c.indexPolicyText == c.index.text
}

// rangeIndex adds doc's entries.
func (p *partition) rangeIndex(doc map[string]any, fresh bool) error {
	if err := p.t.indexPolicy(p.c); err != nil {
		return err
	}
	if !p.c.maintained() {
		return nil
	}
	write := p.t.tx.Set
	if fresh {
		write = func(k, v []byte) error { return kv.Insert(p.t.tx, k, v) }
	}
	for _, k := range p.indexEntries(doc) {
		if err := write(k, nil); err != nil {
			return err
		}
	}
	return nil
}

// rangeUnindex removes doc's entries.
func (p *partition) rangeUnindex(doc map[string]any) error {
	if err := p.t.indexPolicy(p.c); err != nil {
		return err
	}
	if !p.c.maintained() {
		return nil
	}
	for _, k := range p.indexEntries(doc) {
		if err := p.t.tx.Delete(k); err != nil {
			return err
		}
	}
	return nil
}

// indexState reads the state of c's index into c, once per
// transaction: only writes and queries need it, not point reads.
func (t *Tx) indexState(c *container) error {
	if c.indexStateRead {
		return nil
	}
	if c.index == nil { // not parsed with the cached definition
		pol, err := parseIndexPolicy(c.rec["indexingPolicy"])
		if err != nil {
			return err
		}
		c.index = pol
	}
	if err := loadIndexState(t.rd, c); err != nil {
		return err
	}
	c.indexStateRead = true
	c.policyKnown = true
	if c.parsed != nil {
		text := c.indexPolicyText
		c.parsed.policyText.CompareAndSwap(nil, &text)
	}
	return nil
}

// indexPolicy makes c.maintained() answer, which is what an item write
// needs of the index state: the policy text, which the cached
// definition c came from knows once any transaction has read it with
// the same definition (containercache.go). Whether the index is ready
// is left unknown unless read.
func (t *Tx) indexPolicy(c *container) error {
	if c.policyKnown {
		return nil
	}
	if c.index != nil && c.parsed != nil {
		if text := c.parsed.policyText.Load(); text != nil {
			c.indexPolicyText = *text
			c.policyKnown = true
			return nil
		}
	}
	return t.indexState(c)
}

// loadIndexState reads the state of c's index into c.
func loadIndexState(rd kv.Reader, c *container) error {
	v, err := rd.Get(indexStateKey(c.db, c.id))
	if errors.Is(err, kv.ErrNotFound) {
		return nil
	}
	if err != nil {
		return err
	}
	if len(v) > 0 {
		c.indexReady = v[0] == indexReady
		c.indexPolicyText = string(v[1:])
	}
	return nil
}

func setIndexState(tx kv.Txn, db, coll string, state byte, policy string) error {
	return tx.Set(indexStateKey(db, coll), append([]byte{state}, policy...))
}

// indexBuildBatch is how many items one transaction of an index build
// reads; their entries stay well under the kv transaction limit.
const indexBuildBatch = 500

// buildIndex makes c's range index follow policy after a Replace
// Container changed it. The Replace's own transaction dropped the old
// entries and set the state to building, so from then on every write
// maintains the new entries; this adds the entries of the items already
// there, a batch of items per transaction (each reads the items it
// indexes, so a concurrent write to one of them conflicts and the batch
// runs again), then marks the index ready. Until then queries scan.
func (s *Service) buildIndex(ctx context.Context, db, coll, policy string) error {
	var from []byte
	for {
		var next []byte
		done := false
		err := s.Update(ctx, func(t *Tx) error {
			next, done = nil, false
			c, err := t.container(db, coll)
			if err != nil {
				return err
			}
			if err := t.indexState(c); err != nil {
				return err
			}
			if c.indexPolicyText != policy {
				done = true // another Replace took over
				return nil
			}
			prefix := itemsPrefix(db, coll)
			n := 0
			err = scanItems(t.rd, prefix, from, func(k, v []byte) error {
				doc, err := decodeObject(v)
				if err != nil {
					return err
				}
				pk, err := c.partitionKeyOf(doc)
				if err != nil {
					return err
				}
				p := &partition{t: t, c: c, pk: pk}
				if err := p.rangeIndex(doc, false); err != nil {
					return err
				}
				n++
				if n == indexBuildBatch {
					next = append(slices.Clone(k), 0)
					return kv.ErrStopScan
				}
				return nil
			})
			if err != nil {
				return err
			}
			if next == nil {
				done = true
				return setIndexState(t.tx, db, coll, indexReady, policy)
			}
			return nil
		})
		if err != nil {
			return err
		}
		if done {
			return nil
		}
		from = next
	}
}

// initIndexState marks the index of a new container (stored as rec)
// ready: it has no items to index.
func initIndexState(tx kv.Txn, db, coll string, rec []byte) error {
	r, err := parseRecord(rec)
	if err != nil {
		return err
	}
	pol, err := parseIndexPolicy(r["indexingPolicy"])
	if err != nil {
		return err
	}
	return setIndexState(tx, db, coll, indexReady, pol.text)
}

// resetIndex is the part of a Replace Container (old, now stored as rec)
// that concerns the index: when the policy differs from the one the
// entries follow, it drops them and marks the index building for the
// new policy, which it returns for buildIndex to finish after the
// commit; "" when nothing changes.
func resetIndex(tx kv.Txn, old *container, rec []byte) (string, error) {
	if err := loadIndexState(tx, old); err != nil {
		return "", err
	}
	r, err := parseRecord(rec)
	if err != nil {
		return "", err
	}
	pol, err := parseIndexPolicy(r["indexingPolicy"])
	if err != nil {
		return "", err
	}
	if old.indexReady && old.indexPolicyText == pol.text {
		return "", nil
	}
	prefix := indexPrefix(old.db, old.id)
	if err := tx.DeleteRange(prefix, kv.PrefixEnd(prefix)); err != nil {
		return "", err
	}
	if err := setIndexState(tx, old.db, old.id, indexBuilding, pol.text); err != nil {
		return "", err
	}
	return pol.text, nil
}
