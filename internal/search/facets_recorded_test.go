package search

import (
	"encoding/json"
	"reflect"
	"testing"
)

// The facets of Azure's answers recorded by the Java SDK's live tests
// (Azure/azure-sdk-assets,
// java/sdk/search/azure-search-documents/src/test/resources/session-records/
// SearchTests.canSearchWithRangeFacetsSync.json and
// SearchTests.canSearchWithValueFacetsSync.json, api-version
// 2023-10-01-preview). The recordings ran against a shared index made
// outside them, so the replayer cannot use them; this test rebuilds that
// index's facetable fields and documents from the recorded answers and
// asks the recorded queries.
const recordedHotelsIndex = `{"name":"rec","fields":[
 {"name":"HotelId","type":"Edm.String","key":true},
 {"name":"Category","type":"Edm.String","facetable":true},
 {"name":"Tags","type":"Collection(Edm.String)","facetable":true},
 {"name":"SmokingAllowed","type":"Edm.Boolean","facetable":true},
 {"name":"LastRenovationDate","type":"Edm.DateTimeOffset","facetable":true},
 {"name":"Rating","type":"Edm.Int32","facetable":true},
 {"name":"Rooms","type":"Collection(Edm.ComplexType)","fields":[{"name":"BaseRate","type":"Edm.Double","facetable":true}]}]}`

const recordedHotelsDocs = `{"value":[
 {"@search.action":"upload","HotelId":"1","Category":"Luxury","Tags":["pool","view","wifi","concierge"],"SmokingAllowed":false,"LastRenovationDate":"2010-06-27T00:00:00Z","Rating":5,"Rooms":[]},
 {"@search.action":"upload","HotelId":"2","Category":"Budget","Tags":["motel","budget"],"SmokingAllowed":true,"LastRenovationDate":"1982-04-28T00:00:00Z","Rating":1,"Rooms":[]},
 {"@search.action":"upload","HotelId":"3","Category":"Budget","Tags":["wifi","budget"],"SmokingAllowed":false,"LastRenovationDate":"1995-07-01T00:00:00Z","Rating":4,"Rooms":[]},
 {"@search.action":"upload","HotelId":"4","Category":"Budget","Tags":["wifi","budget"],"SmokingAllowed":false,"LastRenovationDate":"1995-07-01T00:00:00Z","Rating":4,"Rooms":[]},
 {"@search.action":"upload","HotelId":"5","Category":"Budget","Tags":["wifi","budget"],"SmokingAllowed":false,"LastRenovationDate":"2012-08-12T00:00:00Z","Rating":4,"Rooms":[]},
 {"@search.action":"upload","HotelId":"6","Tags":[],"Rooms":[]},
 {"@search.action":"upload","HotelId":"7","Tags":[],"Rooms":[]},
 {"@search.action":"upload","HotelId":"8","Tags":[],"Rooms":[]},
 {"@search.action":"upload","HotelId":"9","Category":"Boutique","Tags":["pool","air conditioning","concierge"],"LastRenovationDate":"1970-01-18T00:00:00Z","Rating":4,"Rooms":[{"BaseRate":9.69},{"BaseRate":8.09}]},
 {"@search.action":"upload","HotelId":"10","Category":"Budget","Tags":["24-hour front desk service","coffee in lobby","restaurant"],"SmokingAllowed":true,"LastRenovationDate":"1999-09-06T00:00:00Z","Rating":3,"Rooms":[{"BaseRate":2.44},{"BaseRate":7.69}]}]}`

func TestRecordedFacets(t *testing.T) {
	w := newWire(t)
	if resp, body := w.call("PUT", "/indexes('rec')"+v, recordedHotelsIndex, nil); resp.StatusCode != 201 {
		t.Fatalf("index: %d %v", resp.StatusCode, body)
	}
	if resp, body := w.call("POST", "/indexes('rec')/docs/search.index"+v, recordedHotelsDocs, nil); resp.StatusCode != 200 {
		t.Fatalf("upload: %d %v", resp.StatusCode, body)
	}
	for _, c := range []struct{ query, want string }{
		{`{"facets":["Rooms/BaseRate,values:5|8|10","LastRenovationDate,values:2000-01-01T00:00:00Z"],"search":"*"}`,
			`{"LastRenovationDate":[{"count":5,"to":"2000-01-01T00:00:00.000+0000"},{"count":2,"from":"2000-01-01T00:00:00.000+0000"}],
			  "Rooms/BaseRate":[{"count":1,"to":5.0},{"count":1,"from":5.0,"to":8.0},{"count":1,"from":8.0,"to":10.0},{"count":0,"from":10.0}]}`},
		{`{"facets":["Rating,count:2,sort:-value","SmokingAllowed,sort:count","Category","LastRenovationDate,interval:year","Rooms/BaseRate,sort:value","Tags,sort:value"],"search":"*"}`,
			`{"LastRenovationDate":[{"count":1,"value":"1970-01-01T00:00:00Z"},{"count":1,"value":"1982-01-01T00:00:00Z"},{"count":2,"value":"1995-01-01T00:00:00Z"},{"count":1,"value":"1999-01-01T00:00:00Z"},{"count":1,"value":"2010-01-01T00:00:00Z"},{"count":1,"value":"2012-01-01T00:00:00Z"}],
			  "Tags":[{"count":1,"value":"24-hour front desk service"},{"count":1,"value":"air conditioning"},{"count":4,"value":"budget"},{"count":1,"value":"coffee in lobby"},{"count":2,"value":"concierge"},{"count":1,"value":"motel"},{"count":2,"value":"pool"},{"count":1,"value":"restaurant"},{"count":1,"value":"view"},{"count":4,"value":"wifi"}],
			  "Category":[{"count":5,"value":"Budget"},{"count":1,"value":"Boutique"},{"count":1,"value":"Luxury"}],
			  "Rating":[{"count":1,"value":5},{"count":4,"value":4}],
			  "Rooms/BaseRate":[{"count":1,"value":2.44},{"count":1,"value":7.69},{"count":1,"value":8.09},{"count":1,"value":9.69}],
			  "SmokingAllowed":[{"count":4,"value":false},{"count":2,"value":true}]}`},
	} {
		resp, res := w.call("POST", "/indexes('rec')/docs/search.post.search"+v, c.query, nil)
		if resp.StatusCode != 200 {
			t.Fatalf("%s: %d %v", c.query, resp.StatusCode, res)
		}
		var want map[string]any
		if err := json.Unmarshal([]byte(c.want), &want); err != nil {
			t.Fatal(err)
		}
		if got := res["@search.facets"]; !reflect.DeepEqual(got, any(want)) {
			t.Errorf("%s:\n got %s\nwant %s", c.query, jsonText(got), jsonText(want))
		}
	}
}
