package table

import (
	"bytes"
	"context"
	"fmt"
	"time"

	"github.com/cerulean-db/cerulean/internal/azauth"
	"github.com/cerulean-db/cerulean/internal/kv"
	"github.com/cerulean-db/cerulean/internal/kv/tuple"
	"github.com/cerulean-db/cerulean/internal/table/odata"
)

// maxPageSize is the most entities (or tables) one query page returns.
const maxPageSize = 1000

// A page stops early, with a continuation, when it has examined this many
// entities or run this long: a selective filter over a large table must
// not hold a snapshot (or the client) indefinitely. Azure does the same.
const (
	maxScanned  = 20000
	maxScanTime = time.Second
)

type scanBudget struct {
	start time.Time
	n     int
}

func newScanBudget() *scanBudget { return &scanBudget{start: time.Now()} }

func (b *scanBudget) charge() { b.n++ }

func (b *scanBudget) spent() bool {
	return b.n >= maxScanned || b.n > 0 && b.n%128 == 0 && time.Since(b.start) > maxScanTime
}

// EntityQuery is one page of Query Entities.
type EntityQuery struct {
	Filter *odata.Filter // nil matches everything
	Top    int           // 1..1000 entities
	// NextPK and NextRK continue a previous page (HasNext set).
	NextPK, NextRK string
	HasNext        bool
	// Access confines the query to a table SAS's key range.
	Access azauth.Access
}

// EntityPage is one page of results; HasNext says another page follows,
// starting at (NextPK, NextRK).
type EntityPage struct {
	Entities       []*Entity
	NextPK, NextRK string
	HasNext        bool
}

// QueryEntities runs one page of a query. It scans only the key range the
// filter and the SAS confine the results to: a filter fixing PartitionKey
// reads that partition and nothing else, which inside a transaction keeps
// the read set (and so the conflicts) to that partition.
func (t *Tx) QueryEntities(acct, table string, q EntityQuery) (EntityPage, error) {
	var page EntityPage
	if err := checkTable(t.tx, acct, table); err != nil {
		return page, err
	}
	prefix := entitiesPrefix(acct, table)
	start, end := scanRange(prefix, q)
	if start == nil {
		return page, nil
	}
	err := scanEntities(t.tx, prefix, start, end, q, &page)
	return page, err
}

// QueryEntities runs Tx.QueryEntities on a snapshot.
func (s *Service) QueryEntities(ctx context.Context, acct, table string, q EntityQuery) (EntityPage, error) {
	var page EntityPage
	err := s.view(ctx, func(t *Tx) (err error) {
		page, err = t.QueryEntities(acct, table, q)
		return err
	})
	if err != nil {
		return EntityPage{}, fmt.Errorf("query entities: %w", err)
	}
	return page, nil
}

// scanRange works out [start, end) within prefix; nil start means nothing
// can match.
func scanRange(prefix tuple.Key, q EntityQuery) (start, end []byte) {
	start, end = prefix, kv.PrefixEnd(prefix)
	narrow := func(s, e []byte) {
		if bytes.Compare(s, start) > 0 {
			start = s
		}
		if bytes.Compare(e, end) < 0 {
			end = e
		}
	}
	if q.Filter != nil {
		pks := q.Filter.KeyRange("PartitionKey")
		if pks.Empty {
			return nil, nil
		}
		narrow(stringRangeKeys(prefix, pks))
		if pk, single := pks.Single(); single {
			rks := q.Filter.KeyRange("RowKey")
			if rks.Empty {
				return nil, nil
			}
			narrow(stringRangeKeys(prefix.Str(pk), rks))
		}
	}
	spk, srk, epk, erk := q.Access.EntityRange()
	if spk != "" {
		s := prefix.Str(spk)
		if srk != "" {
			s = s.Str(srk)
		}
		narrow(s, end)
	}
	if epk != "" {
		e := prefix.Str(epk)
		if erk != "" {
			e = e.Str(erk)
		}
		narrow(start, kv.PrefixEnd(e))
	}
	if q.HasNext {
		s := prefix.Str(q.NextPK)
		if q.NextRK != "" {
			s = s.Str(q.NextRK)
		}
		narrow(s, end)
	}
	if bytes.Compare(start, end) >= 0 {
		return nil, nil
	}
	return start, end
}

// stringRangeKeys turns a range of one string element into the key range
// of every key under base whose next element is in it.
func stringRangeKeys(base tuple.Key, r odata.Range) (start, end []byte) {
	start, end = base, kv.PrefixEnd(base)
	if r.HasLo {
		if r.LoInc {
			start = base.Str(r.Lo)
		} else {
			start = kv.PrefixEnd(base.Str(r.Lo))
		}
	}
	if r.HasHi {
		if r.HiInc {
			end = kv.PrefixEnd(base.Str(r.Hi))
		} else {
			end = base.Str(r.Hi)
		}
	}
	return start, end
}

// scanEntities reads entities in [start, end), reassembling chunked ones,
// and fills page with those that match.
func scanEntities(r kv.Reader, prefix tuple.Key, start, end []byte, q EntityQuery, page *EntityPage) error {
	budget := newScanBudget()
	var (
		cur     *pending // the entity being assembled
		stopped bool
	)
	// finish decides the assembled entity.
	finish := func() error {
		e, err := cur.entity()
		cur = nil
		if err != nil {
			return err
		}
		budget.charge()
		if q.Access.AllowsEntity(e.PartitionKey, e.RowKey) && (q.Filter == nil || q.Filter.Match(e.Get)) {
			page.Entities = append(page.Entities, e)
		}
		return nil
	}
	var raw rawRecord
	getRaw := raw.get
	// matchRaw decides a one-value entity.
	matchRaw := func(pk, rk string, payload []byte) error {
		if err := raw.parse(pk, rk, payload); err != nil {
			// decodeEntity refuses it too, with the error a query reports.
			if _, derr := decodeEntity(pk, rk, payload); derr != nil {
				return derr
			}
			return err
		}
		budget.charge()
		if q.Access.AllowsEntity(pk, rk) && (q.Filter == nil || q.Filter.Match(getRaw)) {
			e, err := decodeEntity(pk, rk, payload)
			if err != nil {
				return err
			}
			page.Entities = append(page.Entities, e)
		}
		return nil
	}
	err := r.Scan(start, end, func(k, v []byte) error {
		pk, rk, chunk, err := decodeEntityKey(k, len(prefix))
		if err != nil {
			return err
		}
		if chunk > 0 {
			if cur == nil && chunk == 1 && raw.parsed && raw.pk == pk && raw.rk == rk {
				// A chunk after a head that counts none.
				return errCorrupt
			}
			if cur == nil || cur.pk != pk || cur.rk != rk || chunk != len(cur.parts) {
				// A chunk whose head lies before the scan start (a
				// continuation never points inside an entity) or is lost.
				return nil
			}
			cur.parts = append(cur.parts, bytes.Clone(v))
			return nil
		}
		if cur != nil {
			if err := finish(); err != nil {
				return err
			}
		}
		if len(page.Entities) >= q.Top || budget.spent() {
			page.NextPK, page.NextRK, page.HasNext = pk, rk, true
			stopped = true
			return kv.ErrStopScan
		}
		if len(v) >= 1 && v[0] == 0 {
			// The whole entity is in this value: match it in place and
			// decode it only if the page returns it.
			return matchRaw(pk, rk, v[1:])
		}
		cur = &pending{pk: pk, rk: rk, parts: [][]byte{bytes.Clone(v)}}
		return nil
	})
	if err != nil {
		return err
	}
	if cur != nil && !stopped {
		return finish()
	}
	return nil
}

// pending is an entity whose head and chunks are being collected.
type pending struct {
	pk, rk string
	parts  [][]byte
}

func (p *pending) entity() (*Entity, error) {
	head := p.parts[0]
	if len(head) < 1 || int(head[0])+1 != len(p.parts) {
		return nil, errCorrupt
	}
	payload := head[1:]
	if len(p.parts) > 1 {
		payload = bytes.Join(append([][]byte{payload}, p.parts[1:]...), nil)
	}
	return decodeEntity(p.pk, p.rk, payload)
}
