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
	testkit.CheckCatches(t, func(t *testing.T) (kv.Store, func(context.Context) error) {
		s, _ := newTestService(t, props)
		for pk, doc := range map[string]string{"a": `{"id":"1","pk":"a","n":1,"email":"a@example.com"}`, "b": `{"id":"2","pk":"b","n":2,"email":"b@example.com"}`} {
			if _, err := s.CreateItem(context.Background(), CollectionRef{DB: "db", Coll: "items"}, pkOf(t, pk), []byte(doc), ItemOptions{}); err != nil {
				t.Fatal(err)
			}
		}
		return s.store, s.CheckInvariants
	}, []testkit.Corruption{
		{Name: "item that does not decode", Corrupt: func(tx kv.Txn) error {
			return tx.Set(a(), []byte("{"))
		}, Want: "must be a JSON object"},
		{Name: "item under another id", Corrupt: func(tx kv.Txn) error {
			return tx.Set(itemKey("db", "items", []string{`"a"`}, "9"), mustGet(tx, a()))
		}, Want: "is not keyed by its id"},
		{Name: "item without its unique key entry", Corrupt: func(tx kv.Txn) error {
			return tx.Delete(uniqueKey("db", "items", []string{`"a"`}, 0, `["a@example.com"]`))
		}, Want: "has no unique key entry"},
		{Name: "unique key entry of no item", Corrupt: func(tx kv.Txn) error {
			return tx.Set(uniqueKey("db", "items", []string{`"a"`}, 0, `["z@example.com"]`), []byte("1"))
		}, Want: "names no stored item's values"},
		{Name: "range index entry of no item", Corrupt: func(tx kv.Txn) error {
			k := append(indexPathPrefix("db", "items", []string{"n"}), indexNumber(99)...)
			return tx.Set(append(k, itemKey("", "", []string{`"a"`}, "1")[len(itemKey("", "", nil, "")):]...), nil)
		}, Want: "belongs to no stored item"},
		{Name: "ready range index lacking an entry", Corrupt: func(tx kv.Txn) error {
			p := indexPathPrefix("db", "items", []string{"n"})
			return tx.DeleteRange(p, kv.PrefixEnd(p))
		}, Want: "lacks entry"},
		{Name: "item changed without a change record", Corrupt: func(tx kv.Txn) error {
			return tx.Set(a(), []byte(strings.Replace(string(mustGet(tx, a())), `"_etag":"`, `"_etag":"x`, 1)))
		}, Want: "its latest change"},
		{Name: "change log past its last LSN", Corrupt: func(tx kv.Txn) error {
			return tx.Set(changeSeqKey("db", "items"), binary.BigEndian.AppendUint64(nil, 1))
		}, Want: "past its last LSN 1"},
		{Name: "record of an item's current version compacted away", Corrupt: func(tx kv.Txn) error {
			k := changesPrefix("db", "items").Uint(1)
			return tx.DeleteRange(k, kv.PrefixEnd(k))
		}, Want: "no change record"},
		{Name: "item of a deleted container", Corrupt: func(tx kv.Txn) error {
			return tx.Delete(containerKey("db", "items"))
		}, Want: "the container does not exist"},
	})
}

func mustGet(tx kv.Txn, k []byte) []byte {
	v, err := tx.Get(k)
	if err != nil {
		panic(err)
	}
	return v
}
