package cosmos

import (
	"context"
	"encoding/json"

	"github.com/cerulean-db/cerulean/internal/conditions"
	"github.com/cerulean-db/cerulean/internal/kv"
	"github.com/cerulean-db/cerulean/internal/kv/keyspace"
	"github.com/cerulean-db/cerulean/internal/kv/tuple"
)

// Offers are the throughput settings of a database or container that was
// created with throughput (x-ms-offer-throughput or
// x-ms-cosmos-offer-autopilot-settings). cerulean does not throttle by
// them: they are stored, read, queried and replaced with the shapes the
// SDKs parse, so that code managing throughput runs unchanged.
//
// Layout: Co db coll → offer record (coll is "" for a database's offer),
// so an offer goes with its owner's key range and is deleted with it.

// Throughput is the throughput asked for at create time or by a replace:
// either Manual RU/s, or autoscale up to AutoscaleMax (with an optional
// auto-upgrade increment).
type Throughput struct {
	Manual             int
	AutoscaleMax       int
	AutoscaleIncrement int
}

// autoscale reports whether t is autoscale throughput.
func (t Throughput) autoscale() bool { return t.AutoscaleMax > 0 }

// validate applies Cosmos DB's throughput bounds.
func (t Throughput) validate() error {
	switch {
	case t.Manual > 0 && t.AutoscaleMax > 0:
		return badRequest("Both x-ms-offer-throughput and x-ms-cosmos-offer-autopilot-settings are specified; provide only one.")
	case t.AutoscaleMax > 0:
		if t.AutoscaleMax < 1000 || t.AutoscaleMax%1000 != 0 {
			return badRequest("The autopilot max throughput %d is invalid: it must be at least 1000 and a multiple of 1000.", t.AutoscaleMax)
		}
		if t.AutoscaleIncrement < 0 {
			return badRequest("The autopilot increment percent %d is invalid.", t.AutoscaleIncrement)
		}
	case t.Manual < 400 || t.Manual > 1000000 || t.Manual%100 != 0:
		return badRequest("The offer throughput %d is invalid: it must be between 400 and 1000000 and a multiple of 100.", t.Manual)
	}
	return nil
}

// content is the offer's "content" object as the gateway renders it. An
// autoscale offer reports its current throughput, a tenth of its maximum.
func (t Throughput) content() map[string]any {
	c := map[string]any{"offerIsRUPerMinuteThroughputEnabled": false}
	if !t.autoscale() {
		c["offerThroughput"] = t.Manual
		c["offerMinimumThroughputParameters"] = map[string]any{"maxThroughputEverProvisioned": t.Manual, "maxConsumedStorageEverInKB": 0}
		return c
	}
	c["offerThroughput"] = t.AutoscaleMax / 10
	settings := map[string]any{"maxThroughput": t.AutoscaleMax}
	if t.AutoscaleIncrement > 0 {
		settings["autoUpgradePolicy"] = map[string]any{"throughputPolicy": map[string]any{"incrementPercent": t.AutoscaleIncrement}}
	}
	c["offerAutopilotSettings"] = settings
	c["offerMinimumThroughputParameters"] = map[string]any{"maxThroughputEverProvisioned": t.AutoscaleMax, "maxConsumedStorageEverInKB": 0}
	return c
}

// minThroughput is the smallest throughput the offer may be set to.
func (t Throughput) minThroughput() int {
	if t.autoscale() {
		return 1000
	}
	return 400
}

// throughputOf reads an offer's content back.
func throughputOf(content map[string]any) Throughput {
	var t Throughput
	if s, ok := content["offerAutopilotSettings"].(map[string]any); ok {
		t.AutoscaleMax = intOf(s["maxThroughput"])
		if up, ok := s["autoUpgradePolicy"].(map[string]any); ok {
			if tp, ok := up["throughputPolicy"].(map[string]any); ok {
				t.AutoscaleIncrement = intOf(tp["incrementPercent"])
			}
		}
		if t.AutoscaleMax > 0 {
			return t
		}
	}
	t.Manual = intOf(content["offerThroughput"])
	return t
}

func intOf(v any) int {
	switch n := v.(type) {
	case float64:
		if n == float64(int(n)) {
			return int(n)
		}
		return -1
	case json.Number:
		i, err := n.Int64()
		if err != nil {
			return -1
		}
		return int(i)
	case int:
		return n
	}
	return 0
}

func offerKey(db, coll string) tuple.Key { return tuple.New(keyspace.CosmosOffers).Str(db).Str(coll) }

func offersOfDatabase(db string) tuple.Key { return tuple.New(keyspace.CosmosOffers).Str(db) }

func offersPrefix() tuple.Key { return tuple.New(keyspace.CosmosOffers) }

// Offer is an offer as the gateway returns it.
type Offer struct {
	RID  string
	ETag string
	// MinThroughput is the x-ms-cosmos-min-throughput the SDKs read.
	MinThroughput int
	Body          []byte
}

func newOffer(r record) (*Offer, error) {
	b, err := marshal(r)
	if err != nil {
		return nil, err
	}
	content, _ := r["content"].(map[string]any)
	return &Offer{RID: r.str("_rid"), ETag: r.str("_etag"), MinThroughput: throughputOf(content).minThroughput(), Body: b}, nil
}

// putOffer writes the offer of a database (coll "") or container being
// created in tx; resource is its owner's _self, ownerRID its _rid.
func (s *Service) putOffer(tx kv.Txn, db, coll, resource, ownerRID string, t Throughput) error {
	v := tx.Version()
	rid := encodeRID(ridFromVersion(nil, v, 6))
	r := record{
		"resource":        resource,
		"offerType":       "Invalid",
		"offerResourceId": ownerRID,
		"offerVersion":    "V2",
		"content":         t.content(),
		"id":              rid,
		"_rid":            rid,
		"_self":           "offers/" + rid + "/",
		"_etag":           etagOf(v),
		"_ts":             s.unixNow(),
	}
	b, err := encodeRecord(r)
	if err != nil {
		return err
	}
	return tx.Set(offerKey(db, coll), b)
}

// findOffer returns the key and record of the offer whose _rid is rid.
func findOffer(rd kv.Reader, rid string) (tuple.Key, record, error) {
	var key tuple.Key
	var out record
	p := offersPrefix()
	err := rd.Scan(p, kv.PrefixEnd(p), func(k, v []byte) error {
		r, err := parseRecord(v)
		if err != nil {
			return err
		}
		if r.str("_rid") == rid {
			key, out = append(tuple.Key(nil), k...), r
			return kv.ErrStopScan
		}
		return nil
	})
	if err == nil && out == nil {
		err = notFound("The offer %q does not exist.", rid)
	}
	return key, out, err
}

// ListOffers returns every offer.
func (s *Service) ListOffers(ctx context.Context) (*Feed, error) {
	return s.listFeed(ctx, nil, offersPrefix())
}

// QueryOffers runs q over the offers.
func (s *Service) QueryOffers(ctx context.Context, q *Query, params map[string]any) (*Feed, error) {
	return s.queryFeed(ctx, nil, offersPrefix(), q, params)
}

// GetOffer reads the offer whose _rid is rid.
func (s *Service) GetOffer(ctx context.Context, rid string, pre Preconditions) (*Offer, error) {
	r, err := s.readRecord(ctx, pre, func(rd kv.Reader) (record, error) {
		_, r, err := findOffer(rd, rid)
		return r, err
	})
	if err != nil {
		return nil, err
	}
	return newOffer(r)
}

// ReplaceOffer replaces the throughput of the offer rid with the one in
// body (an offer object). Its id and offerResourceId must be the offer's;
// a manual offer stays manual and an autoscale one autoscale, as Cosmos DB
// changes modes only by migration.
func (s *Service) ReplaceOffer(ctx context.Context, rid string, body []byte, pre Preconditions) (*Offer, error) {
	m, err := decodeObject(body)
	if err != nil {
		return nil, err
	}
	content, ok := m["content"].(map[string]any)
	if !ok {
		return nil, badRequest("The offer content is missing or invalid.")
	}
	want := throughputOf(content)
	if err := want.validate(); err != nil {
		return nil, err
	}
	var out record
	err = s.store.Update(ctx, func(tx kv.Txn) error {
		key, r, err := findOffer(tx, rid)
		if err != nil {
			return err
		}
		if err := pre.check(conditions.Write, true, r.str("_etag")); err != nil {
			return err
		}
		if id, _ := m["id"].(string); id != "" && id != rid {
			return badRequest("The offer id %q in the body does not match the offer %q.", id, rid)
		}
		if owner, _ := m["offerResourceId"].(string); owner != "" && owner != r.str("offerResourceId") {
			return badRequest("The offerResourceId %q does not match the offer's resource.", owner)
		}
		cur, _ := r["content"].(map[string]any)
		if throughputOf(cur).autoscale() != want.autoscale() {
			return badRequest("The offer cannot change between manual and autoscale throughput by a replace; migrate the offer instead.")
		}
		v := tx.Version()
		r["content"], r["_etag"], r["_ts"] = want.content(), etagOf(v), s.unixNow()
		b, err := encodeRecord(r)
		if err != nil {
			return err
		}
		out = r
		s.noteCommit(tx)
		return tx.Set(key, b)
	})
	if err != nil {
		return nil, err
	}
	return newOffer(out)
}
