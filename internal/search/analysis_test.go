package search

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"github.com/blevesearch/bleve/v2/mapping"
	"github.com/blevesearch/bleve/v2/registry"
)

// bleveMapping registers an index's analysis on a bleve mapping the way
// the document layer does, failing the test on any component bleve
// refuses.
func bleveMapping(t *testing.T, a *Analysis) *mapping.IndexMappingImpl {
	t.Helper()
	m := mapping.NewIndexMapping()
	for _, group := range []struct {
		what string
		defs map[string]map[string]any
		add  func(string, map[string]any) error
	}{
		{"token map", a.TokenMaps, m.AddCustomTokenMap},
		{"char filter", a.CharFilters, m.AddCustomCharFilter},
		{"tokenizer", a.Tokenizers, m.AddCustomTokenizer},
		{"token filter", a.TokenFilters, m.AddCustomTokenFilter},
		{"analyzer", a.Analyzers, m.AddCustomAnalyzer},
	} {
		for name, cfg := range group.defs {
			if err := group.add(name, cfg); err != nil {
				t.Fatalf("bleve refuses %s %s %v: %v", group.what, name, cfg, err)
			}
		}
	}
	return m
}

func terms(t *testing.T, m *mapping.IndexMappingImpl, analyzer, text string) []string {
	t.Helper()
	az := m.AnalyzerNamed(analyzer)
	if az == nil {
		t.Fatalf("bleve has no analyzer %q", analyzer)
	}
	var out []string
	for _, tok := range az.Analyze([]byte(text)) {
		out = append(out, string(tok.Term))
	}
	return out
}

// analysisComponents are char filters, tokenizers and token filters of
// every type cerulean serves, as properties of an index definition.
const analysisComponents = `"charFilters":[{"@odata.type":"#Microsoft.Azure.Search.PatternReplaceCharFilter","name":"dashes","pattern":"-","replacement":" "}],
		"tokenizers":[{"@odata.type":"#Microsoft.Azure.Search.KeywordTokenizerV2","name":"whole"}],
		"tokenFilters":[
			{"@odata.type":"#Microsoft.Azure.Search.EdgeNGramTokenFilterV2","name":"prefixes","minGram":2,"maxGram":4},
			{"@odata.type":"#Microsoft.Azure.Search.NGramTokenFilterV2","name":"grams"},
			{"@odata.type":"#Microsoft.Azure.Search.LengthTokenFilter","name":"short","max":3},
			{"@odata.type":"#Microsoft.Azure.Search.TruncateTokenFilter","name":"cut","length":2},
			{"@odata.type":"#Microsoft.Azure.Search.UniqueTokenFilter","name":"once"},
			{"@odata.type":"#Microsoft.Azure.Search.StopwordsTokenFilter","name":"mystop","stopwords":["hotel"]},
			{"@odata.type":"#Microsoft.Azure.Search.StopwordsTokenFilter","name":"frstop","stopwordsLanguage":"french"},
			{"@odata.type":"#Microsoft.Azure.Search.ElisionTokenFilter","name":"elide","articles":["l","d"]}],`

// TestAnalysisServedByBleve: every analyzer and normalizer name an index
// may use resolves to an analyzer bleve builds, and the ones with a
// well-known behaviour behave so.
func TestAnalysisServedByBleve(t *testing.T) {
	d := def(t, `{"name":"x1","fields":[{"name":"id","type":"Edm.String","key":true}],
		`+analysisComponents+`
		"analyzers":[
			{"@odata.type":"#Microsoft.Azure.Search.CustomAnalyzer","name":"prefix","tokenizer":"standard_v2","tokenFilters":["lowercase","prefixes"],"charFilters":["dashes","html_strip"]},
			{"@odata.type":"#Microsoft.Azure.Search.CustomAnalyzer","name":"every","tokenizer":"whole","tokenFilters":["grams","short","cut","once","mystop","frstop","elide","apostrophe","porter_stem","reverse","unique","stopwords","cjk_width","cjk_bigram","arabic_normalization","german_normalization","hindi_normalization","indic_normalization","persian_normalization","sorani_normalization"]},
			{"@odata.type":"#Microsoft.Azure.Search.StandardAnalyzer","name":"std","stopwords":["the"]},
			{"@odata.type":"#Microsoft.Azure.Search.StopAnalyzer","name":"stp"}],
		"normalizers":[{"@odata.type":"#Microsoft.Azure.Search.CustomNormalizer","name":"lower","tokenFilters":["lowercase"],"charFilters":["dashes"]}]}`)
	ix, err := decodeDefinition(Indexes, d)
	if err != nil {
		t.Fatal(err)
	}
	a, err := ix.(*Index).analysis()
	if err != nil {
		t.Fatal(err)
	}
	m := bleveMapping(t, a)
	for name, bn := range a.Analyzer {
		if m.AnalyzerNamed(bn) == nil {
			t.Errorf("analyzer %s (bleve %s) does not build", name, bn)
		}
	}
	for name, bn := range a.Normalizer {
		if m.AnalyzerNamed(bn) == nil {
			t.Errorf("normalizer %s (bleve %s) does not build", name, bn)
		}
	}
	for _, name := range BuiltinAnalyzerNames() {
		if _, ok := a.Analyzer[name]; !ok {
			t.Errorf("built-in analyzer %s missing from the index's analysis", name)
		}
	}
	for _, tc := range []struct{ analyzer, text, want string }{
		{"en.lucene", "Running hotels", "run hotel"},
		{"keyword", "Grand Hotel", "Grand Hotel"},
		{"whitespace", "Grand Hotel", "Grand Hotel"},
		{"simple", "Grand-Hotel 5", "grand hotel"},
		{"standard.lucene", "The Grand Hotel", "the grand hotel"},
		{"stop", "The Grand Hotel", "grand hotel"},
		{"prefix", "<b>Sea-view</b>", "se sea vi vie view"},
		{"std", "The Grand Hotel", "grand hotel"},
	} {
		got := strings.Join(terms(t, m, a.Analyzer[tc.analyzer], tc.text), " ")
		if got != tc.want {
			t.Errorf("%s(%q) = %q, want %q", tc.analyzer, tc.text, got, tc.want)
		}
	}
	if got := strings.Join(terms(t, m, a.Normalizer["lower"], "Sea-View Inn"), "|"); got != "sea view inn" {
		t.Errorf("normalizer lower = %q", got)
	}
	if got := strings.Join(terms(t, m, a.Normalizer["standard"], "Crème Brûlée"), "|"); got != "creme brulee" {
		t.Errorf("normalizer standard = %q", got)
	}
}

// TestPatternAnalyzer: the pattern analyzer splits where its pattern
// matches (default \W+), lower-cases unless told not to, drops its stop
// words, honours the Java flags Go can, and is written back with its
// defaults (the .NET SDK's UpdateIndex recording: a PatternAnalyzer with
// pattern, flags CASE_INSENSITIVE|MULTILINE and stop words, answered
// with lowercase true).
func TestPatternAnalyzer(t *testing.T) {
	d := def(t, `{"name":"pa","fields":[{"name":"id","type":"Edm.String","key":true}],"analyzers":[
		{"@odata.type":"#Microsoft.Azure.Search.PatternAnalyzer","name":"dflt"},
		{"@odata.type":"#Microsoft.Azure.Search.PatternAnalyzer","name":"semi","pattern":";","lowercase":false,"stopwords":["b"]},
		{"@odata.type":"#Microsoft.Azure.Search.PatternAnalyzer","name":"ci","pattern":"X","flags":"CASE_INSENSITIVE|MULTILINE"},
		{"@odata.type":"#Microsoft.Azure.Search.PatternAnalyzer","name":"lit","pattern":".","flags":"LITERAL"},
		{"@odata.type":"#Microsoft.Azure.Search.PatternAnalyzer","name":"cmt","pattern":"[,;] + # separators\n| \\ ","flags":"COMMENTS|CANON_EQ"},
		{"@odata.type":"#Microsoft.Azure.Search.PatternAnalyzer","name":"empty","pattern":""}],
		"tokenizers":[
		{"@odata.type":"#Microsoft.Azure.Search.PatternTokenizer","name":"split","pattern":"-"},
		{"@odata.type":"#Microsoft.Azure.Search.PatternTokenizer","name":"words","pattern":"([a-z]+)=([0-9]+)","group":2},
		{"@odata.type":"#Microsoft.Azure.Search.PatternTokenizer","name":"plain"}]}`)
	res, err := decodeDefinition(Indexes, d)
	if err != nil {
		t.Fatal(err)
	}
	ix := res.(*Index)
	a, err := ix.analysis()
	if err != nil {
		t.Fatal(err)
	}
	m := bleveMapping(t, a)
	for _, c := range []struct{ analyzer, text, want string }{
		{"dflt", "Hello, World-wide web", "hello|world|wide|web"},
		{"semi", "A;b;C D", "A|C D"},
		{"ci", "axbXc", "a|b|c"},
		{"lit", "a.b-c", "a|b-c"},
		{"cmt", "a,;b c", "a|b|c"},
	} {
		if got := strings.Join(terms(t, m, a.Analyzer[c.analyzer], c.text), "|"); got != c.want {
			t.Errorf("%s on %q: %q, want %q", c.analyzer, c.text, got, c.want)
		}
	}
	body := jsonObject(ix)
	first := body["analyzers"].([]any)[0].(map[string]any)
	if first["lowercase"] != true || first["pattern"] != `\W+` || first["flags"] != nil {
		t.Errorf("defaults written back: %v", first)
	}
	if l, ok := first["stopwords"].([]any); !ok || len(l) != 0 {
		t.Errorf("stopwords written back: %v", first)
	}
	// An empty pattern is written back empty, not as the default (the
	// Java SDK's recording CustomAnalyzerTests.canUsePatternAnalyzerInManyWaysSync).
	if empty := body["analyzers"].([]any)[5].(map[string]any); empty["pattern"] != "" || empty["lowercase"] != true {
		t.Errorf("empty pattern written back: %v", empty)
	}
	// A tokenizer splits where its pattern matches, or keeps a group of
	// each match; its defaults are written back (the Java SDK's recording
	// CustomAnalyzerTests.canUseAllRegexFlagsTokenizerSync).
	for _, c := range []struct{ tokenizer, text, want string }{
		{"split", "a-b--c", "a|b|c"},
		{"words", "x=1 y=22 z", "1|22"},
	} {
		if got := tokenize(t, a.Tokenizers[bleveName("tokenizer", c.tokenizer)], c.text); got != c.want {
			t.Errorf("tokenizer %s on %q: %q, want %q", c.tokenizer, c.text, got, c.want)
		}
	}
	dflt := body["tokenizers"].([]any)[2].(map[string]any)
	if dflt["pattern"] != `\W+` || fmt.Sprint(dflt["group"]) != "-1" || dflt["flags"] != nil {
		t.Errorf("tokenizer defaults written back: %v", dflt)
	}
	// Flags that name no Java flag, "" among them, are refused as Azure
	// refuses them (CustomAnalyzerTests.canUseAllRegexFlagsEmptyFlagsAnalyzerSync).
	for _, flags := range []string{`""`, `"CASE_INSENSITIVE|"`, `"case_insensitive"`} {
		bad := def(t, `{"name":"pa","fields":[{"name":"id","type":"Edm.String","key":true}],"analyzers":[{"@odata.type":"#Microsoft.Azure.Search.PatternAnalyzer","name":"c","flags":`+flags+`}]}`)
		res, err := decodeDefinition(Indexes, bad)
		if err == nil {
			_, err = res.(*Index).analysis()
		}
		if err == nil || !strings.Contains(err.Error(), `Values of property "flags" must belong to the set of allowed values`) {
			t.Errorf("flags %s: %v", flags, err)
		}
	}
}

// tokenize runs the bleve tokenizer configured as cfg over text.
func tokenize(t *testing.T, cfg map[string]any, text string) string {
	t.Helper()
	tk, err := registry.NewCache().DefineTokenizer("t", cfg)
	if err != nil {
		t.Fatal(err)
	}
	var out []string
	for _, tok := range tk.Tokenize([]byte(text)) {
		out = append(out, string(tok.Term))
	}
	return strings.Join(out, "|")
}

// TestAnalyzeText: Analyze Text runs an analyzer, a normalizer, or a
// tokenizer with filters over the text, with offsets in UTF-16 code
// units and positions from 0 (the Java SDK's recording
// CustomAnalyzerTests.canAnalyzeSync for the shapes), and refuses a
// request naming none or two of them.
func TestAnalyzeText(t *testing.T) {
	s := newService(t)
	ctx := context.Background()
	mustPut(t, s, Indexes, "", `{"name":"an","fields":[{"name":"id","type":"Edm.String","key":true}],
		"tokenizers":[{"@odata.type":"#Microsoft.Azure.Search.PatternTokenizer","name":"dash","pattern":"-"}]}`, PutOptions{CreateOnly: true})
	str := func(v string) *string { return &v }
	for _, c := range []struct {
		req  AnalyzeRequest
		want string
	}{
		{AnalyzeRequest{Text: "One two", Analyzer: str("whitespace")}, "One 0-3 @0|two 4-7 @1"},
		{AnalyzeRequest{Text: "One's <two/>", Tokenizer: str("whitespace"), TokenFilters: []string{"apostrophe"}, CharFilters: []string{"html_strip"}}, "One 0-5 @0"},
		{AnalyzeRequest{Text: "é😀 b", Tokenizer: str("whitespace")}, "é😀 0-3 @0|b 4-5 @1"},
		{AnalyzeRequest{Text: "a-B", Tokenizer: str("dash"), TokenFilters: []string{"lowercase"}}, "a 0-1 @0|b 2-3 @1"},
		{AnalyzeRequest{Text: "The Hotel", Analyzer: str("en.lucene")}, "hotel 4-9 @1"},
		{AnalyzeRequest{Text: "Mixed Case", Normalizer: str("lowercase")}, "mixed case 0-10 @0"},
	} {
		toks, err := s.Analyze(ctx, "an", c.req)
		if err != nil {
			t.Fatalf("%+v: %v", c.req, err)
		}
		var got []string
		for _, tk := range toks {
			got = append(got, fmt.Sprintf("%s %d-%d @%d", tk.Token, tk.StartOffset, tk.EndOffset, tk.Position))
		}
		if g := strings.Join(got, "|"); g != c.want {
			t.Errorf("%+v: %s, want %s", c.req, g, c.want)
		}
	}
	for _, bad := range []AnalyzeRequest{{Text: "x"}, {Text: "x", Analyzer: str("whitespace"), Tokenizer: str("whitespace")},
		{Text: "x", Analyzer: str("nope")}, {Text: "x", Tokenizer: str("whitespace"), TokenFilters: []string{"nope"}}} {
		if _, err := s.Analyze(ctx, "an", bad); !errors.Is(err, ErrBadRequest) {
			t.Errorf("%+v: %v, want 400", bad, err)
		}
	}
	if _, err := s.Analyze(ctx, "missing", AnalyzeRequest{Text: "x", Analyzer: str("whitespace")}); !errors.Is(err, ErrNotFound) {
		t.Errorf("missing index: %v", err)
	}
}
