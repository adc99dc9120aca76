package query

import (
	"errors"
	"reflect"
	"strings"
	"testing"
)

func TestParseOrderBy(t *testing.T) {
	cases := []struct {
		text string
		want []OrderClause
	}{
		{"Rating", []OrderClause{{At: 0, Kind: OrderField, Path: "Rating"}}},
		{"Rating desc, HotelName asc", []OrderClause{{At: 0, Kind: OrderField, Path: "Rating", Desc: true}, {At: 13, Kind: OrderField, Path: "HotelName"}}},
		{"search.score() desc,Address/City", []OrderClause{{At: 0, Kind: OrderScore, Desc: true}, {At: 20, Kind: OrderField, Path: "Address/City"}}},
		{"geo.distance(Location, geography'POINT(-122.131577 47.678581)') asc", []OrderClause{{At: 0, Kind: OrderGeoDistance, Path: "Location", Point: GeoPoint{Lon: -122.131577, Lat: 47.678581}}}},
		{"  LastRenovationDate   desc  ", []OrderClause{{At: 2, Kind: OrderField, Path: "LastRenovationDate", Desc: true}}},
	}
	for _, c := range cases {
		got, err := ParseOrderBy(c.text, hotels)
		if err != nil {
			t.Errorf("%q: %v", c.text, err)
			continue
		}
		if !reflect.DeepEqual(got, c.want) {
			t.Errorf("%q: got %+v, want %+v", c.text, got, c.want)
		}
	}
}

func TestParseOrderByErrors(t *testing.T) {
	cases := []struct {
		text, msg string
	}{
		{"", "Syntax error"},
		{"Rating,", "Syntax error"},
		{"Rating up", "Syntax error"},
		{"Nope", "Could not find a property named 'Nope'"},
		{"Description", "The field 'Description' is not sortable."},
		{"Tags", "not sortable"},
		{"Rooms/BaseRate", "not sortable"},
		{"search.score(1)", "takes 0 to 0 arguments"},
		{"geo.distance(Rating, geography'POINT(0 0)')", "Edm.GeographyPoint"},
		{"geo.distance(Location, 'x')", "geography'POINT(lon lat)'"},
		{strings.Repeat("Rating,", 32) + "Rating", "at most 32 clauses"},
		{"search.foo()", "Syntax error"},
	}
	for _, c := range cases {
		_, err := ParseOrderBy(c.text, hotels)
		var se *SyntaxError
		if !errors.As(err, &se) || se.Param != ParamOrderBy || !strings.Contains(se.Msg, c.msg) {
			t.Errorf("%q: %v, want a $orderby error containing %q", c.text, err, c.msg)
		}
	}
}

func TestParseSelect(t *testing.T) {
	for _, c := range []struct {
		text string
		want []string
	}{
		{"", nil},
		{"*", nil},
		{"HotelId, HotelName,Address/City", []string{"HotelId", "HotelName", "Address/City"}},
		{"Rooms", []string{"Rooms"}},
	} {
		got, err := ParseSelect(c.text, hotels)
		if err != nil || !reflect.DeepEqual(got, c.want) {
			t.Errorf("%q: %v, %v; want %v", c.text, got, err, c.want)
		}
	}
	for _, c := range []struct{ text, msg string }{
		{"HotelId,,Rating", "Syntax error"},
		{"HotelId,Nope", "Could not find a property named 'Nope'"},
		{"Address/Nope", "Could not find a property named 'Nope'"},
	} {
		_, err := ParseSelect(c.text, hotels)
		var se *SyntaxError
		if !errors.As(err, &se) || se.Param != ParamSelect || !strings.Contains(se.Msg, c.msg) {
			t.Errorf("%q: %v, want %q", c.text, err, c.msg)
		}
	}
}

func TestParseFacet(t *testing.T) {
	ft, err := ParseFacet("Category,count:5,sort:-value", hotels)
	if err != nil {
		t.Fatal(err)
	}
	if ft.Path != "Category" || ft.Count != 5 || ft.Sort != FacetSortValueDesc {
		t.Errorf("Category facet: %+v", ft)
	}
	ft, err = ParseFacet("Tags", hotels)
	if err != nil || ft.Count != 10 || ft.Sort != FacetSortCountDesc {
		t.Errorf("Tags facet: %+v, %v", ft, err)
	}
	ft, err = ParseFacet("Rating, interval:0.5", hotels)
	if err != nil || ft.Interval != 0.5 {
		t.Errorf("Rating interval: %+v, %v", ft, err)
	}
	ft, err = ParseFacet("LastRenovationDate,interval:Year", hotels)
	if err != nil || ft.DateInterval != "year" {
		t.Errorf("date interval: %+v, %v", ft, err)
	}
	ft, err = ParseFacet("Rating,values:1|2.5|4", hotels)
	if err != nil || !reflect.DeepEqual(ft.NumericValues, []float64{1, 2.5, 4}) {
		t.Errorf("Rating values: %+v, %v", ft, err)
	}
	ft, err = ParseFacet("LastRenovationDate,values:2000-01-01T00:00:00Z|2010-01-01T00:00:00Z", hotels)
	if err != nil || len(ft.TimeValues) != 2 {
		t.Errorf("date values: %+v, %v", ft, err)
	}
	for _, c := range []struct{ text, msg string }{
		{"", "no field name"},
		{"Nope", "Could not find a property named 'Nope'"},
		{"Description", "is not facetable"},
		{"Category,count:-1", "non-negative integer"},
		{"Category,count:x", "non-negative integer"},
		{"Category,sort:size", "one of count, -count, value, -value"},
		{"Category,interval:5", "only valid for numeric and date fields"},
		{"Rating,interval:0", "greater than zero"},
		{"LastRenovationDate,interval:decade", "minute, hour, day"},
		{"Rating,values:3|2", "ascending order"},
		{"Rating,values:a", "not a number"},
		{"LastRenovationDate,values:yesterday", "not a DateTimeOffset"},
		{"Category,values:a|b", "only valid for numeric and date fields"},
		{"Rating,interval:1,values:1|2", "both interval and values"},
		{"Category,count:1,count:2", "more than once"},
		{"Category,count", "name:value"},
		{"Category,size:3", "Unknown facet parameter 'size'"},
		{"LastRenovationDate,timeoffset:01:00", "not supported"},
	} {
		_, err := ParseFacet(c.text, hotels)
		var se *SyntaxError
		if !errors.As(err, &se) || se.Param != ParamFacet || !strings.Contains(se.Msg, c.msg) {
			t.Errorf("%q: %v, want %q", c.text, err, c.msg)
		}
	}
}
