package table

import (
	"context"
	"encoding/binary"
	"strconv"
	"strings"
	"testing"

	"github.com/cerulean-db/cerulean/internal/kv"
	"github.com/cerulean-db/cerulean/internal/kv/record"
	"github.com/cerulean-db/cerulean/internal/table/odata"
	"github.com/cerulean-db/cerulean/internal/testkit"
)

// TestCheckInvariantsCatchesCorruption: each record a test writes behind
// the service's back, breaking one invariant, makes CheckInvariants fail.
func TestCheckInvariantsCatchesCorruption(t *testing.T) {
	small := entityKey(testAccount, "tbl", "p", "small")
	large := entityKey(testAccount, "tbl", "p", "large")
	testkit.CheckCatches(t, func(t *testing.T) (kv.Store, func(context.Context) error) {
		s := newTestService(t)
		mustCreateTable(t, s, "tbl")
		// The large entity's three strings of 32 K characters need two
		// chunks.
		for rk, strs := range map[string]int{"small": 0, "large": 3} {
			w := EntityWrite{Kind: WriteInsert, PartitionKey: "p", RowKey: rk}
			for i := range strs {
				w.Properties = append(w.Properties, Property{Name: "S" + strconv.Itoa(i), Value: odata.StringValue(strings.Repeat("x", maxValueBytes/2-8))})
			}
			if _, err := s.WriteEntity(t.Context(), testAccount, "tbl", w); err != nil {
				t.Fatal(err)
			}
		}
		return s.store, s.CheckInvariants
	}, []testkit.Corruption{
		{Name: "entity that does not decode", Corrupt: func(tx kv.Txn) error {
			return tx.Set(small, []byte{0, recordFormat, 0x80})
		}, Want: "corrupt entity record"},
		{Name: "missing chunk", Corrupt: func(tx kv.Txn) error {
			return tx.Delete(chunkKey(large, 1))
		}, Want: "head announces"},
		{Name: "chunk without its head", Corrupt: func(tx kv.Txn) error {
			return tx.Delete(large)
		}, Want: "has no head"},
		{Name: "entities of a deleted table", Corrupt: func(tx kv.Txn) error {
			return tx.Delete(tableKey(testAccount, "tbl"))
		}, Want: "does not exist"},
		{Name: "table record under another name", Corrupt: func(tx kv.Txn) error {
			return record.Store(tx, tableKey(testAccount, "tbl"), &Table{Name: "other"})
		}, Want: `records the name "other"`},
		{Name: "watermark below an issued tick", Corrupt: func(tx kv.Txn) error {
			return tx.Set(clockKey(), binary.BigEndian.AppendUint64(nil, 1))
		}, Want: "not below the ETag watermark"},
	})
}
