package table

import (
	"testing"

	"github.com/cerulean-db/cerulean/internal/kv/record/recordtest"
)

// TestRecordsRoundTrip: a table's record reads back from the binary format
// as it reads back from the JSON format earlier releases wrote (entities
// have a codec of their own).
func TestRecordsRoundTrip(t *testing.T) {
	recordtest.RoundTrip[Table](t, 300)
}
