package cosmos

import (
	"encoding/json"
	"reflect"
	"testing"

	kvrecord "github.com/cerulean-db/cerulean/internal/kv/record"
	"github.com/cerulean-db/cerulean/internal/kv/record/recordtest"
)

// TestResourceRecordsRoundTrip: a database, container, offer, script,
// user or permission record written in the binary format reads back as
// its JSON record (what earlier releases wrote) reads back, whatever
// number types the record was built with.
func TestResourceRecordsRoundTrip(t *testing.T) {
	for i, r := range []record{
		{},
		{"id": "db", "_rid": "AAAAAA==", "_ts": int64(1763850000), "_etag": `"00000000-0000-0000-0000-000000000001"`, "_colls": "colls/"},
		{"id": "c", "partitionKey": map[string]any{"paths": []any{"/pk"}, "kind": "Hash", "version": 2},
			"indexingPolicy": defaultIndexingPolicy(), "defaultTtl": json.Number("3600"),
			"uniqueKeyPolicy": map[string]any{"uniqueKeys": []any{}}, "big": json.Number("12345678901234567890"),
			"f": 1.5, "neg": -7, "nil": nil, "ok": true, "s": "<&>\u2028é"},
		{"content": map[string]any{"offerThroughput": 400, "offerMinimumThroughputParameters": map[string]any{"maxThroughputEverProvisioned": 400}}},
		{"body": "function(){ getContext().getResponse().setBody(\"x\"); }", "nested": []any{[]any{1, "a"}, map[string]any{}}},
	} {
		bin, err := encodeRecord(r)
		if err != nil {
			t.Fatalf("record %d: %v", i, err)
		}
		if kvrecord.Format(bin) != kvrecord.Latest {
			t.Fatalf("record %d stored in format %d", i, kvrecord.Format(bin))
		}
		js, err := marshal(r)
		if err != nil {
			t.Fatal(err)
		}
		fromBinary, err := parseRecord(bin)
		if err != nil {
			t.Fatalf("record %d: %v", i, err)
		}
		fromJSON, err := parseRecord(js)
		if err != nil {
			t.Fatalf("record %d: %v", i, err)
		}
		if !reflect.DeepEqual(fromBinary, fromJSON) {
			t.Fatalf("record %d reads back differently\nJSON   %#v\nbinary %#v", i, fromJSON, fromBinary)
		}
		if q, err := decodeForQuery(bin); err != nil || !reflect.DeepEqual(record(q), fromJSON) {
			t.Fatalf("record %d for a query: %#v, %v", i, q, err)
		}
	}
}

// TestResourceRecordsRandom: random JSON-shaped records read back from the
// binary format as from JSON.
func TestResourceRecordsRandom(t *testing.T) {
	recordtest.RoundTrip[map[string]any](t, 300)
}
