package search

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"testing"

	"github.com/cerulean-db/cerulean/internal/kv/pebble"
)

// BenchmarkStartToFullCount measures what a server start costs Search:
// from opening a data directory of n documents (the embedded store and
// the index's bleve index) to the answer of a search counting every
// document. "on-disk" reopens the bleve index the last run left; "rebuild"
// keeps it in memory, so each start rebuilds it from the store (what
// every start did before bleve indexes were kept on disk, and what
// --in-memory servers do). heap-MiB is the live Go heap after the
// query. docs/performance.md has the figures.
//
//	go test -run '^$' -bench StartToFullCount -benchtime 3x ./internal/search
//
// CERULEAN_SEARCH_BENCH_DOCS=1000000 measures that many documents instead
// (on disk only).
func BenchmarkStartToFullCount(b *testing.B) {
	sizes := []int{1_000, 100_000}
	if v, err := strconv.Atoi(os.Getenv("CERULEAN_SEARCH_BENCH_DOCS")); err == nil && v > 0 {
		sizes = []int{v}
	}
	for _, n := range sizes {
		dir := b.TempDir()
		loadDataDir(b, dir, n)
		modes := []string{"on-disk", "rebuild"}
		if n > 100_000 {
			modes = modes[:1] // a rebuild of more takes minutes a start
		}
		for _, mode := range modes {
			b.Run(fmt.Sprintf("docs=%d/%s", n, mode), func(b *testing.B) {
				for b.Loop() {
					startAndCount(b, dir, n, mode == "on-disk")
				}
			})
		}
	}
}

func quietLogger() *slog.Logger { return slog.New(slog.NewTextHandler(io.Discard, nil)) }

// loadDataDir writes n documents of index "docs" into a store in dir and
// builds their bleve index on disk, as a server would have left them.
func loadDataDir(b *testing.B, dir string, n int) {
	b.Helper()
	store, err := pebble.Open(filepath.Join(dir, "kv"), pebble.Options{Logger: quietLogger()})
	if err != nil {
		b.Fatal(err)
	}
	s := New(Config{Store: store, Dir: filepath.Join(dir, "search"), Logger: quietLogger()})
	d, err := ParseDefinition([]byte(docsIndex))
	if err != nil {
		b.Fatal(err)
	}
	if _, _, err := s.Put(context.Background(), Indexes, "docs", d, PutOptions{}); err != nil {
		b.Fatal(err)
	}
	words := []string{"red", "green", "blue", "apple", "cherry", "plum", "river", "stone"}
	for start := 0; start < n; start += maxBatchActions {
		var actions []IndexAction
		for i := start; i < min(n, start+maxBatchActions); i++ {
			actions = append(actions, IndexAction{Action: "upload", Doc: map[string]any{"id": fmt.Sprint(i),
				"title": words[i%len(words)] + " " + words[(i/8)%len(words)], "n": i}})
		}
		if _, err := s.IndexDocuments(context.Background(), "docs", actions); err != nil {
			b.Fatal(err)
		}
	}
	if err := s.CatchUp(context.Background()); err != nil {
		b.Fatal(err)
	}
	if err := s.Close(); err != nil {
		b.Fatal(err)
	}
	if err := store.Close(); err != nil {
		b.Fatal(err)
	}
}

func startAndCount(b *testing.B, dir string, n int, onDisk bool) {
	store, err := pebble.Open(filepath.Join(dir, "kv"), pebble.Options{Logger: quietLogger()})
	if err != nil {
		b.Fatal(err)
	}
	cfg := Config{Store: store, Logger: quietLogger()}
	if onDisk {
		cfg.Dir = filepath.Join(dir, "search")
	}
	s := New(cfg)
	top := 0
	res, err := s.Search(context.Background(), "docs", &SearchRequest{Search: "*", Count: true, Top: &top})
	if err != nil {
		b.Fatal(err)
	}
	if *res.Count != int64(n) {
		b.Fatalf("counted %d of %d", *res.Count, n)
	}
	if onDisk && s.derived.stats.rebuilds.Load() != 0 {
		b.Fatal("the index on disk was rebuilt")
	}
	// The live heap: what the open index and store hold, not the
	// garbage of the query.
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	b.ReportMetric(float64(ms.HeapInuse)/(1<<20), "heap-MiB")
	if err := s.Close(); err != nil {
		b.Fatal(err)
	}
	if err := store.Close(); err != nil {
		b.Fatal(err)
	}
}

// BenchmarkParallelQueries runs one query (a word in a tenth of 10,000
// documents, its top 10 and their count) from every goroutine at once:
// queries share the index, so with -cpu 1,2,… ns/op falls with the cores
// rather than staying where one core puts it.
//
//	go test -run '^$' -bench ParallelQueries -cpu 1,2 ./internal/search
func BenchmarkParallelQueries(b *testing.B) {
	dir := b.TempDir()
	loadDataDir(b, dir, 10_000)
	store, err := pebble.Open(filepath.Join(dir, "kv"), pebble.Options{Logger: quietLogger()})
	if err != nil {
		b.Fatal(err)
	}
	s := New(Config{Store: store, Dir: filepath.Join(dir, "search"), Logger: quietLogger()})
	b.Cleanup(func() {
		_ = s.Close()
		_ = store.Close()
	})
	top := 10
	req := SearchRequest{Search: "apple", Count: true, Top: &top}
	if _, err := s.Search(context.Background(), "docs", &req); err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			r := req
			res, err := s.Search(context.Background(), "docs", &r)
			if err != nil {
				b.Error(err)
				return
			}
			if *res.Count == 0 {
				b.Error("no match")
				return
			}
		}
	})
}
