package cosmos

import (
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/cerulean-db/cerulean/internal/kv"
	"github.com/cerulean-db/cerulean/internal/kv/memory"
	"github.com/cerulean-db/cerulean/internal/testkit"
)

func bigDoc(id string, n int) []byte {
	b, _ := json.Marshal(map[string]any{"id": id, "pk": "a", "blob": strings.Repeat("x", n), "n": 1})
	return b
}

// TestLargeItemsSpanValues: a 1.9 MB item is stored across kv values and
// every path (read, feed, query, patch, replace, delete, container delete)
// sees it whole; shrinking or deleting it leaves no piece behind, and one
// past 2 MB is refused with 413.
func TestLargeItemsSpanValues(t *testing.T) {
	s, store := newItemsService(t, Config{Now: func() time.Time { return time.Date(2026, 3, 1, 12, 0, 0, 0, time.UTC) }}, "")
	ctx := context.Background()
	pk := pkOf(t, "a")
	const size = 1900 * 1024
	created, err := s.CreateItem(ctx, CollectionRef{DB: "db", Coll: "items"}, pk, bigDoc("big", size), ItemOptions{})
	if err != nil {
		t.Fatal(err)
	}
	// An id that extends "big" must not share its pieces.
	if _, err := s.CreateItem(ctx, CollectionRef{DB: "db", Coll: "items"}, pk, bigDoc("big\x00x", 200*1024), ItemOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.CreateItem(ctx, CollectionRef{DB: "db", Coll: "items"}, pk, []byte(`{"id":"small","pk":"a"}`), ItemOptions{}); err != nil {
		t.Fatal(err)
	}
	chunks := chunksOfContainer("db", "items")
	want := (len(created.Body)+itemChunkSize-1)/itemChunkSize - 1 + 3
	if got := testkit.CountKeys(t, store, chunks); got != want {
		t.Fatalf("%d pieces stored, want %d", got, want)
	}
	got, err := s.ReadItem(ctx, ItemRef{CollectionRef: CollectionRef{DB: "db", Coll: "items"}, PartitionKey: pk, ID: "big"}, ItemOptions{})
	if err != nil || string(got.Body) != string(created.Body) {
		t.Fatalf("read back %d bytes (%v), want %d", len(got.Body), err, len(created.Body))
	}
	f, err := s.ReadItemFeed(ctx, CollectionRef{DB: "db", Coll: "items"}, pk, FeedOptions{MaxItemCount: 1})
	if err != nil || len(f.Items) != 1 || string(f.Items[0]) != string(created.Body) {
		t.Fatalf("feed page: %d items, %v", len(f.Items), err)
	}
	f, err = s.ReadItemFeed(ctx, CollectionRef{DB: "db", Coll: "items"}, pk, FeedOptions{MaxItemCount: 5, Continuation: f.Continuation})
	if err != nil || len(f.Items) != 2 {
		t.Fatalf("feed rest: %d items, %v", len(f.Items), err)
	}
	q, err := ParseQuery("SELECT c.id, LENGTH(c.blob) AS n FROM c WHERE c.n = 1")
	if err != nil {
		t.Fatal(err)
	}
	qf, err := s.QueryItems(ctx, CollectionRef{DB: "db", Coll: "items"}, pk, q, nil)
	if err != nil || rawStrings(qf.Items) != `{"id":"big","n":1945600},{"id":"big\u0000x","n":204800}` {
		t.Fatalf("query: %s, %v", rawStrings(qf.Items), err)
	}
	patch, err := ParsePatch([]byte(`{"operations":[{"op":"incr","path":"/n","value":1}]}`))
	if err != nil {
		t.Fatal(err)
	}
	patched, err := s.PatchItem(ctx, ItemRef{CollectionRef: CollectionRef{DB: "db", Coll: "items"}, PartitionKey: pk, ID: "big"}, patch, ifMatch(created.ETag))
	if err != nil || field(t, patched, "n") != 2.0 || len(patched.Body) != len(created.Body) {
		t.Fatalf("patch: %v", err)
	}
	if _, err := s.CreateItem(ctx, CollectionRef{DB: "db", Coll: "items"}, pk, bigDoc("huge", 2<<20), ItemOptions{}); !errors.Is(err, ErrTooLarge) {
		t.Fatalf("a 2 MB+ item: %v, want ErrTooLarge", err)
	}
	if _, err := s.ReplaceItem(ctx, ItemRef{CollectionRef: CollectionRef{DB: "db", Coll: "items"}, PartitionKey: pk, ID: "big"}, []byte(`{"id":"big","pk":"a"}`), ItemOptions{}); err != nil {
		t.Fatal(err)
	}
	if got := testkit.CountKeys(t, store, chunks); got != 3 {
		t.Fatalf("%d pieces after shrinking, want 3 (the other large item's)", got)
	}
	if _, err := s.DeleteItem(ctx, ItemRef{CollectionRef: CollectionRef{DB: "db", Coll: "items"}, PartitionKey: pk, ID: "big\x00x"}, ItemOptions{}); err != nil {
		t.Fatal(err)
	}
	if got := testkit.CountKeys(t, store, chunks); got != 0 {
		t.Fatalf("%d pieces after delete", got)
	}
	if _, err := s.CreateItem(ctx, CollectionRef{DB: "db", Coll: "items"}, pk, bigDoc("again", size), ItemOptions{}); err != nil {
		t.Fatal(err)
	}
	if err := s.DeleteContainer(ctx, CollectionRef{DB: "db", Coll: "items"}, Preconditions{}); err != nil {
		t.Fatal(err)
	}
	if got := testkit.CountKeys(t, store, chunksOfDatabase("db")); got != 0 {
		t.Fatalf("%d pieces after container delete", got)
	}
}

// TestItemIDRules: an item id may take up to 1023 bytes (Cosmos DB's
// per-item limit, longer than the 255 characters of other resources); one
// byte more, an empty id or a backslash is 400.
func TestItemIDRules(t *testing.T) {
	s, _ := newTestService(t, "")
	ctx := context.Background()
	pk := pkOf(t, "a")
	create := func(id string) error {
		b, _ := json.Marshal(map[string]any{"id": id, "pk": "a"})
		_, err := s.CreateItem(ctx, CollectionRef{DB: "db", Coll: "items"}, pk, b, ItemOptions{})
		return err
	}
	long := strings.Repeat("é", 511) + "x" // 1023 bytes
	if err := create(long); err != nil {
		t.Fatalf("a 1023-byte id: %v", err)
	}
	if it, err := s.ReadItem(ctx, ItemRef{CollectionRef: CollectionRef{DB: "db", Coll: "items"}, PartitionKey: pk, ID: long}, ItemOptions{}); err != nil || it.ID != long {
		t.Fatalf("read the 1023-byte id: %v", err)
	}
	for _, id := range []string{long + "y", "", `a\b`} {
		if err := create(id); !errors.Is(err, ErrBadRequest) {
			t.Errorf("id %q: %v, want ErrBadRequest", id, err)
		}
	}
	// Azure's gateway creates items with these ids (the Java SDK's
	// CosmosItemIdEncodingTest, run against it); only the backslash is
	// refused.
	for _, id := range []string{"a/b", "a?b", "a#b", "trailing ", "trailing   ", " leading", "tab\tin", "cr\rin", "lf\nin", "pct%20in", "allowed,=.:~+-@()^${}[]!_"} {
		if err := create(id); err != nil {
			t.Errorf("id %q: %v, want it created", id, err)
			continue
		}
		if it, err := s.ReadItem(ctx, ItemRef{CollectionRef: CollectionRef{DB: "db", Coll: "items"}, PartitionKey: pk, ID: id}, ItemOptions{}); err != nil || it.ID != id {
			t.Errorf("read id %q: %v", id, err)
		}
	}
}

// TestLargeItemExpires: an expired large item reads as absent, and the
// write that finds it removes its pieces with it.
func TestLargeItemExpires(t *testing.T) {
	s, clock := newTestService(t, `{"id":"items","partitionKey":{"paths":["/pk"]},"defaultTtl":10}`)
	ctx := context.Background()
	pk := pkOf(t, "a")
	if _, err := s.CreateItem(ctx, CollectionRef{DB: "db", Coll: "items"}, pk, bigDoc("big", 500*1024), ItemOptions{}); err != nil {
		t.Fatal(err)
	}
	clock.Advance(11 * time.Second)
	if _, err := s.ReadItem(ctx, ItemRef{CollectionRef: CollectionRef{DB: "db", Coll: "items"}, PartitionKey: pk, ID: "big"}, ItemOptions{}); !errors.Is(err, ErrNotFound) {
		t.Fatalf("expired large item: %v, want ErrNotFound", err)
	}
	if _, err := s.CreateItem(ctx, CollectionRef{DB: "db", Coll: "items"}, pk, []byte(`{"id":"big","pk":"a"}`), ItemOptions{}); err != nil {
		t.Fatalf("create over the expired item: %v", err)
	}
	if err := s.store.View(ctx, func(r kv.Reader) error {
		p := chunksOfContainer("db", "items")
		return r.Scan(p, kv.PrefixEnd(p), func(k, _ []byte) error {
			t.Errorf("piece %x left behind", k)
			return nil
		})
	}); err != nil {
		t.Fatal(err)
	}
}

// TestSmallItemWritesDeleteNoRange: creating, replacing, upserting and
// deleting items that fit one value issues no range deletion (each would
// leave a range tombstone in the store's memtable that every later write
// pays for); only an item that had pieces deletes them, key by key.
func TestSmallItemWritesDeleteNoRange(t *testing.T) {
	counted := &testkit.RangeDeletes{Store: memory.Open()}
	t.Cleanup(func() { _ = counted.Close() })
	s, _ := newItemsService(t, Config{Store: counted}, "")
	ctx := context.Background()
	coll := CollectionRef{DB: "db", Coll: "items"}
	pk := pkOf(t, "a")
	before := counted.Count()
	for i := range 20 {
		id := fmt.Sprint("item", i)
		if _, err := s.CreateItem(ctx, coll, pk, []byte(`{"id":"`+id+`","pk":"a"}`), ItemOptions{}); err != nil {
			t.Fatal(err)
		}
		if _, err := s.ReplaceItem(ctx, ItemRef{CollectionRef: coll, PartitionKey: pk, ID: id}, []byte(`{"id":"`+id+`","pk":"a","n":2}`), ItemOptions{}); err != nil {
			t.Fatal(err)
		}
		if _, _, err := s.UpsertItem(ctx, coll, pk, []byte(`{"id":"`+id+`","pk":"a","n":3}`), ItemOptions{}); err != nil {
			t.Fatal(err)
		}
		if _, err := s.DeleteItem(ctx, ItemRef{CollectionRef: coll, PartitionKey: pk, ID: id}, ItemOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	// A large item replaced by a small one loses its pieces without one.
	if _, err := s.CreateItem(ctx, coll, pk, bigDoc("big", 300*1024), ItemOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.ReplaceItem(ctx, ItemRef{CollectionRef: coll, PartitionKey: pk, ID: "big"}, []byte(`{"id":"big","pk":"a"}`), ItemOptions{}); err != nil {
		t.Fatal(err)
	}
	if got := testkit.CountKeys(t, counted, chunksOfContainer("db", "items")); got != 0 {
		t.Fatalf("%d pieces left after shrinking", got)
	}
	// Compaction removes the garbage records, the large one's every part
	// included, key by key too.
	if _, err := s.CompactChangeFeeds(ctx); err != nil {
		t.Fatal(err)
	}
	parts := map[uint64][]uint64{}
	prefix := changesPrefix("db", "items")
	err := counted.View(ctx, func(r kv.Reader) error {
		return r.Scan(prefix, kv.PrefixEnd(prefix), func(k, _ []byte) error {
			rest := k[len(prefix):]
			lsn := binary.BigEndian.Uint64(rest)
			parts[lsn] = append(parts[lsn], binary.BigEndian.Uint64(rest[8:]))
			return nil
		})
	})
	if err != nil {
		t.Fatal(err)
	}
	for lsn, p := range parts {
		if p[0] != 0 || p[len(p)-1] != uint64(len(p)-1) {
			t.Errorf("change record %d: parts %v left", lsn, p)
		}
	}
	if len(parts) != 1 {
		t.Errorf("%d change records after compaction, want 1 (the live item's)", len(parts))
	}
	if n := counted.Count() - before; n != 0 {
		t.Fatalf("%d range deletions for item writes and compaction, want 0", n)
	}
}
