package queue

import (
	"testing"

	"github.com/cerulean-db/cerulean/internal/kv/record/recordtest"
)

// TestRecordsRoundTrip: a queue's record reads back from the binary format
// as it reads back from the JSON format earlier releases wrote (messages
// have had a binary layout of their own from the start).
func TestRecordsRoundTrip(t *testing.T) {
	recordtest.RoundTrip[queueRecord](t, 300)
}
