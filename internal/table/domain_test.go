package table

import (
	"errors"
	"fmt"
	"testing"

	"github.com/cerulean-db/cerulean/internal/azauth"
	"github.com/cerulean-db/cerulean/internal/azerr"
	"github.com/cerulean-db/cerulean/internal/kv"
	"github.com/cerulean-db/cerulean/internal/kv/memory"
	"github.com/cerulean-db/cerulean/internal/table/odata"
)

func props(pairs ...any) []Property {
	var out []Property
	for i := 0; i < len(pairs); i += 2 {
		out = append(out, Property{Name: pairs[i].(string), Value: odata.Int32Value(int32(pairs[i+1].(int)))})
	}
	return out
}

func mustCreateTable(t *testing.T, s *Service, name string) {
	t.Helper()
	if _, err := s.CreateTable(t.Context(), testAccount, name); err != nil {
		t.Fatalf("create table %s: %v", name, err)
	}
}

// wantAzErr fails unless err is the Azure error want.
func wantAzErr(t *testing.T, err error, want *azerr.Error, what string) {
	t.Helper()
	if !errors.Is(err, want) {
		t.Errorf("%s: got %v, want %s (%d)", what, err, want.Code, want.Status)
	}
}

// count returns how many entities a table holds.
func count(t *testing.T, s *Service, table string) int {
	t.Helper()
	page, err := s.QueryEntities(t.Context(), testAccount, table, EntityQuery{Top: maxPageSize})
	if err != nil {
		t.Fatal(err)
	}
	return len(page.Entities)
}

// TestTxCommitsTogether: writes through one Tx, in two tables, become
// visible together; reads in the Tx see the writes before them, and all
// the writes share the transaction's version.
func TestTxCommitsTogether(t *testing.T) {
	s := newTestService(t)
	mustCreateTable(t, s, "orders")
	mustCreateTable(t, s, "audit")
	var order, audit *Entity
	err := s.Update(t.Context(), func(tx *Tx) (err error) {
		if order, err = tx.InsertEntity(testAccount, "orders", "c1", "o1", props("Qty", 3)); err != nil {
			return err
		}
		if audit, err = tx.InsertEntity(testAccount, "audit", "c1", "o1-created", nil); err != nil {
			return err
		}
		got, err := tx.GetEntity(testAccount, "orders", "c1", "o1")
		if err != nil {
			return err
		}
		if v, _ := got.Get("Qty"); v != odata.Int32Value(3) {
			t.Errorf("inside the transaction, Qty = %v", v)
		}
		f, err := odata.Parse("PartitionKey eq 'c1'")
		if err != nil {
			return err
		}
		page, err := tx.QueryEntities(testAccount, "audit", EntityQuery{Filter: f, Top: maxPageSize})
		if err != nil {
			return err
		}
		if len(page.Entities) != 1 {
			t.Errorf("inside the transaction, the partition query found %d entities", len(page.Entities))
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if order.Version != audit.Version || order.ETag() != audit.ETag() {
		t.Errorf("one transaction's writes carry versions %d and %d", order.Version, audit.Version)
	}
	if order.Timestamp != testTicks {
		t.Errorf("Timestamp %d, want the clock's %d", order.Timestamp, testTicks)
	}
	if count(t, s, "orders") != 1 || count(t, s, "audit") != 1 {
		t.Errorf("after commit: %d orders, %d audit entries", count(t, s, "orders"), count(t, s, "audit"))
	}
}

// TestTxInCallersTransaction: In runs entity operations inside a kv
// transaction the caller opened.
func TestTxInCallersTransaction(t *testing.T) {
	s := newTestService(t)
	mustCreateTable(t, s, "tbl")
	err := s.store.Update(t.Context(), func(kt kv.Txn) error {
		tx := s.In(kt)
		if _, err := tx.InsertEntity(testAccount, "tbl", "p", "a", props("N", 1)); err != nil {
			return err
		}
		_, err := tx.InsertOrMergeEntity(testAccount, "tbl", "p", "a", props("M", 2))
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	e, err := s.GetEntity(t.Context(), testAccount, "tbl", "p", "a")
	if err != nil {
		t.Fatal(err)
	}
	// A merge leaves the properties sorted by name (TestPropertyOrder).
	sameProperties(t, e.Properties, props("M", 2, "N", 1))
	if e.Timestamp != testTicks+1 {
		t.Errorf("Timestamp %d: the second write in a transaction must still move it forward from %d", e.Timestamp, testTicks)
	}
}

// TestTxRollsBackTogether: when a later operation fails, or fn returns
// an error, the earlier operations of the same transaction are discarded.
func TestTxRollsBackTogether(t *testing.T) {
	s := newTestService(t)
	mustCreateTable(t, s, "tbl")
	kept, err := s.WriteEntity(t.Context(), testAccount, "tbl", EntityWrite{Kind: WriteInsert, PartitionKey: "p", RowKey: "kept", Properties: props("V", 1)})
	if err != nil {
		t.Fatal(err)
	}

	err = s.Update(t.Context(), func(tx *Tx) error {
		if _, err := tx.InsertEntity(testAccount, "tbl", "p", "new", nil); err != nil {
			return err
		}
		if err := tx.DeleteEntity(testAccount, "tbl", "p", "kept", IfMatch{Any: true}); err != nil {
			return err
		}
		// The row the first insert wrote exists now.
		_, err := tx.InsertEntity(testAccount, "tbl", "p", "new", nil)
		return err
	})
	wantAzErr(t, err, azerr.ErrEntityAlreadyExists, "second insert of a row")

	errAbort := errors.New("abort")
	err = s.Update(t.Context(), func(tx *Tx) error {
		if _, err := tx.UpdateEntity(testAccount, "tbl", "p", "kept", IfMatch{Versions: []uint64{kept.Version}}, props("V", 2)); err != nil {
			return err
		}
		return errAbort
	})
	if !errors.Is(err, errAbort) {
		t.Fatalf("Update returned %v, want fn's error", err)
	}

	page, err := s.QueryEntities(t.Context(), testAccount, "tbl", EntityQuery{Top: maxPageSize})
	if err != nil {
		t.Fatal(err)
	}
	if len(page.Entities) != 1 || page.Entities[0].RowKey != "kept" || page.Entities[0].Version != kept.Version {
		t.Fatalf("after the rolled-back transactions: %+v", page.Entities)
	}
	sameProperties(t, page.Entities[0].Properties, props("V", 1))
}

// TestTxIfMatch: Update, Merge and Delete need the entity to exist at a
// version If-Match names (or any, with *); the upserts check nothing.
func TestTxIfMatch(t *testing.T) {
	s := newTestService(t)
	mustCreateTable(t, s, "tbl")
	write := func(fn func(tx *Tx) (*Entity, error)) (*Entity, error) {
		var out *Entity
		err := s.Update(t.Context(), func(tx *Tx) (err error) {
			out, err = fn(tx)
			return err
		})
		return out, err
	}
	v1, err := write(func(tx *Tx) (*Entity, error) {
		return tx.InsertEntity(testAccount, "tbl", "p", "r", props("A", 1))
	})
	if err != nil {
		t.Fatal(err)
	}
	at := func(e *Entity) IfMatch { return IfMatch{Versions: []uint64{e.Version}} }

	v2, err := write(func(tx *Tx) (*Entity, error) {
		return tx.UpdateEntity(testAccount, "tbl", "p", "r", at(v1), props("B", 2))
	})
	if err != nil {
		t.Fatalf("update at the current version: %v", err)
	}
	if v2.Version <= v1.Version || v2.ETag() == v1.ETag() {
		t.Errorf("update kept version %d", v2.Version)
	}
	sameProperties(t, v2.Properties, props("B", 2))

	_, err = write(func(tx *Tx) (*Entity, error) {
		return tx.UpdateEntity(testAccount, "tbl", "p", "r", at(v1), props("C", 3))
	})
	wantAzErr(t, err, azerr.ErrUpdateConditionNotSatisfied, "update at a stale version")
	_, err = write(func(tx *Tx) (*Entity, error) {
		return tx.MergeEntity(testAccount, "tbl", "p", "r", at(v1), props("C", 3))
	})
	wantAzErr(t, err, azerr.ErrUpdateConditionNotSatisfied, "merge at a stale version")
	_, err = write(func(tx *Tx) (*Entity, error) {
		return tx.UpdateEntity(testAccount, "tbl", "p", "r", IfMatch{}, props("C", 3))
	})
	wantAzErr(t, err, azerr.ErrUpdateConditionNotSatisfied, "update with an empty condition")
	_, err = write(func(tx *Tx) (*Entity, error) {
		return nil, tx.DeleteEntity(testAccount, "tbl", "p", "r", at(v1))
	})
	wantAzErr(t, err, azerr.ErrUpdateConditionNotSatisfied, "delete at a stale version")
	_, err = write(func(tx *Tx) (*Entity, error) {
		return tx.MergeEntity(testAccount, "tbl", "p", "missing", IfMatch{Any: true}, nil)
	})
	wantAzErr(t, err, azerr.ErrResourceNotFound, "merge of a missing entity")

	v3, err := write(func(tx *Tx) (*Entity, error) {
		return tx.MergeEntity(testAccount, "tbl", "p", "r", IfMatch{Versions: []uint64{v1.Version, v2.Version}}, props("C", 3))
	})
	if err != nil {
		t.Fatalf("merge naming the current version among others: %v", err)
	}
	sameProperties(t, v3.Properties, props("B", 2, "C", 3))

	v4, err := write(func(tx *Tx) (*Entity, error) {
		return tx.InsertOrReplaceEntity(testAccount, "tbl", "p", "r", props("D", 4))
	})
	if err != nil {
		t.Fatalf("insert or replace: %v", err)
	}
	sameProperties(t, v4.Properties, props("D", 4))

	_, err = write(func(tx *Tx) (*Entity, error) {
		return nil, tx.DeleteEntity(testAccount, "tbl", "p", "r", IfMatch{Any: true})
	})
	if err != nil {
		t.Fatalf("delete with *: %v", err)
	}
	_, err = s.GetEntity(t.Context(), testAccount, "tbl", "p", "r")
	wantAzErr(t, err, azerr.ErrResourceNotFound, "get after delete")
}

// TestTxMissingTable: every entity operation fails on a missing table.
func TestTxMissingTable(t *testing.T) {
	s := newTestService(t)
	err := s.Update(t.Context(), func(tx *Tx) error {
		_, err := tx.InsertOrMergeEntity(testAccount, "nope", "p", "r", nil)
		return err
	})
	wantAzErr(t, err, azerr.ErrTableNotFound, "write to a missing table")
	_, err = s.QueryEntities(t.Context(), testAccount, "nope", EntityQuery{Top: 1})
	wantAzErr(t, err, azerr.ErrTableNotFound, "query of a missing table")
}

// TestStoreErrorsPassThrough: the service hands store failures back
// unmapped, for the wire layer to classify.
func TestStoreErrorsPassThrough(t *testing.T) {
	store := memory.Open()
	accts := azauth.NewAccounts(azauth.Account{Name: testAccount, Keys: [][]byte{[]byte("key")}})
	s := New(Config{Store: store, Accounts: accts})
	mustCreateTable(t, s, "tbl")
	if err := store.Close(); err != nil {
		t.Fatal(err)
	}
	_, err := s.Batch(t.Context(), testAccount, "tbl", []EntityWrite{{Kind: WriteInsert, PartitionKey: "p", RowKey: "r"}})
	if !errors.Is(err, kv.ErrClosed) || azerr.ClassifyStore(err) != azerr.StoreClosed {
		t.Fatalf("batch on a closed store: %v", err)
	}
	var ae *azerr.Error
	if errors.As(err, &ae) {
		t.Errorf("the service mapped a store failure to %s", ae.Code)
	}
}

// TestQueryTablesRangeEndsWithLastPage: paging through a TableName range
// with $top, the page holding the range's last tables carries no
// continuation, though tables beyond the range exist: Azure ends after
// the last full page rather than answering a further, empty one.
func TestQueryTablesRangeEndsWithLastPage(t *testing.T) {
	s := newTestService(t)
	for _, name := range []string{"aaa", "rng1", "rng2", "rng3", "rng4", "zzz1", "zzz2"} {
		mustCreateTable(t, s, name)
	}
	filter, err := odata.Parse("TableName ge 'rng' and TableName lt 'rnh'")
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	next := ""
	for pages := 1; ; pages++ {
		page, err := s.QueryTables(t.Context(), testAccount, filter, 2, next)
		if err != nil {
			t.Fatal(err)
		}
		for _, tb := range page.Tables {
			got = append(got, tb.Name)
		}
		if page.Next == "" {
			if pages != 2 {
				t.Errorf("%d pages, want 2", pages)
			}
			break
		}
		if len(page.Tables) == 0 || pages > 2 {
			t.Fatalf("page %d: %d tables, continuation %q", pages, len(page.Tables), page.Next)
		}
		next = page.Next
	}
	if len(got) != 4 || got[0] != "rng1" || got[3] != "rng4" {
		t.Errorf("tables %v", got)
	}
	// Without a filter the continuation still points at the next table.
	page, err := s.QueryTables(t.Context(), testAccount, nil, 2, "")
	if err != nil || page.Next != "rng2" {
		t.Errorf("unfiltered first page: next %q, %v", page.Next, err)
	}
}

// TestPropertyOrder: Insert Entity keeps the properties in the order the
// request gave them; Update, Merge, Insert Or Replace and Insert Or Merge
// leave them sorted by name, byte by byte, as Azure answers reads after
// them in every Table recording under test/parity (test_table_entity.py's
// test_update_entity, test_merge_entity, test_insert_or_replace_entity_*
// and test_insert_or_merge_entity_*; go-aztables-TestMergeEntity_storage).
func TestPropertyOrder(t *testing.T) {
	s := newTestService(t)
	mustCreateTable(t, s, "tbl")
	unsorted := props("sex", 3, "age", 1, "Birthday", 2)
	sorted := props("Birthday", 2, "age", 1, "sex", 3)
	write := func(rk string, op func(tx *Tx) error) []Property {
		t.Helper()
		err := s.store.Update(t.Context(), func(kt kv.Txn) error { return op(s.In(kt)) })
		if err != nil {
			t.Fatal(err)
		}
		e, err := s.GetEntity(t.Context(), testAccount, "tbl", "p", rk)
		if err != nil {
			t.Fatal(err)
		}
		return e.Properties
	}
	anyVersion := IfMatch{Any: true}
	cases := []struct {
		name string
		op   func(tx *Tx, rk string) error
		want []Property
	}{
		{"insert", func(tx *Tx, rk string) error {
			_, err := tx.InsertEntity(testAccount, "tbl", "p", rk, unsorted)
			return err
		}, unsorted},
		{"insert or replace", func(tx *Tx, rk string) error {
			_, err := tx.InsertOrReplaceEntity(testAccount, "tbl", "p", rk, unsorted)
			return err
		}, sorted},
		{"insert or merge", func(tx *Tx, rk string) error {
			_, err := tx.InsertOrMergeEntity(testAccount, "tbl", "p", rk, unsorted)
			return err
		}, sorted},
		{"update", func(tx *Tx, rk string) error {
			if _, err := tx.InsertEntity(testAccount, "tbl", "p", rk, props("z", 1)); err != nil {
				return err
			}
			_, err := tx.UpdateEntity(testAccount, "tbl", "p", rk, anyVersion, unsorted)
			return err
		}, sorted},
		{"merge", func(tx *Tx, rk string) error {
			if _, err := tx.InsertEntity(testAccount, "tbl", "p", rk, props("sex", 3, "age", 1)); err != nil {
				return err
			}
			_, err := tx.MergeEntity(testAccount, "tbl", "p", rk, anyVersion, props("Birthday", 2))
			return err
		}, sorted},
	}
	for i, c := range cases {
		rk := fmt.Sprintf("r%d", i)
		got := write(rk, func(tx *Tx) error { return c.op(tx, rk) })
		t.Run(c.name, func(t *testing.T) { sameProperties(t, got, c.want) })
	}
}
