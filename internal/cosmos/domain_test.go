package cosmos

import (
	"context"
	"encoding/json"
	"errors"
	"testing"
	"time"

	"github.com/cerulean-db/cerulean/internal/kv"
	"github.com/cerulean-db/cerulean/internal/kv/memory"
	"github.com/cerulean-db/cerulean/internal/testkit"
)

// newTestService returns a Service over a fresh in-memory store with
// database "db" and container "items" (containerProps, by default with
// partition key /pk), and its clock. When the test ends, the store must
// pass CheckInvariants.
func newTestService(t *testing.T, containerProps string) (*Service, *testkit.Clock) {
	t.Helper()
	clock := testkit.NewClock(time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC))
	s, _ := newItemsService(t, Config{Now: clock.Now}, containerProps)
	t.Cleanup(func() {
		if err := s.CheckInvariants(context.Background()); err != nil {
			t.Errorf("after the test: %v", err)
		}
	})
	return s, clock
}

// newItemsService returns a Service made with cfg, holding database "db"
// and container "items" (containerProps, by default with partition key
// /pk), and its store: cfg.Store, or else a fresh in-memory one closed
// when the test ends.
func newItemsService(t testing.TB, cfg Config, containerProps string) (*Service, kv.Store) {
	t.Helper()
	if cfg.Store == nil {
		store := memory.Open()
		t.Cleanup(func() { _ = store.Close() })
		cfg.Store = store
	}
	s, err := New(cfg)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if _, err := s.CreateDatabase(ctx, []byte(`{"id":"db"}`)); err != nil {
		t.Fatalf("create database: %v", err)
	}
	if containerProps == "" {
		containerProps = `{"id":"items","partitionKey":{"paths":["/pk"]}}`
	}
	if _, err := s.CreateContainer(ctx, "db", []byte(containerProps)); err != nil {
		t.Fatalf("create container: %v", err)
	}
	return s, cfg.Store
}

func pkOf(t *testing.T, v string) PartitionKey {
	t.Helper()
	pk, err := NewPartitionKey(v)
	if err != nil {
		t.Fatal(err)
	}
	return pk
}

func field(t *testing.T, it *Item, name string) any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(it.Body, &m); err != nil {
		t.Fatalf("item body %q: %v", it.Body, err)
	}
	return m[name]
}

func ifMatch(etag string) ItemOptions {
	return ItemOptions{Preconditions: Preconditions{IfMatch: []string{etag}}}
}

func TestDatabasesAndContainers(t *testing.T) {
	s, _ := newTestService(t, "")
	ctx := context.Background()
	if _, err := s.CreateDatabase(ctx, []byte(`{"id":"db"}`)); !errors.Is(err, ErrConflict) {
		t.Fatalf("duplicate database: %v, want ErrConflict", err)
	}
	d, err := s.GetDatabase(ctx, "db", Preconditions{})
	if err != nil || d.ID != "db" || d.ETag == "" || d.RID == "" {
		t.Fatalf("get database: %+v, %v", d, err)
	}
	if _, err := s.GetDatabase(ctx, "db", Preconditions{IfNoneMatch: []string{d.ETag}}); !errors.Is(err, ErrNotModified) {
		t.Fatalf("get database If-None-Match: %v, want ErrNotModified", err)
	}
	c, err := s.GetContainer(ctx, CollectionRef{DB: "db", Coll: "items"}, Preconditions{})
	if err != nil || c.ID != "items" {
		t.Fatalf("get container: %+v, %v", c, err)
	}
	if _, err := s.ReplaceContainer(ctx, CollectionRef{DB: "db", Coll: "items"}, []byte(`{"id":"items","defaultTtl":-1}`), Preconditions{IfMatch: []string{`"stale"`}}); !errors.Is(err, ErrPreconditionFailed) {
		t.Fatalf("replace container with a stale ETag: %v", err)
	}
	c2, err := s.ReplaceContainer(ctx, CollectionRef{DB: "db", Coll: "items"}, []byte(`{"id":"items","defaultTtl":-1}`), Preconditions{IfMatch: []string{c.ETag}})
	if err != nil || c2.ETag == c.ETag {
		t.Fatalf("replace container: %+v, %v", c2, err)
	}
	f, err := s.ListContainers(ctx, "db")
	if err != nil || len(f.Items) != 1 || f.ResourceID != d.RID {
		t.Fatalf("list containers: %+v, %v", f, err)
	}
	if err := s.DeleteContainer(ctx, CollectionRef{DB: "db", Coll: "items"}, Preconditions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.CreateItem(ctx, CollectionRef{DB: "db", Coll: "items"}, pkOf(t, "a"), []byte(`{"id":"1","pk":"a"}`), ItemOptions{}); !errors.Is(err, ErrNotFound) {
		t.Fatalf("create in a deleted container: %v, want ErrNotFound", err)
	}
	if err := s.DeleteDatabase(ctx, "db", Preconditions{}); err != nil {
		t.Fatal(err)
	}
	if f, err := s.ListDatabases(ctx); err != nil || len(f.Items) != 0 {
		t.Fatalf("list databases after delete: %+v, %v", f, err)
	}
}

func TestItemOperations(t *testing.T) {
	s, _ := newTestService(t, "")
	ctx := context.Background()
	pk := pkOf(t, "a")

	created, err := s.CreateItem(ctx, CollectionRef{DB: "db", Coll: "items"}, pk, []byte(`{"id":"1","pk":"a","n":1,"big":1152921504606846977}`), ItemOptions{})
	if err != nil {
		t.Fatal(err)
	}
	if created.ID != "1" || created.ETag == "" || created.RID == "" || created.Self == "" || created.TS == 0 {
		t.Fatalf("created item lacks system properties: %+v", created)
	}
	if _, err := s.CreateItem(ctx, CollectionRef{DB: "db", Coll: "items"}, pk, []byte(`{"id":"1","pk":"a"}`), ItemOptions{}); !errors.Is(err, ErrConflict) {
		t.Fatalf("duplicate create: %v, want ErrConflict", err)
	}
	if _, err := s.CreateItem(ctx, CollectionRef{DB: "db", Coll: "items"}, pkOf(t, "b"), []byte(`{"id":"2","pk":"a"}`), ItemOptions{}); !errors.Is(err, ErrBadRequest) {
		t.Fatalf("create with a mismatched partition key: %v, want ErrBadRequest", err)
	}
	// Without a partition key the document's own is used.
	if _, err := s.CreateItem(ctx, CollectionRef{DB: "db", Coll: "items"}, "", []byte(`{"id":"3","pk":"a"}`), ItemOptions{}); err != nil {
		t.Fatalf("create without a partition key: %v", err)
	}

	read, err := s.ReadItem(ctx, ItemRef{CollectionRef: CollectionRef{DB: "db", Coll: "items"}, PartitionKey: pk, ID: "1"}, ItemOptions{})
	if err != nil || read.ETag != created.ETag || string(read.Body) != string(created.Body) {
		t.Fatalf("read: %+v, %v", read, err)
	}
	if string(read.Body) == "" || !json.Valid(read.Body) {
		t.Fatalf("read body %q", read.Body)
	}
	var raw map[string]json.RawMessage
	_ = json.Unmarshal(read.Body, &raw)
	if string(raw["big"]) != "1152921504606846977" {
		t.Fatalf("a large integer lost precision: %s", raw["big"])
	}
	nm, err := s.ReadItem(ctx, ItemRef{CollectionRef: CollectionRef{DB: "db", Coll: "items"}, PartitionKey: pk, ID: "1"}, ItemOptions{Preconditions: Preconditions{IfNoneMatch: []string{created.ETag}}})
	if !errors.Is(err, ErrNotModified) || nm == nil || nm.ETag != created.ETag {
		t.Fatalf("read If-None-Match: %+v, %v; want the item with ErrNotModified", nm, err)
	}
	if _, err := s.ReadItem(ctx, ItemRef{CollectionRef: CollectionRef{DB: "db", Coll: "items"}, PartitionKey: pk, ID: "missing"}, ItemOptions{}); !errors.Is(err, ErrNotFound) {
		t.Fatalf("read missing: %v", err)
	}

	replaced, err := s.ReplaceItem(ctx, ItemRef{CollectionRef: CollectionRef{DB: "db", Coll: "items"}, PartitionKey: pk, ID: "1"}, []byte(`{"id":"1","pk":"a","n":2}`), ifMatch(created.ETag))
	if err != nil {
		t.Fatalf("replace with the current ETag: %v", err)
	}
	if replaced.ETag == created.ETag || replaced.RID != created.RID {
		t.Fatalf("replace: ETag must change and _rid stay: %+v vs %+v", replaced, created)
	}
	if _, err := s.ReplaceItem(ctx, ItemRef{CollectionRef: CollectionRef{DB: "db", Coll: "items"}, PartitionKey: pk, ID: "1"}, []byte(`{"id":"1","pk":"a","n":3}`), ifMatch(created.ETag)); !errors.Is(err, ErrPreconditionFailed) {
		t.Fatalf("replace with a stale ETag: %v, want ErrPreconditionFailed", err)
	}
	if _, err := s.ReplaceItem(ctx, ItemRef{CollectionRef: CollectionRef{DB: "db", Coll: "items"}, PartitionKey: pk, ID: "nope"}, []byte(`{"id":"nope","pk":"a"}`), ItemOptions{}); !errors.Is(err, ErrNotFound) {
		t.Fatalf("replace missing: %v", err)
	}

	up, created2, err := s.UpsertItem(ctx, CollectionRef{DB: "db", Coll: "items"}, pk, []byte(`{"id":"4","pk":"a","n":4}`), ItemOptions{})
	if err != nil || !created2 || up.ID != "4" {
		t.Fatalf("upsert new: %+v, %v, %v", up, created2, err)
	}
	up2, created2, err := s.UpsertItem(ctx, CollectionRef{DB: "db", Coll: "items"}, pk, []byte(`{"id":"4","pk":"a","n":5}`), ItemOptions{})
	if err != nil || created2 || up2.ETag == up.ETag {
		t.Fatalf("upsert existing: %+v, %v, %v", up2, created2, err)
	}

	patch, err := ParsePatch([]byte(`{"operations":[{"op":"incr","path":"/n","value":10},{"op":"add","path":"/tag","value":"x"}]}`))
	if err != nil {
		t.Fatal(err)
	}
	patched, err := s.PatchItem(ctx, ItemRef{CollectionRef: CollectionRef{DB: "db", Coll: "items"}, PartitionKey: pk, ID: "1"}, patch, ifMatch(replaced.ETag))
	if err != nil {
		t.Fatal(err)
	}
	if field(t, patched, "n") != float64(12) || field(t, patched, "tag") != "x" {
		t.Fatalf("patched body %s", patched.Body)
	}
	if _, err := s.PatchItem(ctx, ItemRef{CollectionRef: CollectionRef{DB: "db", Coll: "items"}, PartitionKey: pk, ID: "1"}, patch, ifMatch(replaced.ETag)); !errors.Is(err, ErrPreconditionFailed) {
		t.Fatalf("patch with a stale ETag: %v", err)
	}

	q, err := ParseQuery("SELECT VALUE c.id FROM c WHERE c.n >= @min ORDER BY c.id")
	if err != nil {
		t.Fatal(err)
	}
	f, err := s.QueryItems(ctx, CollectionRef{DB: "db", Coll: "items"}, pk, q, map[string]any{"@min": 5})
	if err != nil {
		t.Fatal(err)
	}
	if got := rawStrings(f.Items); got != `"1","4"` {
		t.Fatalf("query results %s", got)
	}

	deleted, err := s.DeleteItem(ctx, ItemRef{CollectionRef: CollectionRef{DB: "db", Coll: "items"}, PartitionKey: pk, ID: "1"}, ifMatch(`"stale"`))
	if !errors.Is(err, ErrPreconditionFailed) || deleted != nil {
		t.Fatalf("delete with a stale ETag: %+v, %v", deleted, err)
	}
	deleted, err = s.DeleteItem(ctx, ItemRef{CollectionRef: CollectionRef{DB: "db", Coll: "items"}, PartitionKey: pk, ID: "1"}, ifMatch(patched.ETag))
	if err != nil || deleted.ETag != patched.ETag {
		t.Fatalf("delete: %+v, %v", deleted, err)
	}
	if _, err := s.ReadItem(ctx, ItemRef{CollectionRef: CollectionRef{DB: "db", Coll: "items"}, PartitionKey: pk, ID: "1"}, ItemOptions{}); !errors.Is(err, ErrNotFound) {
		t.Fatalf("read after delete: %v", err)
	}

	feed, err := s.ReadItemFeed(ctx, CollectionRef{DB: "db", Coll: "items"}, pk, FeedOptions{MaxItemCount: 1})
	if err != nil || len(feed.Items) != 1 || feed.Continuation == "" {
		t.Fatalf("feed page 1: %+v, %v", feed, err)
	}
	feed, err = s.ReadItemFeed(ctx, CollectionRef{DB: "db", Coll: "items"}, pk, FeedOptions{MaxItemCount: 1, Continuation: feed.Continuation})
	if err != nil || len(feed.Items) != 1 || feed.Continuation != "" {
		t.Fatalf("feed page 2: %+v, %v", feed, err)
	}
}

func rawStrings(items []json.RawMessage) string {
	out := ""
	for i, it := range items {
		if i > 0 {
			out += ","
		}
		out += string(it)
	}
	return out
}

func TestUniqueKeyAndTTL(t *testing.T) {
	s, clock := newTestService(t, `{"id":"items","partitionKey":{"paths":["/pk"]},"defaultTtl":60,"uniqueKeyPolicy":{"uniqueKeys":[{"paths":["/email"]}]}}`)
	ctx := context.Background()
	pk := pkOf(t, "a")
	if _, err := s.CreateItem(ctx, CollectionRef{DB: "db", Coll: "items"}, pk, []byte(`{"id":"1","pk":"a","email":"x@y"}`), ItemOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.CreateItem(ctx, CollectionRef{DB: "db", Coll: "items"}, pk, []byte(`{"id":"2","pk":"a","email":"x@y"}`), ItemOptions{}); !errors.Is(err, ErrConflict) {
		t.Fatalf("unique key violation: %v, want ErrConflict", err)
	}
	// Another partition has its own unique keys.
	if _, err := s.CreateItem(ctx, CollectionRef{DB: "db", Coll: "items"}, pkOf(t, "b"), []byte(`{"id":"2","pk":"b","email":"x@y"}`), ItemOptions{}); err != nil {
		t.Fatal(err)
	}
	clock.Advance(61 * time.Second)
	if _, err := s.ReadItem(ctx, ItemRef{CollectionRef: CollectionRef{DB: "db", Coll: "items"}, PartitionKey: pk, ID: "1"}, ItemOptions{}); !errors.Is(err, ErrNotFound) {
		t.Fatalf("expired item: %v, want ErrNotFound", err)
	}
	// The expired holder no longer owns its unique key.
	if _, err := s.CreateItem(ctx, CollectionRef{DB: "db", Coll: "items"}, pk, []byte(`{"id":"2","pk":"a","email":"x@y"}`), ItemOptions{}); err != nil {
		t.Fatalf("create over an expired unique key holder: %v", err)
	}
}

func TestUpdateCommitsTogether(t *testing.T) {
	s, _ := newTestService(t, "")
	ctx := context.Background()
	pk := pkOf(t, "a")
	var first, second *Item
	err := s.Update(ctx, func(tx *Tx) error {
		var err error
		if first, err = tx.CreateItem(CollectionRef{DB: "db", Coll: "items"}, pk, []byte(`{"id":"1","pk":"a"}`), ItemOptions{}); err != nil {
			return err
		}
		// The second operation sees the first.
		if _, err := tx.ReadItem(ItemRef{CollectionRef: CollectionRef{DB: "db", Coll: "items"}, PartitionKey: pk, ID: "1"}, ItemOptions{}); err != nil {
			return err
		}
		second, err = tx.CreateItem(CollectionRef{DB: "db", Coll: "items"}, pk, []byte(`{"id":"2","pk":"a"}`), ItemOptions{})
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	if first.ETag != second.ETag || first.RID == second.RID {
		t.Fatalf("one commit gives one ETag and distinct _rids: %+v, %+v", first, second)
	}
	for _, id := range []string{"1", "2"} {
		if _, err := s.ReadItem(ctx, ItemRef{CollectionRef: CollectionRef{DB: "db", Coll: "items"}, PartitionKey: pk, ID: id}, ItemOptions{}); err != nil {
			t.Fatalf("read %s after commit: %v", id, err)
		}
	}
}

func TestUpdateRollsBack(t *testing.T) {
	s, _ := newTestService(t, "")
	ctx := context.Background()
	pk := pkOf(t, "a")
	if _, err := s.CreateItem(ctx, CollectionRef{DB: "db", Coll: "items"}, pk, []byte(`{"id":"taken","pk":"a"}`), ItemOptions{}); err != nil {
		t.Fatal(err)
	}

	// The second operation fails: the first is rolled back with it.
	err := s.Update(ctx, func(tx *Tx) error {
		if _, err := tx.CreateItem(CollectionRef{DB: "db", Coll: "items"}, pk, []byte(`{"id":"new","pk":"a"}`), ItemOptions{}); err != nil {
			return err
		}
		_, err := tx.CreateItem(CollectionRef{DB: "db", Coll: "items"}, pk, []byte(`{"id":"taken","pk":"a"}`), ItemOptions{})
		return err
	})
	if !errors.Is(err, ErrConflict) {
		t.Fatalf("Update: %v, want ErrConflict", err)
	}
	if _, err := s.ReadItem(ctx, ItemRef{CollectionRef: CollectionRef{DB: "db", Coll: "items"}, PartitionKey: pk, ID: "new"}, ItemOptions{}); !errors.Is(err, ErrNotFound) {
		t.Fatalf("the first operation survived a failed transaction: %v", err)
	}

	// fn's own error rolls back everything too.
	errAbort := errors.New("abort")
	err = s.Update(ctx, func(tx *Tx) error {
		if _, err := tx.DeleteItem(ItemRef{CollectionRef: CollectionRef{DB: "db", Coll: "items"}, PartitionKey: pk, ID: "taken"}, ItemOptions{}); err != nil {
			return err
		}
		return errAbort
	})
	if !errors.Is(err, errAbort) {
		t.Fatalf("Update: %v, want errAbort", err)
	}
	if _, err := s.ReadItem(ctx, ItemRef{CollectionRef: CollectionRef{DB: "db", Coll: "items"}, PartitionKey: pk, ID: "taken"}, ItemOptions{}); err != nil {
		t.Fatalf("a rolled back delete took effect: %v", err)
	}
}

// TestInCallerTransaction: the item operations run inside a transaction
// the caller owns, next to its own writes.
func TestInCallerTransaction(t *testing.T) {
	s, store := newItemsService(t, Config{}, "")
	ctx := context.Background()
	pk := pkOf(t, "a")
	err := store.Update(ctx, func(tx kv.Txn) error {
		t := s.In(tx)
		if _, err := t.CreateItem(CollectionRef{DB: "db", Coll: "items"}, pk, []byte(`{"id":"1","pk":"a"}`), ItemOptions{}); err != nil {
			return err
		}
		if _, err := t.CreateItem(CollectionRef{DB: "db", Coll: "items"}, pk, []byte(`{"id":"1","pk":"a"}`), ItemOptions{}); !errors.Is(err, ErrConflict) {
			return errors.New("duplicate id in one transaction was not a conflict")
		}
		return errors.New("roll back")
	})
	if err == nil || err.Error() != "roll back" {
		t.Fatalf("store.Update: %v", err)
	}
	if _, err := s.ReadItem(ctx, ItemRef{CollectionRef: CollectionRef{DB: "db", Coll: "items"}, PartitionKey: pk, ID: "1"}, ItemOptions{}); !errors.Is(err, ErrNotFound) {
		t.Fatalf("item of a rolled back caller transaction: %v", err)
	}
}

func TestExecuteBatch(t *testing.T) {
	s, _ := newTestService(t, "")
	ctx := context.Background()
	pk := pkOf(t, "a")
	ops := []BatchOperation{
		{Type: OperationCreate, Doc: []byte(`{"id":"1","pk":"a"}`)},
		{Type: OperationUpsert, Doc: []byte(`{"id":"2","pk":"a"}`)},
		{Type: OperationRead, ID: "1"},
	}
	res, err := s.ExecuteBatch(ctx, CollectionRef{DB: "db", Coll: "items"}, pk, ops)
	if err != nil {
		t.Fatal(err)
	}
	if len(res) != 3 || !res[0].Created || !res[1].Created || res[2].Item.ID != "1" {
		t.Fatalf("batch results %+v", res)
	}

	ops = []BatchOperation{
		{Type: OperationDelete, ID: "2"},
		{Type: OperationCreate, Doc: []byte(`{"id":"1","pk":"a"}`)},
	}
	res, err = s.ExecuteBatch(ctx, CollectionRef{DB: "db", Coll: "items"}, pk, ops)
	if !errors.Is(err, ErrBatchFailed) {
		t.Fatalf("failing batch: %v, want ErrBatchFailed", err)
	}
	if !errors.Is(res[0].Err, ErrFailedDependency) || !errors.Is(res[1].Err, ErrConflict) {
		t.Fatalf("failing batch results %+v", res)
	}
	if _, err := s.ReadItem(ctx, ItemRef{CollectionRef: CollectionRef{DB: "db", Coll: "items"}, PartitionKey: pk, ID: "2"}, ItemOptions{}); err != nil {
		t.Fatalf("a failed batch's delete took effect: %v", err)
	}
}
