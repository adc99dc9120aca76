package blob

import (
	"strings"
	"testing"
)

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
		// No spaces around AND, as azblob's TestFilterBlobsWithTags sends
		// it to Azure.
		{`"a"='1'AND"b"='x y'`, true},
		{`"a"='1'AND("b"='x y')`, true},
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

// TestTagFilter: the Find Blobs by Tags grammar is the condition grammar
// without OR, <> and parentheses, plus @container (the two operator
// tables of the blob index tags guide); a same-sided range on one key is
// invalid there, a range bounded on both sides is not.
func TestTagFilter(t *testing.T) {
	for _, ok := range []string{
		`"tag1"='firsttag'AND"tag2"='secondtag'`,                   // azblob TestFilterBlobsWithTags
		`"GO "='.Net'`,                                             // azblob TestFilterBlobsWithTags (a key with a space)
		`"year"='1000' and tag2 = 'secondtag' and tag3='thirdtag'`, // azure-storage-blob test_filter_blobs
		`@container='c' AND "k" >= 'a' AND "k" < 'b'`,              // Azurite#2514: works on Azure
		`"k"='v'AND@container='c'`,
	} {
		if _, err := ParseTagFilter(ok); err != nil {
			t.Errorf("ParseTagFilter(%s): %v", ok, err)
		}
	}
	for _, tc := range []struct{ expr, msg string }{
		{`"a" = '1' OR "b" = '2'`, `position 11: unexpected 'OR'`},
		{`"a" <> '1'`, `position 5: unexpected '<>'`},
		{`("a" = '1')`, `position 1: unexpected '('`},
		{`"a" = 1`, `position 7: unexpected '1'`},
		{`"a" = '1`, `position 7: unexpected '''`},
		{`@other = 'x' AND "a" = '1'`, `position 1: unexpected '@other'`},
		{`"Rank" > '10' AND "Rank" >= '15'`, ""},
		{`"Rank" < '10' AND "Rank" <= '15'`, ""},
		{`@container = 'x'`, ""},
		{`@container = 'x' AND @container = 'y' AND "a" = '1'`, ""},
	} {
		_, err := ParseTagFilter(tc.expr)
		if err == nil {
			t.Errorf("ParseTagFilter(%s) accepted an invalid filter", tc.expr)
			continue
		}
		if tc.msg != "" && !strings.Contains(err.Error(), tc.msg) {
			t.Errorf("ParseTagFilter(%s) = %q, want it to say %q", tc.expr, err, tc.msg)
		}
	}
	if _, err := ParseTagCondition(`@container = 'x'`); err == nil {
		t.Errorf("x-ms-if-tags took @container, which only Find Blobs by Tags has")
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
