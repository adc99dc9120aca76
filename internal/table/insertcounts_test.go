package table

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/cerulean-db/cerulean/internal/azauth"
	"github.com/cerulean-db/cerulean/internal/azerr"
	"github.com/cerulean-db/cerulean/internal/kv"
	"github.com/cerulean-db/cerulean/internal/kv/keyspace"
	"github.com/cerulean-db/cerulean/internal/kv/memory"
	kvusage "github.com/cerulean-db/cerulean/internal/kv/usage"
	"github.com/cerulean-db/cerulean/internal/kv/usage/usagetest"
	"github.com/cerulean-db/cerulean/internal/table/odata"
	"github.com/cerulean-db/cerulean/internal/testkit"
)

// TestInsertsKeepStoredCounts: Insert Entity writes without reading its
// key (kv.Create: the commit, or on the embedded engines the write,
// refuses a key that holds an entity, answered as EntityAlreadyExists),
// and any write stores the keys the old version did not hold as new
// (kv.Insert). The stored-bytes counts must equal a recount after each
// write, for small entities and for entities stored in several values,
// in memory and on PostgreSQL.
func TestInsertsKeepStoredCounts(t *testing.T) {
	t.Run("memory", func(t *testing.T) { checkInsertCounts(t, memory.Open()) })
	t.Run("postgres", func(t *testing.T) { checkInsertCounts(t, testkit.Postgres(t, 4)) })
}

func checkInsertCounts(t *testing.T, store kv.Store) {
	ctx := t.Context()
	counted, recountStore := usagetest.Open(t, store, kvusage.Space{Name: "table", Prefix: []byte(keyspace.TableSpace), Object: ObjectKey})
	accts := azauth.NewAccounts(azauth.Account{Name: azauth.DevAccount, Keys: [][]byte{[]byte("key")}})
	s := New(Config{Store: counted, Accounts: accts, Now: func() time.Time { return testTime }})
	recount := func(what string) {
		t.Helper()
		recountStore(what)
		if err := s.CheckInvariants(context.Background()); err != nil {
			t.Fatalf("after %s: %v", what, err)
		}
	}
	if _, err := s.CreateTable(ctx, testAccount, "counted"); err != nil {
		t.Fatal(err)
	}
	props := func(kib int) []Property {
		var ps []Property
		for i := range kib / 32 {
			ps = append(ps, Property{fmt.Sprintf("S%d", i), odata.StringValue(strings.Repeat("x", 32<<10))})
		}
		return append(ps, Property{"N", odata.Int32Value(int32(kib))})
	}
	write := func(kind WriteKind, rk string, kib int) error {
		_, err := s.WriteEntity(ctx, testAccount, "counted", EntityWrite{Kind: kind, PartitionKey: "p", RowKey: rk, IfMatch: IfMatch{Any: true}, Properties: props(kib)})
		return err
	}
	for i, kib := range []int{0, 200, 32, 400} {
		rk := fmt.Sprintf("r%d", i)
		if err := write(WriteInsert, rk, kib); err != nil {
			t.Fatal(err)
		}
		recount("insert " + rk)
		if err := write(WriteInsert, rk, 0); !errors.Is(err, azerr.ErrEntityAlreadyExists) {
			t.Fatalf("a second insert of %s: %v, want EntityAlreadyExists", rk, err)
		}
		recount("a refused insert of " + rk)
	}
	for _, w := range []struct {
		kind WriteKind
		rk   string
		kib  int
	}{
		{WriteReplace, "r0", 300}, {WriteReplace, "r1", 0}, {WriteMerge, "r2", 100},
		{WriteInsertOrReplace, "n0", 200}, {WriteInsertOrMerge, "n1", 64}, {WriteInsertOrReplace, "r3", 64},
		{WriteDelete, "r1", 0}, {WriteInsert, "r1", 250},
	} {
		if err := write(w.kind, w.rk, w.kib); err != nil {
			t.Fatalf("%s %s: %v", w.kind, w.rk, err)
		}
		recount(fmt.Sprintf("%s %s", w.kind, w.rk))
	}
}
