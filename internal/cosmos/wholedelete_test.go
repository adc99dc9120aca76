package cosmos

import (
	"context"
	"strings"
	"testing"

	"github.com/cerulean-db/cerulean/internal/kv"
	"github.com/cerulean-db/cerulean/internal/kv/keyspace"
	"github.com/cerulean-db/cerulean/internal/kv/memory"
	"github.com/cerulean-db/cerulean/internal/kv/tuple"
	"github.com/cerulean-db/cerulean/internal/testkit"
)

// databaseFamilies are the key families a database owns, each with the
// number of names (database, then container or user) that lead its keys.
var databaseFamilies = []string{
	keyspace.CosmosContainers, keyspace.CosmosItems, keyspace.CosmosItemChunks, keyspace.CosmosUnique,
	keyspace.CosmosScripts, keyspace.CosmosIndex, keyspace.CosmosIndexStates, keyspace.CosmosChangeSeq,
	keyspace.CosmosChanges, keyspace.CosmosUsers, keyspace.CosmosPermissions, keyspace.CosmosOffers,
}

// fillDatabase creates the database "full" holding one of everything:
// its own throughput offer, a container with a unique key policy and a
// range index holding items (a large one, a deleted one), every kind of
// script, an all-versions change feed read, a second container with its
// own offer, and a user with a permission.
func fillDatabase(t *testing.T, s *Service) {
	t.Helper()
	ctx := t.Context()
	must := func(err error) {
		t.Helper()
		if err != nil {
			t.Fatal(err)
		}
	}
	_, err := s.CreateDatabase(ctx, []byte(`{"id":"full"}`), Throughput{Manual: 400})
	must(err)
	_, err = s.CreateContainer(ctx, "full", []byte(`{"id":"c","partitionKey":{"paths":["/pk"]},"uniqueKeyPolicy":{"uniqueKeys":[{"paths":["/u"]}]},"indexingPolicy":{"includedPaths":[{"path":"/*"}],"excludedPaths":[]}}`))
	must(err)
	_, err = s.CreateContainer(ctx, "full", []byte(`{"id":"own","partitionKey":{"paths":["/pk"]}}`), Throughput{Manual: 400})
	must(err)
	c := CollectionRef{DB: "full", Coll: "c"}
	_, err = s.CreateItem(ctx, c, "", []byte(`{"id":"1","pk":"a","u":1,"n":5}`), ItemOptions{})
	must(err)
	_, err = s.CreateItem(ctx, c, "", []byte(`{"id":"big","pk":"a","u":2,"text":"`+strings.Repeat("x", 300_000)+`"}`), ItemOptions{})
	must(err)
	_, err = s.CreateItem(ctx, c, pkOf(t, "b"), []byte(`{"id":"2","pk":"b","u":3}`), ItemOptions{})
	must(err)
	_, err = s.DeleteItem(ctx, ItemRef{CollectionRef: c, PartitionKey: pkOf(t, "b"), ID: "2"}, ItemOptions{})
	must(err)
	_, err = s.CreateItem(ctx, CollectionRef{DB: "full", Coll: "own"}, "", []byte(`{"id":"1","pk":"a"}`), ItemOptions{})
	must(err)
	for kind, body := range map[ScriptKind]string{
		StoredProcedures:     `{"id":"sp","body":"function () {}"}`,
		Triggers:             `{"id":"tr","body":"function () {}","triggerType":"Pre","triggerOperation":"All"}`,
		UserDefinedFunctions: `{"id":"f","body":"function (x) { return x; }"}`,
	} {
		_, err = s.CreateScript(ctx, c, kind, []byte(body))
		must(err)
	}
	_, err = s.ReadChangeFeed(ctx, c, ChangeFeedOptions{Mode: AllVersionsAndDeletes})
	must(err)
	_, err = s.CreateUser(ctx, "full", []byte(`{"id":"u"}`))
	must(err)
	_, err = s.CreatePermission(ctx, UserRef{DB: "full", User: "u"}, []byte(`{"id":"p","permissionMode":"Read","resource":"dbs/full/colls/c"}`))
	must(err)
}

// ofDatabase reports whether key belongs to database db, in any family.
func ofDatabase(key, db string) bool {
	for _, tag := range append([]string{keyspace.CosmosDatabases}, databaseFamilies...) {
		if strings.HasPrefix(key, string(tuple.New(tag).Str(db))) {
			return true
		}
	}
	return false
}

func newWholeService(t *testing.T) (*Service, kv.Store) {
	t.Helper()
	store := memory.Open()
	t.Cleanup(func() { _ = store.Close() })
	s, _ := newItemsService(t, Config{Store: store}, "")
	t.Cleanup(func() {
		if err := s.CheckInvariants(context.Background()); err != nil {
			t.Errorf("after the test: %v", err)
		}
	})
	return s, store
}

// TestFillDatabaseHoldsEveryFamily: fillDatabase writes a key of every
// family a database owns, so the tests below leave none untried.
func TestFillDatabaseHoldsEveryFamily(t *testing.T) {
	s, store := newWholeService(t)
	fillDatabase(t, s)
	if err := s.CheckInvariants(t.Context()); err != nil {
		t.Fatal(err)
	}
	for _, tag := range databaseFamilies {
		if testkit.CountKeys(t, store, tuple.New(tag).Str("full")) == 0 {
			t.Errorf("no key of family %q", tag)
		}
	}
}

// TestDatabaseDeleteLeavesNothing deletes a database holding one of
// everything: afterwards the store holds exactly what it held before
// the database was made, the other database untouched.
func TestDatabaseDeleteLeavesNothing(t *testing.T) {
	s, store := newWholeService(t)
	ctx := t.Context()
	before := testkit.Keys(t, store, nil)
	fillDatabase(t, s)
	if err := s.DeleteDatabase(ctx, "full", Preconditions{}); err != nil {
		t.Fatal(err)
	}
	if err := s.CheckInvariants(ctx); err != nil {
		t.Fatalf("after the deletion: %v", err)
	}
	after := testkit.Keys(t, store, nil)
	for k := range after {
		if ofDatabase(k, "full") {
			t.Errorf("the deleted database left %q", k)
		}
	}
	if d := testkit.DiffKeys(before, after); d != "" {
		t.Fatalf("the deleted database left keys: %s", d)
	}
}

// TestContainerDeleteLeavesNothing deletes each container of a database
// holding one of everything, then its user: what is left is the database
// record, its offer, and nothing else of it.
func TestContainerDeleteLeavesNothing(t *testing.T) {
	s, store := newWholeService(t)
	ctx := t.Context()
	before := testkit.Keys(t, store, nil)
	fillDatabase(t, s)
	for _, coll := range []string{"c", "own"} {
		if err := s.DeleteContainer(ctx, CollectionRef{DB: "full", Coll: coll}, Preconditions{}); err != nil {
			t.Fatal(err)
		}
		if err := s.CheckInvariants(ctx); err != nil {
			t.Fatalf("after deleting %s: %v", coll, err)
		}
	}
	if err := s.DeleteUser(ctx, UserRef{DB: "full", User: "u"}, Preconditions{}); err != nil {
		t.Fatal(err)
	}
	want := testkit.Keys(t, store, nil).Without(func(k string) bool {
		return k == string(databaseKey("full")) || k == string(offerKey("full", ""))
	})
	if d := testkit.DiffKeys(before, want); d != "" {
		t.Fatalf("the deleted containers and user left keys: %s", d)
	}
}
