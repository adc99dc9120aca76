package blob

import "testing"

func TestTagCondition(t *testing.T) {
	tags := Tags{{"a", "1"}, {"b", "x y"}, {"q", "it's"}}
	cases := []struct {
		expr string
		want bool
	}{
		{`"a" = '1'`, true},
		{`a = '1'`, true},
		{`"a" = '2'`, false},
		{`"a" <> '2'`, true},
		{`"a" > '0' AND "a" < '2'`, true},
		{`"a" >= '1' and "a" <= '1'`, true},
		{`"a" = '2' OR "b" = 'x y'`, true},
		{`"a" = '2' OR ("b" = 'x y' AND "a" = '3')`, false},
		{`("a" = '2' OR "a" = '1') AND "b" = 'x y'`, true},
		{`"missing" = ''`, false},
		{`"missing" <> 'v'`, false},
		{`"q" = 'it''s'`, true},
	}
	for _, tc := range cases {
		c, err := ParseTagCondition(tc.expr)
		if err != nil {
			t.Errorf("ParseTagCondition(%s): %v", tc.expr, err)
			continue
		}
		if got := c.Match(tags); got != tc.want {
			t.Errorf("%s matched %v, want %v", tc.expr, got, tc.want)
		}
	}
	for _, bad := range []string{``, `"a"`, `"a" = 1`, `"a" == '1'`, `"a" = '1' AND`, `("a" = '1'`, `"a" = '1')`, `"a = '1'`, `"a" = '1' XOR "b" = '2'`} {
		if _, err := ParseTagCondition(bad); err == nil {
			t.Errorf("ParseTagCondition(%s) accepted a malformed expression", bad)
		}
	}
}

// FuzzTagCondition: whatever the parser accepts evaluates without
// panicking, and a filter it accepts only names real comparisons.
func FuzzTagCondition(f *testing.F) {
	for _, s := range []string{`"a" = '1'`, `("a" = '1' OR b <> '') AND "c" >= 'x'`, `@container = 'c' AND "k" < 'v'`, `((((`} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		if c, err := ParseTagCondition(s); err == nil {
			c.Match(Tags{{"a", "1"}, {"k", "v"}})
		}
		if f, err := ParseTagFilter(s); err == nil {
			if len(f.cmps) == 0 {
				t.Fatalf("ParseTagFilter(%q) accepted a filter with no tag comparison", s)
			}
			f.match(Tags{{"a", "1"}})
		}
	})
}
