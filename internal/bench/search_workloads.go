package bench

import (
	"bytes"
	"context"
	"crypto/tls"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"
	"time"
)

// DevSearchConnection reaches a local cerulean's Search service on its
// default port (plain HTTP unless it runs with --search-https) with its
// default admin key.
const DevSearchConnection = "Endpoint=http://127.0.0.1:8082;Key=cerulean-search-admin-key"

// searchAPIVersion is a generally available api-version every cerulean
// with a Search service answers.
const searchAPIVersion = "2024-07-01"

// searchWorkload marks workloads that need the Search client.
type searchWorkload interface {
	Workload
	search()
}

// searchClient speaks the Search REST API: there is no Go SDK for Azure
// AI Search, so requests are built here, with the admin key.
type searchClient struct {
	endpoint string // scheme://host:port, no trailing slash
	key      string
	http     *http.Client
}

// searchStatusError is a Search answer with a status the operation did
// not expect; the run counts it under its status.
type searchStatusError struct {
	status int
	body   string
}

func (e *searchStatusError) Error() string {
	return fmt.Sprintf("search answered %d: %s", e.status, e.body)
}

// newSearchClient reads "Endpoint=URL;Key=KEY". Like the Cosmos client,
// it trusts a self-signed certificate only on loopback, where the
// server's generated one is expected.
func newSearchClient(conn string) (*searchClient, error) {
	var endpoint, key string
	for part := range strings.SplitSeq(conn, ";") {
		name, value, _ := strings.Cut(part, "=")
		switch strings.TrimSpace(name) {
		case "Endpoint":
			endpoint = strings.TrimRight(value, "/")
		case "Key":
			key = value
		}
	}
	u, err := url.Parse(endpoint)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || key == "" {
		return nil, fmt.Errorf("search connection %q: want Endpoint=http(s)://host:port;Key=admin-key", conn)
	}
	transport := &http.Transport{MaxIdleConns: 1024, MaxIdleConnsPerHost: 1024, IdleConnTimeout: 90 * time.Second}
	if ip := net.ParseIP(u.Hostname()); (ip != nil && ip.IsLoopback()) || u.Hostname() == "localhost" {
		transport.TLSClientConfig = &tls.Config{InsecureSkipVerify: true}
	}
	return &searchClient{endpoint: endpoint, key: key, http: &http.Client{Transport: transport, Timeout: 5 * time.Minute}}, nil
}

// do sends one request to path (with query, api-version added) and
// returns the body of an answer with status want.
func (c *searchClient) do(ctx context.Context, method, path string, query url.Values, body []byte, want int) ([]byte, error) {
	if query == nil {
		query = url.Values{}
	}
	query.Set("api-version", searchAPIVersion)
	var rd io.Reader
	if body != nil {
		rd = bytes.NewReader(body)
	}
	req, err := http.NewRequestWithContext(ctx, method, c.endpoint+path+"?"+query.Encode(), rd)
	if err != nil {
		return nil, err
	}
	req.Header.Set("Api-Key", c.key)
	req.Header.Set("Accept", "application/json")
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := c.http.Do(req)
	if err != nil {
		return nil, err
	}
	defer func() { _ = resp.Body.Close() }()
	out, err := io.ReadAll(resp.Body)
	if err != nil {
		return nil, err
	}
	if resp.StatusCode != want {
		return nil, &searchStatusError{status: resp.StatusCode, body: string(out)}
	}
	return out, nil
}

// searchQueryDocs is how many documents search-query's index holds.
const searchQueryDocs = 10_000

// searchUploadBatch is how many documents one upload request carries.
const searchUploadBatch = 1_000

// searchVocabulary is the words documents are written in: 200 made-up
// words (no English stop word among them, and nothing a standard
// analyzer would split or stem), so that a document's 12 words make a
// one-word search match about 6% of the documents.
var searchVocabulary = func() []string {
	syllables := []string{"ba", "ce", "di", "fo", "gu", "ha", "ji", "ko", "lu", "ma", "ne", "pi", "ro", "su", "ta", "ve", "wi", "xo", "yu", "ze"}
	words := make([]string, 200)
	for i := range words {
		words[i] = syllables[i/20] + syllables[i%20] + syllables[(i*7+3)%20] + "n"
	}
	return words
}()

// searchDocWords are the title's and the body's word indexes of document
// n, drawn from a generator seeded with n: the same documents on every
// run.
func searchDocWords(n int) (title, body []int) {
	r := rand.New(rand.NewPCG(uint64(n), 0x5ea4c4))
	draw := func(k int) []int {
		out := make([]int, k)
		for i := range out {
			out[i] = r.IntN(len(searchVocabulary))
		}
		return out
	}
	return draw(2), draw(10)
}

func searchText(words []int) string {
	s := make([]string, len(words))
	for i, w := range words {
		s[i] = searchVocabulary[w]
	}
	return strings.Join(s, " ")
}

// searchQuery runs a full-text search for one word, filtered to n
// greater than a bound, over an index of docs documents: the page of
// the ten best and the count of all matches, each checked against the
// documents uploaded. The word and the bound follow a seeded sequence,
// so every run asks the same questions in the same order.
type searchQuery struct {
	docs  int
	c     *searchClient
	index string
	// postings[w] are the documents (their n, ascending) whose title or
	// body holds word w.
	postings [][]int
	seq      atomic.Uint64
}

// NewSearchQuery returns search-query over an index of docs documents
// (for scaling runs and short tests).
func NewSearchQuery(docs int) Workload { return &searchQuery{docs: docs} }

func (*searchQuery) search()                      {}
func (*searchQuery) Name() string                 { return "search-query" }
func (*searchQuery) Verify(context.Context) error { return nil }

func (w *searchQuery) Setup(ctx context.Context, c *Clients) error {
	if w.docs < 1 {
		return fmt.Errorf("an index of %d documents has nothing to search", w.docs)
	}
	w.c = c.Search
	w.index = fmt.Sprintf("bench%08x", rand.Uint32())
	def, err := json.Marshal(map[string]any{"name": w.index, "fields": []map[string]any{
		{"name": "id", "type": "Edm.String", "key": true},
		{"name": "title", "type": "Edm.String", "searchable": true},
		{"name": "body", "type": "Edm.String", "searchable": true},
		{"name": "n", "type": "Edm.Int32", "filterable": true, "sortable": true},
	}})
	if err != nil {
		return err
	}
	if _, err := w.c.do(ctx, http.MethodPost, "/indexes", nil, def, http.StatusCreated); err != nil {
		return fmt.Errorf("create index: %w", err)
	}
	w.postings = make([][]int, len(searchVocabulary))
	for start := 0; start < w.docs; start += searchUploadBatch {
		batch := make([]map[string]any, 0, searchUploadBatch)
		for n := start; n < min(start+searchUploadBatch, w.docs); n++ {
			title, body := searchDocWords(n)
			for _, word := range slices.Compact(slices.Sorted(slices.Values(slices.Concat(title, body)))) {
				w.postings[word] = append(w.postings[word], n)
			}
			batch = append(batch, map[string]any{"@search.action": "upload", "id": strconv.Itoa(n), "title": searchText(title), "body": searchText(body), "n": n})
		}
		if err := w.upload(ctx, batch); err != nil {
			return err
		}
	}
	return w.awaitCount(ctx)
}

func (w *searchQuery) upload(ctx context.Context, batch []map[string]any) error {
	body, err := json.Marshal(map[string]any{"value": batch})
	if err != nil {
		return err
	}
	out, err := w.c.do(ctx, http.MethodPost, "/indexes/"+w.index+"/docs/index", nil, body, http.StatusOK)
	if err != nil {
		return fmt.Errorf("upload documents: %w", err)
	}
	type result struct {
		Status bool `json:"status"`
	}
	var res struct {
		Value []result `json:"value"`
	}
	if err := json.Unmarshal(out, &res); err != nil {
		return fmt.Errorf("upload documents: %w", err)
	}
	if len(res.Value) != len(batch) || slices.ContainsFunc(res.Value, func(r result) bool { return !r.Status }) {
		return fmt.Errorf("upload documents: not every document was stored: %s", out)
	}
	return nil
}

// awaitCount waits until the index counts every document uploaded:
// queries before that would find fewer than the checks expect.
func (w *searchQuery) awaitCount(ctx context.Context) error {
	ctx, cancel := context.WithTimeout(ctx, 5*time.Minute)
	defer cancel()
	for {
		out, err := w.c.do(ctx, http.MethodGet, "/indexes/"+w.index+"/docs/$count", nil, nil, http.StatusOK)
		if err != nil {
			return fmt.Errorf("count documents: %w", err)
		}
		got, err := strconv.Atoi(strings.TrimSpace(strings.TrimPrefix(string(out), "\ufeff")))
		if err != nil {
			return fmt.Errorf("count documents: %q is not a number", out)
		}
		if got == w.docs {
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("count documents: %d of %d after waiting: %w", got, w.docs, ctx.Err())
		case <-time.After(50 * time.Millisecond):
		}
	}
}

// next is the word and bound of the query with sequence number i.
func (w *searchQuery) next(i uint64) (word, bound int) {
	r := rand.New(rand.NewPCG(i, 0x9e3779b9))
	return r.IntN(len(searchVocabulary)), r.IntN(w.docs)
}

func (w *searchQuery) Op(ctx context.Context, _ int) (int64, error) {
	word, bound := w.next(w.seq.Add(1))
	q := url.Values{}
	q.Set("search", searchVocabulary[word])
	q.Set("$filter", "n gt "+strconv.Itoa(bound))
	q.Set("$top", "10")
	q.Set("$count", "true")
	out, err := w.c.do(ctx, http.MethodGet, "/indexes/"+w.index+"/docs", q, nil, http.StatusOK)
	if err != nil {
		return 0, err
	}
	var res struct {
		Count *int `json:"@odata.count"`
		Value []struct {
			ID string `json:"id"`
			N  int    `json:"n"`
		} `json:"value"`
	}
	if err := json.Unmarshal(out, &res); err != nil {
		return 0, fmt.Errorf("search %q n gt %d: %w", searchVocabulary[word], bound, err)
	}
	holders := w.postings[word]
	above, _ := slices.BinarySearch(holders, bound+1)
	want := len(holders) - above
	if res.Count == nil || *res.Count != want || len(res.Value) != min(want, 10) {
		return 0, fmt.Errorf("search %q n gt %d: count %v and %d documents, want %d and %d",
			searchVocabulary[word], bound, res.Count, len(res.Value), want, min(want, 10))
	}
	for _, d := range res.Value {
		if _, found := slices.BinarySearch(holders, d.N); !found || d.N <= bound || d.ID != strconv.Itoa(d.N) {
			return 0, fmt.Errorf("search %q n gt %d: found document %s (n %d), which does not match", searchVocabulary[word], bound, d.ID, d.N)
		}
	}
	return int64(len(out)), nil
}
