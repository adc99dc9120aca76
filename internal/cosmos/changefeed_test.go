package cosmos

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cerulean-db/cerulean/internal/cosmos/epk"
	"github.com/cerulean-db/cerulean/internal/kv"
	"github.com/cerulean-db/cerulean/internal/kv/memory"
	"github.com/cerulean-db/cerulean/internal/testkit"
)

type feedEntry struct {
	ID       string         `json:"id"`
	LSN      uint64         `json:"_lsn"`
	N        int            `json:"n"`
	Current  map[string]any `json:"current"`
	Previous map[string]any `json:"previous"`
	Metadata struct {
		OperationType     string `json:"operationType"`
		LSN               uint64 `json:"lsn"`
		TimeToLiveExpired bool   `json:"timeToLiveExpired"`
	} `json:"metadata"`
}

// expiryOps lists entries as "operation:expired", space-separated, so
// that a test can tell deletes from expiries.
func expiryOps(entries []feedEntry) string {
	var ops []string
	for _, e := range entries {
		ops = append(ops, fmt.Sprintf("%s:%v", e.Metadata.OperationType, e.Metadata.TimeToLiveExpired))
	}
	return strings.Join(ops, " ")
}

// drainFeed reads a change feed from opts until a page comes back empty
// and returns the entries and the ETag to resume with.
func drainFeed(t *testing.T, s *Service, coll string, opts ChangeFeedOptions) ([]feedEntry, ChangeFeedOptions) {
	t.Helper()
	var out []feedEntry
	for range 10_000 {
		f, err := s.ReadChangeFeed(context.Background(), CollectionRef{DB: "db", Coll: coll}, opts)
		if err != nil {
			t.Fatalf("read change feed: %v", err)
		}
		after, err := ParseChangeFeedETag(f.ETag)
		if err != nil {
			t.Fatal(err)
		}
		opts.After, opts.HasAfter, opts.FromNow, opts.Since = after, true, false, time.Time{}
		if len(f.Items) == 0 {
			return out, opts
		}
		for _, raw := range f.Items {
			var e feedEntry
			if err := json.Unmarshal(raw, &e); err != nil {
				t.Fatalf("entry %s: %v", raw, err)
			}
			out = append(out, e)
		}
	}
	t.Fatal("feed never drained")
	return nil, opts
}

// TestChangeFeedConcurrentWritersMissNothing: while writers race on many
// partitions, a reader polling with its ETag sees every change exactly
// once, in LSN order with no gap — the property that lets a feed resume
// after any page without missing or repeating anything.
func TestChangeFeedConcurrentWritersMissNothing(t *testing.T) {
	// All versions are kept only for a container whose change feed policy
	// asks for them.
	s, _ := newTestService(t, `{"id":"items","partitionKey":{"paths":["/pk"]},"changeFeedPolicy":{"retentionDuration":60}}`)
	ctx := context.Background()
	const writers, each = 8, 40
	done := make(chan struct{})
	var wg sync.WaitGroup
	for w := range writers {
		wg.Go(func() {
			for i := range each {
				doc := fmt.Sprintf(`{"id":"w%d-%d","pk":"p%d","n":%d}`, w, i%5, i%3, i)
				if _, _, err := s.UpsertItem(ctx, CollectionRef{DB: "db", Coll: "items"}, "", []byte(doc), ItemOptions{}); err != nil {
					t.Errorf("upsert: %v", err)
					return
				}
			}
		})
	}
	go func() { wg.Wait(); close(done) }()
	opts := ChangeFeedOptions{Mode: AllVersionsAndDeletes, MaxItemCount: 7}
	var all []feedEntry
	for polling := true; polling; {
		select {
		case <-done:
			polling = false
		default:
		}
		var got []feedEntry
		got, opts = drainFeed(t, s, "items", opts)
		all = append(all, got...)
	}
	if len(all) != writers*each {
		t.Fatalf("saw %d changes, want %d", len(all), writers*each)
	}
	for i, e := range all {
		if e.Metadata.LSN != uint64(i+1) {
			t.Fatalf("change %d has LSN %d: a gap or a repeat", i, e.Metadata.LSN)
		}
	}
	// The latest-version feed has each item once, at its last version.
	latest, _ := drainFeed(t, s, "items", ChangeFeedOptions{})
	if len(latest) != writers*15 { // ids w-(i%5) × partitions p(i%3)
		t.Fatalf("latest version: %d items, want %d", len(latest), writers*15)
	}
}

// TestChangeFeedTTLAndDeletes: an expiry is a delete marked
// timeToLiveExpired in the all-versions feed, and the latest-version feed
// never shows an expired or deleted item.
func TestChangeFeedTTLAndDeletes(t *testing.T) {
	s, clock := newTestService(t, `{"id":"items","partitionKey":{"paths":["/pk"]},"defaultTtl":10,"changeFeedPolicy":{"retentionDuration":60}}`)
	ctx := context.Background()
	for _, id := range []string{"e", "d"} {
		if _, err := s.CreateItem(ctx, CollectionRef{DB: "db", Coll: "items"}, "", []byte(`{"id":"`+id+`","pk":"p"}`), ItemOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := s.DeleteItem(ctx, ItemRef{CollectionRef: CollectionRef{DB: "db", Coll: "items"}, PartitionKey: pkOf(t, "p"), ID: "d"}, ItemOptions{}); err != nil {
		t.Fatal(err)
	}
	clock.Advance(20 * time.Second)
	if latest, _ := drainFeed(t, s, "items", ChangeFeedOptions{}); len(latest) != 0 {
		t.Fatalf("latest version shows expired or deleted items: %+v", latest)
	}
	// Writing the id again removes the expired item first.
	if _, err := s.CreateItem(ctx, CollectionRef{DB: "db", Coll: "items"}, "", []byte(`{"id":"e","pk":"p","n":2}`), ItemOptions{}); err != nil {
		t.Fatal(err)
	}
	all, _ := drainFeed(t, s, "items", ChangeFeedOptions{Mode: AllVersionsAndDeletes})
	if got, want := expiryOps(all), "create:false create:false delete:false delete:true create:false"; got != want {
		t.Fatalf("all versions: %s, want %s", got, want)
	}
	if all[3].Previous["id"] != "e" || all[3].Previous["pk"] != "p" || all[4].Current["n"] != float64(2) {
		t.Fatalf("expiry entry %+v, re-create %+v", all[3], all[4])
	}
}

// TestChangeFeedLargeItemAndHierarchicalScope: a record larger than one kv
// value comes back whole; a hierarchical key prefix and an EPK range
// select exactly their items.
func TestChangeFeedLargeItemAndHierarchicalScope(t *testing.T) {
	s, _ := newTestService(t, `{"id":"items","partitionKey":{"paths":["/t","/u"],"kind":"MultiHash","version":2},"changeFeedPolicy":{"retentionDuration":60}}`)
	ctx := context.Background()
	big := strings.Repeat("x", 97_000)
	docs := []string{
		`{"id":"1","t":"a","u":"x","big":"` + big + `"}`,
		`{"id":"2","t":"a","u":"y"}`,
		`{"id":"3","t":"b","u":"x"}`,
	}
	for _, d := range docs {
		if _, err := s.CreateItem(ctx, CollectionRef{DB: "db", Coll: "items"}, "", []byte(d), ItemOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	all, _ := drainFeed(t, s, "items", ChangeFeedOptions{Mode: AllVersionsAndDeletes})
	if len(all) != 3 || all[0].Current["big"] != big {
		t.Fatalf("large record not read back whole (%d entries)", len(all))
	}
	pk, _ := NewPartitionKey("a")
	prefix, _ := drainFeed(t, s, "items", ChangeFeedOptions{PartitionKey: pk})
	if len(prefix) != 2 || prefix[0].ID != "1" || prefix[1].ID != "2" {
		t.Fatalf("prefix [a]: %+v", prefix)
	}
	// The EPK range of the prefix ["a"]: its hash, up to the next value.
	lo := epk.ForRouting(epk.MultiHash, []any{"a"})
	hi := lo + strings.Repeat("F", 32)
	byEPK, _ := drainFeed(t, s, "items", ChangeFeedOptions{MinEPK: lo, MaxEPK: hi})
	if len(byEPK) != 2 || byEPK[0].ID != "1" || byEPK[1].ID != "2" {
		t.Fatalf("EPK range of [a]: %d items", len(byEPK))
	}
	full := epk.ForRouting(epk.MultiHash, []any{"b", "x"})
	one, _ := drainFeed(t, s, "items", ChangeFeedOptions{MinEPK: full, MaxEPK: full + "1"})
	if len(one) != 1 || one[0].ID != "3" {
		t.Fatalf("EPK point range of [b x]: %+v", one)
	}
}

// TestTTLSweepRecordsExpiries: the sweeper removes expired items without
// any request touching them, each recorded in the all-versions feed as a
// delete marked timeToLiveExpired; items not yet expired, and containers
// without a TTL, are left alone, and a second sweep finds nothing.
func TestTTLSweepRecordsExpiries(t *testing.T) {
	s, clock := newTestService(t, `{"id":"items","partitionKey":{"paths":["/pk"]},"defaultTtl":10,"changeFeedPolicy":{"retentionDuration":60}}`)
	ctx := context.Background()
	if _, err := s.CreateContainer(ctx, "db", []byte(`{"id":"keep","partitionKey":{"paths":["/pk"]}}`), Throughput{}); err != nil {
		t.Fatal(err)
	}
	for _, item := range []string{`{"id":"a","pk":"p"}`, `{"id":"b","pk":"q"}`, `{"id":"long","pk":"p","ttl":100}`} {
		if _, err := s.CreateItem(ctx, CollectionRef{DB: "db", Coll: "items"}, "", []byte(item), ItemOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := s.CreateItem(ctx, CollectionRef{DB: "db", Coll: "keep"}, "", []byte(`{"id":"k","pk":"p"}`), ItemOptions{}); err != nil {
		t.Fatal(err)
	}
	if n, err := s.SweepExpired(ctx); err != nil || n != 0 {
		t.Fatalf("sweep before anything expired: %d %v", n, err)
	}
	clock.Advance(20 * time.Second)
	if n, err := s.SweepExpired(ctx); err != nil || n != 2 {
		t.Fatalf("sweep: %d %v, want 2", n, err)
	}
	if n, err := s.SweepExpired(ctx); err != nil || n != 0 {
		t.Fatalf("second sweep: %d %v, want 0", n, err)
	}
	all, _ := drainFeed(t, s, "items", ChangeFeedOptions{Mode: AllVersionsAndDeletes})
	if got, want := expiryOps(all), "create:false create:false create:false delete:true delete:true"; got != want {
		t.Fatalf("all versions: %s, want %s", got, want)
	}
	if it, err := s.ReadItem(ctx, ItemRef{CollectionRef: CollectionRef{DB: "db", Coll: "keep"}, PartitionKey: pkOf(t, "p"), ID: "k"}, ItemOptions{}); err != nil || it == nil {
		t.Fatalf("an item of a container without TTL: %v", err)
	}
}

// cosmosBytes is what a container's items and change log take in the
// store: the bytes of their keys and values.
func cosmosBytes(t *testing.T, s *Service, coll string) (items, log int) {
	t.Helper()
	sum := func(prefix []byte) int {
		n := 0
		err := s.store.View(context.Background(), func(rd kv.Reader) error {
			return rd.Scan(prefix, kv.PrefixEnd(prefix), func(k, v []byte) error { n += len(k) + len(v); return nil })
		})
		if err != nil {
			t.Fatal(err)
		}
		return n
	}
	return sum(itemsPrefix("db", coll)), sum(changesPrefix("db", coll)) + sum(changeSeqKey("db", coll))
}

// TestChangeLogStaysBoundedUnderReplaces: 100,000 replaces (10,000 with
// -short or -race) of one item in
// a default container (no change feed policy) leave the item and a log
// within a few times the item's own storage, as in Azure, whose
// latest-version feed keeps only the latest change of each item; the
// latest-version feed still serves the item, once, at its last version.
func TestChangeLogStaysBoundedUnderReplaces(t *testing.T) {
	s, _ := newTestService(t, "")
	ctx := context.Background()
	ref := CollectionRef{DB: "db", Coll: "items"}
	pad := strings.Repeat("x", 400)
	if _, err := s.CreateItem(ctx, ref, "", []byte(`{"id":"counter","pk":"p","n":0,"pad":"`+pad+`"}`), ItemOptions{}); err != nil {
		t.Fatal(err)
	}
	one, _ := cosmosBytes(t, s, "items")
	replaces := 100_000
	if testing.Short() || raceEnabled {
		replaces = 10_000 // the same bound, in a tenth of the time
	}
	maxSeen := 0
	for i := 1; i <= replaces; i++ {
		doc := fmt.Sprintf(`{"id":"counter","pk":"p","n":%d,"pad":"%s"}`, i, pad)
		if _, err := s.ReplaceItem(ctx, ItemRef{CollectionRef: ref, PartitionKey: pkOf(t, "p"), ID: "counter"}, []byte(doc), ItemOptions{}); err != nil {
			t.Fatal(err)
		}
		if i%10_000 == 0 {
			items, log := cosmosBytes(t, s, "items")
			maxSeen = max(maxSeen, items+log)
		}
	}
	items, log := cosmosBytes(t, s, "items")
	t.Logf("one item %d B; after %d replaces: item %d B, change log %d B (most seen %d B)", one, replaces, items, log, maxSeen)
	// Between compactions the log grows by at most compactMinGrowth
	// records, each about the size of the item.
	if bound := 2 * one * (compactMinGrowth + 2); maxSeen > bound || items+log > bound {
		t.Fatalf("storage peaked at %d B, want at most %d B", maxSeen, bound)
	}
	if _, err := s.CompactChangeFeeds(ctx); err != nil {
		t.Fatal(err)
	}
	items, log = cosmosBytes(t, s, "items")
	if items+log > 3*one {
		t.Fatalf("after compaction: item %d B + log %d B, want at most 3 × %d B", items, log, one)
	}
	latest, _ := drainFeed(t, s, "items", ChangeFeedOptions{})
	if len(latest) != 1 || latest[0].N != replaces {
		t.Fatalf("latest-version feed after compaction: %+v", latest)
	}
}

// TestCompactionKeepsFeedGuarantees: random creates, replaces and deletes
// of a few items, with the log compacted (inline and explicitly) between
// them, while a latest-version reader resumes page by page from its ETag:
// every drain returns exactly the items whose current version was written
// after the reader's position, each once, in LSN order — what it would
// have read without compaction. The seed is printed for replay.
func TestCompactionKeepsFeedGuarantees(t *testing.T) {
	seed := time.Now().UnixNano()
	t.Logf("seed %d", seed)
	r := rand.New(rand.NewPCG(uint64(seed), 0))
	s, _ := newTestService(t, "")
	ctx := context.Background()
	ref := CollectionRef{DB: "db", Coll: "items"}
	type version struct {
		lsn uint64
		n   int
	}
	current := map[string]version{} // live items: the LSN of their current version
	var lsn uint64
	opts := ChangeFeedOptions{MaxItemCount: 3}
	var pos uint64
	for step := range 3000 {
		id := fmt.Sprintf("i%d", r.IntN(12))
		pk := pkOf(t, "p")
		switch _, live := current[id]; {
		case live && r.IntN(4) == 0:
			if _, err := s.DeleteItem(ctx, ItemRef{CollectionRef: ref, PartitionKey: pk, ID: id}, ItemOptions{}); err != nil {
				t.Fatal(err)
			}
			lsn++
			delete(current, id)
		default:
			doc := fmt.Sprintf(`{"id":%q,"pk":"p","n":%d}`, id, step)
			if _, _, err := s.UpsertItem(ctx, ref, "", []byte(doc), ItemOptions{}); err != nil {
				t.Fatal(err)
			}
			lsn++
			current[id] = version{lsn, step}
		}
		if r.IntN(50) == 0 {
			if _, err := s.CompactChangeFeeds(ctx); err != nil {
				t.Fatal(err)
			}
		}
		if r.IntN(20) != 0 {
			continue
		}
		var got []feedEntry
		got, opts = drainFeed(t, s, "items", opts)
		var want []version
		for _, v := range current {
			if v.lsn > pos {
				want = append(want, v)
			}
		}
		slices.SortFunc(want, func(a, b version) int { return cmp.Compare(a.lsn, b.lsn) })
		if len(got) != len(want) {
			t.Fatalf("step %d: read %d changes after LSN %d, want %d", step, len(got), pos, len(want))
		}
		for i, e := range got {
			if e.LSN != want[i].lsn || e.N != want[i].n {
				t.Fatalf("step %d: change %d is LSN %d (n %d), want LSN %d (n %d)", step, i, e.LSN, e.N, want[i].lsn, want[i].n)
			}
		}
		pos = opts.After
		if pos != lsn {
			t.Fatalf("step %d: the feed resumes after %d, the last LSN is %d", step, pos, lsn)
		}
	}
}

// TestChangeFeedPolicyRetention: a container whose changeFeedPolicy sets
// a retentionDuration keeps every version and delete for the
// all-versions-and-deletes feed for that long; past it compaction keeps
// only what the latest-version feed serves.
func TestChangeFeedPolicyRetention(t *testing.T) {
	s, clock := newTestService(t, `{"id":"items","partitionKey":{"paths":["/pk"]},"changeFeedPolicy":{"retentionDuration":10}}`)
	ctx := context.Background()
	ref := CollectionRef{DB: "db", Coll: "items"}
	for n := range 20 {
		if _, _, err := s.UpsertItem(ctx, ref, "", []byte(fmt.Sprintf(`{"id":"a","pk":"p","n":%d}`, n)), ItemOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := s.CreateItem(ctx, ref, "", []byte(`{"id":"gone","pk":"p"}`), ItemOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.DeleteItem(ctx, ItemRef{CollectionRef: ref, PartitionKey: pkOf(t, "p"), ID: "gone"}, ItemOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.CompactChangeFeeds(ctx); err != nil {
		t.Fatal(err)
	}
	if all, _ := drainFeed(t, s, "items", ChangeFeedOptions{Mode: AllVersionsAndDeletes}); len(all) != 22 {
		t.Fatalf("within the retention: %d changes, want 22", len(all))
	}
	clock.Advance(11 * time.Minute)
	if _, err := s.CompactChangeFeeds(ctx); err != nil {
		t.Fatal(err)
	}
	all, _ := drainFeed(t, s, "items", ChangeFeedOptions{Mode: AllVersionsAndDeletes})
	if len(all) != 1 || all[0].Current["n"] != float64(19) || all[0].Metadata.LSN != 20 {
		t.Fatalf("past the retention: %+v, want the current version of a only", all)
	}
}

// TestAllVersionsWithoutPolicy: a container without a changeFeedPolicy
// serves the all-versions-and-deletes feed too, as Azure does with
// continuous backup (Microsoft's Python live test
// test_query_change_feed_with_all_versions_and_deletes creates its
// container without a policy outside the emulator). Once that feed has
// been read, every version and delete is kept for allVersionsRetention
// after the last such read; a container never read that way compacts to
// its latest versions.
func TestAllVersionsWithoutPolicy(t *testing.T) {
	s, clock := newTestService(t, `{"id":"items","partitionKey":{"paths":["/pk"]}}`)
	ctx := context.Background()
	ref := CollectionRef{DB: "db", Coll: "items"}
	upsert := func(from, to int) {
		t.Helper()
		for n := from; n < to; n++ {
			if _, _, err := s.UpsertItem(ctx, ref, "", []byte(fmt.Sprintf(`{"id":"a","pk":"p","n":%d}`, n)), ItemOptions{}); err != nil {
				t.Fatal(err)
			}
		}
	}
	compact := func() {
		t.Helper()
		if _, err := s.CompactChangeFeeds(ctx); err != nil {
			t.Fatal(err)
		}
	}
	// Never read in that mode: superseded versions go.
	upsert(0, 10)
	compact()
	if all, _ := drainFeed(t, s, "items", ChangeFeedOptions{Mode: LatestVersion}); len(all) != 1 {
		t.Fatalf("before any all-versions read: %d changes, want 1", len(all))
	}
	// A reader starts from now; every version and delete after it is kept.
	_, from := drainFeed(t, s, "items", ChangeFeedOptions{Mode: AllVersionsAndDeletes, FromNow: true})
	upsert(10, 30)
	if _, err := s.CreateItem(ctx, ref, "", []byte(`{"id":"gone","pk":"p"}`), ItemOptions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := s.DeleteItem(ctx, ItemRef{CollectionRef: ref, PartitionKey: pkOf(t, "p"), ID: "gone"}, ItemOptions{}); err != nil {
		t.Fatal(err)
	}
	compact()
	all, _ := drainFeed(t, s, "items", from)
	if len(all) != 22 || all[0].Current["n"] != float64(10) || all[21].Metadata.OperationType != "delete" {
		t.Fatalf("after an all-versions read: %d changes %+v, want versions 10..29, a create and a delete", len(all), all)
	}
	// A week after the last all-versions read, only the latest versions stay.
	clock.Advance(allVersionsRetention + time.Minute)
	compact()
	all, _ = drainFeed(t, s, "items", from)
	if len(all) != 1 || all[0].Current["n"] != float64(29) {
		t.Fatalf("past the retention: %+v, want the current version of a only", all)
	}
}

// TestConcurrentWritersDoNotConflict: sixteen writers creating and
// replacing distinct items of one logical partition never lose a commit
// to each other (the change log's LSN is taken at commit, not read and
// bumped by every writer), and the feed then holds every write once, in
// LSN order without gaps.
func TestConcurrentWritersDoNotConflict(t *testing.T) {
	store := memory.Open()
	t.Cleanup(func() { _ = store.Close() })
	conflicts := testkit.ObserveConflicts(t, store)
	s, _ := newItemsService(t, Config{Store: store}, "")
	ctx := context.Background()
	ref := CollectionRef{DB: "db", Coll: "items"}
	pk := pkOf(t, "hot")
	const writers, each = 16, 25
	var wg sync.WaitGroup
	for w := range writers {
		wg.Go(func() {
			for i := range each {
				doc := fmt.Sprintf(`{"id":"w%d-%d","pk":"hot","n":%d}`, w, i, i)
				if _, err := s.CreateItem(ctx, ref, pk, []byte(doc), ItemOptions{}); err != nil {
					t.Error(err)
					return
				}
			}
		})
	}
	wg.Wait()
	if n := conflicts.Count(); n != 0 {
		t.Errorf("%d commits lost to a concurrent writer of another item", n)
	}
	all, _ := drainFeed(t, s, "items", ChangeFeedOptions{})
	if len(all) != writers*each {
		t.Fatalf("the feed holds %d changes, want %d", len(all), writers*each)
	}
	seen := map[string]bool{}
	for i, e := range all {
		if e.LSN != uint64(i+1) || seen[e.ID] {
			t.Fatalf("change %d: LSN %d, id %s (seen before: %v)", i, e.LSN, e.ID, seen[e.ID])
		}
		seen[e.ID] = true
	}
	if err := s.CheckInvariants(ctx); err != nil {
		t.Fatal(err)
	}
}
