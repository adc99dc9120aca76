package cosmos

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"testing"

	"github.com/cerulean-db/cerulean/internal/testkit"
)

// benchContainerSizes are the container sizes the query scale benchmark
// measures at. The million-item size takes minutes to fill, so it runs
// only when CERULEAN_BENCH_1M is set:
//
//	CERULEAN_BENCH_1M=1 go test -run '^$' -bench CosmosQueryScale -benchtime 200x ./internal/cosmos
func benchContainerSizes() []int {
	sizes := []int{1_000, 10_000, 100_000}
	if os.Getenv("CERULEAN_BENCH_1M") != "" {
		sizes = append(sizes, 1_000_000)
	}
	return sizes
}

// scaleFillBatch is how many items one filling transaction creates
// (short enough to commit within kv.MaxTxnDuration on a loaded machine).
const scaleFillBatch = 500

// newScaleContainer is a Service over Pebble on an in-memory file system
// (the LSM's work without the disk's fsync latency) with n items in 100
// logical partitions: n is a unique number, cat one of n/10 values, so
// that an equality on cat matches 10 items at every size.
func newScaleContainer(b *testing.B, n int) *Service {
	b.Helper()
	s, _ := newItemsService(b, Config{Store: testkit.MemPebble(b), Logger: slog.New(slog.DiscardHandler)}, "")
	ctx := context.Background()
	for start := 0; start < n; start += scaleFillBatch {
		err := s.Update(ctx, func(t *Tx) error {
			for i := start; i < min(n, start+scaleFillBatch); i++ {
				doc := fmt.Sprintf(`{"id":"%07d","pk":"p%02d","n":%d,"cat":"c%d","name":"item %d"}`, i, i%100, i, i%max(n/10, 1), i)
				if _, err := t.CreateItem(CollectionRef{DB: "db", Coll: "items"}, "", []byte(doc), ItemOptions{}); err != nil {
					return err
				}
			}
			return nil
		})
		if err != nil {
			b.Fatal(err)
		}
	}
	return s
}

// BenchmarkCosmosQueryScale measures one page of selective queries over
// the whole container (all partitions) as it grows: an indexed query
// should cost what it returns, not what the container holds. items/op is
// what the page read.
func BenchmarkCosmosQueryScale(b *testing.B) {
	ctx := context.Background()
	queries := []struct {
		name, text string
		page       int
	}{
		// 10 results: a range of n, in order.
		{"range-orderby-10", "SELECT c.id, c.n FROM c WHERE c.n >= @lo AND c.n < @hi ORDER BY c.n", 100},
		// 10 results: an equality.
		{"equality-10", "SELECT * FROM c WHERE c.cat = @cat", 100},
		// The first 10 of half the container, in descending order.
		{"desc-first-page-10", "SELECT c.id, c.n FROM c WHERE c.n >= @half ORDER BY c.n DESC", 10},
	}
	for _, size := range benchContainerSizes() {
		s := newScaleContainer(b, size)
		for _, q := range queries {
			b.Run(fmt.Sprintf("%s/items=%d", q.name, size), func(b *testing.B) {
				parsed, err := ParseQuery(q.text)
				if err != nil {
					b.Fatal(err)
				}
				read, returned := 0, 0
				b.ReportAllocs()
				b.ResetTimer()
				for i := range b.N {
					lo := (i * 7919) % max(size-10, 1)
					params := map[string]any{"@lo": float64(lo), "@hi": float64(lo + 10), "@cat": fmt.Sprintf("c%d", i%max(size/10, 1)), "@half": float64(size / 2)}
					var st queryStats
					err := s.view(ctx, func(t *Tx) error {
						f, err := t.queryItemsPage("db", "items", "", parsed, params, itemQueryOptions{stats: &st}, pageRequest{size: q.page})
						if err == nil {
							returned += len(f.Items)
						}
						return err
					})
					if err != nil {
						b.Fatal(err)
					}
					read += st.retrievedCount
				}
				b.ReportMetric(float64(read)/float64(b.N), "items-read/op")
				b.ReportMetric(float64(returned)/float64(b.N), "results/op")
			})
		}
	}
}

// BenchmarkCosmosWriteScale measures item writes, point reads and change
// feed pages as a container grows: each should cost the same at a
// thousand items as at a million (the million-item size runs with
// CERULEAN_BENCH_1M set):
//
//	CERULEAN_BENCH_1M=1 go test -run '^$' -bench CosmosWriteScale -benchtime 5000x ./internal/cosmos
func BenchmarkCosmosWriteScale(b *testing.B) {
	ctx := context.Background()
	ref := CollectionRef{DB: "db", Coll: "items"}
	for _, size := range benchContainerSizes() {
		s := newScaleContainer(b, size)
		created := size
		b.Run(fmt.Sprintf("create/items=%d", size), func(b *testing.B) {
			b.ReportAllocs()
			for range b.N {
				doc := fmt.Sprintf(`{"id":"%07d","pk":"p%02d","n":%d,"cat":"c%d","name":"item %d"}`, created, created%100, created, created%max(size/10, 1), created)
				if _, err := s.CreateItem(ctx, ref, "", []byte(doc), ItemOptions{}); err != nil {
					b.Fatal(err)
				}
				created++
			}
		})
		b.Run(fmt.Sprintf("replace/items=%d", size), func(b *testing.B) {
			b.ReportAllocs()
			for i := range b.N {
				id := (i * 7919) % size
				doc := fmt.Sprintf(`{"id":"%07d","pk":"p%02d","n":%d,"cat":"c%d","name":"replaced %d"}`, id, id%100, id, id%max(size/10, 1), i)
				if _, _, err := s.UpsertItem(ctx, ref, "", []byte(doc), ItemOptions{}); err != nil {
					b.Fatal(err)
				}
			}
		})
		b.Run(fmt.Sprintf("point-read/items=%d", size), func(b *testing.B) {
			b.ReportAllocs()
			for i := range b.N {
				id := (i * 7919) % size
				pk, err := NewPartitionKey(fmt.Sprintf("p%02d", id%100))
				if err != nil {
					b.Fatal(err)
				}
				if _, err := s.ReadItem(ctx, ItemRef{CollectionRef: ref, PartitionKey: pk, ID: fmt.Sprintf("%07d", id)}, ItemOptions{}); err != nil {
					b.Fatal(err)
				}
			}
		})
		// A page of 100 latest-version changes resumed from a point
		// spread over the log, as a change feed processor reads it.
		last, err := func() (uint64, error) {
			var n uint64
			err := s.view(ctx, func(t *Tx) error {
				var err error
				n, err = lastLSN(t.rd, "db", "items")
				return err
			})
			return n, err
		}()
		if err != nil {
			b.Fatal(err)
		}
		b.Run(fmt.Sprintf("changefeed-page-100/items=%d", size), func(b *testing.B) {
			b.ReportAllocs()
			served := 0
			for i := range b.N {
				after := uint64(i*7919) % max(last-200, 1)
				f, err := s.ReadChangeFeed(ctx, ref, ChangeFeedOptions{MaxItemCount: 100, After: after, HasAfter: true})
				if err != nil {
					b.Fatal(err)
				}
				served += len(f.Items)
			}
			b.ReportMetric(float64(served)/float64(b.N), "changes/op")
		})
	}
}
