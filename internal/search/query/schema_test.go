package query

import (
	"encoding/json"
	"sort"
	"strings"
	"testing"

	"github.com/blevesearch/bleve/v2"
	"github.com/blevesearch/bleve/v2/analysis/analyzer/keyword"
	"github.com/blevesearch/bleve/v2/analysis/analyzer/standard"
	"github.com/blevesearch/bleve/v2/mapping"
	"github.com/blevesearch/bleve/v2/search/query"
)

// testSchema is a hotels index like Microsoft's samples.
type testSchema map[string]Field

func (s testSchema) Field(path string) (Field, bool) {
	f, ok := s[path]
	return f, ok
}

func (s testSchema) SearchableFields() []string {
	var out []string
	for _, p := range hotelOrder {
		if s[p].Searchable {
			out = append(out, p)
		}
	}
	return out
}

var hotelOrder = []string{"HotelId", "HotelName", "Description", "Category", "Tags", "Rating", "Big", "ParkingIncluded",
	"LastRenovationDate", "Location", "Locations", "Ratings", "Address", "Address/City", "Address/Country",
	"Rooms", "Rooms/Type", "Rooms/BaseRate", "Rooms/Tags", "Rooms/Smoking", "Secret"}

var hotels = testSchema{
	"HotelId":            {Path: "HotelId", Type: TypeString, Filterable: true, Sortable: true},
	"HotelName":          {Path: "HotelName", Type: TypeString, Searchable: true, Filterable: true, Sortable: true},
	"Description":        {Path: "Description", Type: TypeString, Searchable: true},
	"Category":           {Path: "Category", Type: TypeString, Searchable: true, Filterable: true, Sortable: true, Facetable: true},
	"Tags":               {Path: "Tags", Type: TypeString, Collection: true, Searchable: true, Filterable: true, Facetable: true},
	"Rating":             {Path: "Rating", Type: TypeDouble, Filterable: true, Sortable: true, Facetable: true},
	"Big":                {Path: "Big", Type: TypeInt64, Filterable: true},
	"ParkingIncluded":    {Path: "ParkingIncluded", Type: TypeBoolean, Filterable: true, Facetable: true},
	"LastRenovationDate": {Path: "LastRenovationDate", Type: TypeDateTimeOffset, Filterable: true, Sortable: true, Facetable: true},
	"Location":           {Path: "Location", Type: TypeGeographyPoint, Filterable: true, Sortable: true},
	"Locations":          {Path: "Locations", Type: TypeGeographyPoint, Collection: true, Filterable: true},
	"Ratings":            {Path: "Ratings", Type: TypeInt32, Collection: true, Filterable: true, Facetable: true},
	"Address":            {Path: "Address", Type: TypeComplex},
	"Address/City":       {Path: "Address/City", Type: TypeString, Searchable: true, Filterable: true, Sortable: true, Facetable: true},
	"Address/Country":    {Path: "Address/Country", Type: TypeString, Filterable: true},
	"Rooms":              {Path: "Rooms", Type: TypeComplex, Collection: true},
	"Rooms/Type":         {Path: "Rooms/Type", Type: TypeString, Searchable: true, Filterable: true},
	"Rooms/BaseRate":     {Path: "Rooms/BaseRate", Type: TypeDouble, Filterable: true},
	"Rooms/Tags":         {Path: "Rooms/Tags", Type: TypeString, Collection: true, Filterable: true},
	"Rooms/Smoking":      {Path: "Rooms/Smoking", Type: TypeBoolean, Filterable: true},
	"Secret":             {Path: "Secret", Type: TypeString},
	"SecretTags":         {Path: "SecretTags", Type: TypeString, Collection: true, Searchable: true},
}

const hotelDocs = `[
 {"HotelId":"1","HotelName":"Stay-Kay City Hotel","Description":"The hotel is ideally located on the main commercial artery of the city in the heart of New York. Free wifi.",
  "Category":"Boutique","Tags":["pool","air conditioning","concierge"],"Rating":3.6,"Big":9007199254740993,"ParkingIncluded":false,
  "LastRenovationDate":"2022-01-18T00:00:00Z","Location":{"type":"Point","coordinates":[-73.975403,40.760586]},
  "Locations":[{"type":"Point","coordinates":[-73.975403,40.760586]}],"Ratings":[3,4,5],
  "Address":{"City":"New York","Country":"USA"},
  "Rooms":[{"Type":"Budget Room","BaseRate":90.0,"Tags":["tv"],"Smoking":false},{"Type":"Deluxe Room","BaseRate":250.0,"Tags":["suite","tv"],"Smoking":true}]},
 {"HotelId":"2","HotelName":"Old Century Hotel","Description":"The hotel is situated in a nineteenth century plaza, luxury rooms, no wifi.",
  "Category":"Boutique","Tags":["pool","free wifi","concierge"],"Rating":3.6,"Big":2,"ParkingIncluded":false,
  "LastRenovationDate":"2019-02-18T00:00:00Z","Location":{"type":"Point","coordinates":[-82.452843,27.384417]},
  "Locations":[],"Ratings":[1,2],
  "Address":{"City":"Sarasota","Country":"USA"},
  "Rooms":[{"Type":"Budget Room","BaseRate":300.0,"Tags":["suite"],"Smoking":false},{"Type":"Deluxe Room","BaseRate":80.0,"Tags":["jacuzzi"],"Smoking":false}]},
 {"HotelId":"3","HotelName":"Gastronomic Landscape Hotel","Description":"The Gastronomic Hotel stands out for its culinary excellence, luxury spa, wifi.",
  "Category":"Suite","Tags":["restaurant","bar","continental breakfast"],"Rating":4.8,"Big":3,"ParkingIncluded":true,
  "LastRenovationDate":"2015-09-20T00:00:00Z","Location":{"type":"Point","coordinates":[-84.362465,33.846432]},
  "Ratings":[5],
  "Address":{"City":"Atlanta","Country":"USA"},
  "Rooms":[]},
 {"HotelId":"4","HotelName":"Sublime Palace Hotel","Description":"Sublime Palace Hotel is located in the heart of the historic center of Sublime in an extremely vibrant and lively area.",
  "Category":"Luxury","Tags":["concierge","view","24-hour front desk service"],"Rating":4.6,"ParkingIncluded":true,
  "LastRenovationDate":"1960-02-06T00:00:00Z",
  "Address":{"City":"San Antonio","Country":"USA"},
  "Rooms":[{"Type":"Standard Room","BaseRate":120.0,"Tags":["tv"],"Smoking":false}]},
 {"HotelId":"5","HotelName":"Twin Dome Motel","Description":"The hotel is located in a 19th century plaza.",
  "Category":"Budget","Tags":["pool","free wifi"],"Rating":null,
  "Address":{"City":"Sarasota","Country":"France"}}
]`

func loadDocs(t testing.TB) []map[string]any {
	t.Helper()
	dec := json.NewDecoder(strings.NewReader(hotelDocs))
	dec.UseNumber()
	var docs []map[string]any
	if err := dec.Decode(&docs); err != nil {
		t.Fatal(err)
	}
	return docs
}

// hotelMapping follows the naming contract of FieldName / ExactFieldName.
func hotelMapping() mapping.IndexMapping {
	text := func(name string) *mapping.FieldMapping {
		f := bleve.NewTextFieldMapping()
		f.Analyzer = standard.Name
		f.IncludeTermVectors = true
		f.Name = name
		return f
	}
	exact := func(name string) *mapping.FieldMapping {
		f := bleve.NewKeywordFieldMapping()
		f.Analyzer = keyword.Name
		f.Name = name + ExactSuffix
		return f
	}
	doc := bleve.NewDocumentStaticMapping()
	str := func(m *mapping.DocumentMapping, name string, searchable, filterable bool) {
		var fs []*mapping.FieldMapping
		if searchable {
			fs = append(fs, text(name))
		}
		if filterable {
			fs = append(fs, exact(name))
		}
		m.AddFieldMappingsAt(name, fs...)
	}
	num := bleve.NewNumericFieldMapping
	str(doc, "HotelId", false, true)
	str(doc, "HotelName", true, true)
	str(doc, "Description", true, false)
	str(doc, "Category", true, true)
	str(doc, "Tags", true, true)
	doc.AddFieldMappingsAt("Rating", num())
	doc.AddFieldMappingsAt("Big", num())
	doc.AddFieldMappingsAt("Ratings", num())
	doc.AddFieldMappingsAt("ParkingIncluded", bleve.NewBooleanFieldMapping())
	doc.AddFieldMappingsAt("LastRenovationDate", bleve.NewDateTimeFieldMapping())
	doc.AddFieldMappingsAt("Location", bleve.NewGeoPointFieldMapping())
	doc.AddFieldMappingsAt("Locations", bleve.NewGeoPointFieldMapping())
	addr := bleve.NewDocumentStaticMapping()
	str(addr, "City", true, true)
	str(addr, "Country", false, true)
	doc.AddSubDocumentMapping("Address", addr)
	rooms := bleve.NewDocumentStaticMapping()
	str(rooms, "Type", true, true)
	rooms.AddFieldMappingsAt("BaseRate", num())
	str(rooms, "Tags", false, true)
	rooms.AddFieldMappingsAt("Smoking", bleve.NewBooleanFieldMapping())
	doc.AddSubDocumentMapping("Rooms", rooms)
	im := bleve.NewIndexMapping()
	im.DefaultMapping = doc
	im.DefaultAnalyzer = standard.Name
	return im
}

// forBleve converts GeoJSON points to the [lon, lat] form bleve reads and
// drops nulls, as the index layer does.
func forBleve(v any) any {
	switch v := v.(type) {
	case map[string]any:
		if v["type"] == "Point" {
			return forBleve(v["coordinates"])
		}
		out := map[string]any{}
		for k, x := range v {
			if x != nil {
				out[k] = forBleve(x)
			}
		}
		return out
	case []any:
		out := make([]any, len(v))
		for i, x := range v {
			out[i] = forBleve(x)
		}
		return out
	case json.Number:
		f, _ := v.Float64()
		return f
	}
	return v
}

func hotelIndex(t testing.TB) (bleve.Index, []map[string]any) {
	t.Helper()
	idx, err := bleve.NewMemOnly(hotelMapping())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = idx.Close() })
	docs := loadDocs(t)
	for _, d := range docs {
		if err := idx.Index(d["HotelId"].(string), forBleve(d)); err != nil {
			t.Fatal(err)
		}
	}
	return idx, docs
}

// ids runs q and returns the matching document keys, sorted.
func ids(t testing.TB, idx bleve.Index, q query.Query) []string {
	t.Helper()
	req := bleve.NewSearchRequestOptions(q, 100, 0, false)
	res, err := idx.Search(req)
	if err != nil {
		t.Fatalf("search %T: %v", q, err)
	}
	out := []string{}
	for _, h := range res.Hits {
		out = append(out, h.ID)
	}
	sort.Strings(out)
	return out
}
