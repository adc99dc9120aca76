package search

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/cerulean-db/cerulean/internal/kv"
	"github.com/cerulean-db/cerulean/internal/kv/memory"
)

// node is one server process's Search service over a shared store and its
// own directory of on-disk indexes; restart closes it and starts another
// over the same store and directory, as a restarted process would.
type node struct {
	t     *testing.T
	store kv.Store
	dir   string
	s     *Service
}

func newNode(t *testing.T) *node {
	t.Helper()
	store := memory.Open()
	n := &node{t: t, store: store, dir: t.TempDir()}
	n.start()
	t.Cleanup(func() {
		if n.s != nil {
			if err := n.s.CheckInvariants(context.Background()); err != nil {
				t.Errorf("after the test: %v", err)
			}
			_ = n.s.Close()
		}
		_ = store.Close()
	})
	return n
}

func (n *node) start() {
	n.s = New(Config{Store: n.store, Dir: n.dir, Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
}

func (n *node) restart() {
	n.t.Helper()
	if err := n.s.Close(); err != nil {
		n.t.Fatalf("close: %v", err)
	}
	n.start()
}

// generations lists the generation directories of index.
func (n *node) generations(index string) []string {
	n.t.Helper()
	entries, err := os.ReadDir(filepath.Join(n.dir, index))
	if errors.Is(err, os.ErrNotExist) {
		return nil
	}
	if err != nil {
		n.t.Fatal(err)
	}
	var out []string
	for _, e := range entries {
		out = append(out, filepath.Join(n.dir, index, e.Name()))
	}
	return out
}

func uploadMany(t *testing.T, s *Service, from, to int, word string) {
	t.Helper()
	var docs []map[string]any
	for i := from; i < to; i++ {
		docs = append(docs, map[string]any{"id": fmt.Sprint(i), "title": word, "n": i})
	}
	upload(t, s, "docs", docs...)
}

func countAll(t *testing.T, s *Service, text string) int64 {
	t.Helper()
	top := 0
	res, err := s.Search(context.Background(), "docs", &SearchRequest{Search: text, Count: true, Top: &top})
	if err != nil {
		t.Fatalf("search %q: %v", text, err)
	}
	return *res.Count
}

// TestRestartKeepsIndexWithoutRebuild: after a restart the index on disk
// is opened as it was left, and no document is indexed again.
func TestRestartKeepsIndexWithoutRebuild(t *testing.T) {
	n := newNode(t)
	putIndex(t, n.s, docsIndex)
	uploadMany(t, n.s, 0, 100, "kept")
	uploadMany(t, n.s, 100, 150, "kept")
	if got := countAll(t, n.s, "kept"); got != 150 {
		t.Fatalf("before restart: %d of 150", got)
	}
	if got := n.s.derived.stats.rebuilds.Load(); got != 1 {
		t.Fatalf("first build: %d rebuilds, want 1", got)
	}
	n.restart()
	if got := countAll(t, n.s, "kept"); got != 150 {
		t.Errorf("after restart: %d of 150", got)
	}
	st := &n.s.derived.stats
	if st.rebuilds.Load() != 0 || st.rebuiltDocs.Load() != 0 || st.appliedChanges.Load() != 0 || st.reopened.Load() != 1 {
		t.Errorf("after restart: %d rebuilds of %d documents, %d changes applied, %d reopened; want only one reopened",
			st.rebuilds.Load(), st.rebuiltDocs.Load(), st.appliedChanges.Load(), st.reopened.Load())
	}
}

// TestRestartCatchesUpFromChangeLog: batches acknowledged (committed in
// kv) that never reached the bleve index — a process that stopped between
// the kv commit and the bleve write — are applied from the change log at
// the next start, and only they.
func TestRestartCatchesUpFromChangeLog(t *testing.T) {
	n := newNode(t)
	putIndex(t, n.s, docsIndex)
	uploadMany(t, n.s, 0, 100, "early")
	if got := countAll(t, n.s, "early"); got != 100 {
		t.Fatalf("%d of 100", got)
	}
	// No query and no catch-up loop: these reach kv only.
	uploadMany(t, n.s, 100, 130, "late")
	if _, err := n.s.IndexDocuments(context.Background(), "docs", []IndexAction{{Action: "delete", Doc: map[string]any{"id": "0"}}}); err != nil {
		t.Fatal(err)
	}
	n.restart()
	if got := countAll(t, n.s, "late"); got != 30 {
		t.Errorf("late documents after restart: %d of 30", got)
	}
	if got := countAll(t, n.s, "early"); got != 99 {
		t.Errorf("early documents after restart: %d, want 99 (one deleted)", got)
	}
	st := &n.s.derived.stats
	if st.rebuilds.Load() != 0 || st.appliedChanges.Load() != 31 {
		t.Errorf("%d rebuilds, %d changes applied; want none and 31", st.rebuilds.Load(), st.appliedChanges.Load())
	}
}

// TestDamagedIndexDirectoryIsRebuilt: a generation directory that is
// missing, emptied or holds garbage is rebuilt from the store.
func TestDamagedIndexDirectoryIsRebuilt(t *testing.T) {
	for _, damage := range []struct {
		name string
		do   func(t *testing.T, gen string)
	}{
		{"missing", func(t *testing.T, gen string) {
			if err := os.RemoveAll(gen); err != nil {
				t.Fatal(err)
			}
		}},
		{"empty", func(t *testing.T, gen string) {
			if err := os.RemoveAll(gen); err != nil {
				t.Fatal(err)
			}
			if err := os.Mkdir(gen, 0o755); err != nil {
				t.Fatal(err)
			}
		}},
		{"garbage", func(t *testing.T, gen string) {
			err := filepath.WalkDir(gen, func(p string, e os.DirEntry, err error) error {
				if err != nil || e.IsDir() {
					return err
				}
				return os.WriteFile(p, []byte("not an index"), 0o644)
			})
			if err != nil {
				t.Fatal(err)
			}
		}},
	} {
		t.Run(damage.name, func(t *testing.T) {
			n := newNode(t)
			putIndex(t, n.s, docsIndex)
			uploadMany(t, n.s, 0, 40, "fine")
			if got := countAll(t, n.s, "fine"); got != 40 {
				t.Fatalf("%d of 40", got)
			}
			gens := n.generations("docs")
			if len(gens) != 1 {
				t.Fatalf("generations %v", gens)
			}
			if err := n.s.Close(); err != nil {
				t.Fatal(err)
			}
			damage.do(t, gens[0])
			n.start()
			if got := countAll(t, n.s, "fine"); got != 40 {
				t.Errorf("after the damage: %d of 40", got)
			}
			if st := &n.s.derived.stats; st.rebuilds.Load() != 1 || st.rebuiltDocs.Load() != 40 {
				t.Errorf("%d rebuilds of %d documents, want 1 of 40", st.rebuilds.Load(), st.rebuiltDocs.Load())
			}
		})
	}
}

// TestIndexFilesFollowTheDefinition: a changed definition leaves only its
// own generation on disk; a deleted index leaves nothing, also when it
// was deleted by another process while this one was down.
func TestIndexFilesFollowTheDefinition(t *testing.T) {
	n := newNode(t)
	putIndex(t, n.s, docsIndex)
	uploadMany(t, n.s, 0, 20, "files")
	countAll(t, n.s, "files")
	first := n.generations("docs")
	putIndex(t, n.s, `{"name":"docs","fields":[{"name":"id","type":"Edm.String","key":true},
		{"name":"title","type":"Edm.String"},{"name":"n","type":"Edm.Int32"},{"name":"color","type":"Edm.String"}]}`)
	if got := countAll(t, n.s, "files"); got != 20 {
		t.Errorf("after the definition change: %d of 20", got)
	}
	second := n.generations("docs")
	if len(first) != 1 || len(second) != 1 || first[0] == second[0] {
		t.Errorf("generations before %v, after the change %v; want one each, different", first, second)
	}
	if err := n.s.Delete(context.Background(), Indexes, "docs", Preconditions{}); err != nil {
		t.Fatal(err)
	}
	if err := n.s.CatchUp(context.Background()); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(n.dir, "docs")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the deleted index's directory is still there: %v", err)
	}

	// Deleted while this process was down, by another over the store.
	putIndex(t, n.s, docsIndex)
	uploadMany(t, n.s, 0, 20, "files")
	countAll(t, n.s, "files")
	if err := n.s.Close(); err != nil {
		t.Fatal(err)
	}
	other := New(Config{Store: n.store, Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
	if err := other.Delete(context.Background(), Indexes, "docs", Preconditions{}); err != nil {
		t.Fatal(err)
	}
	n.start()
	if err := n.s.CatchUp(context.Background()); err != nil {
		t.Fatal(err)
	}
	if _, err := os.Stat(filepath.Join(n.dir, "docs")); !errors.Is(err, os.ErrNotExist) {
		t.Errorf("the directory of an index deleted while down is still there: %v", err)
	}
}

// TestQueriesShareTheIndex: a query holding the index does not keep
// another from running (they used to take turns on a per-index lock).
func TestQueriesShareTheIndex(t *testing.T) {
	n := newNode(t)
	putIndex(t, n.s, docsIndex)
	uploadMany(t, n.s, 0, 10, "shared")
	countAll(t, n.s, "shared")
	held := make(chan struct{})
	done := make(chan struct{})
	go func() {
		_ = n.s.store.View(context.Background(), func(rd kv.Reader) error {
			_, release, err := n.s.open(rd, "docs")
			if err != nil {
				t.Error(err)
				close(held)
				return err
			}
			close(held)
			<-done
			release()
			return nil
		})
	}()
	<-held
	finished := make(chan int64)
	go func() { finished <- countAll(t, n.s, "shared") }()
	select {
	case got := <-finished:
		if got != 10 {
			t.Errorf("%d of 10", got)
		}
	case <-time.After(30 * time.Second):
		t.Error("a query waited for another to finish")
	}
	close(done)
}

// TestConcurrentQueriesSeeAcknowledgedBatches: writers and queries race;
// every query counts at least the documents acknowledged before it began,
// and never more than were written.
func TestConcurrentQueriesSeeAcknowledgedBatches(t *testing.T) {
	n := newNode(t)
	putIndex(t, n.s, docsIndex)
	const writers, batches, perBatch = 3, 15, 5
	var acked atomic.Int64
	var wg sync.WaitGroup
	stop := make(chan struct{})
	for w := 0; w < writers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for b := 0; b < batches; b++ {
				var actions []IndexAction
				for i := 0; i < perBatch; i++ {
					actions = append(actions, IndexAction{Action: "upload", Doc: map[string]any{"id": fmt.Sprintf("w%d-%d-%d", w, b, i), "title": "racing"}})
				}
				if _, err := n.s.IndexDocuments(context.Background(), "docs", actions); err != nil {
					t.Error(err)
					return
				}
				acked.Add(perBatch)
			}
		}()
	}
	var readers sync.WaitGroup
	for r := 0; r < 4; r++ {
		readers.Add(1)
		go func() {
			defer readers.Done()
			for {
				select {
				case <-stop:
					return
				default:
				}
				before := acked.Load()
				top := 0
				res, err := n.s.Search(context.Background(), "docs", &SearchRequest{Search: "racing", Count: true, Top: &top})
				if err != nil {
					t.Error(err)
					return
				}
				if *res.Count < before || *res.Count > writers*batches*perBatch {
					t.Errorf("a query counted %d with %d acknowledged before it", *res.Count, before)
					return
				}
			}
		}()
	}
	wg.Wait()
	close(stop)
	readers.Wait()
	if got := countAll(t, n.s, "racing"); got != writers*batches*perBatch {
		t.Errorf("finally %d of %d", got, writers*batches*perBatch)
	}
}
