package cosmos

import (
	"encoding/json"
	"math"
)

// Time to live, evaluated lazily against the request time: an expired item
// reads as absent everywhere (point reads, feeds, queries, batches), and a
// write that finds one removes it (and its unique-key entries) first.
//
// As in Cosmos DB: without a container defaultTtl nothing expires; with
// defaultTtl -1 only items carrying a positive "ttl" expire; with n > 0
// items expire n seconds after their last write unless their own "ttl"
// says otherwise (-1: never).

// defaultTTL returns the container's default TTL and whether it has one.
func (c *container) defaultTTL() (int64, bool) {
	return ttlNumber(c.rec["defaultTtl"])
}

func ttlNumber(v any) (int64, bool) {
	switch x := v.(type) {
	case float64:
		if x != math.Trunc(x) {
			return 0, false
		}
		return int64(x), true
	case json.Number:
		n, err := x.Int64()
		return n, err == nil
	}
	return 0, false
}

// expired reports whether an item (decoded either way) has outlived its
// time to live at now (Unix seconds).
func (c *container) expired(doc map[string]any, now int64) bool {
	def, ok := c.defaultTTL()
	if !ok || def == 0 {
		return false
	}
	ttl := def
	if own, ok := ttlNumber(doc["ttl"]); ok && own != 0 {
		ttl = own
	}
	if ttl < 0 {
		return false
	}
	ts, ok := ttlNumber(doc["_ts"])
	if !ok {
		return false
	}
	return now >= ts+ttl
}
