package blob

import (
	"testing"

	"github.com/cerulean-db/cerulean/internal/kv/record"
	"github.com/cerulean-db/cerulean/internal/kv/record/recordtest"
	"github.com/cerulean-db/cerulean/internal/svcprops"
)

// TestRecordsRoundTrip: every record the Blob service keeps reads back
// from the binary format as it reads back from the JSON format earlier
// releases wrote.
func TestRecordsRoundTrip(t *testing.T) {
	const n = 300
	t.Run("Container", func(t *testing.T) { recordtest.RoundTrip[Container](t, n) })
	t.Run("Blob", func(t *testing.T) { recordtest.RoundTrip[Blob](t, n) })
	t.Run("extent", func(t *testing.T) { recordtest.RoundTrip[extent](t, n) })
	t.Run("block", func(t *testing.T) { recordtest.RoundTrip[block](t, n) })
	t.Run("staged", func(t *testing.T) { recordtest.RoundTrip[staged](t, n) })
	t.Run("garbage", func(t *testing.T) { recordtest.RoundTrip[garbage](t, n) })
	t.Run("retiredContainer", func(t *testing.T) { recordtest.RoundTrip[retiredContainer](t, n) })
	t.Run("ServiceProperties", func(t *testing.T) { recordtest.RoundTrip[svcprops.ServiceProperties](t, n) })
}

// TestExtentRecordIsNotAPage: a page blob's extent record and an extent
// page share a key space; their first bytes tell them apart.
func TestExtentRecordIsNotAPage(t *testing.T) {
	e := extent{Data: 7, Offset: 512, Size: 512}
	for _, v := range [][]byte{record.Encode(e), record.EncodeJSON(e)} {
		if isPage(v) {
			t.Fatalf("extent record %x reads as a page", v)
		}
		got, err := decodeExtents(nil, []byte("k"), v)
		if err != nil || len(got) != 1 || got[0].Data != 7 || got[0].Offset != 512 || got[0].Size != 512 {
			t.Fatalf("decodeExtents(%x) = %+v, %v", v, got, err)
		}
	}
	if !isPage(encodePage([]extent{e})) {
		t.Fatal("an extent page does not read as a page")
	}
}
