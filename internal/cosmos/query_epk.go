package cosmos

import (
	"context"
	"net/http"
	"strings"
)

// EPKRange is a range [Min, Max) of effective partition keys, as a feed
// range scopes a query or a change feed; "" and "FF" are the ends of the
// space.
type EPKRange struct{ Min, Max string }

// epkRangeOf reads x-ms-start-epk / x-ms-end-epk; ok is false when the
// request names no range narrower than the whole space.
func epkRangeOf(r *http.Request) (rng EPKRange, ok bool, err error) {
	rng = EPKRange{Min: r.Header.Get("X-Ms-Start-Epk"), Max: r.Header.Get("X-Ms-End-Epk")}
	if !validEPK(rng.Min) || !validEPK(rng.Max) {
		return rng, false, badRequest("The effective partition key range [%q, %q) is invalid.", rng.Min, rng.Max)
	}
	whole := rng.Min == "" && (rng.Max == "" || strings.EqualFold(rng.Max, "FF"))
	return rng, !whole, nil
}

// QueryItemsInRange runs q over the items whose effective partition key
// lies in rng, on a committed snapshot: what a query scoped to a feed
// range selects.
func (s *Service) QueryItemsInRange(ctx context.Context, ref CollectionRef, rng EPKRange, q *Query, params map[string]any) (*Feed, error) {
	db, coll := ref.DB, ref.Coll
	var f *Feed
	err := s.view(ctx, func(t *Tx) error {
		c, err := t.container(db, coll)
		if err != nil {
			return err
		}
		var kerr error
		var st queryStats
		docs, err := scanDocs(t.rd, itemsPrefix(db, coll), func(m map[string]any) bool {
			if c.expired(m, t.ts) {
				return false
			}
			pk, err := c.partitionKeyOf(m)
			if err != nil {
				kerr = err
				return false
			}
			return c.inEPKRange(pk, rng)
		}, &st)
		if err == nil {
			err = kerr
		}
		if err != nil {
			return err
		}
		res, err := q.runBodies(docs, params, t.udfs(db, coll), st.bodies)
		if err != nil {
			return err
		}
		f = &Feed{ResourceID: c.rid(), Items: res}
		return nil
	})
	return f, err
}
