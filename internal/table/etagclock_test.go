package table

import (
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cerulean-db/cerulean/internal/azauth"
	"github.com/cerulean-db/cerulean/internal/azerr"
	"github.com/cerulean-db/cerulean/internal/kv"
	"github.com/cerulean-db/cerulean/internal/kv/memory"
	"github.com/cerulean-db/cerulean/internal/table/odata"
)

// clockedService returns a Service over store whose clock reads *now.
func clockedService(store kv.Store, now *time.Time, mu *sync.Mutex) *Service {
	accts := azauth.NewAccounts(azauth.Account{Name: azauth.DevAccount, Keys: [][]byte{[]byte("key")}})
	return New(Config{Store: store, Accounts: accts, Now: func() time.Time {
		mu.Lock()
		defer mu.Unlock()
		return *now
	}})
}

// TestETagIsCommitTime: an entity's ETag renders the write's UTC time
// with escaped colons and, as Azure writes it, no fraction on a whole
// second; Timestamp is that time.
func TestETagIsCommitTime(t *testing.T) {
	s := newTestService(t)
	mustCreateTable(t, s, "tbl")
	e, err := s.WriteEntity(t.Context(), testAccount, "tbl", EntityWrite{Kind: WriteInsert, PartitionKey: "p", RowKey: "r"})
	if err != nil {
		t.Fatal(err)
	}
	want := `W/"datetime'2026-06-01T12%3A00%3A00Z'"`
	if e.ETag() != want {
		t.Errorf("ETag %s, want %s", e.ETag(), want)
	}
	if e.Timestamp != testTicks {
		t.Errorf("Timestamp %s, want the clock's %s", odata.FormatDateTime(e.Timestamp), odata.FormatDateTime(testTicks))
	}
}

// TestETagsUniqueUnderStoppedClock: with the clock standing still, every
// write still gets a new ETag, one tick later, and its Timestamp follows.
func TestETagsUniqueUnderStoppedClock(t *testing.T) {
	s := newTestService(t)
	mustCreateTable(t, s, "tbl")
	seen := map[string]bool{}
	var prev uint64
	for i := range 50 {
		kind := WriteInsertOrReplace
		if i%3 == 0 {
			kind = WriteInsertOrMerge
		}
		e, err := s.WriteEntity(t.Context(), testAccount, "tbl", EntityWrite{Kind: kind, PartitionKey: "p", RowKey: string(rune('a' + i%4))})
		if err != nil {
			t.Fatal(err)
		}
		if seen[e.ETag()] || e.Version <= prev {
			t.Fatalf("write %d: ETag %s repeats or goes back", i, e.ETag())
		}
		seen[e.ETag()], prev = true, e.Version
		if got := strings.ReplaceAll(e.ETag(), "%3A", ":"); got != `W/"datetime'`+odata.TicksTime(e.Timestamp).Format(etagLayout)+`'"` {
			t.Fatalf("ETag %s does not carry Timestamp %s", e.ETag(), odata.FormatDateTime(e.Timestamp))
		}
	}
}

// TestETagsSurviveRestartWithClockBack: after a restart on the same
// store with the clock an hour behind, new ETags still pass the old
// ones, because the first write reads the stored watermark.
func TestETagsSurviveRestartWithClockBack(t *testing.T) {
	store := memory.Open()
	t.Cleanup(func() { _ = store.Close() })
	var mu sync.Mutex
	now := testTime
	s1 := clockedService(store, &now, &mu)
	mustCreateTable(t, s1, "tbl")
	var last uint64
	for i := range 5 {
		e, err := s1.WriteEntity(t.Context(), testAccount, "tbl", EntityWrite{Kind: WriteInsertOrReplace, PartitionKey: "p", RowKey: "r"})
		if err != nil {
			t.Fatal(err)
		}
		if i == 0 {
			mu.Lock()
			now = now.Add(10 * time.Minute) // past the first reservation
			mu.Unlock()
		}
		last = e.Version
	}
	mu.Lock()
	now = testTime.Add(-time.Hour)
	mu.Unlock()
	s2 := clockedService(store, &now, &mu) // a restart: a fresh clock
	e, err := s2.WriteEntity(t.Context(), testAccount, "tbl", EntityWrite{Kind: WriteInsertOrReplace, PartitionKey: "q", RowKey: "other"})
	if err != nil {
		t.Fatal(err)
	}
	if e.Version <= last {
		t.Errorf("after restart ETag %s, not past the last issued %s", e.ETag(), etag(last))
	}
	if time.Duration(e.Version-last)*100 > time.Duration(etagWindow)*100 {
		t.Errorf("after restart ETag %s jumped more than one reservation past %s", e.ETag(), etag(last))
	}
}

// TestLegacyETagsStillMatch: entities written before ETags carried the
// commit time (their version a small counter) keep their ETag, If-Match
// compares it exactly, and the next write moves past their Timestamp.
func TestLegacyETagsStillMatch(t *testing.T) {
	s := newTestService(t)
	mustCreateTable(t, s, "tbl")
	legacy := &Entity{PartitionKey: "p", RowKey: "r", Version: 42, Timestamp: testTicks + 5e7, Properties: props("N", 1)}
	err := s.store.Update(t.Context(), func(tx kv.Txn) error {
		return storeEntity(tx, entityKey(testAccount, "tbl", "p", "r"), legacy, storedEntity{})
	})
	if err != nil {
		t.Fatal(err)
	}
	got, err := s.GetEntity(t.Context(), testAccount, "tbl", "p", "r")
	if err != nil {
		t.Fatal(err)
	}
	if got.ETag() != `W/"datetime'1970-01-01T00%3A00%3A00.0000042Z'"` {
		t.Fatalf("legacy ETag %s", got.ETag())
	}
	cond, _, err := parseIfMatch(`W/"datetime'1970-01-01T00%3A00%3A00.0000041Z'"`)
	if err != nil {
		t.Fatal(err)
	}
	_, err = s.WriteEntity(t.Context(), testAccount, "tbl", EntityWrite{Kind: WriteReplace, PartitionKey: "p", RowKey: "r", IfMatch: cond})
	wantAzErr(t, err, azerr.ErrUpdateConditionNotSatisfied, "stale legacy ETag")
	cond, _, _ = parseIfMatch(got.ETag())
	e, err := s.WriteEntity(t.Context(), testAccount, "tbl", EntityWrite{Kind: WriteReplace, PartitionKey: "p", RowKey: "r", IfMatch: cond})
	if err != nil {
		t.Fatal(err)
	}
	if e.Timestamp <= legacy.Timestamp || e.Timestamp != int64(e.Version)+unixEpochTicks {
		t.Errorf("after legacy Timestamp %d: Timestamp %d, version %d", legacy.Timestamp, e.Timestamp, e.Version)
	}
}

// TestETagsUniqueAcrossConcurrentWriters: writers racing on a stopped
// clock, on one entity and on many, never get the same tick, and each
// entity's ETag increases with its writes.
func TestETagsUniqueAcrossConcurrentWriters(t *testing.T) {
	s := newTestService(t)
	mustCreateTable(t, s, "tbl")
	const writers, writes = 8, 40
	ticks := make([][]uint64, writers)
	var wg sync.WaitGroup
	for w := range writers {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range writes {
				rk := "shared"
				if i%2 == 1 {
					rk = string(rune('a' + w))
				}
				e, err := s.WriteEntity(t.Context(), testAccount, "tbl", EntityWrite{Kind: WriteInsertOrMerge, PartitionKey: "p", RowKey: rk, Properties: props("N", i)})
				if err != nil {
					t.Error(err)
					return
				}
				ticks[w] = append(ticks[w], e.Version)
			}
		}()
	}
	wg.Wait()
	seen := map[uint64]bool{}
	for w := range ticks {
		for i, v := range ticks[w] {
			if seen[v] {
				t.Fatalf("tick %d issued twice", v)
			}
			seen[v] = true
			if i > 0 && v <= ticks[w][i-1] {
				t.Fatalf("writer %d: tick %d after %d", w, v, ticks[w][i-1])
			}
		}
	}
	if len(seen) != writers*writes {
		t.Fatalf("%d ticks for %d writes", len(seen), writers*writes)
	}
}
