package search

import (
	"reflect"
	"testing"
)

const scoredIndex = `{"name":"scored","fields":[
	{"name":"id","type":"Edm.String","key":true},
	{"name":"text","type":"Edm.String","searchable":true},
	{"name":"rating","type":"Edm.Int32","filterable":true},
	{"name":"updated","type":"Edm.DateTimeOffset","filterable":true},
	{"name":"location","type":"Edm.GeographyPoint","filterable":true},
	{"name":"tags","type":"Collection(Edm.String)","filterable":true}],
	"scoringProfiles":[
		{"name":"rated","functions":[{"type":"magnitude","fieldName":"rating","boost":10,"magnitude":{"boostingRangeStart":0,"boostingRangeEnd":5}}]},
		{"name":"fresh","functions":[{"type":"freshness","fieldName":"updated","boost":10,"freshness":{"boostingDuration":"P36500D"}}]},
		{"name":"near","functions":[{"type":"distance","fieldName":"location","boost":10,"distance":{"referencePointParameter":"here","boostingDistance":1000}}]},
		{"name":"tagged","functions":[{"type":"tag","fieldName":"tags","boost":10,"tag":{"tagsParameter":"want"}}]},
		{"name":"weak","functionAggregation":"minimum","functions":[
			{"type":"magnitude","fieldName":"rating","boost":10,"magnitude":{"boostingRangeStart":0,"boostingRangeEnd":5}},
			{"type":"tag","fieldName":"tags","boost":10,"tag":{"tagsParameter":"want"}}]}]}`

// TestScoringFunctions: each function of a scoring profile lifts the
// documents it reaches, the more the further into its range; documents
// with equal text relevance come back in the order the function gives.
func TestScoringFunctions(t *testing.T) {
	w := newWire(t)
	if resp, body := w.call("PUT", "/indexes('scored')"+v, scoredIndex, nil); resp.StatusCode != 201 {
		t.Fatalf("index: %d %v", resp.StatusCode, body)
	}
	docs := `{"value":[
		{"@search.action":"upload","id":"a","text":"hotel","rating":1,"updated":"2001-01-01T00:00:00Z","location":` + point(0, 0) + `,"tags":["x"]},
		{"@search.action":"upload","id":"b","text":"hotel","rating":5,"updated":"2020-01-01T00:00:00Z","location":` + point(10, 10) + `,"tags":["want","x"]},
		{"@search.action":"upload","id":"c","text":"hotel","rating":3,"updated":"2010-01-01T00:00:00Z","location":` + point(1, 1) + `,"tags":["want"]}]}`
	if resp, body := w.call("POST", "/indexes('scored')/docs/search.index"+v, docs, nil); resp.StatusCode != 200 {
		t.Fatalf("batch: %d %v", resp.StatusCode, body)
	}
	order := func(body string) []string {
		t.Helper()
		resp, res := w.call("POST", "/indexes('scored')/docs/search.post.search"+v, body, nil)
		if resp.StatusCode != 200 {
			t.Fatalf("search %s: %d %v", body, resp.StatusCode, res)
		}
		var keys []string
		for _, d := range res["value"].([]any) {
			keys = append(keys, d.(map[string]any)["id"].(string))
		}
		return keys
	}
	for _, tc := range []struct {
		body string
		want []string
	}{
		{`{"search":"hotel","scoringProfile":"rated"}`, []string{"b", "c", "a"}},
		{`{"search":"hotel","scoringProfile":"fresh"}`, []string{"b", "c", "a"}},
		{`{"search":"hotel","scoringProfile":"near","scoringParameters":["here-0,0"]}`, []string{"a", "c", "b"}},
		// c has only wanted tags, b half of its tags, a none.
		{`{"search":"hotel","scoringProfile":"tagged","scoringParameters":["want-want"]}`, []string{"c", "b", "a"}},
		// minimum: b's smaller part is its half-wanted tags (9×0.5), c's
		// its rating (9×0.6); a reaches only the magnitude (9×0.2).
		{`{"search":"hotel","scoringProfile":"weak","scoringParameters":["want-want"]}`, []string{"c", "b", "a"}},
	} {
		if got := order(tc.body); !reflect.DeepEqual(got, tc.want) {
			t.Errorf("%s: %v, want %v", tc.body, got, tc.want)
		}
	}
	for _, bad := range []string{
		`{"search":"hotel","scoringProfile":"near"}`,
		`{"search":"hotel","scoringProfile":"near","scoringParameters":["here-abc"]}`,
		`{"search":"hotel","scoringProfile":"tagged","scoringParameters":["nodash"]}`,
	} {
		if resp, res := w.call("POST", "/indexes('scored')/docs/search.post.search"+v, bad, nil); resp.StatusCode != 400 {
			t.Errorf("%s: %d %v, want 400", bad, resp.StatusCode, res)
		}
	}
}
