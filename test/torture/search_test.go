package torture_test

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"sort"
	"sync"
	"testing"
	"time"

	"github.com/cerulean-db/cerulean/internal/search"
	"github.com/cerulean-db/cerulean/internal/servertest"
)

// Search documents under kill -9: writers send batches (each uploads new
// documents and merges the writer's own counter document); after every
// restart each acknowledged document must be found by lookup and by a
// search, and each counter must hold at least its last acknowledged
// value (or the value of the batch in flight at the kill).

const searchWriters = 4

type searchState struct {
	mu sync.Mutex
	// acked[w] is the last acknowledged batch of writer w, tried[w] the
	// last one sent; done[w] holds every acknowledged batch (a batch in
	// flight at a kill may or may not have landed).
	acked, tried [searchWriters]int
	done         [searchWriters]map[int]bool
	failures     []string
}

func searchCall(ctx context.Context, port int, method, path string, body any) (int, []byte, error) {
	var rd io.Reader
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			return 0, nil, err
		}
		rd = bytes.NewReader(b)
	}
	req, err := http.NewRequestWithContext(ctx, method, fmt.Sprintf("http://127.0.0.1:%d%s", port, path), rd)
	if err != nil {
		return 0, nil, err
	}
	req.Header.Set("api-key", search.DefaultAdminKey)
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return 0, nil, err
	}
	defer func() { _ = resp.Body.Close() }()
	b, err := io.ReadAll(resp.Body)
	return resp.StatusCode, b, err
}

const searchAPI = "?api-version=2024-07-01"

func searchWriter(ctx context.Context, port int, st *searchState, w int) {
	for {
		st.mu.Lock()
		n := st.tried[w] + 1
		st.tried[w] = n
		st.mu.Unlock()
		batch := map[string]any{"value": []any{
			map[string]any{"@search.action": "upload", "id": fmt.Sprintf("w%d-%d", w, n), "writer": fmt.Sprintf("w%d", w), "body": fmt.Sprintf("torture text %d", n), "n": n},
			map[string]any{"@search.action": "mergeOrUpload", "id": fmt.Sprintf("counter-%d", w), "writer": "counters", "n": n},
		}}
		status, body, err := searchCall(ctx, port, "POST", "/indexes('torture')/docs/search.index"+searchAPI, batch)
		if err != nil || ctx.Err() != nil {
			return
		}
		if status != 200 {
			st.mu.Lock()
			st.failures = append(st.failures, fmt.Sprintf("writer %d batch %d: %d %s", w, n, status, body))
			st.mu.Unlock()
			return
		}
		st.mu.Lock()
		st.acked[w] = n
		st.done[w][n] = true
		st.mu.Unlock()
	}
}

func verifySearch(t *testing.T, port int, st *searchState, cycle int) {
	t.Helper()
	ctx := context.Background()
	for w := range searchWriters {
		acked, tried := st.acked[w], st.tried[w]
		status, body, err := searchCall(ctx, port, "GET", fmt.Sprintf("/indexes('torture')/docs('counter-%d')%s", w, searchAPI), nil)
		if acked > 0 {
			var doc struct{ N int }
			if err != nil || status != 200 || json.Unmarshal(body, &doc) != nil || doc.N < acked || doc.N > tried {
				t.Fatalf("cycle %d: counter of writer %d: %d %s (acknowledged %d, tried %d)", cycle, w, status, body, acked, tried)
			}
		}
		var missing []int
		for i := range st.done[w] {
			status, _, err := searchCall(ctx, port, "GET", fmt.Sprintf("/indexes('torture')/docs('w%d-%d')%s", w, i, searchAPI), nil)
			if err != nil || status != 200 {
				missing = append(missing, i)
			}
		}
		if len(missing) > 0 {
			t.Fatalf("cycle %d: writer %d: acknowledged documents lost: %v (acked %v tried %v)", cycle, w, missing, st.acked, st.tried)
		}
		// A search finds every acknowledged document too (the index
		// is rebuilt from kv after the restart).
		found := map[string]bool{}
		count := 0
		for skip := 0; ; skip += 1000 {
			status, body, err = searchCall(ctx, port, "POST", "/indexes('torture')/docs/search.post.search"+searchAPI, map[string]any{
				"search": "torture", "filter": fmt.Sprintf("writer eq 'w%d'", w), "select": "id", "top": 1000, "skip": skip, "count": true})
			if err != nil || status != 200 {
				t.Fatalf("cycle %d: search: %d %s %v", cycle, status, body, err)
			}
			var res struct {
				Count int `json:"@odata.count"`
				Value []struct{ ID string }
			}
			if err := json.Unmarshal(body, &res); err != nil {
				t.Fatal(err)
			}
			count = res.Count
			for _, v := range res.Value {
				found[v.ID] = true
			}
			if len(res.Value) < 1000 {
				break
			}
		}
		for i := range st.done[w] {
			if !found[fmt.Sprintf("w%d-%d", w, i)] {
				t.Fatalf("cycle %d: search does not find acknowledged document w%d-%d (count %d)", cycle, w, i, count)
			}
		}
		if count < len(st.done[w]) || count > tried || len(found) != count {
			t.Fatalf("cycle %d: writer %d has %d documents (%d found), acknowledged %d, tried %d", cycle, w, count, len(found), acked, tried)
		}
	}
}

func TestSearchDocumentsSurviveKill(t *testing.T) {
	if testing.Short() {
		t.Skip("kill -9 torture")
	}
	seed := *seedFlag
	if seed == 0 {
		seed = rand.Uint64()
	}
	t.Logf("seed %d", seed)
	rng := rand.New(rand.NewPCG(seed, 2))
	bin := servertest.BuildBinary(t)
	dir := t.TempDir()
	st := &searchState{}
	for w := range searchWriters {
		st.done[w] = map[int]bool{}
	}
	rounds := min(*cycles, 5)
	for cycle := 0; cycle <= rounds; cycle++ {
		p := servertest.StartProcess(t, bin, dir)
		if cycle == 0 {
			index := map[string]any{"name": "torture", "fields": []any{
				map[string]any{"name": "id", "type": "Edm.String", "key": true},
				map[string]any{"name": "writer", "type": "Edm.String", "filterable": true},
				map[string]any{"name": "body", "type": "Edm.String", "searchable": true},
				map[string]any{"name": "n", "type": "Edm.Int32", "filterable": true},
			}}
			if status, body, err := searchCall(context.Background(), p.SearchPort, "PUT", "/indexes('torture')"+searchAPI, index); err != nil || status != 201 {
				t.Fatalf("create index: %d %s %v", status, body, err)
			}
		} else {
			verifySearch(t, p.SearchPort, st, cycle)
		}
		if cycle == rounds {
			break
		}
		ctx, cancel := context.WithCancel(context.Background())
		var wg sync.WaitGroup
		for w := range searchWriters {
			wg.Go(func() { searchWriter(ctx, p.SearchPort, st, w) })
		}
		time.Sleep(time.Duration(150+rng.IntN(450)) * time.Millisecond)
		p.Kill()
		cancel()
		wg.Wait()
		if len(st.failures) > 0 {
			sort.Strings(st.failures)
			t.Fatalf("cycle %d (seed %d): %v", cycle, seed, st.failures)
		}
	}
	t.Logf("%d kill cycles; acknowledged batches per writer %v", rounds, st.acked)
}
