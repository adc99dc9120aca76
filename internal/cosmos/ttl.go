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

// maxTTL is the largest time to live, container or item, Azure accepts
// (2^31-1 seconds).
const maxTTL = math.MaxInt32

// validTTL reports whether v is a time to live Azure accepts: -1 or a
// whole number of seconds from 1 to maxTTL (the .NET SDK documents both
// defaultTtl and ttl as "a nonzero positive integer, '-1', or null", the
// time-to-live article that an item's ttl may not be null).
func validTTL(v any) bool {
	n, ok := ttlNumber(v)
	return ok && (n == -1 || n >= 1 && n <= maxTTL)
}

// checkDefaultTTL refuses a container definition whose defaultTtl Azure
// refuses (0 among them); absent or null turns time to live off.
func checkDefaultTTL(r record) error {
	if v, ok := r["defaultTtl"]; ok && v != nil && !validTTL(v) {
		return badRequest("The value of the 'defaultTtl' property of the collection is invalid: it must be -1 or a positive integer of at most %d.", maxTTL)
	}
	return nil
}

// checkItemTTL refuses an item whose ttl Azure refuses (0, null, negative
// other than -1, fractions, more than maxTTL) in a container with time to
// live on; without it the item's ttl means nothing.
func (c *container) checkItemTTL(doc map[string]any) error {
	if _, on := c.defaultTTL(); !on {
		return nil
	}
	if v, ok := doc["ttl"]; ok && !validTTL(v) {
		return badRequest("The value of the 'ttl' property of the document is invalid: it must be -1 or a positive integer of at most %d; leave it out for the collection's defaultTtl.", maxTTL)
	}
	return nil
}

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
