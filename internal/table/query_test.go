package table

import (
	"bytes"
	"context"
	"fmt"
	"sync"
	"testing"

	"github.com/cerulean-db/cerulean/internal/kv"
	"github.com/cerulean-db/cerulean/internal/table/odata"
)

// visitCounter wraps a store and counts the keys scans visit, and
// whether any fell outside an expected range.
type visitCounter struct {
	kv.Store
	mu      sync.Mutex
	visited [][]byte
}

func (s *visitCounter) View(ctx context.Context, fn func(kv.Reader) error) error {
	return s.Store.View(ctx, func(r kv.Reader) error { return fn(countingReader{r, s}) })
}

func (s *visitCounter) reset() [][]byte {
	s.mu.Lock()
	defer s.mu.Unlock()
	out := s.visited
	s.visited = nil
	return out
}

type countingReader struct {
	kv.Reader
	s *visitCounter
}

func (r countingReader) Scan(start, end []byte, fn func(k, v []byte) error) error {
	return r.Reader.Scan(start, end, func(k, v []byte) error {
		r.s.mu.Lock()
		r.s.visited = append(r.s.visited, bytes.Clone(k))
		r.s.mu.Unlock()
		return fn(k, v)
	})
}

// TestPartitionScan: a filter that fixes PartitionKey reads that
// partition only (and a RowKey range within it only that range); other
// filters read the table.
func TestPartitionScan(t *testing.T) {
	s := newTestService(t)
	counter := &visitCounter{Store: s.store}
	s.store = counter
	ctx := t.Context()
	if _, err := s.CreateTable(ctx, testAccount, "scan"); err != nil {
		t.Fatal(err)
	}
	for _, pk := range []string{"a", "b", "c"} {
		ops := make([]EntityWrite, 100)
		for i := range ops {
			ops[i] = EntityWrite{Kind: WriteInsert, PartitionKey: pk, RowKey: fmt.Sprintf("%03d", i), Properties: []Property{{"I", odata.Int32Value(int32(i))}}}
		}
		if _, err := s.Batch(ctx, testAccount, "scan", ops); err != nil {
			t.Fatal(err)
		}
	}
	tests := []struct {
		filter           string
		matches, visited int
		only             string // partition every visited key belongs to
	}{
		{"PartitionKey eq 'b' and I gt 89", 10, 100, "b"},
		{"I gt 89 and PartitionKey eq 'b'", 10, 100, "b"},
		{"PartitionKey eq 'b' and RowKey ge '050'", 50, 50, "b"},
		{"PartitionKey eq 'b' and RowKey gt '010' and RowKey le '020'", 10, 10, "b"},
		{"(PartitionKey eq 'b' or PartitionKey eq 'c') and I eq 3", 2, 200, ""},
		{"PartitionKey gt 'a' and PartitionKey lt 'c'", 100, 100, "b"},
		{"PartitionKey eq 'z'", 0, 0, ""},
		{"I eq 3", 3, 300, ""},
		{"not (PartitionKey eq 'b')", 200, 300, ""},
	}
	for _, tc := range tests {
		f, err := odata.Parse(tc.filter)
		if err != nil {
			t.Fatal(err)
		}
		counter.reset()
		page, err := s.QueryEntities(ctx, testAccount, "scan", EntityQuery{Filter: f, Top: maxPageSize})
		if err != nil {
			t.Fatal(err)
		}
		visited := counter.reset()
		if len(page.Entities) != tc.matches || len(visited) != tc.visited {
			t.Errorf("%q: %d matches, %d keys visited; want %d, %d", tc.filter, len(page.Entities), len(visited), tc.matches, tc.visited)
		}
		if tc.only != "" {
			p := partitionPrefix(testAccount, "scan", tc.only)
			for _, k := range visited {
				if !bytes.HasPrefix(k, p) {
					t.Errorf("%q visited a key outside partition %q", tc.filter, tc.only)
					break
				}
			}
		}
	}
}
