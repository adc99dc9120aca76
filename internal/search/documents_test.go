package search

import (
	"encoding/json"
	"net/url"
	"reflect"
	"strings"
	"testing"
)

const hotelsIndex = `{"name":"hotels","fields":[
	{"name":"id","type":"Edm.String","key":true,"filterable":true,"sortable":true},
	{"name":"name","type":"Edm.String","searchable":true,"sortable":true},
	{"name":"description","type":"Edm.String","searchable":true,"synonymMaps":["syn"]},
	{"name":"category","type":"Edm.String","filterable":true,"facetable":true},
	{"name":"tags","type":"Collection(Edm.String)","searchable":true,"filterable":true,"facetable":true},
	{"name":"rating","type":"Edm.Double","filterable":true,"sortable":true,"facetable":true},
	{"name":"rooms","type":"Collection(Edm.ComplexType)","fields":[
		{"name":"type","type":"Edm.String","filterable":true},{"name":"price","type":"Edm.Double","filterable":true}]},
	{"name":"location","type":"Edm.GeographyPoint","filterable":true,"sortable":true},
	{"name":"opened","type":"Edm.DateTimeOffset","filterable":true,"sortable":true},
	{"name":"vec","type":"Collection(Edm.Single)","searchable":true,"dimensions":3,"vectorSearchProfile":"p"}],
	"suggesters":[{"name":"sg","searchMode":"analyzingInfixMatching","sourceFields":["name"]}],
	"scoringProfiles":[{"name":"boostName","text":{"weights":{"name":5}}}],
	"vectorSearch":{"algorithms":[{"name":"a","kind":"exhaustiveKnn","exhaustiveKnnParameters":{"metric":"cosine"}}],
		"profiles":[{"name":"p","algorithm":"a"}]}}`

func point(lon, lat float64) string {
	b, _ := json.Marshal(map[string]any{"type": "Point", "coordinates": []float64{lon, lat}})
	return string(b)
}

var hotelDocs = `{"value":[
	{"@search.action":"upload","id":"1","name":"Seaside Hotel","description":"A quiet hotel by the sea","category":"Resort","tags":["pool","view"],"rating":4.5,
		"rooms":[{"type":"Suite","price":300},{"type":"Standard","price":100}],"location":` + point(-122.1, 47.6) + `,"opened":"2001-05-01T00:00:00Z","vec":[1,0,0]},
	{"@search.action":"upload","id":"2","name":"Mountain Inn","description":"Cozy inn in the mountains with wifi","category":"Budget","tags":["wifi"],"rating":3,
		"rooms":[{"type":"Standard","price":80}],"location":` + point(-121.0, 46.0) + `,"opened":"2010-01-01T00:00:00+02:00","vec":[0,1,0]},
	{"@search.action":"mergeOrUpload","id":"3","name":"City Lodge","description":"Modern lodge downtown with pool","category":"Budget","tags":["pool","wifi"],"rating":4,
		"rooms":[],"location":` + point(-122.3, 47.6) + `,"vec":[0.9,0.1,0]},
	{"@search.action":"upload","id":"4","name":"Old Motel","description":"Cheap motel","category":"Budget","rating":2,"vec":[0,0,1]},
	{"@search.action":"upload","id":"bad key!","name":"x"},
	{"@search.action":"merge","id":"9","name":"missing"}]}`

func newHotels(t *testing.T) *wire {
	t.Helper()
	w := newWire(t)
	if resp, body := w.call("PUT", "/synonymmaps('syn')"+v, `{"name":"syn","format":"solr","synonyms":"inn, hotel\nmotel => lodge"}`, nil); resp.StatusCode != 201 {
		t.Fatalf("synonym map: %d %v", resp.StatusCode, body)
	}
	if resp, body := w.call("PUT", "/indexes('hotels')"+v, hotelsIndex, nil); resp.StatusCode != 201 {
		t.Fatalf("index: %d %v", resp.StatusCode, body)
	}
	resp, body := w.call("POST", "/indexes('hotels')/docs/search.index"+v, hotelDocs, nil)
	if resp.StatusCode != 207 {
		t.Fatalf("batch with failures: %d %v", resp.StatusCode, body)
	}
	var got []string
	for _, r := range body["value"].([]any) {
		m := r.(map[string]any)
		got = append(got, m["key"].(string)+":"+jsonText(m["statusCode"])+":"+jsonText(m["status"]))
	}
	want := []string{"1:201:true", "2:201:true", "3:201:true", "4:201:true", "bad key!:400:false", "9:404:false"}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("batch results %v, want %v", got, want)
	}
	return w
}

func jsonText(v any) string {
	var sb strings.Builder
	enc := json.NewEncoder(&sb)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(v)
	return strings.TrimSuffix(sb.String(), "\n")
}

// search posts a search body and returns the keys of the hits in order.
func (w *wire) search(body string) ([]string, map[string]any) {
	w.t.Helper()
	resp, res := w.call("POST", "/indexes('hotels')/docs/search.post.search"+v, body, nil)
	if resp.StatusCode != 200 {
		w.t.Fatalf("search %s: %d %v", body, resp.StatusCode, res)
	}
	var keys []string
	for _, d := range res["value"].([]any) {
		keys = append(keys, d.(map[string]any)["id"].(string))
	}
	return keys, res
}

func sameSet(a, b []string) bool {
	m := map[string]int{}
	for _, x := range a {
		m[x]++
	}
	for _, x := range b {
		m[x]--
	}
	for _, n := range m {
		if n != 0 {
			return false
		}
	}
	return true
}

func TestDocumentsBatchLookupCount(t *testing.T) {
	w := newHotels(t)
	if n := w.count("hotels", nil); n != 4 {
		t.Fatalf("count %d, want 4", n)
	}
	resp, doc := w.call("GET", "/indexes('hotels')/docs('2')"+v+"&$select=name,rating,rooms/type", "", nil)
	if resp.StatusCode != 200 {
		t.Fatalf("lookup: %d %v", resp.StatusCode, doc)
	}
	want := map[string]any{"name": "Mountain Inn", "rating": 3.0, "rooms": []any{map[string]any{"type": "Standard"}}}
	if !reflect.DeepEqual(doc, want) {
		t.Errorf("lookup with $select: %v, want %v", doc, want)
	}
	_, doc = w.call("GET", "/indexes/hotels/docs/2"+v, "", nil)
	if doc["opened"] != "2009-12-31T22:00:00Z" || doc["tags"] == nil || doc["vec"] == nil {
		t.Errorf("lookup of every field: %v", doc)
	}
	if resp, body := w.call("GET", "/indexes('hotels')/docs('nope')"+v, "", nil); resp.StatusCode != 404 {
		t.Errorf("missing document: %d %v", resp.StatusCode, body)
	}
	// Merge changes one field and keeps the others; delete removes.
	resp, body := w.call("POST", "/indexes('hotels')/docs/index"+v, `{"value":[
		{"@search.action":"merge","id":"4","rating":2.5},{"@search.action":"delete","id":"1"},{"@search.action":"delete","id":"never"}]}`, nil)
	if resp.StatusCode != 200 {
		t.Fatalf("merge/delete batch: %d %v", resp.StatusCode, body)
	}
	_, doc = w.call("GET", "/indexes('hotels')/docs('4')"+v, "", nil)
	if doc["rating"] != 2.5 || doc["name"] != "Old Motel" {
		t.Errorf("merged document: %v", doc)
	}
	if n := w.count("hotels", nil); n != 3 {
		t.Errorf("count after delete %d, want 3", n)
	}
	keys, _ := w.search(`{"search":"*"}`)
	if !sameSet(keys, []string{"2", "3", "4"}) {
		t.Errorf("search after delete: %v", keys)
	}
	// Request-level errors fail the whole batch.
	for _, bad := range []string{
		`{"value":[{"@search.action":"upload","id":"5","nope":1}]}`,
		`{"value":[{"@search.action":"upload","id":"5","rating":"high"}]}`,
		`{"value":[{"@search.action":"upload","name":"no key"}]}`,
		`{"value":[{"@search.action":"replace","id":"5"}]}`,
		`{"value":[{"@search.action":"upload","id":"5","vec":[1,2]}]}`,
		`{"value":[{"@search.action":"upload","id":"5","location":{"type":"Point","coordinates":[500,0]}}]}`,
		`not json`,
	} {
		resp, body := w.call("POST", "/indexes('hotels')/docs/index"+v, bad, nil)
		if _, msg := errorOf(body); resp.StatusCode != 400 || msg == "" {
			t.Errorf("batch %s: %d %v", bad, resp.StatusCode, body)
		}
	}
	if n := w.count("hotels", nil); n != 3 {
		t.Errorf("count after refused batches %d, want 3", n)
	}
}

func TestSearchQueries(t *testing.T) {
	w := newHotels(t)
	for _, c := range []struct {
		body    string
		want    []string
		ordered bool
	}{
		{`{"search":"hotel","searchFields":"name"}`, []string{"1"}, false},
		// The description's synonym map makes hotel and inn equivalent.
		{`{"search":"hotel","searchFields":"description"}`, []string{"1", "2"}, false},
		// motel => lodge replaces the term.
		{`{"search":"motel","searchFields":"description"}`, []string{"3"}, false},
		{`{"search":"name:lodge OR name:motel","queryType":"full"}`, []string{"3", "4"}, false},
		{`{"search":"pool -lodge","searchMode":"all"}`, []string{"1"}, false},
		{`{"search":"mount*","queryType":"full"}`, []string{"2"}, false},
		{`{"search":"seasid~1","queryType":"full"}`, []string{"1"}, false},
		{`{"search":"\"quiet hotel\"","queryType":"full"}`, []string{"1"}, false},
		{`{"search":"*","filter":"rating ge 4"}`, []string{"1", "3"}, false},
		{`{"filter":"tags/any(t: t eq 'wifi')"}`, []string{"2", "3"}, false},
		// all() over a missing collection is true.
		{`{"filter":"tags/all(t: t eq 'wifi')"}`, []string{"2", "4"}, false},
		{`{"filter":"rooms/any(r: r/type eq 'Suite' and r/price gt 200)"}`, []string{"1"}, false},
		{`{"filter":"rooms/any(r: r/type eq 'Standard' and r/price gt 200)"}`, nil, false},
		{`{"filter":"geo.distance(location, geography'POINT(-122.2 47.6)') le 20"}`, []string{"1", "3"}, false},
		{`{"filter":"search.in(category, 'Resort|Luxury', '|')"}`, []string{"1"}, false},
		{`{"filter":"opened ge 2005-01-01T00:00:00Z"}`, []string{"2"}, false},
		{`{"filter":"location eq null"}`, []string{"4"}, false},
		{`{"orderby":"rating desc"}`, []string{"1", "3", "2", "4"}, true},
		{`{"orderby":"id desc","top":2}`, []string{"4", "3"}, true},
		{`{"orderby":"id","skip":1,"top":2}`, []string{"2", "3"}, true},
		{`{"orderby":"geo.distance(location, geography'POINT(-122.3 47.6)')"}`, []string{"4", "3", "1", "2"}, true},
		{`{"search":"pool","scoringProfile":"boostName"}`, []string{"1", "3"}, false},
		{`{"vectorQueries":[{"kind":"vector","vector":[1,0,0],"fields":"vec","k":2}]}`, []string{"1", "3"}, true},
		{`{"vectorQueries":[{"kind":"vector","vector":[1,0,0],"fields":"vec","k":3}],"filter":"category eq 'Budget'"}`, []string{"3", "2", "4"}, false},
		// postFilter: the 2 nearest of all (1, 3), then the filter.
		{`{"vectorQueries":[{"kind":"vector","vector":[1,0,0],"fields":"vec","k":2}],"filter":"category eq 'Budget'","vectorFilterMode":"postFilter"}`, []string{"3"}, true},
		{`{"vectorQueries":[{"kind":"vector","vector":[1,0,0],"fields":"vec","k":2}],"filter":"category eq 'Budget'"}`, []string{"3", "2"}, false},
	} {
		keys, _ := w.search(c.body)
		if c.ordered && !reflect.DeepEqual(keys, c.want) || !c.ordered && !sameSet(keys, c.want) {
			t.Errorf("%s: %v, want %v", c.body, keys, c.want)
		}
	}
	// Hybrid: the document found by both the text and the vector query
	// ranks first under RRF.
	keys, _ := w.search(`{"search":"wifi","vectorQueries":[{"kind":"vector","vector":[1,0,0],"fields":"vec","k":2}]}`)
	if len(keys) != 3 || keys[0] != "3" || !sameSet(keys, []string{"1", "2", "3"}) {
		t.Errorf("hybrid: %v", keys)
	}
	// Count, facets and highlights.
	_, res := w.search(`{"search":"pool","count":true,"facets":["category","rating,interval:2","rating,values:3|4"],"highlight":"description","highlightPreTag":"[","highlightPostTag":"]"}`)
	if _, res := w.search(`{"search":"pool","minimumCoverage":80}`); res["@search.coverage"] != 100.0 {
		t.Errorf("coverage: %v", res["@search.coverage"])
	}
	if res["@odata.count"] != 2.0 || res["@search.coverage"] != nil {
		t.Errorf("count: %v", res["@odata.count"])
	}
	facets := res["@search.facets"].(map[string]any)
	if got := jsonText(facets["category"]); got != `[{"count":1,"value":"Budget"},{"count":1,"value":"Resort"}]` {
		t.Errorf("category facet: %s", got)
	}
	if got := jsonText(facets["rating"]); got != `[{"count":0,"to":3},{"count":0,"from":3,"to":4},{"count":2,"from":4}]` {
		t.Errorf("rating facet: %s", got)
	}
	for _, d := range res["value"].([]any) {
		m := d.(map[string]any)
		if m["id"] == "3" {
			if got := jsonText(m["@search.highlights"]); got != `{"description":["Modern lodge downtown with [pool]"]}` {
				t.Errorf("highlights: %s", got)
			}
		}
		if _, ok := m["@search.score"].(float64); !ok {
			t.Errorf("no @search.score: %v", m)
		}
	}
	// Query-string form.
	resp, res := w.call("GET", "/indexes('hotels')/docs"+v+"&search=pool&$filter="+url.QueryEscape("rating lt 4.2")+"&$select=id,name&$count=true", "", nil)
	if resp.StatusCode != 200 || res["@odata.count"] != 1.0 || jsonText(res["value"].([]any)[0].(map[string]any)["name"]) != `"City Lodge"` {
		t.Errorf("GET search: %d %v", resp.StatusCode, res)
	}
}

func TestSearchFacetsOnAll(t *testing.T) {
	w := newHotels(t)
	_, res := w.search(`{"facets":["category,sort:value","tags,count:1","rating,values:3|4","rating,interval:2","opened,interval:year"],"top":0}`)
	facets := res["@search.facets"].(map[string]any)
	for name, want := range map[string]string{
		"category": `[{"count":3,"value":"Budget"},{"count":1,"value":"Resort"}]`,
		"tags":     `[{"count":2,"value":"pool"}]`,
	} {
		if got := jsonText(facets[name]); got != want {
			t.Errorf("facet %s: %s, want %s", name, got, want)
		}
	}
	if len(res["value"].([]any)) != 0 {
		t.Errorf("top 0 returned documents")
	}
}

func TestSearchErrors(t *testing.T) {
	w := newHotels(t)
	for _, body := range []string{
		`{"search":"name:(","queryType":"full"}`,
		`{"filter":"rating gt"}`,
		`{"filter":"nope eq 1"}`,
		`{"orderby":"tags"}`,
		`{"select":"nope"}`,
		`{"facets":["vec"]}`,
		`{"searchFields":"rating"}`,
		`{"queryType":"fancy"}`,
		`{"skip":-1}`,
		`{"scoringProfile":"nope"}`,
		`{"vectorQueries":[{"kind":"vector","vector":[1,0],"fields":"vec"}]}`,
		`{"vectorQueries":[{"kind":"vector","vector":[1,0,0],"fields":"name"}]}`,
		`{"highlight":"rating"}`,
		`{"search":"/[/","queryType":"full"}`,
		`{"top":"x"}`,
	} {
		resp, res := w.call("POST", "/indexes('hotels')/docs/search.post.search"+v, body, nil)
		if _, msg := errorOf(res); resp.StatusCode != 400 || msg == "" {
			t.Errorf("%s: %d %v", body, resp.StatusCode, res)
		}
	}
	for _, path := range []string{
		"/indexes('hotels')/docs" + v + "&$top=abc",
		"/indexes('hotels')/docs" + v + "&$skip=-1",
		"/indexes('hotels')/docs" + v + "&$count=maybe",
		"/indexes('hotels')/docs" + v + "&minimumCoverage=high",
		"/indexes('hotels')/docs" + v + "&queryType=semantic",
		"/indexes('hotels')/docs" + v + "&$filter=" + url.QueryEscape("rating eq 'x'"),
		"/indexes('hotels')/docs" + v + "&facet=nope",
		"/indexes('hotels')/docs('1')" + v + "&$select=nope",
		"/indexes('hotels')/docs/search.suggest" + v + "&search=se",
		"/indexes('hotels')/docs/search.suggest" + v + "&search=se&suggesterName=nope",
		"/indexes('hotels')/docs/search.autocomplete" + v + "&search=&suggesterName=sg",
		"/indexes('hotels')/docs/search.autocomplete" + v + "&search=se&suggesterName=sg&autocompleteMode=many",
	} {
		resp, res := w.call("GET", path, "", nil)
		want := 400
		if strings.Contains(path, "semantic") {
			want = 501
		}
		if _, msg := errorOf(res); resp.StatusCode != want || msg == "" {
			t.Errorf("%s: %d %v", path, resp.StatusCode, res)
		}
	}
}

func TestSuggestAndAutocomplete(t *testing.T) {
	w := newHotels(t)
	resp, res := w.call("GET", "/indexes('hotels')/docs/search.suggest"+v+"&search=sea&suggesterName=sg", "", nil)
	if resp.StatusCode != 200 || jsonText(res["value"]) != `[{"@search.text":"Seaside Hotel","id":"1"}]` {
		t.Errorf("suggest: %d %v", resp.StatusCode, res)
	}
	resp, res = w.call("POST", "/indexes('hotels')/docs/search.post.suggest"+v,
		`{"search":"mountian","suggesterName":"sg","fuzzy":true,"select":"name","highlightPreTag":"<b>","highlightPostTag":"</b>"}`, nil)
	if resp.StatusCode != 200 || jsonText(res["value"]) != `[{"@search.text":"<b>Mountain</b> Inn","name":"Mountain Inn"}]` {
		t.Errorf("fuzzy suggest: %d %v", resp.StatusCode, res)
	}
	resp, res = w.call("GET", "/indexes('hotels')/docs/search.autocomplete"+v+"&search=mou&suggesterName=sg", "", nil)
	if resp.StatusCode != 200 || jsonText(res["value"]) != `[{"queryPlusText":"mountain","text":"mountain"}]` {
		t.Errorf("autocomplete: %d %v", resp.StatusCode, res)
	}
	resp, res = w.call("POST", "/indexes('hotels')/docs/search.post.autocomplete"+v, `{"search":"ci","suggesterName":"sg","autocompleteMode":"twoTerms"}`, nil)
	if resp.StatusCode != 200 || jsonText(res["value"]) != `[{"queryPlusText":"city lodge","text":"city lodge"}]` {
		t.Errorf("twoTerms: %d %v", resp.StatusCode, res)
	}
	resp, res = w.call("POST", "/indexes('hotels')/docs/search.post.autocomplete"+v, `{"search":"old mo","suggesterName":"sg","autocompleteMode":"oneTermWithContext"}`, nil)
	if resp.StatusCode != 200 || jsonText(res["value"]) != `[{"queryPlusText":"old motel","text":"old motel"}]` {
		t.Errorf("oneTermWithContext: %d %v", resp.StatusCode, res)
	}
}

// TestPaging: without $top the service answers 50 and says how to get
// the rest in @search.nextPageParameters.
func TestPaging(t *testing.T) {
	w := newHotels(t)
	var sb strings.Builder
	sb.WriteString(`{"value":[`)
	for i := 0; i < 60; i++ {
		if i > 0 {
			sb.WriteString(",")
		}
		sb.WriteString(`{"id":"p` + string(rune('a'+i/26)) + string(rune('a'+i%26)) + `","name":"page"}`)
	}
	sb.WriteString(`]}`)
	if resp, body := w.call("POST", "/indexes('hotels')/docs/index"+v, sb.String(), nil); resp.StatusCode != 200 {
		t.Fatalf("upload: %d %v", resp.StatusCode, body)
	}
	keys, res := w.search(`{"search":"page","orderby":"id"}`)
	next, _ := res["@search.nextPageParameters"].(map[string]any)
	if len(keys) != 50 || next["skip"] != 50.0 || res["@odata.nextLink"] == nil {
		t.Fatalf("first page: %d keys, next %v", len(keys), res["@search.nextPageParameters"])
	}
	b, _ := json.Marshal(next)
	keys2, res := w.search(string(b))
	if len(keys2) != 10 || res["@search.nextPageParameters"] != nil || keys2[0] <= keys[49] {
		t.Errorf("second page: %v %v", keys2, res["@search.nextPageParameters"])
	}
}

// TestHighlightFragments: a long value gives the sentences holding
// matches, at most the number the highlight parameter asks for.
func TestHighlightFragments(t *testing.T) {
	w := newHotels(t)
	long := "The pool is heated all year. " + strings.Repeat("Rooms face the quiet garden. ", 8) + "A second pool sits on the roof."
	if resp, body := w.call("POST", "/indexes('hotels')/docs/index"+v, `{"value":[{"id":"5","description":"`+long+`"}]}`, nil); resp.StatusCode != 200 {
		t.Fatalf("upload: %d %v", resp.StatusCode, body)
	}
	for _, c := range []struct{ highlight, want string }{
		{"description", `["The <em>pool</em> is heated all year.","A second <em>pool</em> sits on the roof."]`},
		{"description-1", `["The <em>pool</em> is heated all year."]`},
	} {
		_, res := w.search(`{"search":"pool","filter":"id eq '5'","highlight":"` + c.highlight + `"}`)
		hl := res["value"].([]any)[0].(map[string]any)["@search.highlights"].(map[string]any)
		if got := jsonText(hl["description"]); got != c.want {
			t.Errorf("%s: %s, want %s", c.highlight, got, c.want)
		}
	}
	if resp, _ := w.call("POST", "/indexes('hotels')/docs/search.post.search"+v, `{"search":"pool","highlight":"description-x"}`, nil); resp.StatusCode != 400 {
		t.Errorf("bad highlight count: %d", resp.StatusCode)
	}
}

// TestCollectionsReadBackEmpty: a collection field never set, set to []
// or set to null reads back as [], at the top level, inside a complex
// field and as a complex collection, in lookups, searches and $select.
// Source: issue 33's account of the service's answers (documents are
// read back with [] where cerulean answered null).
func TestCollectionsReadBackEmpty(t *testing.T) {
	w := newWire(t)
	index := `{"name":"coll","fields":[{"name":"id","type":"Edm.String","key":true},{"name":"tags","type":"Collection(Edm.String)"},
		{"name":"rooms","type":"Collection(Edm.ComplexType)","fields":[{"name":"n","type":"Edm.String"},{"name":"beds","type":"Collection(Edm.Int32)"}]},
		{"name":"addr","type":"Edm.ComplexType","fields":[{"name":"city","type":"Edm.String"},{"name":"zips","type":"Collection(Edm.Int32)"}]}]}`
	if resp, body := w.call("POST", "/indexes"+v, index, nil); resp.StatusCode != 201 {
		t.Fatalf("create: %d %v", resp.StatusCode, body)
	}
	batch := `{"value":[{"@search.action":"upload","id":"unset"},{"@search.action":"upload","id":"empty","tags":[],"rooms":[{"n":"a"}],"addr":{"city":"x"}},
		{"@search.action":"upload","id":"null","tags":null,"rooms":null,"addr":{"city":"y","zips":null}}]}`
	if resp, body := w.call("POST", "/indexes('coll')/docs/search.index"+v, batch, nil); resp.StatusCode != 200 {
		t.Fatalf("upload: %d %v", resp.StatusCode, body)
	}
	empty := func(v any) bool { l, ok := v.([]any); return ok && len(l) == 0 }
	for _, key := range []string{"unset", "empty", "null"} {
		_, doc := w.call("GET", "/indexes('coll')/docs('"+key+"')"+v, "", nil)
		if !empty(doc["tags"]) {
			t.Errorf("%s: tags %v", key, doc)
		}
		if key != "empty" && !empty(doc["rooms"]) {
			t.Errorf("%s: rooms %v", key, doc)
		}
		if addr, ok := doc["addr"].(map[string]any); ok && !empty(addr["zips"]) {
			t.Errorf("%s: addr %v", key, doc)
		}
	}
	_, doc := w.call("GET", "/indexes('coll')/docs('empty')"+v, "", nil)
	if rooms, _ := doc["rooms"].([]any); len(rooms) != 1 || !empty(rooms[0].(map[string]any)["beds"]) {
		t.Errorf("a room's unset collection: %v", doc)
	}
	if _, doc := w.call("GET", "/indexes('coll')/docs('unset')"+v, "", nil); doc["addr"] != nil {
		t.Errorf("an unset complex field is null: %v", doc)
	}
	_, res := w.call("GET", "/indexes('coll')/docs"+v+"&search=*&$select=id,tags,rooms/n&$filter="+url.QueryEscape("id eq 'unset'"), "", nil)
	hits, _ := res["value"].([]any)
	if len(hits) != 1 || !empty(hits[0].(map[string]any)["tags"]) || !empty(hits[0].(map[string]any)["rooms"]) {
		t.Errorf("search with $select: %v", res)
	}
}

// TestDotNetDouble: doubles are answered as the service writes them (the
// Java SDK's recordings IndexingTests.canRoundtripBoundaryValuesSync and
// LookupTests.canRoundTripStaticallyTypedPrimitiveCollectionsSync for 0.0,
// -180.0, 5E-324 and 1.7976931348623157E+308).
func TestDotNetDouble(t *testing.T) {
	for f, want := range map[float64]string{0: "0.0", -180: "-180.0", 2.78: "2.78", 5e-324: "5E-324",
		1.7976931348623157e+308: "1.7976931348623157E+308", 1234567: "1234567.0", 1e15: "1E+15", 0.0001: "0.0001", 0.00001: "1E-05"} {
		if got := dotNetDouble(f); string(got) != want {
			t.Errorf("dotNetDouble(%v) = %s, want %s", f, got, want)
		}
	}
}
