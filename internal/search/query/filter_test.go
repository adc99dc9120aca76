package query

import (
	"errors"
	"reflect"
	"sort"
	"strings"
	"testing"

	"github.com/blevesearch/bleve/v2"
	"github.com/blevesearch/bleve/v2/search/query"
)

// bleveText is a TextMatcher that answers search.ismatch with a search of
// the index restricted to one document, as the search layer will.
func bleveText(t testing.TB, idx bleve.Index, id string) TextMatcher {
	return func(q query.Query) (bool, error) {
		c := query.NewConjunctionQuery([]query.Query{query.NewDocIDQuery([]string{id}), q})
		res, err := idx.Search(bleve.NewSearchRequest(c))
		if err != nil {
			return false, err
		}
		return res.Total == 1, nil
	}
}

// filterResult checks the filter's two halves against each other: the
// bleve query must return a superset of what Match accepts (the same set
// when it says it is exact), and returns the final result.
func filterResult(t *testing.T, idx bleve.Index, docs []map[string]any, f *Filter) (result []string, exact bool) {
	t.Helper()
	q, exact := f.Query()
	candidates := ids(t, idx, q)
	in := map[string]bool{}
	for _, id := range candidates {
		in[id] = true
	}
	matched := []string{}
	for _, d := range docs {
		id := d["HotelId"].(string)
		ok, err := f.Match(d, bleveText(t, idx, id))
		if err != nil {
			t.Fatalf("%s: match %s: %v", f.Text, id, err)
		}
		if ok {
			matched = append(matched, id)
			if !in[id] {
				t.Errorf("%s: bleve query misses %s, which Match accepts", f.Text, id)
			}
		}
	}
	sort.Strings(matched)
	if exact && !reflect.DeepEqual(candidates, matched) {
		t.Errorf("%s: exact bleve query returned %v, Match %v", f.Text, candidates, matched)
	}
	return matched, exact
}

func TestFilterSemantics(t *testing.T) {
	idx, docs := hotelIndex(t)
	cases := []struct {
		filter string
		want   []string
		exact  bool
	}{
		{"Rating gt 4", []string{"3", "4"}, true},
		{"Rating ge 3.6 and Rating lt 4.7", []string{"1", "2", "4"}, true},
		{"4 lt Rating", []string{"3", "4"}, true},
		{"Rating eq null", []string{"5"}, false},
		{"Rating ne null", []string{"1", "2", "3", "4"}, false},
		{"Rating ne 3.6", []string{"3", "4", "5"}, true},
		{"Rating eq NaN", []string{}, false},
		{"Category eq 'Boutique'", []string{"1", "2"}, true},
		{"Category eq 'boutique'", []string{}, true},
		{"'Boutique' eq Category", []string{"1", "2"}, true},
		{"Category ne 'Boutique'", []string{"3", "4", "5"}, true},
		{"Category gt 'Budget'", []string{"3", "4"}, true},
		{"Category le 'Budget'", []string{"1", "2", "5"}, true},
		{"HotelName eq 'It''s'", []string{}, true},
		{"ParkingIncluded", []string{"3", "4"}, true},
		{"not ParkingIncluded", []string{"1", "2", "5"}, true},
		{"ParkingIncluded eq false", []string{"1", "2"}, true},
		{"LastRenovationDate gt 2016-01-01T00:00:00Z", []string{"1", "2"}, true},
		{"LastRenovationDate lt 2000-01-01T00:00:00-05:00", []string{"4"}, true},
		{"LastRenovationDate eq 2015-09-20T00:00:00Z", []string{"3"}, true},
		{"Tags/any(t: t eq 'pool')", []string{"1", "2", "5"}, true},
		{"Tags/any(t: t eq 'pool' or t eq 'bar')", []string{"1", "2", "3", "5"}, true},
		{"Tags/all(t: t ne 'pool')", []string{"3", "4"}, true},
		{"Locations/any()", []string{"1"}, false},
		{"not Locations/any()", []string{"2", "3", "4", "5"}, false},
		{"Ratings/all(r: r ge 3 and r le 5)", []string{"1", "3", "4", "5"}, true},
		{"Ratings/any(r: r ge 2 and r lt 3)", []string{"2"}, false},
		{"Ratings/any(r: r gt 4 and r lt 5)", []string{}, false},
		{"Ratings/any(r: r ne 5)", []string{"1", "2"}, false},
		{"Rooms/any(r: r/Type eq 'Deluxe Room' and r/BaseRate lt 100)", []string{"2"}, false},
		{"Rooms/all(r: r/BaseRate lt 200)", []string{"3", "4", "5"}, false},
		{"Rooms/any(r: r/Tags/any(t: t eq 'suite'))", []string{"1", "2"}, true},
		{"Rooms/any(r: r/Smoking)", []string{"1"}, true},
		{"Rooms/all(room: room/Tags/any(a: a eq 'tv') and room/BaseRate lt 100.0)", []string{"3", "5"}, false},
		{"Address/City eq 'Sarasota'", []string{"2", "5"}, true},
		{"Address/City eq 'Sarasota' and Address/Country ne 'USA'", []string{"5"}, true},
		{"search.in(Category, 'Budget,Luxury')", []string{"4", "5"}, true},
		{"search.in(Category, 'Budget|Boutique', '|')", []string{"1", "2", "5"}, true},
		{"search.in(HotelName, 'Twin Dome Motel,Old Century Hotel', ',')", []string{"2", "5"}, true},
		{"Tags/any(t: search.in(t, 'bar,view'))", []string{"3", "4"}, true},
		{"Tags/all(t: not search.in(t, 'pool,bar'))", []string{"4"}, true},
		{"geo.distance(Location, geography'POINT(-73.97 40.76)') le 5", []string{"1"}, true},
		{"geo.distance(Location, geography'POINT(-73.97 40.76)') gt 5", []string{"2", "3"}, false},
		{"5 ge geo.distance(Location, geography'POINT(-73.97 40.76)')", []string{"1"}, true},
		{"geo.intersects(Location, geography'POLYGON((-85 33, -84 33, -84 34, -85 34, -85 33))')", []string{"3"}, true},
		{"Locations/any(l: geo.distance(l, geography'POINT(-73.97 40.76)') lt 10)", []string{"1"}, true},
		{"search.ismatch('luxury')", []string{"2", "3", "4"}, true},
		{"search.ismatch('luxury', 'Description')", []string{"2", "3"}, true},
		{"search.ismatchscoring('wifi') and Rating gt 4", []string{"3"}, true},
		{`search.ismatch('"free wifi"', 'Tags', 'full', 'all')`, []string{"2", "5"}, true},
		{"not search.ismatch('luxury')", []string{"1", "5"}, true},
		{"Big eq 9007199254740993", []string{"1"}, false},
		{"Big eq 9007199254740992", []string{}, false},
		{"Big lt 3", []string{"2"}, true},
		{"true", []string{"1", "2", "3", "4", "5"}, true},
		{"false", []string{}, true},
		{"not (Rating gt 4) or Category eq 'Suite'", []string{"1", "2", "3", "5"}, true},
		{"Rating gt 4 or Rating eq null", []string{"3", "4", "5"}, false},
		{"not (Rating eq null)", []string{"1", "2", "3", "4"}, false},
		{"((Category eq 'Budget'))", []string{"5"}, true},
	}
	for _, c := range cases {
		f, err := ParseFilter(c.filter, hotels)
		if err != nil {
			t.Errorf("%s: %v", c.filter, err)
			continue
		}
		got, exact := filterResult(t, idx, docs, f)
		if !reflect.DeepEqual(got, c.want) {
			t.Errorf("%s: got %v, want %v", c.filter, got, c.want)
		}
		if exact != c.exact {
			t.Errorf("%s: exact = %v, want %v", c.filter, exact, c.exact)
		}
	}
}

func TestFilterScoringQueries(t *testing.T) {
	f, err := ParseFilter("search.ismatchscoring('wifi') and search.ismatch('pool')", hotels)
	if err != nil {
		t.Fatal(err)
	}
	if len(f.Scoring) != 1 {
		t.Fatalf("Scoring has %d queries, want 1 (ismatch does not score)", len(f.Scoring))
	}
}

func TestFilterErrors(t *testing.T) {
	cases := []struct {
		filter, msg string
		pos         int
	}{
		{"Foo eq 1", "Could not find a property named 'Foo' on type 'search.document'.", 0},
		{"Address/Street eq 'x'", "Could not find a property named 'Street'", 0},
		{"Description eq 'x'", "The field 'Description' is not filterable.", 0},
		{"Secret eq 'x'", "not filterable", 0},
		{"SecretTags/any()", "The field 'SecretTags' is not filterable.", 0},
		{"Rating eq 'x'", "Found operand types 'Edm.Double' and 'Edm.String' for operator kind 'Equal'.", 10},
		{"Category eq 5", "Found operand types 'Edm.String' and 'Edm.Int32'", 12},
		{"ParkingIncluded gt true", "operator kind 'GreaterThan'", 19},
		{"Location eq 3", "incompatible types", 12},
		{"Tags eq 'x'", "is a collection", 0},
		{"Rooms/Type eq 'x'", "is a collection", 0},
		{"Rooms/any(r: r/Tags eq 'x')", "is a collection", 13},
		{"Address eq 'x'", "complex field", 0},
		{"Rating eq", "Syntax error at position 9 in 'Rating eq'.", 9},
		{"Rating eq 1 and", "Syntax error", 15},
		{"(Rating eq 1", "Syntax error", 12},
		{"Rating eq 1 Rating", "Syntax error", 12},
		{"", "Syntax error", 0},
		{"Category eq 'abc", "unterminated string literal at position 12", 12},
		{"Category eq Category", "two non-constant operands", 9},
		{"0 eq 0", "two constants", 2},
		{"Tags/any(t: search.ismatch('x'))", "The function ismatch has no parameters bound to the range variable 't'.", 12},
		{"search.in(Rating, '1,2')", "search.in can only be applied", 0},
		{"search.in(Category)", "takes 2 to 3 arguments", 0},
		{"search.in(Category, 'a', '')", "must not be empty", 25},
		{"geo.distance(Rating, geography'POINT(0 0)') lt 3", "must be a field of type Edm.GeographyPoint", 13},
		{"geo.distance(Location, geography'POINT(0 0)') lt 'x'", "incompatible types", 49},
		{"geo.distance(Location, geography'POINT(200 0)') lt 3", "longitude in [-180, 180]", 23},
		{"geo.intersects(Location, geography'POLYGON((0 0, 1 1, 0 0))')", "at least four points", 25},
		{"geo.intersects(Location, geography'POLYGON((0 0, 1 1, 1 0, 2 2))')", "first and last points", 25},
		{"geo.intersects(Location, geography'LINESTRING(0 0, 1 1)')", "Only POINT and POLYGON", 25},
		{"Tags/all()", "The 'all' operator requires a lambda expression.", 9},
		{"Rating/any(r: r eq 1)", "can only be applied to collection fields", 0},
		{"Tags/any(t: t eq null)", "cannot be compared with null", 17},
		{"unknown.func(1)", "Unknown function 'unknown.func'.", 0},
		{"search.ismatch('a:(', '', 'full')", "is not valid Lucene syntax", 15},
		{"search.ismatch('x', 'Rating')", "The field 'Rating' in the search field list is not searchable.", 20},
		{"search.ismatch('x', '', 'fancy')", "expected 'simple' or 'full'", 24},
		{"LastRenovationDate gt 2020-13-01T00:00:00Z", "DateTimeOffset literal", 22},
		{"Rating gt 1 or", "Syntax error", 14},
		{"Rating gt 1.5.3", "Syntax error", 13},
		{"Rating gt 5x", "Syntax error", 11},
		{"Rating @ 1", "Syntax error", 7},
		{strings.Repeat("(", 200) + "true" + strings.Repeat(")", 200), "nested too deeply", 101},
	}
	for _, c := range cases {
		_, err := ParseFilter(c.filter, hotels)
		var se *SyntaxError
		if !errors.As(err, &se) || !errors.Is(err, ErrInvalid) {
			t.Errorf("%q: error %v, want a SyntaxError", c.filter, err)
			continue
		}
		if se.Param != ParamFilter || !strings.Contains(se.Msg, c.msg) {
			t.Errorf("%q: %s: %q, want it to contain %q", c.filter, se.Param, se.Msg, c.msg)
		}
		if se.Pos != c.pos {
			t.Errorf("%q: position %d, want %d", c.filter, se.Pos, c.pos)
		}
		if !strings.HasPrefix(err.Error(), "Invalid expression: ") || !strings.HasSuffix(err.Error(), "Parameter name: $filter") {
			t.Errorf("%q: wire message %q", c.filter, err.Error())
		}
	}
}
