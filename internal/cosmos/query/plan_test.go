package query

import (
	"reflect"
	"testing"
)

func intp(n int) *int { return &n }

func TestPlan(t *testing.T) {
	tests := []struct {
		query string
		want  Plan
	}{
		{"SELECT * FROM c", Plan{}},
		{"SELECT VALUE c.id FROM c", Plan{HasSelectValue: true}},
		{
			"SELECT c.id FROM c ORDER BY c.name DESC, c['age'] , LOWER(c.city) ASC",
			Plan{HasOrderBy: true, OrderBy: []string{"Descending", "Ascending", "Ascending"},
				OrderByExpressions: []string{"c.name", "c['age']", "LOWER(c.city)"}},
		},
		{
			"SELECT DISTINCT TOP 5 c.a FROM c",
			Plan{Distinct: true, Top: intp(5)},
		},
		{
			"SELECT * FROM c OFFSET 10 LIMIT 20",
			Plan{Offset: intp(10), Limit: intp(20)},
		},
		{
			"SELECT TOP @n * FROM c OFFSET @o LIMIT 3",
			Plan{Limit: intp(3)},
		},
		{
			"SELECT VALUE COUNT(1) FROM c",
			Plan{HasSelectValue: true, HasAggregates: true, Aggregates: []string{"Count"}},
		},
		{
			"SELECT c.city, SUM(c.n) AS s, AVG(c.n) AS a, MIN(c.n), MAX(c.n), COUNT(1) FROM c GROUP BY c.city, LOWER(c.state)",
			Plan{HasAggregates: true, Aggregates: []string{"Sum", "Average", "Min", "Max", "Count"},
				HasGroupBy: true, GroupByExpressions: []string{"c.city", "LOWER(c.state)"}},
		},
		{
			// An aggregate inside a subquery is evaluated per row, not by the SDK.
			"SELECT c.id, (SELECT VALUE COUNT(1) FROM t IN c.tags) AS n FROM c",
			Plan{},
		},
	}
	for _, tt := range tests {
		q, err := Parse(tt.query)
		if err != nil {
			t.Fatalf("Parse(%q): %v", tt.query, err)
		}
		if got := q.Plan(); !reflect.DeepEqual(got, tt.want) {
			t.Errorf("Plan(%q)\n got %+v\nwant %+v", tt.query, got, tt.want)
		}
	}
}
