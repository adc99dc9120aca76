package search

import (
	"encoding/json"
	"testing"

	"github.com/cerulean-db/cerulean/internal/kv/record/recordtest"
)

// TestRecordsRoundTrip: a resource record, whose definition is JSON text,
// reads back from the binary format as from the JSON format earlier
// releases wrote.
func TestRecordsRoundTrip(t *testing.T) {
	for i, st := range []stored{
		{},
		{Version: 1 << 40, Definition: json.RawMessage(`{"name":"idx","fields":[{"name":"id","key":true}],"n":1.5e300}`)},
		{Version: 3, Size: 5 << 20},
		{Version: 4, Definition: json.RawMessage(`{}`)},
	} {
		recordtest.Check(t, "stored "+string(rune('0'+i)), st)
	}
}
