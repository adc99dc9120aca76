package cosmos

import (
	"context"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/cerulean-db/cerulean/internal/testkit"
)

// TestChangeFeedOnPostgres: on PostgreSQL, where the change log's records
// are numbered when the log is read (kv.Settle), writers on two front
// ends of one database race while a reader polls the feed through both:
// it sees every change exactly once with no gap in the LSNs, the writers
// never conflict on the log, and a record appended before its container
// was deleted never shows in a new container of the same name.
func TestChangeFeedOnPostgres(t *testing.T) {
	ctx := context.Background()
	pg := testkit.Postgres(t, 16)
	props := `{"id":"items","partitionKey":{"paths":["/pk"]},"changeFeedPolicy":{"retentionDuration":60}}`
	a, _ := newItemsService(t, Config{Store: pg}, props)
	b, err := New(Config{Store: pg})
	if err != nil {
		t.Fatal(err)
	}
	conflicts := new(conflictCount)
	pg.Observe(conflicts)
	fronts := []*Service{a, b}
	ref := CollectionRef{DB: "db", Coll: "items"}
	const writers, each = 8, 25
	done := make(chan struct{})
	var wg sync.WaitGroup
	for w := range writers {
		wg.Go(func() {
			for i := range each {
				doc := fmt.Sprintf(`{"id":"w%d-%d","pk":"p%d","n":%d}`, w, i, i%3, i)
				if _, err := fronts[w%2].CreateItem(ctx, ref, "", []byte(doc), ItemOptions{}); err != nil {
					t.Errorf("create: %v", err)
					return
				}
			}
		})
	}
	go func() { wg.Wait(); close(done) }()
	opts := ChangeFeedOptions{Mode: AllVersionsAndDeletes, MaxItemCount: 7}
	var all []feedEntry
	for poll := 0; ; poll++ {
		finished := false
		select {
		case <-done:
			finished = true
		default:
		}
		var got []feedEntry
		got, opts = drainFeed(t, fronts[poll%2], "items", opts)
		all = append(all, got...)
		if finished {
			break
		}
	}
	t.Logf("%d conflicts among %d creates and the feed's reads", conflicts.n.Load(), writers*each)
	if len(all) != writers*each {
		t.Fatalf("saw %d changes, want %d", len(all), writers*each)
	}
	seen := map[string]bool{}
	for i, e := range all {
		if e.Metadata.LSN != uint64(i+1) {
			t.Fatalf("change %d has LSN %d: a gap or a repeat", i, e.Metadata.LSN)
		}
		if id, _ := e.Current["id"].(string); seen[id] {
			t.Fatalf("item %v seen twice", e.Current["id"])
		}
		seen[e.Current["id"].(string)] = true
	}
	if err := a.CheckInvariants(ctx); err != nil {
		t.Fatal(err)
	}

	// A record not numbered yet goes with its container.
	if _, err := a.CreateItem(ctx, ref, "", []byte(`{"id":"before","pk":"p"}`), ItemOptions{}); err != nil {
		t.Fatal(err)
	}
	if err := b.DeleteContainer(ctx, ref, Preconditions{}); err != nil {
		t.Fatal(err)
	}
	if _, err := a.CreateContainer(ctx, "db", []byte(props)); err != nil {
		t.Fatal(err)
	}
	if _, err := b.CreateItem(ctx, ref, "", []byte(`{"id":"after","pk":"p"}`), ItemOptions{}); err != nil {
		t.Fatal(err)
	}
	got, _ := drainFeed(t, a, "items", ChangeFeedOptions{Mode: AllVersionsAndDeletes})
	if len(got) != 1 || got[0].Current["id"] != "after" || got[0].Metadata.LSN != 1 {
		t.Fatalf("the new container's feed: %+v, want the one record of item after, LSN 1", got)
	}
	if err := a.CheckInvariants(ctx); err != nil {
		t.Fatal(err)
	}
}

// conflictCount counts the conflicts a store reports (kv.Observer).
type conflictCount struct{ n atomic.Int64 }

func (c *conflictCount) Committed(time.Duration, int) {}
func (c *conflictCount) Conflicted()                  { c.n.Add(1) }
func (c *conflictCount) Synced(int)                   {}
