package cosmos

import (
	"slices"
	"strconv"
	"testing"
)

func TestParsePartitionKeyHeader(t *testing.T) {
	for _, tc := range []struct {
		header string
		want   []string
	}{
		{`["a"]`, []string{`"a"`}},
		{`[1.0]`, []string{`1`}},
		{`[null]`, []string{`null`}},
		{`[{}]`, []string{`{}`}},
		{`["acme","eu",true]`, []string{`"acme"`, `"eu"`, `true`}},
		// azcosmos quotes with strconv.QuoteToASCII.
		{"[" + strconv.QuoteToASCII("😀 é") + "]", []string{`"😀 é"`}},
	} {
		got, ok, err := parsePartitionKeyHeader(tc.header)
		if err != nil || !ok || !slices.Equal(got, tc.want) {
			t.Errorf("parsePartitionKeyHeader(%s) = %q, %v, %v; want %q", tc.header, got, ok, err, tc.want)
		}
	}
	for _, bad := range []string{`"a"`, `[`, `[{"x":1}]`, `[[1]]`} {
		if _, _, err := parsePartitionKeyHeader(bad); err == nil {
			t.Errorf("parsePartitionKeyHeader(%s) accepted", bad)
		}
	}
	// The value extracted from an item equals the header's.
	c := &container{pkPaths: [][]string{{"a", "b"}}}
	doc, _ := decodeObject([]byte(`{"a":{"b":2.0}}`))
	pk, err := c.partitionKeyOf(doc)
	if err != nil || !slices.Equal(pk, []string{"2"}) {
		t.Fatalf("partitionKeyOf = %q, %v", pk, err)
	}
}
