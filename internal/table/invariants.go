package table

import (
	"context"
	"fmt"

	"github.com/cerulean-db/cerulean/internal/invariant"
	"github.com/cerulean-db/cerulean/internal/kv"
	"github.com/cerulean-db/cerulean/internal/kv/record"
	"github.com/cerulean-db/cerulean/internal/kv/tuple"
)

// CheckInvariants reads every account's tables and entities in one
// snapshot, with the ETag watermark, and verifies what reads and
// conditional writes rely on: every table record decodes and sits under
// its lower-cased name; every entity belongs to a table that exists, has
// exactly the chunks its head announces, and decodes whole; and every
// entity stamped by the ETag clock carries a tick below the stored
// watermark, so that no later write (after a restart too) can issue its
// ETag again. It describes the first violations in its error. Run it on a
// quiet store.
func (s *Service) CheckInvariants(ctx context.Context) error {
	c := tableChecker{tables: map[[2]string]bool{}}
	return invariant.Check(ctx, s.store, "table", func(r kv.Reader, v *invariant.Violations) error {
		c.v = v
		var err error
		if c.watermark, err = loadWatermark(r); err != nil {
			v.Add("ETag watermark: %v", err)
		}
		return v.ScanAccounts(r, accountTag, c.entry)
	}, func(v *invariant.Violations) {
		c.finishEntity()
		for _, e := range c.entities {
			if !c.tables[e] {
				v.Add("entities of table %s/%s, which does not exist", e[0], e[1])
			}
		}
	})
}

// tableChecker gathers one snapshot's tables and entities. Keys arrive in
// order: an entity's head, then its chunks; an account's entities ('e')
// before its table records ('t').
type tableChecker struct {
	watermark uint64
	tables    map[[2]string]bool
	entities  [][2]string // tables that hold entities, in key order
	// head is the entity being read: its key, the chunks its head
	// announced, the payload so far and the chunks met.
	head struct {
		acct, table, pk, rk string
		extra, met          int
		payload             []byte
	}
	inEntity bool
	v        *invariant.Violations
}

// entry files one record of an account: a table, or a piece of an
// entity.
func (c *tableChecker) entry(acct string, kind byte, rd *tuple.Reader, k, v []byte) error {
	switch kind {
	case 't':
		c.finishEntity()
		var t Table
		id, err := rd.Str()
		if err == nil {
			err = record.Decode(v, &t)
		}
		if err != nil {
			return fmt.Errorf("table record in account %s: %w", acct, err)
		}
		if tableID(t.Name) != id {
			c.v.Add("table %s/%s records the name %q", acct, id, t.Name)
		}
		c.tables[[2]string{acct, id}] = true
		return nil
	case 'e':
		table, err := rd.Str()
		if err != nil {
			return err
		}
		pk, rk, chunk, err := decodeEntityKey(k, len(entitiesPrefix(acct, table)))
		if err != nil {
			return err
		}
		c.entity(acct, table, pk, rk, chunk, v)
		return nil
	}
	return fmt.Errorf("unknown record kind %q in account %s", kind, acct)
}

// entity files an entity's head (chunk 0) or one of its chunks.
func (c *tableChecker) entity(acct, table, pk, rk string, chunk int, v []byte) {
	h := &c.head
	if chunk > 0 {
		if !c.inEntity || h.acct != acct || h.table != table || h.pk != pk || h.rk != rk {
			c.v.Add("chunk %d of entity %s/%s (%q, %q) has no head", chunk, acct, table, pk, rk)
			return
		}
		h.met++
		if chunk != h.met {
			c.v.Add("entity %s/%s (%q, %q): chunk %d follows chunk %d", acct, table, pk, rk, chunk, h.met-1)
			h.met = chunk
		}
		h.payload = append(h.payload, v...)
		return
	}
	c.finishEntity()
	if n := len(c.entities); n == 0 || c.entities[n-1] != [2]string{acct, table} {
		c.entities = append(c.entities, [2]string{acct, table})
	}
	if len(v) < 1 || int(v[0]) >= maxChunks {
		c.v.Add("entity %s/%s (%q, %q): head announces no valid chunk count", acct, table, pk, rk)
		return
	}
	c.inEntity = true
	h.acct, h.table, h.pk, h.rk = acct, table, pk, rk
	h.extra, h.met, h.payload = int(v[0]), 0, append(h.payload[:0], v[1:]...)
}

// finishEntity checks the entity read so far, once all its chunks are in.
func (c *tableChecker) finishEntity() {
	if !c.inEntity {
		return
	}
	c.inEntity = false
	h := &c.head
	if h.met != h.extra {
		c.v.Add("entity %s/%s (%q, %q): head announces %d chunks, %d stored", h.acct, h.table, h.pk, h.rk, h.extra, h.met)
		return
	}
	e, err := decodeEntity(h.pk, h.rk, h.payload)
	if err != nil {
		c.v.Add("entity %s/%s: %v", h.acct, h.table, err)
		return
	}
	// An entity the clock stamped renders its tick as both ETag and
	// Timestamp; one stored before that carries a small counter.
	if e.Timestamp == int64(e.Version)+unixEpochTicks && e.Version >= c.watermark {
		c.v.Add("entity %s/%s (%q, %q): tick %d is not below the ETag watermark %d", h.acct, h.table, h.pk, h.rk, e.Version, c.watermark)
	}
}
