package search

import (
	"fmt"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"testing"
)

// TestFilterAmongTextMatches: a filter next to a text query is searched
// among the text's matches when they are few (confineFilterBelow) and in
// the whole index when they are many; either way the answer is every
// document matching both, as computed here from the documents.
func TestFilterAmongTextMatches(t *testing.T) {
	w := newWire(t)
	def := `{"name":"nums","fields":[{"name":"id","type":"Edm.String","key":true},
		{"name":"body","type":"Edm.String","searchable":true},{"name":"n","type":"Edm.Int32","filterable":true}]}`
	if resp, body := w.call("PUT", "/indexes('nums')"+v, def, nil); resp.StatusCode != 201 {
		t.Fatalf("index: %d %v", resp.StatusCode, body)
	}
	const docs = 400
	// Every document says "common"; one in ten also says "rare".
	words := func(n int) string {
		if n%10 == 3 {
			return "common rare"
		}
		return "common"
	}
	var batch []string
	for n := range docs {
		batch = append(batch, fmt.Sprintf(`{"@search.action":"upload","id":"%d","n":%d,"body":%q}`, n, n, words(n)))
	}
	if resp, body := w.call("POST", "/indexes('nums')/docs/index"+v, `{"value":[`+strings.Join(batch, ",")+`]}`, nil); resp.StatusCode != 200 {
		t.Fatalf("upload: %d %v", resp.StatusCode, body)
	}
	for _, word := range []string{"rare", "common"} {
		for _, filter := range []string{"n gt 200", "n le 13", "n gt 1000", "n eq 393", "n ge 0 and n lt 50"} {
			var want []string
			for n := range docs {
				if strings.Contains(words(n), word) && passes(filter, n) {
					want = append(want, strconv.Itoa(n))
				}
			}
			body := fmt.Sprintf(`{"search":%q,"filter":%q,"count":true,"top":1000,"select":"id"}`, word, filter)
			resp, res := w.call("POST", "/indexes('nums')/docs/search.post.search"+v, body, nil)
			if resp.StatusCode != 200 {
				t.Fatalf("%s: %d %v", body, resp.StatusCode, res)
			}
			var got []string
			for _, d := range res["value"].([]any) {
				got = append(got, d.(map[string]any)["id"].(string))
			}
			slices.SortFunc(got, func(a, b string) int { x, _ := strconv.Atoi(a); y, _ := strconv.Atoi(b); return x - y })
			if res["@odata.count"] != float64(len(want)) || !reflect.DeepEqual(got, want) {
				t.Errorf("%s: count %v, keys %v; want %d, %v", body, res["@odata.count"], got, len(want), want)
			}
		}
	}
}

// passes evaluates the few filters TestFilterAmongTextMatches uses.
func passes(filter string, n int) bool {
	switch filter {
	case "n gt 200":
		return n > 200
	case "n le 13":
		return n <= 13
	case "n gt 1000":
		return false
	case "n eq 393":
		return n == 393
	case "n ge 0 and n lt 50":
		return n < 50
	}
	panic("no such filter: " + filter)
}
