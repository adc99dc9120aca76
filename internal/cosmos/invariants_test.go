package cosmos

import (
	"context"
	"encoding/binary"
	"strings"
	"testing"

	"github.com/cerulean-db/cerulean/internal/kv"
	"github.com/cerulean-db/cerulean/internal/testkit"
)

// TestCheckInvariantsCatchesCorruption: each record a test writes behind
// the service's back, breaking one invariant, makes CheckInvariants fail.
func TestCheckInvariantsCatchesCorruption(t *testing.T) {
	const props = `{"id":"items","partitionKey":{"paths":["/pk"]},
		"uniqueKeyPolicy":{"uniqueKeys":[{"paths":["/email"]}]}}`
	a := func() []byte { return itemKey("db", "items", []string{`"a"`}, "1") }
	for _, c := range []struct {
		name    string
		corrupt func(kv.Txn) error
		want    string
	}{
		{"item that does not decode", func(tx kv.Txn) error {
			return tx.Set(a(), []byte("{"))
		}, "must be a JSON object"},
		{"item under another id", func(tx kv.Txn) error {
			return tx.Set(itemKey("db", "items", []string{`"a"`}, "9"), mustGet(tx, a()))
		}, "is not keyed by its id"},
		{"item without its unique key entry", func(tx kv.Txn) error {
			return tx.Delete(uniqueKey("db", "items", []string{`"a"`}, 0, `["a@example.com"]`))
		}, "has no unique key entry"},
		{"unique key entry of no item", func(tx kv.Txn) error {
			return tx.Set(uniqueKey("db", "items", []string{`"a"`}, 0, `["z@example.com"]`), []byte("1"))
		}, "names no stored item's values"},
		{"range index entry of no item", func(tx kv.Txn) error {
			k := append(indexPathPrefix("db", "items", []string{"n"}), indexNumber(99)...)
			return tx.Set(append(k, itemKey("", "", []string{`"a"`}, "1")[len(itemKey("", "", nil, "")):]...), nil)
		}, "belongs to no stored item"},
		{"ready range index lacking an entry", func(tx kv.Txn) error {
			p := indexPathPrefix("db", "items", []string{"n"})
			return tx.DeleteRange(p, kv.PrefixEnd(p))
		}, "lacks entry"},
		{"item changed without a change record", func(tx kv.Txn) error {
			return tx.Set(a(), []byte(strings.Replace(string(mustGet(tx, a())), `"_etag":"`, `"_etag":"x`, 1)))
		}, "its latest change"},
		{"change log with a gap", func(tx kv.Txn) error {
			return tx.Set(changeSeqKey("db", "items"), binary.BigEndian.AppendUint64(nil, 9))
		}, "its last LSN is 9"},
		{"item of a deleted container", func(tx kv.Txn) error {
			return tx.Delete(containerKey("db", "items"))
		}, "the container does not exist"},
	} {
		t.Run(c.name, func(t *testing.T) {
			s, _ := newTestService(t, props)
			ctx := context.Background()
			for pk, doc := range map[string]string{"a": `{"id":"1","pk":"a","n":1,"email":"a@example.com"}`, "b": `{"id":"2","pk":"b","n":2,"email":"b@example.com"}`} {
				if _, err := s.CreateItem(ctx, "db", "items", pkOf(t, pk), []byte(doc), ItemOptions{}); err != nil {
					t.Fatal(err)
				}
			}
			testkit.CheckCatches(t, s.store, s.CheckInvariants, c.corrupt, c.want)
			// The store is corrupt on purpose: spare the cleanup's check.
			if err := s.store.Update(ctx, func(tx kv.Txn) error {
				return kv.DeletePrefixes(tx, []byte("C"))
			}); err != nil {
				t.Fatal(err)
			}
		})
	}
}

func mustGet(tx kv.Txn, k []byte) []byte {
	v, err := tx.Get(k)
	if err != nil {
		panic(err)
	}
	return v
}
