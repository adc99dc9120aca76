package query

import (
	"bufio"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
)

var update = flag.Bool("update", false, "rewrite the want lines of testdata/queries.txt from the actual results")

// fixedNow is the clock of the golden tests.
var fixedNow = time.Date(2026, 11, 22, 1, 2, 3, 456789100, time.UTC)

// goldenCase is one block of testdata/queries.txt:
//
//	# optional comments
//	query: SELECT ...          (continuation lines start with "  ")
//	params: {"@p": 1}          (optional)
//	want: [...]                (JSON results) or "error: <substring>"
type goldenCase struct {
	comments []string
	query    string
	params   string
	want     string
	line     int
}

func loadFamilies(t testing.TB) []map[string]any {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", "families.json"))
	if err != nil {
		t.Fatal(err)
	}
	var docs []map[string]any
	if err := json.Unmarshal(b, &docs); err != nil {
		t.Fatal(err)
	}
	return docs
}

func readGolden(t *testing.T, path string) []*goldenCase {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = f.Close() }()
	var cases []*goldenCase
	var cur *goldenCase
	var pendingComments []string
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	n := 0
	for sc.Scan() {
		n++
		line := sc.Text()
		switch {
		case strings.TrimSpace(line) == "":
			cur = nil
		case strings.HasPrefix(line, "#"):
			pendingComments = append(pendingComments, line)
		case strings.HasPrefix(line, "query:"):
			cur = &goldenCase{comments: pendingComments, query: strings.TrimSpace(strings.TrimPrefix(line, "query:")), line: n}
			pendingComments = nil
			cases = append(cases, cur)
		case cur == nil:
			t.Fatalf("%s:%d: line outside a case: %q", path, n, line)
		case strings.HasPrefix(line, "  "):
			cur.query += "\n" + line
		case strings.HasPrefix(line, "params:"):
			cur.params = strings.TrimSpace(strings.TrimPrefix(line, "params:"))
		case strings.HasPrefix(line, "want:"):
			cur.want = strings.TrimSpace(strings.TrimPrefix(line, "want:"))
		default:
			t.Fatalf("%s:%d: unexpected line %q", path, n, line)
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return cases
}

func writeGolden(t *testing.T, path string, cases []*goldenCase) {
	t.Helper()
	var b strings.Builder
	for i, c := range cases {
		if i > 0 {
			b.WriteString("\n")
		}
		for _, cm := range c.comments {
			b.WriteString(cm + "\n")
		}
		b.WriteString("query: " + c.query + "\n")
		if c.params != "" {
			b.WriteString("params: " + c.params + "\n")
		}
		b.WriteString("want: " + c.want + "\n")
	}
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
}

// runGolden returns the canonical text of a case's outcome.
func runGolden(docs []map[string]any, c *goldenCase) (string, error) {
	var params map[string]any
	if c.params != "" {
		if err := json.Unmarshal([]byte(c.params), &params); err != nil {
			return "", fmt.Errorf("bad params: %w", err)
		}
	}
	q, err := Parse(c.query)
	if err == nil {
		var res []any
		res, err = q.RunAt(docs, params, fixedNow)
		if err == nil {
			b, err := json.Marshal(res)
			if err != nil {
				return "", fmt.Errorf("marshal results: %w", err)
			}
			return string(b), nil
		}
	}
	var qe *Error
	if !errors.As(err, &qe) {
		return "", fmt.Errorf("error is %T, not *Error: %w", err, err)
	}
	return "error: " + err.Error(), nil
}

func TestGolden(t *testing.T) {
	path := filepath.Join("testdata", "queries.txt")
	docs := loadFamilies(t)
	cases := readGolden(t, path)
	if len(cases) < 120 {
		t.Errorf("only %d golden queries; the suite promises at least 120", len(cases))
	}
	for _, c := range cases {
		got, err := runGolden(docs, c)
		if err != nil {
			t.Errorf("line %d: %s: %v", c.line, c.query, err)
			continue
		}
		if *update {
			c.want = got
			continue
		}
		if strings.HasPrefix(c.want, "error:") {
			if !strings.HasPrefix(got, "error:") || !strings.Contains(got, strings.TrimSpace(strings.TrimPrefix(c.want, "error:"))) {
				t.Errorf("line %d: %s\n got: %s\nwant: %s", c.line, c.query, got, c.want)
			}
			continue
		}
		if !jsonEqual(got, c.want) {
			t.Errorf("line %d: %s\n got: %s\nwant: %s", c.line, c.query, got, c.want)
		}
	}
	if *update {
		writeGolden(t, path, cases)
	}
}

func jsonEqual(a, b string) bool {
	var x, y any
	if json.Unmarshal([]byte(a), &x) != nil || json.Unmarshal([]byte(b), &y) != nil {
		return false
	}
	xb, _ := json.Marshal(x)
	yb, _ := json.Marshal(y)
	return string(xb) == string(yb)
}
