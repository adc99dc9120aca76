package query

import (
	"errors"
	"fmt"
	"reflect"
	"strings"
	"testing"
)

// dump renders a search AST compactly: occurs as + (must), - (must not)
// and nothing (should); fields as field:...; boosts as ^n.
func dump(n SearchNode) string {
	leaf := func(l Leaf, s string) string {
		if l.Field != "" {
			s = l.Field + ":" + s
		}
		if l.Boost != 0 {
			s += fmt.Sprintf("^%g", l.Boost)
		}
		return s
	}
	switch n := n.(type) {
	case *MatchAllNode:
		return "*:*"
	case *NotNode:
		return "NOT(" + dump(n.Child) + ")"
	case *BoolNode:
		parts := make([]string, len(n.Clauses))
		for i, c := range n.Clauses {
			parts[i] = [...]string{"", "+", "-"}[c.Occur] + dump(c.Node)
		}
		s := "(" + strings.Join(parts, " ") + ")"
		if n.Boost != 0 {
			s += fmt.Sprintf("^%g", n.Boost)
		}
		return s
	case *TermNode:
		return leaf(n.Leaf, n.Text)
	case *PhraseNode:
		s := `"` + n.Text + `"`
		if n.Slop != 0 {
			s += fmt.Sprintf("~%d", n.Slop)
		}
		return leaf(n.Leaf, s)
	case *PrefixNode:
		return leaf(n.Leaf, n.Prefix+"*")
	case *WildcardNode:
		return leaf(n.Leaf, "W("+n.Pattern+")")
	case *RegexNode:
		return leaf(n.Leaf, "/"+n.Pattern+"/")
	case *FuzzyNode:
		return leaf(n.Leaf, fmt.Sprintf("%s~%d", n.Text, n.Distance))
	case *RangeNode:
		lo, hi := n.Lower, n.Upper
		if n.LowerOpen {
			lo = "*"
		}
		if n.UpperOpen {
			hi = "*"
		}
		open, closeB := "{", "}"
		if n.IncludeLower {
			open = "["
		}
		if n.IncludeUpper {
			closeB = "]"
		}
		return leaf(n.Leaf, open+lo+" TO "+hi+closeB)
	}
	return fmt.Sprintf("?%T", n)
}

func TestParseSimple(t *testing.T) {
	cases := []struct {
		text string
		mode SearchMode
		want string
	}{
		{"", ModeAny, "*:*"},
		{"   ", ModeAny, "*:*"},
		{"*", ModeAny, "*:*"},
		{"wifi", ModeAny, "wifi"},
		{"wifi pool", ModeAny, "(wifi pool)"},
		{"wifi pool", ModeAll, "(+wifi +pool)"},
		{"wifi + pool", ModeAny, "(+wifi +pool)"},
		{"wifi | pool", ModeAll, "(wifi pool)"},
		{"a + b | c", ModeAny, "((+a +b) c)"},
		{"a | b | c", ModeAny, "(a b c)"},
		{"a b + c", ModeAny, "(+(a b) +c)"},
		{"wifi -luxury", ModeAny, "(wifi NOT(luxury))"},
		{"--luxury", ModeAny, "luxury"},
		{"wi-fi", ModeAny, "wi-fi"},
		{`"free wifi" pool`, ModeAny, `("free wifi" pool)`},
		{`"unterminated phrase`, ModeAny, `"unterminated phrase"`},
		{"lux*", ModeAny, "lux*"},
		{"a*b", ModeAny, "a*b"},
		{`lux\*`, ModeAny, "lux*"},
		{`c\+\+`, ModeAny, "c++"},
		{"(a | b) + c", ModeAny, "(+(a b) +c)"},
		{"(a | b", ModeAny, "(a b)"},
		{"a) b", ModeAny, "(a b)"},
		{"+", ModeAny, "()"},
		{"()", ModeAny, "()"},
		{"-(a b)", ModeAll, "NOT((+a +b))"},
		{`\`, ModeAny, `\`},
	}
	for _, c := range cases {
		if got := dump(ParseSimple(c.text, c.mode)); got != c.want {
			t.Errorf("ParseSimple(%q, %d) = %s, want %s", c.text, c.mode, got, c.want)
		}
	}
}

func TestParseLucene(t *testing.T) {
	cases := []struct {
		text string
		mode SearchMode
		want string
	}{
		{"", ModeAny, "*:*"},
		{"*", ModeAny, "*:*"},
		{"*:*", ModeAny, "*:*"},
		{"wifi", ModeAny, "wifi"},
		{"wifi pool", ModeAny, "(wifi pool)"},
		{"wifi pool", ModeAll, "(+wifi +pool)"},
		{"wifi AND pool", ModeAny, "(+wifi +pool)"},
		{"wifi && pool", ModeAny, "(+wifi +pool)"},
		{"wifi OR pool", ModeAll, "(wifi pool)"},
		{"wifi || pool", ModeAll, "(wifi pool)"},
		{"a b AND c", ModeAny, "(a +b +c)"},
		{"a AND b OR c", ModeAny, "(+a +b c)"},
		{"wifi NOT luxury", ModeAny, "(wifi -luxury)"},
		{"wifi AND NOT luxury", ModeAny, "(+wifi -luxury)"},
		{"wifi !luxury", ModeAny, "(wifi -luxury)"},
		{"+wifi -luxury", ModeAny, "(+wifi -luxury)"},
		{"-luxury", ModeAny, "(-luxury)"},
		{"HotelName:hotel", ModeAny, "HotelName:hotel"},
		{"HotelName:(a b)", ModeAny, "(HotelName:a HotelName:b)"},
		{"HotelName:(a b)^2", ModeAny, "(HotelName:a HotelName:b)^2"},
		{"Address/City:seattle", ModeAny, "Address/City:seattle"},
		{`"free wifi"`, ModeAny, `"free wifi"`},
		{`"hotel airport"~5`, ModeAny, `"hotel airport"~5`},
		{`"a b"~2^3`, ModeAny, `"a b"~2^3`},
		{"lux*", ModeAny, "lux*"},
		{"l?x*y", ModeAny, "W(l?x*y)"},
		{`lux\*`, ModeAny, "lux*"},
		{"HotelName:*", ModeAny, "HotelName:W(*)"},
		{"/[mh]otel/", ModeAny, "/[mh]otel/"},
		{`/a\/b/`, ModeAny, "/a/b/"},
		{"blue~", ModeAny, "blue~2"},
		{"blue~1", ModeAny, "blue~1"},
		{"blue~0^4", ModeAny, "blue~0^4"},
		{"rock^2 music", ModeAny, "(rock^2 music)"},
		{"rock^0.5", ModeAny, "rock^0.5"},
		{"Rating:[3 TO 5]", ModeAny, "Rating:[3 TO 5]"},
		{"Rating:{3 TO *]", ModeAny, "Rating:{3 TO *]"},
		{`name:["a b" TO c}`, ModeAny, "name:[a b TO c}"},
		{"(a OR b) AND c", ModeAny, "(+(a b) +c)"},
		{"wi-fi", ModeAny, "wi-fi"},
		{`c\+\+ \(x\)`, ModeAny, "(c++ (x))"},
	}
	for _, c := range cases {
		n, err := ParseLucene(c.text, c.mode)
		if err != nil {
			t.Errorf("ParseLucene(%q): %v", c.text, err)
			continue
		}
		if got := dump(n); got != c.want {
			t.Errorf("ParseLucene(%q, %d) = %s, want %s", c.text, c.mode, got, c.want)
		}
	}
}

func TestParseLuceneErrors(t *testing.T) {
	cases := []struct {
		text string
		pos  int
	}{
		{"(a b", 4},
		{"a)", 1},
		{`"unterminated`, 0},
		{"/unterminated", 13},
		{"/.*/.*/", 7},
		{"/[a/", 0},
		{"AND a", 0},
		{"a AND", 5},
		{"a OR )", 5},
		{"field:", 6},
		{"blue~3", 4},
		{"blue~1.5", 4},
		{"blu*~1", 4},
		{"a^", 1},
		{"a^0", 1},
		{"[a TO b", 7},
		{"[a b]", 3},
		{"[a TO", 5},
		{"a:b:c", 3},
		{"^2", 0},
		{strings.Repeat("(", 150) + "a" + strings.Repeat(")", 150), 101},
	}
	for _, c := range cases {
		_, err := ParseLucene(c.text, ModeAny)
		var se *SyntaxError
		if !errors.As(err, &se) || !errors.Is(err, ErrInvalid) {
			t.Errorf("ParseLucene(%q) error %v, want a SyntaxError", c.text, err)
			continue
		}
		if se.Param != ParamSearch || se.Pos != c.pos {
			t.Errorf("ParseLucene(%q): %s at %d (%s), want position %d", c.text, se.Param, se.Pos, se.Msg, c.pos)
		}
		want := fmt.Sprintf("Failed to parse query string at line 1, column %d.", c.pos+1)
		if !strings.HasPrefix(err.Error(), want) {
			t.Errorf("ParseLucene(%q): message %q, want prefix %q", c.text, err.Error(), want)
		}
	}
}

func TestSearchExecution(t *testing.T) {
	idx, _ := hotelIndex(t)
	cases := []struct {
		text, queryType string
		mode            SearchMode
		fields          string
		want            []string
	}{
		{"*", "simple", ModeAny, "", []string{"1", "2", "3", "4", "5"}},
		{"wifi", "simple", ModeAny, "", []string{"1", "2", "3", "5"}},
		{"luxury wifi", "simple", ModeAny, "Description", []string{"1", "2", "3"}},
		{"luxury wifi", "simple", ModeAll, "Description", []string{"2", "3"}},
		{"luxury + wifi", "simple", ModeAny, "Description,Category", []string{"2", "3"}},
		{"luxury | budget", "simple", ModeAll, "Description,Category", []string{"2", "3", "4", "5"}},
		{"wifi -luxury", "simple", ModeAny, "Description,Category", []string{"1", "2", "3", "5"}},
		{"wifi -luxury", "simple", ModeAll, "Description,Category", []string{"1"}},
		{`"free wifi"`, "simple", ModeAny, "", []string{"1", "2", "5"}},
		{"gastro*", "simple", ModeAny, "", []string{"3"}},
		{"GASTRO*", "simple", ModeAny, "", []string{"3"}},
		{"(luxury | spa) + century", "simple", ModeAny, "Description", []string{"2"}},
		{"HotelName:hotel", "full", ModeAny, "", []string{"1", "2", "3", "4"}},
		{"Category:Boutique AND Description:luxury", "full", ModeAny, "", []string{"2"}},
		{"Description:luxury NOT Category:Luxury", "full", ModeAll, "", []string{"2", "3"}},
		// Azure: under searchMode=any, NOT is an OR action ("New York" NOT
		// Seattle returns all cities that are not Seattle).
		{"luxury NOT Category:Luxury", "full", ModeAny, "Description,Category", []string{"1", "2", "3", "4", "5"}},
		{"century NOT Category:Luxury", "full", ModeAll, "Description,Category", []string{"2", "5"}},
		{"Description:/lux.*/", "full", ModeAny, "", []string{"2", "3"}},
		{"Description:luxary~1", "full", ModeAny, "", []string{"2", "3"}},
		{"Description:luxary~0", "full", ModeAny, "", []string{}},
		{`Description:"hotel is located"`, "full", ModeAny, "", []string{"4", "5"}},
		{`Description:"hotel located"~3`, "full", ModeAny, "", []string{"1", "4", "5"}},
		{"Category:[a TO c]", "full", ModeAny, "", []string{"1", "2", "5"}},
		{"Category:{boutique TO luxury]", "full", ModeAny, "", []string{"4", "5"}},
		{"Category:[* TO *]", "full", ModeAny, "", []string{"1", "2", "3", "4", "5"}},
		{"Description:wi?i", "full", ModeAny, "", []string{"1", "2", "3"}},
		{"HotelName:hotel^2 Description:spa", "full", ModeAny, "", []string{"1", "2", "3", "4"}},
		{"Address/City:sarasota", "full", ModeAny, "", []string{"2", "5"}},
		{"Rooms/Type:deluxe", "full", ModeAny, "", []string{"1", "2"}},
		{"+pool -concierge", "full", ModeAny, "Tags", []string{"5"}},
		{"-concierge", "full", ModeAny, "Tags", []string{"3", "5"}},
		{"-concierge", "simple", ModeAny, "Tags", []string{"3", "5"}},
		{"pool^3 OR bar", "full", ModeAll, "Tags", []string{"1", "2", "3", "5"}},
		{"sarasota", "simple", ModeAny, "Address/City", []string{"2", "5"}},
	}
	for _, c := range cases {
		n, err := ParseSearch(c.text, c.queryType, c.mode)
		if err != nil {
			t.Errorf("%q: %v", c.text, err)
			continue
		}
		var fields []string
		if c.fields != "" {
			if fields, err = ParseSearchFields(c.fields, hotels); err != nil {
				t.Fatal(err)
			}
		}
		q, err := TranslateSearch(n, SearchOptions{Schema: hotels, Fields: fields, Mode: c.mode})
		if err != nil {
			t.Errorf("%q: translate: %v", c.text, err)
			continue
		}
		if got := ids(t, idx, q); !reflect.DeepEqual(got, c.want) {
			t.Errorf("%s %q (%s, mode %d): got %v, want %v", c.queryType, c.text, c.fields, c.mode, got, c.want)
		}
	}
}

func TestSearchFieldErrors(t *testing.T) {
	for _, c := range []struct{ text, msg string }{
		{"Rating:5", "The field 'Rating' in the search field list is not searchable."},
		{"Nope:x", "Unknown field 'Nope'"},
		{"a OR Secret:x", "not searchable"},
	} {
		n, err := ParseLucene(c.text, ModeAny)
		if err != nil {
			t.Fatal(err)
		}
		_, err = TranslateSearch(n, SearchOptions{Schema: hotels})
		var se *SyntaxError
		if !errors.As(err, &se) || !strings.Contains(se.Msg, c.msg) {
			t.Errorf("%q: %v, want %q", c.text, err, c.msg)
		}
	}
	for _, c := range []struct{ fields, msg string }{
		{"HotelName,Rating", "not searchable"},
		{"HotelName,,Description", "empty field name"},
		{"Nope", "Unknown field 'Nope'"},
	} {
		_, err := ParseSearchFields(c.fields, hotels)
		var se *SyntaxError
		if !errors.As(err, &se) || se.Param != ParamSearchFields || !strings.Contains(se.Msg, c.msg) {
			t.Errorf("searchFields %q: %v, want %q", c.fields, err, c.msg)
		}
	}
	if _, err := ParseSearch("x", "semantic", ModeAny); !errors.Is(err, ErrInvalid) {
		t.Errorf("queryType semantic: %v, want not supported", err)
	}
	if _, err := ParseSearchMode("some"); !errors.Is(err, ErrInvalid) {
		t.Errorf("searchMode some: %v, want invalid", err)
	}
}
