package liveness

import (
	"testing"

	"github.com/cerulean-db/cerulean/internal/kv/record/recordtest"
)

func TestRecordsRoundTrip(t *testing.T) {
	recordtest.RoundTrip[lease](t, 100)
}
