package indexer

import (
	"testing"

	"github.com/cerulean-db/cerulean/internal/kv/record/recordtest"
)

// TestRecordsRoundTrip: an indexer's state and run history read back from
// the binary format as from the JSON format earlier releases wrote.
func TestRecordsRoundTrip(t *testing.T) {
	t.Run("state", func(t *testing.T) { recordtest.RoundTrip[state](t, 300) })
	t.Run("ExecutionResult", func(t *testing.T) { recordtest.RoundTrip[ExecutionResult](t, 300) })
}
