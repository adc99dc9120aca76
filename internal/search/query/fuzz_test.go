package query

import (
	"errors"
	"sync"
	"testing"

	"github.com/blevesearch/bleve/v2"
)

// Every fuzz target holds the parsers to their contract: any input gives
// either a result or a *SyntaxError (never a panic, never another error),
// and whatever parses also translates and evaluates without failing.

func checkSyntaxError(t *testing.T, input string, err error) {
	t.Helper()
	var se *SyntaxError
	if !errors.As(err, &se) || !errors.Is(err, ErrInvalid) {
		t.Fatalf("%q: error %v (%T) is not a SyntaxError", input, err, err)
	}
	if se.Pos < 0 || se.Pos > len(input) {
		t.Fatalf("%q: error position %d outside the input", input, se.Pos)
	}
}

var searchSeeds = []string{
	"", "*", "wifi", "wifi pool", "wifi + pool | spa", "wifi -luxury", `"free wifi"`, "lux*", `c\+\+`,
	"(a | b) + c", "HotelName:hotel AND Description:luxury", "a && b || !c", `"a b"~3^2`, "blue~1",
	"/[mh]otel/", "Category:[a TO c}", "l?x*", "Address/City:sarasota", "NOT a", "(((a)))", "a:b:c",
	"Rating:5", `\`, "[* TO *]", "x^0.5", "~", "^", "/",
}

// seedSearches adds every search seed, in any mode.
func seedSearches(f *testing.F) {
	for _, s := range searchSeeds {
		f.Add(s, false)
	}
}

// modeOf is the search mode a fuzzed bool picks.
func modeOf(all bool) SearchMode {
	if all {
		return ModeAll
	}
	return ModeAny
}

func FuzzSimple(f *testing.F) {
	seedSearches(f)
	f.Fuzz(func(t *testing.T, text string, all bool) {
		mode := modeOf(all)
		n := ParseSimple(text, mode)
		if n == nil {
			t.Fatalf("%q: nil AST", text)
		}
		// Simple syntax has no fielded terms, so translation cannot fail.
		if _, err := TranslateSearch(n, SearchOptions{Schema: hotels, Mode: mode}); err != nil {
			t.Fatalf("%q: translate: %v", text, err)
		}
	})
}

var fuzzIndex struct {
	once sync.Once
	idx  bleve.Index
	docs []map[string]any
	err  error
}

// sharedIndex builds the hotels index once per fuzzing process.
func sharedIndex(t *testing.T) (bleve.Index, []map[string]any) {
	fuzzIndex.once.Do(func() {
		fuzzIndex.idx, fuzzIndex.err = bleve.NewMemOnly(hotelMapping())
		if fuzzIndex.err != nil {
			return
		}
		fuzzIndex.docs = loadDocs(t)
		for _, d := range fuzzIndex.docs {
			if fuzzIndex.err = fuzzIndex.idx.Index(d["HotelId"].(string), forBleve(d)); fuzzIndex.err != nil {
				return
			}
		}
	})
	if fuzzIndex.err != nil {
		t.Fatal(fuzzIndex.err)
	}
	return fuzzIndex.idx, fuzzIndex.docs
}

func FuzzLucene(f *testing.F) {
	seedSearches(f)
	f.Fuzz(func(t *testing.T, text string, all bool) {
		mode := modeOf(all)
		n, err := ParseLucene(text, mode)
		if err != nil {
			checkSyntaxError(t, text, err)
			return
		}
		q, err := TranslateSearch(n, SearchOptions{Schema: hotels, Mode: mode})
		if err != nil {
			checkSyntaxError(t, text, err)
			return
		}
		// What translates must also run: bad input is a 400 at parse time,
		// never a search-time failure.
		idx, _ := sharedIndex(t)
		if _, err := idx.Search(bleve.NewSearchRequest(q)); err != nil {
			t.Fatalf("%q: search: %v", text, err)
		}
	})
}

var filterSeeds = []string{
	"Rating gt 4", "Category eq 'Boutique' and not ParkingIncluded", "Rating eq null or Rating ne 3.6",
	"Tags/any(t: t eq 'pool' or t eq 'bar')", "Tags/all(t: t ne 'pool')", "Locations/any()",
	"Ratings/all(r: r ge 3 and r le 5)", "Rooms/any(r: r/Type eq 'Deluxe Room' and r/BaseRate lt 100)",
	"Rooms/all(room: room/Tags/any(a: a eq 'tv') and room/BaseRate lt 100.0)",
	"search.in(Category, 'Budget|Boutique', '|')", "search.ismatch('luxury', 'Description', 'full', 'all')",
	"search.ismatchscoring('wifi') and Rating gt 4", "geo.distance(Location, geography'POINT(-73.97 40.76)') le 5",
	"geo.intersects(Location, geography'POLYGON((-85 33, -84 33, -84 34, -85 34, -85 33))')",
	"LastRenovationDate gt 2016-01-01T00:00:00Z", "HotelName eq 'It''s'", "Big eq 9007199254740993",
	"Rating eq NaN or Rating lt -INF", "(true)", "not not false", "Address/City eq 'Sarasota'", "Rating eq",
	"'a' eq Category", "Rating gt 1.5e3", "Rating ge 3d",
}

func FuzzFilter(f *testing.F) {
	for _, s := range filterSeeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		flt, err := ParseFilter(text, hotels)
		if err != nil {
			checkSyntaxError(t, text, err)
			return
		}
		idx, docs := sharedIndex(t)
		q, exact := flt.Query()
		res, err := idx.Search(bleve.NewSearchRequestOptions(q, 100, 0, false))
		if err != nil {
			t.Fatalf("%q: search: %v", text, err)
		}
		candidates := map[string]bool{}
		for _, h := range res.Hits {
			candidates[h.ID] = true
		}
		for _, d := range docs {
			id := d["HotelId"].(string)
			ok, err := flt.Match(d, bleveText(t, idx, id))
			if err != nil {
				t.Fatalf("%q: match: %v", text, err)
			}
			if ok && !candidates[id] {
				t.Fatalf("%q: bleve query misses %s, which Match accepts", text, id)
			}
			if exact && !ok && candidates[id] {
				t.Fatalf("%q: exact bleve query returns %s, which Match rejects", text, id)
			}
		}
	})
}

func FuzzOrderBy(f *testing.F) {
	for _, s := range []string{
		"Rating desc, HotelName", "search.score() desc", "geo.distance(Location, geography'POINT(0 0)') asc",
		"Address/City", "*", "HotelId,HotelName", "Category,count:5,sort:-value", "Rating,interval:10",
		"Rating,values:1|2|3", "LastRenovationDate,interval:year", "", ",",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		if _, err := ParseOrderBy(text, hotels); err != nil {
			checkSyntaxError(t, text, err)
		}
		if _, err := ParseSelect(text, hotels); err != nil {
			checkSyntaxError(t, text, err)
		}
		if _, err := ParseFacet(text, hotels); err != nil {
			checkSyntaxError(t, text, err)
		}
	})
}
