package table

import (
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
	for _, c := range []struct {
		name    string
		corrupt func(kv.Txn) error
		want    string
	}{
		{"entity that does not decode", func(tx kv.Txn) error {
			return tx.Set(small, []byte{0, recordFormat, 0x80})
		}, "corrupt entity record"},
		{"missing chunk", func(tx kv.Txn) error {
			return tx.Delete(chunkKey(large, 1))
		}, "head announces"},
		{"chunk without its head", func(tx kv.Txn) error {
			return tx.Delete(large)
		}, "has no head"},
		{"entities of a deleted table", func(tx kv.Txn) error {
			return tx.Delete(tableKey(testAccount, "tbl"))
		}, "does not exist"},
		{"table record under another name", func(tx kv.Txn) error {
			return record.Store(tx, tableKey(testAccount, "tbl"), &Table{Name: "other"})
		}, `records the name "other"`},
		{"watermark below an issued tick", func(tx kv.Txn) error {
			return tx.Set(clockKey(), binary.BigEndian.AppendUint64(nil, 1))
		}, "not below the ETag watermark"},
	} {
		t.Run(c.name, func(t *testing.T) {
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
			testkit.CheckCatches(t, s.store, s.CheckInvariants, c.corrupt, c.want)
			// The store is corrupt on purpose: spare the cleanup's check.
			if err := s.store.Update(t.Context(), func(tx kv.Txn) error { return kv.DeletePrefixes(tx, accountKey(testAccount), clockKey()) }); err != nil {
				t.Fatal(err)
			}
		})
	}
}
