package cosmos

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/cerulean-db/cerulean/internal/kv"
	"github.com/cerulean-db/cerulean/internal/testkit"
)

// randomDoc is an item whose properties take every type the index
// orders (and some it does not), or are missing.
func randomDoc(r *rand.Rand, id string) map[string]any {
	doc := map[string]any{"id": id, "pk": []string{"a", "b", "c"}[r.IntN(3)]}
	pick := func() any {
		switch r.IntN(10) {
		case 0:
			return nil
		case 1:
			return r.IntN(2) == 0
		case 2:
			return fmt.Sprintf("s%d", r.IntN(6))
		case 3:
			return []any{1.0, "x"}
		case 4:
			return float64(r.IntN(10)) + 0.5
		default:
			return float64(r.IntN(12) - 2)
		}
	}
	for _, name := range []string{"n", "s", "b"} {
		if r.IntN(6) > 0 {
			doc[name] = pick()
		}
	}
	if r.IntN(3) > 0 {
		doc["o"] = map[string]any{"x": pick()}
	}
	if r.IntN(3) == 0 {
		doc["tags"] = []any{"t1", fmt.Sprintf("t%d", r.IntN(3))}
	}
	if r.IntN(8) == 0 {
		doc["ttl"] = float64(1 + r.IntN(100))
	}
	return doc
}

func randomQuery(r *rand.Rand) (string, map[string]any) {
	selects := []string{"SELECT c.id, c.n FROM c", "SELECT * FROM c", "SELECT VALUE c.id FROM c", "SELECT c.id, t FROM c JOIN t IN c.tags",
		"SELECT TOP 4 c.id FROM c", "SELECT DISTINCT VALUE c.n FROM c", "SELECT VALUE COUNT(1) FROM c", "SELECT c.id FROM c"}
	terms := []string{"c.n >= 3", "c.n < 4", "c.n > 2.5", "c.n <= -1", "c.n = 5", "c.n = @p", "4 <= c.n", "c.s = 's2'", "c.s > 's3'", "c.s <= 's1'",
		"c.n IN (1, 2, 'x', 3)", "c.s IN ('s1', 's4')", "c.n BETWEEN 3 AND 7", "c.o.x > 2", "c.o.x = null", "c.b = true", "c.n = null",
		"IS_DEFINED(c.s)", "c.n != 3", "c.pk = 'b'", "c.n >= 0 AND c.n < 100", "c.s BETWEEN 's0' AND 's3'"}
	orders := []string{"", "", " ORDER BY c.n", " ORDER BY c.n DESC", " ORDER BY c.s", " ORDER BY c.s DESC", " ORDER BY c.o.x DESC", " ORDER BY c.id"}
	q := selects[r.IntN(len(selects))]
	var where []string
	for range r.IntN(3) {
		where = append(where, terms[r.IntN(len(terms))])
	}
	if len(where) > 0 {
		q += " WHERE " + strings.Join(where, " AND ")
	}
	if !strings.Contains(q, "COUNT") && !strings.Contains(q, "DISTINCT") {
		q += orders[r.IntN(len(orders))]
	}
	if r.IntN(8) == 0 && !strings.Contains(q, "TOP") {
		q += " OFFSET 2 LIMIT 3"
	}
	return q, map[string]any{"@p": float64(r.IntN(6))}
}

// allPages runs an item query page by page as the gateway does and
// concatenates the pages.
func allPages(s *Service, coll string, pk PartitionKey, q *Query, params map[string]any, size int) ([]string, int, error) {
	var out []string
	cont := ""
	pages := 0
	for {
		var f *Feed
		err := s.view(context.Background(), func(t *Tx) error {
			var err error
			f, err = t.queryItemsPage("db", coll, pk, q, params, itemQueryOptions{}, pageRequest{size: size, continuation: cont})
			return err
		})
		if err != nil {
			return nil, pages, err
		}
		pages++
		if len(f.Items) > size {
			return nil, pages, fmt.Errorf("page of %d items, asked for %d", len(f.Items), size)
		}
		for _, it := range f.Items {
			out = append(out, string(it))
		}
		if f.Continuation == "" {
			return out, pages, nil
		}
		if pages > 10_000 {
			return nil, pages, errors.New("no end of pages")
		}
		cont = f.Continuation
	}
}

// scanResults is the oracle: the query run by the engine over every live
// item of the partition, decoded whole, in key order.
func scanResults(s *Service, coll string, pk PartitionKey, q *Query, params map[string]any) ([]string, error) {
	var out []string
	err := s.view(context.Background(), func(t *Tx) error {
		hdr, ok, err := pk.components()
		if err != nil {
			return err
		}
		c, err := t.container("db", coll)
		if err != nil {
			return err
		}
		comps, err := c.scopePartitionKey(hdr, ok)
		if err != nil {
			return err
		}
		var st queryStats
		docs, err := t.scanDocsForQuery(c, comps, nil, &st)
		if err != nil {
			return err
		}
		res, err := q.runBodies(docs, params, nil, st.bodies)
		for _, r := range res {
			out = append(out, string(r))
		}
		return err
	})
	return out, err
}

// checkIndexConsistent holds the stored range index to the entries the
// live and expired-but-present items of coll give under its policy.
func checkIndexConsistent(t *testing.T, s *Service, coll string) {
	t.Helper()
	err := s.view(context.Background(), func(tx *Tx) error {
		c, err := tx.container("db", coll)
		if err != nil {
			return err
		}
		if err := tx.indexState(c); err != nil {
			return err
		}
		want := map[string]bool{}
		if c.maintained() {
			err = scanItems(tx.rd, itemsPrefix("db", coll), nil, func(_, v []byte) error {
				doc, err := decodeObject(v)
				if err != nil {
					t.Fatal(err)
				}
				pk, err := c.partitionKeyOf(doc)
				if err != nil {
					t.Fatal(err)
				}
				for _, k := range (&partition{t: tx, c: c, pk: pk}).indexEntries(doc) {
					want[string(k)] = true
				}
				return nil
			})
			if err != nil {
				return err
			}
		}
		got := map[string]bool{}
		prefix := indexPrefix("db", coll)
		err = tx.rd.Scan(prefix, kv.PrefixEnd(prefix), func(k, _ []byte) error {
			got[string(k)] = true
			return nil
		})
		if err != nil {
			return err
		}
		for k := range want {
			if !got[k] {
				t.Errorf("index entry missing: %q", k)
			}
		}
		for k := range got {
			if !want[k] {
				t.Errorf("stale index entry: %q", k)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// TestIndexedQueriesMatchScan is the differential test of the planner:
// random items (written, rewritten, patched, deleted, some expiring) and
// random queries the index serves (or not); every query's pages, read
// through the continuation at a random page size, must concatenate to
// what the engine gives over a scan of every item.
func TestIndexedQueriesMatchScan(t *testing.T) {
	seed := uint64(time.Now().UnixNano())
	t.Logf("seed %d", seed)
	r := rand.New(rand.NewPCG(seed, 7))
	s, clock := newTestService(t, `{"id":"items","partitionKey":{"paths":["/pk"]},"defaultTtl":-1}`)
	ctx := context.Background()
	const items = 250
	for i := range items {
		doc, _ := json.Marshal(randomDoc(r, fmt.Sprintf("i%03d", r.IntN(items*2))))
		if _, _, err := s.UpsertItem(ctx, CollectionRef{DB: "db", Coll: "items"}, "", doc, ItemOptions{}); err != nil {
			t.Fatal(err)
		}
		if i%10 == 0 {
			id := fmt.Sprintf("i%03d", r.IntN(items*2))
			for _, pk := range []string{"a", "b", "c"} {
				if _, err := s.DeleteItem(ctx, ItemRef{CollectionRef: CollectionRef{DB: "db", Coll: "items"}, PartitionKey: pkOf(t, pk), ID: id}, ItemOptions{}); err != nil && !errors.Is(err, ErrNotFound) {
					t.Fatal(err)
				}
			}
		}
		if i%7 == 0 {
			id := fmt.Sprintf("i%03d", r.IntN(items*2))
			p, err := ParsePatch([]byte(fmt.Sprintf(`{"operations":[{"op":"set","path":"/n","value":%d}]}`, r.IntN(9))))
			if err != nil {
				t.Fatal(err)
			}
			for _, pk := range []string{"a", "b", "c"} {
				if _, err := s.PatchItem(ctx, ItemRef{CollectionRef: CollectionRef{DB: "db", Coll: "items"}, PartitionKey: pkOf(t, pk), ID: id}, p, ItemOptions{}); err != nil && !errors.Is(err, ErrNotFound) {
					t.Fatal(err)
				}
			}
		}
	}
	clock.Advance(50 * time.Second) // some items expire
	checkIndexConsistent(t, s, "items")
	for i := range 400 {
		text, params := randomQuery(r)
		q, err := ParseQuery(text)
		if err != nil {
			t.Fatalf("%s: %v", text, err)
		}
		pk := PartitionKey("")
		if r.IntN(2) == 0 {
			pk = pkOf(t, []string{"a", "b", "c"}[r.IntN(3)])
		}
		size := 1 + r.IntN(7)
		want, werr := scanResults(s, "items", pk, q, params)
		got, pages, gerr := allPages(s, "items", pk, q, params, size)
		if (werr == nil) != (gerr == nil) {
			t.Fatalf("query %d %q (pk %s, pages of %d): scan error %v, paged error %v", i, text, pk, size, werr, gerr)
		}
		if !slices.Equal(got, want) {
			t.Fatalf("query %d %q (pk %s, pages of %d, %d pages):\n got %v\nwant %v", i, text, pk, size, pages, got, want)
		}
	}
	// Expiry removes entries with the item; the sweep removes the rest.
	if _, err := s.SweepExpired(ctx); err != nil {
		t.Fatal(err)
	}
	checkIndexConsistent(t, s, "items")
}

// TestIndexFollowsPolicy checks the entries a policy gives, a Replace
// Container that changes it (rebuilding the index) and a delete.
func TestIndexFollowsPolicy(t *testing.T) {
	s, _ := newTestService(t, `{"id":"items","partitionKey":{"paths":["/pk"]},"indexingPolicy":{"indexingMode":"consistent","includedPaths":[{"path":"/*"}],"excludedPaths":[{"path":"/big/*"},{"path":"/\"_etag\"/?"}]}}`)
	ctx := context.Background()
	for i := range 1200 {
		doc := fmt.Sprintf(`{"id":"i%d","pk":"p%d","n":%d,"big":{"x":1,"y":"%s"}}`, i, i%3, i%50, strings.Repeat("z", 2000))
		if _, err := s.CreateItem(ctx, CollectionRef{DB: "db", Coll: "items"}, "", []byte(doc), ItemOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	checkIndexConsistent(t, s, "items")
	countPath := func(path ...string) int {
		n := 0
		_ = s.view(ctx, func(tx *Tx) error {
			p := indexPathPrefix("db", "items", path)
			return tx.rd.Scan(p, kv.PrefixEnd(p), func(_, _ []byte) error { n++; return nil })
		})
		return n
	}
	if n := countPath("big", "x"); n != 0 {
		t.Fatalf("excluded /big/*: %d entries", n)
	}
	if n := countPath("n"); n != 1200 {
		t.Fatalf("/n: %d entries, want 1200", n)
	}
	if n := countPath("_etag"); n != 0 {
		t.Fatalf("/_etag: %d entries", n)
	}
	// Replace with a policy indexing /big/x only: the index is rebuilt
	// (in several transactions: 1,200 items).
	if _, err := s.ReplaceContainer(ctx, CollectionRef{DB: "db", Coll: "items"}, []byte(`{"id":"items","partitionKey":{"paths":["/pk"]},"indexingPolicy":{"includedPaths":[{"path":"/big/x/?"}],"excludedPaths":[{"path":"/*"}]}}`), Preconditions{}); err != nil {
		t.Fatal(err)
	}
	checkIndexConsistent(t, s, "items")
	if n, m := countPath("big", "x"), countPath("n"); n != 1200 || m != 0 {
		t.Fatalf("after replace: /big/x %d entries (want 1200), /n %d (want 0)", n, m)
	}
	err := s.view(ctx, func(tx *Tx) error {
		c, err := tx.container("db", "items")
		if err == nil {
			err = tx.indexState(c)
		}
		if err == nil && !c.indexUsable() {
			t.Error("index not ready after the rebuild")
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	if err := s.DeleteContainer(ctx, CollectionRef{DB: "db", Coll: "items"}, Preconditions{}); err != nil {
		t.Fatal(err)
	}
	for _, prefix := range [][]byte{indexPrefix("db", "items"), indexStateKey("db", "items")} {
		if n := testkit.CountKeys(t, s.store, prefix); n != 0 {
			t.Fatalf("%d keys left under %q", n, prefix)
		}
	}
}

// TestQueryIndexErrors checks Azure's refusals of queries the indexing
// policy cannot serve.
func TestQueryIndexErrors(t *testing.T) {
	s, _ := newTestService(t, `{"id":"items","partitionKey":{"paths":["/pk"]},"indexingPolicy":{"includedPaths":[{"path":"/*"}],"excludedPaths":[{"path":"/secret/?"}],"compositeIndexes":[[{"path":"/n","order":"ascending"},{"path":"/s","order":"descending"}]]}}`)
	ctx := context.Background()
	if _, err := s.CreateContainer(ctx, "db", []byte(`{"id":"plain","partitionKey":{"paths":["/pk"]},"indexingPolicy":{"indexingMode":"none","automatic":false}}`)); err != nil {
		t.Fatal(err)
	}
	for _, coll := range []string{"items", "plain"} {
		if _, err := s.CreateItem(ctx, CollectionRef{DB: "db", Coll: coll}, "", []byte(`{"id":"1","pk":"a","n":1,"s":"x","secret":2}`), ItemOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	gw := itemQueryOptions{scanNeedsHeader: true}
	for _, tc := range []struct {
		coll, query string
		opts        itemQueryOptions
		want        string // "" for success
	}{
		{"items", "SELECT * FROM c ORDER BY c.secret", gw, "Order-by item requires a range index to be defined on the corresponding index path."},
		{"items", "SELECT * FROM c ORDER BY c.n", gw, ""},
		{"items", "SELECT * FROM c ORDER BY c.n, c.s", gw, "The order by query does not have a corresponding composite index that it can be served from."},
		{"items", "SELECT * FROM c ORDER BY c.n ASC, c.s DESC", gw, ""},
		{"items", "SELECT * FROM c ORDER BY c.n DESC, c.s ASC", gw, ""},
		{"items", "SELECT * FROM c WHERE c.secret = 2", gw, ""},
		{"plain", "SELECT * FROM c WHERE c.n = 1", gw, "An invalid query has been specified with filters against path(s) excluded from indexing. Consider adding allow scan header in the request."},
		{"plain", "SELECT * FROM c WHERE c.n = 1", itemQueryOptions{scanNeedsHeader: true, enableScan: true}, ""},
		{"plain", "SELECT * FROM c", gw, ""},
	} {
		q, err := ParseQuery(tc.query)
		if err != nil {
			t.Fatal(err)
		}
		var f *Feed
		err = s.view(ctx, func(tx *Tx) error {
			var err error
			f, err = tx.queryItemsPage("db", tc.coll, pkOf(t, "a"), q, nil, tc.opts, pageRequest{size: 10})
			return err
		})
		if tc.want == "" {
			if err != nil || len(f.Items) != 1 {
				t.Errorf("%s %q: %v", tc.coll, tc.query, err)
			}
			continue
		}
		var e *Error
		if !errors.As(err, &e) || e.Status != 400 || e.Message != tc.want {
			t.Errorf("%s %q: got %v, want 400 %q", tc.coll, tc.query, err, tc.want)
		}
	}
}

// TestStreamedPagesReadWhatTheyReturn checks that a page of a selective
// indexed query reads about the items it returns, whatever the
// container holds.
func TestStreamedPagesReadWhatTheyReturn(t *testing.T) {
	s, _ := newTestService(t, "")
	ctx := context.Background()
	const items = 3000
	err := s.Update(ctx, func(tx *Tx) error {
		for i := range items {
			doc := fmt.Sprintf(`{"id":"%05d","pk":"p","n":%d,"cat":"c%d"}`, i, i, i%100)
			if _, err := tx.CreateItem(CollectionRef{DB: "db", Coll: "items"}, "", []byte(doc), ItemOptions{}); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		query      string
		page, want int // page size, results on the first page
	}{
		{"SELECT c.id FROM c WHERE c.n >= 2900 ORDER BY c.n DESC", 10, 10},
		{"SELECT c.id FROM c WHERE c.n >= 100 ORDER BY c.n", 10, 10},
		{"SELECT c.id FROM c WHERE c.cat = 'c7'", 10, 10},
		{"SELECT c.id FROM c WHERE c.n BETWEEN 10 AND 14", 100, 5},
		{"SELECT * FROM c", 10, 10},
	} {
		q, err := ParseQuery(tc.query)
		if err != nil {
			t.Fatal(err)
		}
		var st queryStats
		var f *Feed
		err = s.view(ctx, func(tx *Tx) error {
			var err error
			f, err = tx.queryItemsPage("db", "items", pkOf(t, "p"), q, nil, itemQueryOptions{stats: &st}, pageRequest{size: tc.page})
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
		if len(f.Items) != tc.want || st.retrievedCount > tc.want+1 {
			t.Errorf("%q: %d results from %d items read, want %d from at most %d", tc.query, len(f.Items), st.retrievedCount, tc.want, tc.want+1)
		}
		var tok pageToken
		if f.Continuation != "" && (json.Unmarshal([]byte(f.Continuation), &tok) != nil || tok.Mode == "" || tok.Offset != nil) {
			t.Errorf("%q: continuation %q is not a resume position", tc.query, f.Continuation)
		}
	}
	// An offset token of an older server still pages a query that runs
	// in full.
	q, _ := ParseQuery("SELECT VALUE COUNT(1) FROM c")
	got, _, err := allPages(s, "items", pkOf(t, "p"), q, nil, 5)
	if err != nil || !bytes.Equal([]byte(strings.Join(got, ",")), []byte("3000")) {
		t.Fatalf("count: %v %v", got, err)
	}
	var f *Feed
	q, _ = ParseQuery("SELECT DISTINCT VALUE c.cat FROM c")
	err = s.view(ctx, func(tx *Tx) error {
		var err error
		f, err = tx.queryItemsPage("db", "items", pkOf(t, "p"), q, nil, itemQueryOptions{}, pageRequest{size: 10, continuation: `{"offset":95}`})
		return err
	})
	if err != nil || len(f.Items) != 5 || f.Continuation != "" {
		t.Fatalf("offset token: %v %v %q", err, len(f.Items), f.Continuation)
	}
}

// TestIndexingPolicyForms: the legacy root path "/" (with an "indexes"
// list, as the 3.x JavaScript SDK's query tests send it) indexes every
// path as "/*" does, and partial policies are completed as Azure completes
// them (the JavaScript SDK's container tests, run against Azure, check
// these echoes): "/*" included when no included path is given, the _etag
// exclusion appended after the excluded paths given, nothing in "none"
// mode.
func TestIndexingPolicyForms(t *testing.T) {
	s, _ := newTestService(t, `{"id":"items","partitionKey":{"paths":["/pk"]},"indexingPolicy":{"includedPaths":[{"path":"/","indexes":[{"kind":"Range","dataType":"Number","precision":-1},{"kind":"Hash","dataType":"String","precision":3},{"kind":"Spatial","dataType":"Point"}]}]}}`)
	ctx := context.Background()
	if _, err := s.CreateItem(ctx, CollectionRef{DB: "db", Coll: "items"}, "", []byte(`{"id":"a","pk":"p","n":1,"o":{"s":"x"}}`), ItemOptions{}); err != nil {
		t.Fatal(err)
	}
	checkIndexConsistent(t, s, "items")
	err := s.view(ctx, func(tx *Tx) error {
		c, err := tx.container("db", "items")
		if err != nil {
			return err
		}
		pol, err := parseIndexPolicy(c.rec["indexingPolicy"])
		if err != nil {
			return err
		}
		for _, path := range [][]string{{"n"}, {"o", "s"}, {"pk"}} {
			if !pol.indexed(path) {
				t.Errorf("%v not indexed under the root path /", path)
			}
		}
		if pol.indexed([]string{"_etag"}) {
			t.Error("_etag indexed")
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	const etag = `{"path":"/\"_etag\"/?"}`
	for _, c := range []struct{ policy, want string }{
		{`{}`, `{"automatic":true,"excludedPaths":[` + etag + `],"includedPaths":[{"path":"/*"}],"indexingMode":"consistent"}`},
		{`{"includedPaths":[{"path":"/a/?"}]}`, `{"automatic":true,"excludedPaths":[` + etag + `],"includedPaths":[{"path":"/a/?"}],"indexingMode":"consistent"}`},
		{`{"indexingMode":"consistent","excludedPaths":[{"path":"/x/*"}]}`, `{"automatic":true,"excludedPaths":[{"path":"/x/*"},` + etag + `],"includedPaths":[{"path":"/*"}],"indexingMode":"consistent"}`},
		{`{"excludedPaths":[` + etag + `,{"path":"/x/*"}]}`, `{"automatic":true,"excludedPaths":[` + etag + `,{"path":"/x/*"}],"includedPaths":[{"path":"/*"}],"indexingMode":"consistent"}`},
		{`{"indexingMode":"none","automatic":false}`, `{"automatic":false,"excludedPaths":[],"includedPaths":[],"indexingMode":"none"}`},
	} {
		c2, err := s.CreateContainer(ctx, "db", []byte(`{"id":"c`+fmt.Sprint(len(c.policy))+`","partitionKey":{"paths":["/pk"]},"indexingPolicy":`+c.policy+`}`))
		if err != nil {
			t.Fatalf("%s: %v", c.policy, err)
		}
		var got struct{ IndexingPolicy json.RawMessage }
		if err := json.Unmarshal(c2.Body, &got); err != nil {
			t.Fatal(err)
		}
		if string(got.IndexingPolicy) != c.want {
			t.Errorf("policy %s echoed as\n %s, want\n %s", c.policy, got.IndexingPolicy, c.want)
		}
	}
}
