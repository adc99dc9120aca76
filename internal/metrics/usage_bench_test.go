package metrics

import (
	"bytes"
	"context"
	"fmt"
	"log/slog"
	"testing"

	"github.com/prometheus/client_golang/prometheus"

	"github.com/cerulean-db/cerulean/internal/kv"
	"github.com/cerulean-db/cerulean/internal/kv/pebble"
	"github.com/cerulean-db/cerulean/internal/kv/usage"
)

// BenchmarkUsageCollect times one collection of the stored-bytes series
// over a store holding 10 and 1,000,000 objects: the counts make both
// cost the same. Scan is what counting by reading everything costs, as
// every scrape's background count did before.
func BenchmarkUsageCollect(b *testing.B) {
	spaces := []usage.Space{{Name: "blob", Prefix: []byte("B"), Object: func(k []byte) bool { return bytes.HasSuffix(k, []byte("!")) }}}
	for _, objects := range []int{10, 1_000_000} {
		raw, err := pebble.Open(b.TempDir(), pebble.Options{})
		if err != nil {
			b.Fatal(err)
		}
		store, err := usage.Open(context.Background(), raw, spaces, slog.Default())
		if err != nil {
			b.Fatal(err)
		}
		value := bytes.Repeat([]byte("v"), 100)
		for done := 0; done < objects; {
			err := store.Update(context.Background(), func(tx kv.Txn) error {
				for i := done; i < min(done+2_000, objects); i++ {
					if err := tx.Set(fmt.Appendf(nil, "B/%08d!", i), value); err != nil {
						return err
					}
				}
				return nil
			})
			if err != nil {
				b.Fatal(err)
			}
			done = min(done+2_000, objects)
		}
		u := NewUsage(store, slog.Default())
		b.Run(fmt.Sprintf("objects=%d/collect", objects), func(b *testing.B) {
			for b.Loop() {
				ch := make(chan prometheus.Metric, 8)
				u.Collect(ch)
				if len(ch) != 3 {
					b.Fatalf("%d series", len(ch))
				}
			}
		})
		b.Run(fmt.Sprintf("objects=%d/scan", objects), func(b *testing.B) {
			for b.Loop() {
				if _, err := usage.Scan(context.Background(), store, spaces); err != nil {
					b.Fatal(err)
				}
			}
		})
		if err := store.Close(); err != nil {
			b.Fatal(err)
		}
	}
}
