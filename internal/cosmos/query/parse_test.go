package query

import (
	"errors"
	"strings"
	"testing"
)

// TestParseErrors checks that malformed queries fail with an *Error that
// says where and what.
func TestParseErrors(t *testing.T) {
	tests := []struct {
		query string
		want  []string // substrings of the message
	}{
		{"", []string{"line 1, column 1", "expected SELECT, found end of query"}},
		{"SELEC * FROM c", []string{"expected SELECT", "'SELEC'"}},
		{"SELECT", []string{"unexpected end of query"}},
		{"SELECT * FROM", []string{"expected a container name or alias"}},
		{"SELECT * FROM c WHERE", []string{"unexpected end of query"}},
		{"SELECT * FROM c WHERE c.a = ", []string{"unexpected end of query"}},
		{"SELECT c.a FROM c ORDER c.a", []string{"expected BY"}},
		{"SELECT c.a FROM c GROUP c.a", []string{"expected BY"}},
		{"SELECT c.a,, FROM c", []string{"unexpected ','"}},
		{"SELECT c.a FROM c extra tokens", []string{"unexpected 'tokens' after end of query"}},
		{"SELECT 'abc FROM c", []string{"unterminated string literal"}},
		{"SELECT \"a\\qb\"", []string{"invalid escape sequence"}},
		{"SELECT 1 /* open", []string{"unterminated comment"}},
		{"SELECT # FROM c", []string{"unexpected character '#'"}},
		{"SELECT 12abc", []string{"invalid number"}},
		{"SELECT @ FROM c", []string{"parameter name expected"}},
		{"SELECT (1 + 2", []string{"expected ')'"}},
		{"SELECT [1, 2", []string{"expected ']'"}},
		{"SELECT {a: 1", []string{"expected '}'"}},
		{"SELECT {1: 1}", []string{"expected a property name in object constructor"}},
		{"SELECT {a: 1, a: 2}", []string{"duplicate property \"a\""}},
		{"SELECT c.a, c.a FROM c", []string{"duplicate alias \"a\""}},
		{"SELECT *", []string{"'SELECT *' is not valid if FROM clause is omitted"}},
		{"SELECT * FROM c JOIN t IN c.tags", []string{"only valid with a single input set"}},
		{"SELECT * FROM c GROUP BY c.a", []string{"not valid with GROUP BY"}},
		{"SELECT TOP -1 * FROM c", []string{"TOP expects"}},
		{"SELECT TOP 1.5 * FROM c", []string{"TOP expects a non-negative integer"}},
		{"SELECT * FROM c OFFSET 1", []string{"expected LIMIT"}},
		{"SELECT * FROM c LIMIT 1", []string{"LIMIT requires a preceding OFFSET"}},
		{"SELECT * FROM c JOIN c IN c.tags", []string{"alias \"c\" is bound more than once"}},
		{"SELECT 1 FROM (SELECT 1)", []string{"an alias for the subquery"}},
		{"SELECT EXISTS(1)", []string{"EXISTS expects a subquery"}},
		{"SELECT ARRAY(1)", []string{"ARRAY expects a subquery"}},
		{"SELECT FOO(1)", []string{"\"FOO\" is not a recognized built-in function name"}},
		{"SELECT LOWER()", []string{"the LOWER function requires 1 argument(s), found 0"}},
		{"SELECT CONCAT('a')", []string{"requires at least 2 argument(s)"}},
		{"SELECT COUNT(1, 2) FROM c", []string{"requires 1 argument(s)"}},
		{"SELECT * FROM c WHERE SUM(c.a) > 1", []string{"not allowed in WHERE"}},
		{"SELECT c.a FROM c GROUP BY COUNT(1)", []string{"not allowed in GROUP BY"}},
		{"SELECT c.a FROM c WHERE c.a BETWEEN 1", []string{"expected AND"}},
		{"SELECT c.a FROM c WHERE c.a IN 1", []string{"expected '('"}},
		{"SELECT 1 ? 2", []string{"expected ':'"}},
		{"SELECT c. FROM c", []string{"expected a property name after '.'"}},
		{"SELECT * FROM c WHERE\n  c.a = = 1", []string{"line 2, column 9"}},
		{"SELECT " + strings.Repeat("(", 1000) + "1" + strings.Repeat(")", 1000), []string{"nested too deeply"}},
		{"SELECT " + strings.Repeat("- ", 1000) + "1", []string{"nested too deeply"}},
		{"SELECT " + strings.Repeat("NOT ", 1000) + "true", []string{"nested too deeply"}},
		{"SELECT " + strings.Repeat("1 + ", 20000) + "1", []string{"more than 10000 operators"}},
		{"SELECT '" + strings.Repeat("x", 600<<10) + "'", []string{"exceeds the maximum length"}},
	}
	for _, tt := range tests {
		q, err := Parse(tt.query)
		if err == nil {
			t.Errorf("Parse(%q) = %v, want an error", tt.query, q)
			continue
		}
		var qe *Error
		if !errors.As(err, &qe) {
			t.Errorf("Parse(%q) error is %T, want *Error", tt.query, err)
			continue
		}
		for _, w := range tt.want {
			if !strings.Contains(qe.Message, w) {
				t.Errorf("Parse(%q) = %q, want it to contain %q", tt.query, qe.Message, w)
			}
		}
	}
}

func TestParamsWithAndWithoutAt(t *testing.T) {
	q, err := Parse("SELECT VALUE [@a, @b]")
	if err != nil {
		t.Fatal(err)
	}
	res, err := q.Run(nil, map[string]any{"@a": 1.0, "b": "x"})
	if err != nil {
		t.Fatal(err)
	}
	if got := toJSON(res); got != `[[1,"x"]]` {
		t.Errorf("got %s", got)
	}
}

func TestRunIsConcurrencySafe(t *testing.T) {
	docs := loadFamilies(t)
	q, err := Parse("SELECT c.id, ARRAY(SELECT VALUE t FROM t IN c.tags) AS tags FROM c WHERE IS_DEFINED(c.tags) ORDER BY c.id")
	if err != nil {
		t.Fatal(err)
	}
	want, err := q.Run(docs, nil)
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan string)
	for range 8 {
		go func() {
			got, err := q.Run(docs, nil)
			if err != nil {
				done <- err.Error()
				return
			}
			done <- toJSON(got)
		}()
	}
	for range 8 {
		if got := <-done; got != toJSON(want) {
			t.Errorf("concurrent Run = %s, want %s", got, toJSON(want))
		}
	}
}

func TestRunIgnoresNonCanonicalValues(t *testing.T) {
	q, err := Parse("SELECT VALUE c.x + 1 FROM c WHERE c.x > 0 ORDER BY c.x")
	if err != nil {
		t.Fatal(err)
	}
	docs := []map[string]any{{"x": 2}, {"x": int64(1)}, {"x": struct{}{}}}
	res, err := q.Run(docs, nil)
	if err != nil {
		t.Fatal(err)
	}
	if got := toJSON(res); got != `[2,3]` {
		t.Errorf("got %s", got)
	}
}

func TestJoinFanOutIsBounded(t *testing.T) {
	old := maxRows
	maxRows = 10_000
	defer func() { maxRows = old }()
	big := make([]any, 50)
	for i := range big {
		big[i] = float64(i)
	}
	docs := []map[string]any{{"a": big}}
	q, err := Parse("SELECT VALUE COUNT(1) FROM c JOIN x IN c.a JOIN y IN c.a JOIN z IN c.a")
	if err != nil {
		t.Fatal(err)
	}
	_, err = q.Run(docs, nil)
	var qe *Error
	if !errors.As(err, &qe) || !strings.Contains(qe.Message, "too many") {
		t.Errorf("Run = %v, want a too-many-rows *Error", err)
	}
}
