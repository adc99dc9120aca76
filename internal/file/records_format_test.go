package file

import (
	"testing"

	"github.com/cerulean-db/cerulean/internal/kv/record/recordtest"
)

// TestRecordsRoundTrip: every record the File service keeps reads back
// from the binary format as it reads back from the JSON format earlier
// releases wrote.
func TestRecordsRoundTrip(t *testing.T) {
	const n = 300
	t.Run("Share", func(t *testing.T) { recordtest.RoundTrip[Share](t, n) })
	t.Run("Node", func(t *testing.T) { recordtest.RoundTrip[Node](t, n) })
	t.Run("extent", func(t *testing.T) { recordtest.RoundTrip[extent](t, n) })
	t.Run("clearMark", func(t *testing.T) { recordtest.RoundTrip[clearMark](t, n) })
	t.Run("Handle", func(t *testing.T) { recordtest.RoundTrip[Handle](t, n) })
	t.Run("lockRecord", func(t *testing.T) { recordtest.RoundTrip[lockRecord](t, n) })
	t.Run("storedPermission", func(t *testing.T) { recordtest.RoundTrip[storedPermission](t, n) })
	t.Run("deletedShare", func(t *testing.T) { recordtest.RoundTrip[deletedShare](t, n) })
}
