package search

import (
	"strings"
	"testing"

	"github.com/blevesearch/bleve/v2/mapping"
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
		{"@odata.type":"#Microsoft.Azure.Search.PatternAnalyzer","name":"lit","pattern":".","flags":"LITERAL"}]}`)
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
	bad := def(t, `{"name":"pa","fields":[{"name":"id","type":"Edm.String","key":true}],"analyzers":[{"@odata.type":"#Microsoft.Azure.Search.PatternAnalyzer","name":"c","flags":"COMMENTS"}]}`)
	if res, err := decodeDefinition(Indexes, bad); err == nil {
		if _, err := res.(*Index).analysis(); err == nil {
			t.Error("the COMMENTS flag accepted")
		}
	}
}
