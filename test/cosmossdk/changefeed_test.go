package cosmossdk

import (
	"context"
	"encoding/json"
	"maps"
	"net/http"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/data/azcosmos"
	"github.com/cerulean-db/cerulean/internal/cosmos/epk"
	"github.com/cerulean-db/cerulean/internal/kv"
	"github.com/cerulean-db/cerulean/internal/servertest"
)

// changeIDs drains a change feed from token (nil: the options' start) and
// returns the ids of the changed items in feed order and the token to
// resume with.
func changeIDs(t *testing.T, cc *azcosmos.ContainerClient, opts azcosmos.ChangeFeedOptions) ([]string, string) {
	t.Helper()
	ctx := context.Background()
	var ids []string
	for range 100 {
		resp, err := cc.ReadChangeFeed(ctx, &opts)
		if err != nil {
			t.Fatalf("read change feed: %v", err)
		}
		if resp.ContinuationToken == "" {
			t.Fatal("change feed page without a continuation token")
		}
		tok := resp.ContinuationToken
		opts.Continuation = &tok
		opts.FeedRange = nil
		opts.StartFrom = nil
		if len(resp.Items) == 0 {
			if resp.RawResponse.StatusCode != http.StatusNotModified {
				t.Fatalf("empty change feed page: status %d, want 304", resp.RawResponse.StatusCode)
			}
			return ids, tok
		}
		if opts.MaxItemCount > 0 && len(resp.Items) > int(opts.MaxItemCount) {
			t.Fatalf("page of %d items, asked for at most %d", len(resp.Items), opts.MaxItemCount)
		}
		for _, it := range resp.Items {
			var doc struct {
				ID  string `json:"id"`
				LSN int64  `json:"_lsn"`
			}
			if err := json.Unmarshal(it, &doc); err != nil || doc.ID == "" || doc.LSN <= 0 {
				t.Fatalf("change feed item %s: %v", it, err)
			}
			ids = append(ids, doc.ID)
		}
	}
	t.Fatal("change feed never drained")
	return nil, ""
}

func wholeRange(t *testing.T, cc *azcosmos.ContainerClient) *azcosmos.FeedRange {
	t.Helper()
	ranges, err := cc.ReadFeedRanges(context.Background(), nil)
	if err != nil {
		t.Fatalf("read feed ranges: %v", err)
	}
	if len(ranges) != 1 || ranges[0].MinInclusive != "" || ranges[0].MaxExclusive != "FF" {
		t.Fatalf("feed ranges %+v, want one [\"\", \"FF\")", ranges)
	}
	return &ranges[0]
}

func upsert(t *testing.T, cc *azcosmos.ContainerClient, id, pk string, n int) {
	t.Helper()
	doc := mustJSON(t, map[string]any{"id": id, "pk": pk, "n": n})
	if _, err := cc.UpsertItem(context.Background(), azcosmos.NewPartitionKeyString(pk), doc, nil); err != nil {
		t.Fatalf("upsert %s: %v", id, err)
	}
}

// TestChangeFeedFromBeginningAcrossRestart reads the change feed from the
// beginning in pages of two, resumes it with its continuation after a
// restart and sees exactly the changes made since: each once, latest
// version only, in commit order; deletes do not appear.
func TestChangeFeedFromBeginningAcrossRestart(t *testing.T) {
	dir := t.TempDir()
	ctx := context.Background()
	env, _, cc := setup(t, servertest.WithDataDir(dir))
	for i := range 5 {
		upsert(t, cc, "a"+strconv.Itoa(i), "p"+strconv.Itoa(i%2), i)
	}
	upsert(t, cc, "a1", "p1", 10) // a1 moves to the end
	if _, err := cc.DeleteItem(ctx, azcosmos.NewPartitionKeyString("p0"), "a4", nil); err != nil {
		t.Fatal(err)
	}
	ids, tok := changeIDs(t, cc, azcosmos.ChangeFeedOptions{FeedRange: wholeRange(t, cc), MaxItemCount: 2})
	if want := []string{"a0", "a2", "a3", "a1"}; !slices.Equal(ids, want) {
		t.Fatalf("from beginning: %v, want %v", ids, want)
	}
	// Nothing new: the token polls with 304 and stays usable.
	if again, _ := changeIDs(t, cc, azcosmos.ChangeFeedOptions{Continuation: &tok}); len(again) != 0 {
		t.Fatalf("nothing changed, feed returned %v", again)
	}

	upsert(t, cc, "a0", "p0", 20)
	upsert(t, cc, "b0", "p1", 21)
	if err := env.Server.Shutdown(ctx); err != nil {
		t.Fatal(err)
	}
	env2 := servertest.Start(t, servertest.WithDataDir(dir))
	cc2, err := newClient(t, env2).NewContainer("db", "items")
	if err != nil {
		t.Fatal(err)
	}
	upsert(t, cc2, "b1", "p0", 22)
	ids, _ = changeIDs(t, cc2, azcosmos.ChangeFeedOptions{Continuation: &tok, MaxItemCount: 1})
	if want := []string{"a0", "b0", "b1"}; !slices.Equal(ids, want) {
		t.Fatalf("after restart: %v, want %v", ids, want)
	}
}

// TestChangeFeedFromTime starts the feed at a point in time: only items
// last changed at or after it appear; its continuation then carries on
// from where that read ended.
func TestChangeFeedFromTime(t *testing.T) {
	var mu sync.Mutex
	offset := -10 * time.Minute // within the signature's clock skew
	clock := func() time.Time { mu.Lock(); defer mu.Unlock(); return time.Now().Add(offset) }
	setOffset := func(d time.Duration) { mu.Lock(); offset = d; mu.Unlock() }
	_, _, cc := setup(t, servertest.WithClock(clock))
	upsert(t, cc, "old", "p", 1)
	upsert(t, cc, "touched", "p", 1)
	setOffset(0)
	upsert(t, cc, "new", "q", 2)
	upsert(t, cc, "touched", "p", 2)
	start := time.Now().Add(-5 * time.Minute)
	ids, _ := changeIDs(t, cc, azcosmos.ChangeFeedOptions{FeedRange: wholeRange(t, cc), StartFrom: &start})
	if want := []string{"new", "touched"}; !slices.Equal(ids, want) {
		t.Fatalf("from time: %v, want %v", ids, want)
	}
	future := time.Now().Add(5 * time.Minute)
	ids, tok := changeIDs(t, cc, azcosmos.ChangeFeedOptions{FeedRange: wholeRange(t, cc), StartFrom: &future})
	if len(ids) != 0 {
		t.Fatalf("from a time after every write: %v", ids)
	}
	upsert(t, cc, "later", "p", 3)
	ids, _ = changeIDs(t, cc, azcosmos.ChangeFeedOptions{Continuation: &tok})
	if want := []string{"later"}; !slices.Equal(ids, want) {
		t.Fatalf("continued: %v, want %v", ids, want)
	}
}

// TestChangeFeedPartitionKeyAndEPKRanges scopes the feed to a logical
// partition (SDK) and the feed and a query to halves of the EPK space (raw
// requests as the JS and Python SDKs send them): each item lands in
// exactly one half, the one its partition key's V2 hash names.
func TestChangeFeedPartitionKeyAndEPKRanges(t *testing.T) {
	env, c, _ := setup(t)
	ctx := context.Background()
	db, _ := c.NewDatabase("db")
	if _, err := db.CreateContainer(ctx, azcosmos.ContainerProperties{
		ID:                     "v2",
		PartitionKeyDefinition: azcosmos.PartitionKeyDefinition{Paths: []string{"/pk"}, Version: 2},
	}, nil); err != nil {
		t.Fatal(err)
	}
	cc, _ := c.NewContainer("db", "v2")
	want := map[string]string{} // id -> EPK
	for i := range 20 {
		pk := "k" + strconv.Itoa(i)
		upsert(t, cc, "i"+strconv.Itoa(i), pk, i)
		want["i"+strconv.Itoa(i)] = epk.ForRouting(epk.HashV2, []any{pk})
	}
	pk := azcosmos.NewPartitionKeyString("k7")
	ids, _ := changeIDs(t, cc, azcosmos.ChangeFeedOptions{FeedRange: wholeRange(t, cc), PartitionKey: &pk})
	if !slices.Equal(ids, []string{"i7"}) {
		t.Fatalf("partition k7: %v", ids)
	}

	const mid = "20000000000000000000000000000000"
	seen := map[string]bool{}
	for _, half := range [][2]string{{"", mid}, {mid, "FF"}} {
		resp, body := send(t, env, rawRequest{method: http.MethodGet, path: "/dbs/db/colls/v2/docs", resourceType: "docs", link: "dbs/db/colls/v2",
			header: map[string]string{"A-IM": "Incremental Feed", "x-ms-documentdb-partitionkeyrangeid": "0",
				"x-ms-start-epk": half[0], "x-ms-end-epk": half[1], "x-ms-version": "2020-07-15"}})
		if resp.StatusCode != http.StatusOK || resp.Header.Get("etag") == "" {
			t.Fatalf("EPK range %v: %d %s", half, resp.StatusCode, body)
		}
		var page struct{ Documents []struct{ ID string } }
		if err := json.Unmarshal(body, &page); err != nil {
			t.Fatal(err)
		}
		for _, d := range page.Documents {
			e := want[d.ID]
			if seen[d.ID] || !epk.InRange(e, half[0], half[1]) {
				t.Fatalf("%s (EPK %s) in range %v (seen before: %v)", d.ID, e, half, seen[d.ID])
			}
			seen[d.ID] = true
		}
	}
	if len(seen) != len(want) {
		t.Fatalf("EPK halves returned %d of %d items", len(seen), len(want))
	}
	// A query scoped to each half selects exactly that half's items.
	seen = map[string]bool{}
	for _, half := range [][2]string{{"", mid}, {mid, "FF"}} {
		resp, body := send(t, env, rawRequest{method: http.MethodPost, path: "/dbs/db/colls/v2/docs", resourceType: "docs", link: "dbs/db/colls/v2",
			body: []byte(`{"query":"SELECT c.id FROM c"}`),
			header: map[string]string{"x-ms-documentdb-isquery": "true", "Content-Type": "application/query+json", "x-ms-documentdb-query-enablecrosspartition": "true",
				"x-ms-documentdb-partitionkeyrangeid": "0", "x-ms-start-epk": half[0], "x-ms-end-epk": half[1], "x-ms-version": "2020-07-15"}})
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("query in EPK range %v: %d %s", half, resp.StatusCode, body)
		}
		var page struct{ Documents []struct{ ID string } }
		if err := json.Unmarshal(body, &page); err != nil {
			t.Fatal(err)
		}
		if len(page.Documents) == 0 || len(page.Documents) == len(want) {
			t.Fatalf("EPK range %v holds %d of %d items: the halves do not split them", half, len(page.Documents), len(want))
		}
		for _, d := range page.Documents {
			if seen[d.ID] || !epk.InRange(want[d.ID], half[0], half[1]) {
				t.Fatalf("query: %s (EPK %s) in range %v", d.ID, want[d.ID], half)
			}
			seen[d.ID] = true
		}
	}
	if len(seen) != len(want) {
		t.Fatalf("queries over the EPK halves returned %d of %d items", len(seen), len(want))
	}
	// A range the container does not have is gone, as after a split.
	resp, _ := send(t, env, rawRequest{method: http.MethodGet, path: "/dbs/db/colls/v2/docs", resourceType: "docs", link: "dbs/db/colls/v2",
		header: map[string]string{"A-IM": "Incremental Feed", "x-ms-documentdb-partitionkeyrangeid": "7", "x-ms-version": "2020-07-15"}})
	if resp.StatusCode != http.StatusGone || resp.Header.Get("x-ms-substatus") != "1002" {
		t.Fatalf("unknown range: %d substatus %q, want 410/1002", resp.StatusCode, resp.Header.Get("x-ms-substatus"))
	}
}

// TestPartitionKeyRangesIncremental: /pkranges with A-IM answers an etag
// and then 304 while the ranges are unchanged.
func TestPartitionKeyRangesIncremental(t *testing.T) {
	env, _, _ := setup(t)
	rr := rawRequest{method: http.MethodGet, path: "/dbs/db/colls/items/pkranges", resourceType: "pkranges", link: "dbs/db/colls/items",
		header: map[string]string{"A-IM": "Incremental Feed", "x-ms-version": "2020-07-15"}}
	resp, body := send(t, env, rr)
	etag := resp.Header.Get("etag")
	if resp.StatusCode != http.StatusOK || etag == "" {
		t.Fatalf("pkranges: %d etag %q %s", resp.StatusCode, etag, body)
	}
	rr.header["If-None-Match"] = etag
	if resp, _ = send(t, env, rr); resp.StatusCode != http.StatusNotModified {
		t.Fatalf("pkranges with its etag: %d, want 304", resp.StatusCode)
	}
}

// TestReadMany reads items across partitions by identity (the SDK
// resolves them through /pkranges); absent ones are left out.
func TestReadMany(t *testing.T) {
	_, _, cc := setup(t)
	var idents []azcosmos.ItemIdentity
	for i := range 12 {
		id, pk := "m"+strconv.Itoa(i), "p"+strconv.Itoa(i%3)
		upsert(t, cc, id, pk, i)
		if i%2 == 0 {
			idents = append(idents, azcosmos.ItemIdentity{ID: id, PartitionKey: azcosmos.NewPartitionKeyString(pk)})
		}
	}
	idents = append(idents, azcosmos.ItemIdentity{ID: "m1", PartitionKey: azcosmos.NewPartitionKeyString("p0")}) // wrong partition
	resp, err := cc.ReadManyItems(context.Background(), idents, nil)
	if err != nil {
		t.Fatalf("read many: %v", err)
	}
	var got []string
	for _, it := range resp.Items {
		got = append(got, decode(t, it)["id"].(string))
	}
	sort.Strings(got)
	if want := []string{"m0", "m10", "m2", "m4", "m6", "m8"}; !slices.Equal(got, want) {
		t.Fatalf("read many: %v, want %v", got, want)
	}
}

// TestChangeFeedAcrossKill9: a reader polls the change feed while clients
// write; the server is killed with SIGKILL and restarted, and the reader
// resumes from its last continuation. Every acknowledged item appears,
// and no item appears twice.
func TestChangeFeedAcrossKill9(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and kills a real server")
	}
	bin, dataDir := servertest.BuildBinary(t), t.TempDir()
	proc, env := startKillable(t, bin, dataDir)
	ctx := context.Background()
	cc := createItems(t, newClient(t, env))
	var mu sync.Mutex
	acked := map[string]bool{}
	var wg sync.WaitGroup
	for w := range 4 {
		wg.Go(func() {
			wc, _ := newClient(t, env).NewContainer("db", "items")
			pk := "w" + strconv.Itoa(w)
			for i := 0; ; i++ {
				id := pk + "-" + strconv.Itoa(i)
				if _, err := wc.CreateItem(ctx, azcosmos.NewPartitionKeyString(pk), mustJSON(t, map[string]any{"id": id, "pk": pk}), nil); err != nil {
					return // the server died
				}
				mu.Lock()
				acked[id] = true
				mu.Unlock()
			}
		})
	}
	seen := map[string]int{}
	opts := azcosmos.ChangeFeedOptions{FeedRange: wholeRange(t, cc), MaxItemCount: 5}
	readSome := func(cc *azcosmos.ContainerClient) error {
		resp, err := cc.ReadChangeFeed(ctx, &opts)
		if err != nil {
			return err
		}
		tok := resp.ContinuationToken
		opts.Continuation, opts.FeedRange = &tok, nil
		for _, it := range resp.Items {
			seen[decode(t, it)["id"].(string)]++
		}
		return nil
	}
	t0 := time.Now()
	for time.Since(t0) < 15*time.Second && len(seen) < 30 {
		if err := readSome(cc); err != nil {
			t.Fatalf("change feed before the kill: %v", err)
		}
	}
	proc.Kill()
	wg.Wait()

	_, env = startKillable(t, bin, dataDir)
	cc2, _ := newClient(t, env).NewContainer("db", "items")
	for {
		before := len(seen)
		if err := readSome(cc2); err != nil {
			t.Fatalf("change feed after the restart: %v", err)
		}
		if len(seen) == before {
			break
		}
	}
	mu.Lock()
	defer mu.Unlock()
	for id, n := range seen {
		if n != 1 {
			t.Fatalf("item %s appeared %d times", id, n)
		}
	}
	for id := range acked {
		if seen[id] != 1 {
			t.Fatalf("acknowledged item %s missing from the change feed", id)
		}
	}
	t.Logf("%d acknowledged items, %d in the feed across kill -9", len(acked), len(seen))
}

// storeBytes is what the whole store holds: the bytes of its keys and
// values.
func storeBytes(t *testing.T, env *servertest.Env) int {
	t.Helper()
	n := 0
	err := env.Server.Store().View(context.Background(), func(rd kv.Reader) error {
		return rd.Scan(nil, []byte{0xff, 0xff, 0xff, 0xff}, func(k, v []byte) error { n += len(k) + len(v); return nil })
	})
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// TestReplacesDoNotGrowTheStore: 3,000 replaces of one 0.5 KiB item in a
// default container, through the SDK, leave the store about where one
// version of the item left it: the change feed keeps the latest change of
// each item, as Azure's latest-version feed does (it grew by 2.9 MB
// before). The latest-version feed serves the item once.
func TestReplacesDoNotGrowTheStore(t *testing.T) {
	env, _, cc := setup(t)
	ctx := context.Background()
	pk := azcosmos.NewPartitionKeyString("p")
	pad := strings.Repeat("x", 450)
	before := storeBytes(t, env)
	if _, err := cc.CreateItem(ctx, pk, mustJSON(t, map[string]any{"id": "counter", "pk": "p", "n": 0, "pad": pad}), nil); err != nil {
		t.Fatal(err)
	}
	one := storeBytes(t, env) - before
	for n := 1; n <= 3000; n++ {
		if _, err := cc.ReplaceItem(ctx, pk, "counter", mustJSON(t, map[string]any{"id": "counter", "pk": "p", "n": n, "pad": pad}), nil); err != nil {
			t.Fatal(err)
		}
	}
	grown := storeBytes(t, env) - before
	t.Logf("one version: %d B; after 3,000 replaces: %d B", one, grown)
	if grown > 12*one {
		t.Fatalf("3,000 replaces grew the store by %d B, one version takes %d B", grown, one)
	}
	if ids, _ := changeIDs(t, cc, azcosmos.ChangeFeedOptions{FeedRange: wholeRange(t, cc)}); !slices.Equal(ids, []string{"counter"}) {
		t.Fatalf("latest-version feed: %v", ids)
	}
}

// TestAllVersionsStartPositions: the wire shape of a Full-Fidelity Feed
// request's start. With neither a continuation nor a start time it is
// from the beginning, which Azure refuses with 400 "You must read the
// change feed from within the retention period." (@azure/cosmos's live
// tests, test/public/integration/changeFeedIterator.spec.ts,
// "startFromBeginning is not supported"); from now (If-None-Match: *) it
// is 304 with the etag to continue from, and from that etag it serves the
// changes after it. The latest-version feed from the beginning is served.
func TestAllVersionsStartPositions(t *testing.T) {
	env, _, cc := setup(t)
	ctx := context.Background()
	pk := azcosmos.NewPartitionKeyString("p")
	if _, err := cc.CreateItem(ctx, pk, mustJSON(t, map[string]any{"id": "a", "pk": "p"}), nil); err != nil {
		t.Fatal(err)
	}
	feed := func(aim string, header map[string]string) (*http.Response, []byte) {
		t.Helper()
		h := map[string]string{"A-IM": aim, "x-ms-documentdb-partitionkeyrangeid": "0", "x-ms-version": "2020-07-15"}
		maps.Copy(h, header)
		return send(t, env, rawRequest{method: "GET", path: "/dbs/db/colls/items/docs", resourceType: "docs", link: "dbs/db/colls/items", header: h})
	}
	resp, body := feed("Full-Fidelity Feed", nil)
	if resp.StatusCode != http.StatusBadRequest || !strings.Contains(string(body), "You must read the change feed from within the retention period.") {
		t.Fatalf("all versions from the beginning: %d %s, want 400", resp.StatusCode, body)
	}
	if resp, body := feed("Incremental Feed", nil); resp.StatusCode != http.StatusOK || !strings.Contains(string(body), `"id":"a"`) {
		t.Fatalf("latest version from the beginning: %d %s", resp.StatusCode, body)
	}
	resp, _ = feed("Full-Fidelity Feed", map[string]string{"If-None-Match": "*"})
	etag := resp.Header.Get("etag")
	if resp.StatusCode != http.StatusNotModified || etag == "" {
		t.Fatalf("all versions from now: %d etag %q, want 304 with an etag", resp.StatusCode, etag)
	}
	if _, err := cc.UpsertItem(ctx, pk, mustJSON(t, map[string]any{"id": "a", "pk": "p", "v": 2}), nil); err != nil {
		t.Fatal(err)
	}
	resp, body = feed("Full-Fidelity Feed", map[string]string{"If-None-Match": etag})
	if resp.StatusCode != http.StatusOK || !strings.Contains(string(body), `"operationType":"replace"`) {
		t.Fatalf("all versions from the continuation: %d %s", resp.StatusCode, body)
	}
}
