package cosmos

import (
	"bytes"
	"context"
	"encoding/binary"
	"encoding/json"
	"fmt"
	"strings"

	"github.com/cerulean-db/cerulean/internal/invariant"
	"github.com/cerulean-db/cerulean/internal/kv"
	"github.com/cerulean-db/cerulean/internal/kv/tuple"
)

// CheckInvariants reads every database and container in one snapshot and
// verifies what reads, queries and the change feed rely on:
//
//   - every database, container, script, offer, user and permission
//     record belongs to a parent that exists, and resource records decode;
//   - every item decodes, is keyed by its own id and the partition key its
//     document holds, and a large item has exactly the pieces its head
//     announces;
//   - the unique-key entries are exactly those of the stored items, each
//     naming its item's id;
//   - a range index that follows the container's policy holds exactly the
//     stored items' entries once ready, and none of another item while
//     building; an index that does not follow the policy holds nothing;
//   - a container's change log holds LSNs 1 to its last LSN, each record
//     decoding to its own LSN; where an item's latest change is a create
//     or replace, the item is stored with that change's _etag, and where
//     it is a delete, the item is gone.
//
// It describes the first violations in its error. Run it on a quiet
// store: it settles the change logs first (SettleLogs), a write on an
// engine that numbers appends after commit.
func (s *Service) CheckInvariants(ctx context.Context) error {
	if err := s.SettleLogs(ctx); err != nil {
		return err
	}
	c := &cosmosChecker{databases: map[string]bool{}, containers: map[[2]string]*container{}}
	return invariant.Check(ctx, s.store, "cosmos", func(rd kv.Reader, v *invariant.Violations) error {
		c.v = v
		if err := c.resources(rd); err != nil {
			return err
		}
		for _, k := range c.order {
			if ct := c.containers[k]; ct != nil {
				if err := c.container(rd, ct); err != nil {
					return err
				}
			}
		}
		return nil
	}, nil)
}

type cosmosChecker struct {
	databases  map[string]bool
	containers map[[2]string]*container
	order      [][2]string // containers in key order
	v          *invariant.Violations
}

// resources reads the database and container records, then checks that
// every key scoped to a database or container has its parent.
func (c *cosmosChecker) resources(rd kv.Reader) error {
	err := scanNamed(rd, "Cd", 1, func(names []string, v []byte) {
		r, err := parseRecord(v)
		switch {
		case err != nil:
			c.v.Add("database %q: %v", names[0], err)
		case r.str("id") != names[0]:
			c.v.Add("database %q records the id %q", names[0], r.str("id"))
		}
		c.databases[names[0]] = true
	})
	if err != nil {
		return err
	}
	// A container's index state is read after the scan: a reader is not
	// asked to read inside its own scan.
	records := map[[2]string][]byte{}
	err = scanNamed(rd, "Cc", 2, func(names []string, v []byte) {
		k := [2]string{names[0], names[1]}
		records[k] = append([]byte(nil), v...)
		c.order = append(c.order, k)
	})
	if err != nil {
		return err
	}
	for _, k := range c.order {
		if !c.databases[k[0]] {
			c.v.Add("container %s/%s: its database does not exist", k[0], k[1])
		}
		r, err := parseRecord(records[k])
		var ct *container
		if err == nil {
			ct, err = parseContainer(k[0], r)
		}
		if err == nil {
			ct.index, err = parseIndexPolicy(r["indexingPolicy"])
		}
		if err == nil {
			err = loadIndexState(rd, ct)
		}
		if err != nil {
			c.v.Add("container %s/%s: %v", k[0], k[1], err)
			continue
		}
		if ct.id != k[1] {
			c.v.Add("container %s/%s records the id %q", k[0], k[1], ct.id)
		}
		c.containers[k] = ct
	}
	// Keys under a container (or, for an offer with no container, under
	// the database) need that parent; a permission needs its user.
	users := map[[2]string]bool{}
	for _, scoped := range []struct {
		tag  string
		what string
	}{
		{"Cs", "script"}, {"Co", "offer"}, {"Cy", "index state"}, {"Cq", "change sequence"},
		{"Cw", "user"}, {"Cp", "permission"},
	} {
		err := scanNamed(rd, scoped.tag, 2, func(names []string, v []byte) {
			k := [2]string{names[0], names[1]}
			switch scoped.tag {
			case "Cw":
				users[k] = true
				if !c.databases[k[0]] {
					c.v.Add("user %s/%s: its database does not exist", k[0], k[1])
				}
			case "Cp":
				if !users[k] {
					c.v.Add("permission of user %s/%s: the user does not exist", k[0], k[1])
				}
			case "Co":
				if k[1] == "" && !c.databases[k[0]] || k[1] != "" && c.containers[k] == nil {
					c.v.Add("offer of %s/%s: its resource does not exist", k[0], k[1])
				}
			default:
				if c.containers[k] == nil {
					c.v.Add("%s of %s/%s: the container does not exist", scoped.what, k[0], k[1])
				}
			}
			if scoped.tag != "Cy" && scoped.tag != "Cq" {
				if _, err := parseRecord(v); err != nil {
					c.v.Add("%s of %s/%s: %v", scoped.what, k[0], k[1], err)
				}
			}
		})
		if err != nil {
			return err
		}
	}
	// Items, their pieces, unique-key and range index entries and change
	// records are checked per container; here only their parents.
	for _, tag := range []string{itemsTag(), "Cj", "Cu", "Cx", "Cf"} {
		err := scanNamed(rd, tag, 2, func(names []string, _ []byte) {
			if k := [2]string{names[0], names[1]}; c.containers[k] == nil {
				c.v.Add("%s key of %s/%s: the container does not exist", tag, k[0], k[1])
			}
		})
		if err != nil {
			return err
		}
	}
	return nil
}

// scanNamed calls fn with the first n names of every key under tag, and
// its value; a key without them is a violation.
func scanNamed(rd kv.Reader, tag string, n int, fn func(names []string, v []byte)) error {
	prefix := tuple.New(tag)
	var bad []string
	err := rd.Scan(prefix, kv.PrefixEnd(prefix), func(k, v []byte) error {
		r, err := tuple.NewReader(k, len(prefix))
		names := make([]string, n)
		for i := 0; err == nil && i < n; i++ {
			names[i], err = r.Str()
		}
		if err != nil {
			bad = append(bad, fmt.Sprintf("key %q: %v", k, err))
			return nil
		}
		fn(names, v)
		return nil
	})
	if len(bad) > 0 && err == nil {
		err = fmt.Errorf("malformed keys: %s", strings.Join(bad, "; "))
	}
	return err
}

// latestChange is the last change log record of one item.
type latestChange struct {
	lsn  uint64
	op   string
	etag string
}

// container checks the items of ct against its indexes and change log.
func (c *cosmosChecker) container(rd kv.Reader, ct *container) error {
	name := ct.db + "/" + ct.id
	unique := map[string]string{} // entry key → the id it must name
	ranged := map[string]bool{}   // range index entries the items need
	etags := map[string]string{}  // item key → _etag
	pieces := 0                   // item pieces the heads announce
	prefix := itemsPrefix(ct.db, ct.id)
	err := scanItems(rd, prefix, nil, func(k, body []byte) error {
		if v, err := rd.Get(k); err == nil && isChunkedHead(v) {
			n, _ := binary.Uvarint(v[1+uvarintLen(v[1:]):])
			pieces += int(n) - 1
		}
		doc, err := decodeObject(body)
		if err != nil {
			c.v.Add("item %q of %s: %v", k, name, err)
			return nil
		}
		id, _ := doc["id"].(string)
		pk, err := ct.partitionKeyOf(doc)
		if err != nil || !bytes.Equal(k, itemKey(ct.db, ct.id, pk, id)) {
			c.v.Add("item %q of %s is not keyed by its id %q and partition key %v (%v)", k, name, id, pk, err)
			return nil
		}
		etags[string(k)], _ = doc["_etag"].(string)
		p := &partition{c: ct, pk: pk}
		for i := range ct.unique {
			unique[string(uniqueKey(ct.db, ct.id, pk, i, p.uniqueValues(doc, i)))] = id
		}
		if ct.maintained() {
			for _, e := range p.indexEntries(doc) {
				ranged[string(e)] = true
			}
		}
		return nil
	})
	if err != nil {
		c.v.Add("items of %s: %v", name, err)
		return nil
	}
	stored := 0
	chunks := chunksOfContainer(ct.db, ct.id)
	if err := rd.Scan(chunks, kv.PrefixEnd(chunks), func(_, _ []byte) error { stored++; return nil }); err != nil {
		return err
	}
	if stored != pieces {
		c.v.Add("items of %s: heads announce %d further pieces, %d stored", name, pieces, stored)
	}
	up := uniquePrefix(ct.db, ct.id)
	if err := rd.Scan(up, kv.PrefixEnd(up), func(k, v []byte) error {
		id, ok := unique[string(k)]
		switch {
		case !ok:
			c.v.Add("unique key entry %q of %s names no stored item's values", k, name)
		case id != string(v):
			c.v.Add("unique key entry %q of %s names item %q, the values are item %q's", k, name, v, id)
		}
		delete(unique, string(k))
		return nil
	}); err != nil {
		return err
	}
	for k, id := range unique {
		c.v.Add("item %q of %s has no unique key entry %q", id, name, k)
	}
	if err := c.rangeIndex(rd, ct, ranged); err != nil {
		return err
	}
	return c.changeLog(rd, ct, etags)
}

// uvarintLen is the length of the uvarint at the start of b (0 if none).
func uvarintLen(b []byte) int {
	_, n := binary.Uvarint(b)
	return max(n, 0)
}

// rangeIndex compares the stored range index entries of ct with want,
// the entries its items need.
func (c *cosmosChecker) rangeIndex(rd kv.Reader, ct *container, want map[string]bool) error {
	name := ct.db + "/" + ct.id
	ip := indexPrefix(ct.db, ct.id)
	err := rd.Scan(ip, kv.PrefixEnd(ip), func(k, _ []byte) error {
		switch {
		case !ct.maintained():
			c.v.Add("range index of %s holds entry %q, but does not follow the container's policy", name, k)
			return kv.ErrStopScan
		case !want[string(k)]:
			c.v.Add("range index entry %q of %s belongs to no stored item", k, name)
		}
		delete(want, string(k))
		return nil
	})
	if err != nil {
		return err
	}
	if ct.maintained() && ct.indexReady {
		for k := range want {
			c.v.Add("range index of %s is ready but lacks entry %q", name, k)
		}
	}
	return nil
}

// changeLog checks ct's change records against its last LSN and the
// stored items (etags: item key → _etag).
func (c *cosmosChecker) changeLog(rd kv.Reader, ct *container, etags map[string]string) error {
	name := ct.db + "/" + ct.id
	last, err := lastLSN(rd, ct.db, ct.id)
	if err != nil {
		c.v.Add("change log of %s: %v", name, err)
		return nil
	}
	prefix := changesPrefix(ct.db, ct.id)
	latest := map[string]latestChange{}
	var lsn, next uint64 = 0, 1
	var record []byte
	finish := func() {
		if record == nil {
			return
		}
		var rec changeRecord
		if err := json.Unmarshal(record, &rec); err != nil {
			c.v.Add("change %d of %s does not decode: %v", lsn, name, err)
		} else if rec.LSN != 0 && rec.LSN != lsn { // records numbered at commit carry none
			c.v.Add("change %d of %s records LSN %d", lsn, name, rec.LSN)
		} else {
			latest[string(itemKey(ct.db, ct.id, rec.PK, rec.ID))] = latestChange{lsn, rec.Op, rec.ETag}
		}
		record = nil
	}
	err = rd.Scan(prefix, kv.PrefixEnd(prefix), func(k, v []byte) error {
		r, err := tuple.NewReader(k, len(prefix))
		var n, part uint64
		if err == nil {
			n, err = r.Uint()
		}
		if err == nil {
			part, err = r.Uint()
		}
		if err != nil {
			c.v.Add("change key %q of %s: %v", k, name, err)
			return nil
		}
		if part == 0 {
			finish()
			// Compaction leaves gaps; LSNs only grow (key order).
			lsn, next = n, n+1
		} else if n != lsn {
			c.v.Add("change log of %s: part %d of LSN %d without its first part", name, part, n)
			return nil
		}
		record = append(record, v...)
		return nil
	})
	if err != nil {
		return err
	}
	finish()
	if next-1 > last {
		c.v.Add("change log of %s ends at LSN %d, past its last LSN %d", name, next-1, last)
	}
	// Compaction may remove any record but the one of an item's current
	// version: the latest-version feed serves that one.
	for key := range etags {
		if _, ok := latest[key]; !ok {
			c.v.Add("item %q of %s has no change record of its current version", key, name)
		}
	}
	for key, ch := range latest {
		etag, stored := etags[key]
		switch {
		case ch.op == opDelete && stored:
			c.v.Add("item %q of %s is stored, but its latest change (LSN %d) deleted it", key, name, ch.lsn)
		case ch.op != opDelete && !stored:
			c.v.Add("item %q of %s is gone, but its latest change (LSN %d) is a %s", key, name, ch.lsn, ch.op)
		case ch.op != opDelete && etag != ch.etag:
			c.v.Add("item %q of %s has _etag %s, its latest change (LSN %d) wrote %s", key, name, etag, ch.lsn, ch.etag)
		}
	}
	return nil
}
