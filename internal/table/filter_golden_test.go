package table

import (
	"bufio"
	"errors"
	"flag"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/cerulean-db/cerulean/internal/azerr"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata")

const (
	goldenEntities = "testdata/filter_entities.jsonl"
	goldenFilters  = "testdata/filter.golden"
)

// goldenCase is one filter of testdata/filter.golden and the lines that
// describe its outcome.
type goldenCase struct {
	filter string
	want   []string
}

// readGolden splits the golden file into its leading comment block and
// its cases.
func readGolden(t *testing.T) (header []string, cases []goldenCase) {
	t.Helper()
	f, err := os.Open(goldenFilters)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = f.Close() }()
	sc := bufio.NewScanner(f)
	var cur *goldenCase
	for sc.Scan() {
		line := sc.Text()
		switch {
		case strings.HasPrefix(line, "filter: "):
			cases = append(cases, goldenCase{filter: strings.TrimPrefix(line, "filter: ")})
			cur = &cases[len(cases)-1]
		case line == "":
			cur = nil
		case cur != nil:
			cur.want = append(cur.want, line)
		case len(cases) == 0:
			header = append(header, line)
		default:
			t.Fatalf("golden file: stray line %q", line)
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return header, cases
}

// loadGoldenEntities parses the dataset the golden filters run against.
func loadGoldenEntities(t *testing.T) []*Entity {
	t.Helper()
	data, err := os.ReadFile(goldenEntities)
	if err != nil {
		t.Fatal(err)
	}
	var out []*Entity
	for i, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
		doc, err := parseEntityJSON([]byte(line))
		if err != nil {
			t.Fatalf("%s line %d: %v", goldenEntities, i+1, err)
		}
		out = append(out, &Entity{PartitionKey: doc.PartitionKey, RowKey: doc.RowKey, Version: uint64(i + 1), Timestamp: testTicks, Properties: doc.Properties})
	}
	slices.SortFunc(out, func(a, b *Entity) int {
		return strings.Compare(a.PartitionKey+"\x00"+a.RowKey, b.PartitionKey+"\x00"+b.RowKey)
	})
	return out
}

// goldenOutcome is what the golden file records for one filter.
func goldenOutcome(t *testing.T, entities []*Entity, filter string) []string {
	f, err := parseFilter(map[string][]string{"$filter": {filter}})
	if err != nil {
		var e *azerr.Error
		if !errors.As(err, &e) {
			t.Fatalf("filter %q: error %v is not an Azure error", filter, err)
		}
		return []string{"error: " + e.Code}
	}
	pks, rks := f.KeyRange("PartitionKey"), f.KeyRange("RowKey")
	_, singlePK := pks.Single()
	var keys []string
	for _, e := range entities {
		if !f.Match(e.Get) {
			continue
		}
		keys = append(keys, e.RowKey)
		// The key range a query scans must hold every match.
		if !pks.Contains(e.PartitionKey) || singlePK && !rks.Contains(e.RowKey) {
			t.Errorf("filter %q matches (%q, %q) outside its key range %+v / %+v", filter, e.PartitionKey, e.RowKey, pks, rks)
		}
	}
	return []string{"parsed: " + f.String(), "match: " + strings.Join(keys, " ")}
}

// TestFilterGolden evaluates every filter of the golden file against the
// dataset and compares with the recorded outcome; -update rewrites it.
func TestFilterGolden(t *testing.T) {
	entities := loadGoldenEntities(t)
	header, cases := readGolden(t)
	if len(cases) < 60 {
		t.Fatalf("only %d golden cases", len(cases))
	}
	var out strings.Builder
	for _, line := range header {
		out.WriteString(line + "\n")
	}
	out.WriteString("\n")
	for _, c := range cases {
		got := goldenOutcome(t, entities, c.filter)
		if !*update && !slices.Equal(got, c.want) {
			t.Errorf("filter %q:\n got %q\nwant %q", c.filter, got, c.want)
		}
		out.WriteString("filter: " + c.filter + "\n")
		for _, line := range got {
			out.WriteString(line + "\n")
		}
		out.WriteString("\n")
	}
	if *update {
		if err := os.WriteFile(goldenFilters, []byte(out.String()), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// TestFilterGoldenThroughQuery runs the golden filters as queries against
// a store holding the dataset: narrowing the scan to the filter's key
// range must not change the results.
func TestFilterGoldenThroughQuery(t *testing.T) {
	s := newTestService(t)
	ctx := t.Context()
	entities := loadGoldenEntities(t)
	if _, err := s.CreateTable(ctx, testAccount, "golden"); err != nil {
		t.Fatal(err)
	}
	for _, e := range entities {
		if _, err := s.WriteEntity(ctx, testAccount, "golden", EntityWrite{Kind: WriteInsert, PartitionKey: e.PartitionKey, RowKey: e.RowKey, Properties: e.Properties}); err != nil {
			t.Fatal(err)
		}
	}
	_, cases := readGolden(t)
	for _, c := range cases {
		f, err := parseFilter(map[string][]string{"$filter": {c.filter}})
		if err != nil {
			continue
		}
		var want []string
		for _, e := range entities {
			if f.Match(e.Get) {
				want = append(want, e.RowKey)
			}
		}
		var got []string
		q := EntityQuery{Filter: f, Top: 2}
		for {
			page, err := s.QueryEntities(ctx, testAccount, "golden", q)
			if err != nil {
				t.Fatalf("filter %q: %v", c.filter, err)
			}
			for _, e := range page.Entities {
				got = append(got, e.RowKey)
			}
			if !page.HasNext {
				break
			}
			q.NextPK, q.NextRK, q.HasNext = page.NextPK, page.NextRK, true
		}
		if !slices.Equal(got, want) {
			t.Errorf("filter %q: query returned %q, evaluator %q", c.filter, got, want)
		}
	}
}
