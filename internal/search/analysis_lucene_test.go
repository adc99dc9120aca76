package search

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"unicode/utf16"
)

// analyzeAll defines an index with the given analysis properties and
// returns a function that runs Analyze Text on it, answering the tokens
// as "token start-end @position" joined by |.
func analyzeAll(t *testing.T, components string) func(AnalyzeRequest) string {
	t.Helper()
	s := newService(t)
	mustPut(t, s, Indexes, "", `{"name":"lu","fields":[{"name":"id","type":"Edm.String","key":true}]`+components+`}`, PutOptions{CreateOnly: true})
	return func(req AnalyzeRequest) string {
		t.Helper()
		toks, err := s.Analyze(context.Background(), "lu", req)
		if err != nil {
			t.Fatalf("%+v: %v", req, err)
		}
		var got []string
		for _, tk := range toks {
			got = append(got, fmt.Sprintf("%s %d-%d @%d", tk.Token, tk.StartOffset, tk.EndOffset, tk.Position))
		}
		return strings.Join(got, "|")
	}
}

type analyzeCase struct {
	text, tokenizer string
	filters         []string
	want            string
}

func (c analyzeCase) run(t *testing.T, analyze func(AnalyzeRequest) string) {
	t.Helper()
	if got := analyze(AnalyzeRequest{Text: c.text, Tokenizer: &c.tokenizer, TokenFilters: c.filters}); got != c.want {
		t.Errorf("%q through %s %v:\n got %s\nwant %s", c.text, c.tokenizer, c.filters, got, c.want)
	}
}

// TestPredefinedTokenizersAsRecorded: the predefined tokenizers cerulean
// serves with its own tokenizers answer "One two" as Azure did in the
// Java SDK's recording CustomAnalyzerTests.canAnalyzeWithAllPossibleNamesSync.
func TestPredefinedTokenizersAsRecorded(t *testing.T) {
	analyze := analyzeAll(t, "")
	for _, c := range []analyzeCase{
		{"One two", "edgeNGram", nil, "O 0-1 @0|On 0-2 @1"},
		{"One two", "nGram", nil, "O 0-1 @0|On 0-2 @1|n 1-2 @2|ne 1-3 @3|e 2-3 @4|e  2-4 @5|  3-4 @6| t 3-5 @7|t 4-5 @8|tw 4-6 @9|w 5-6 @10|wo 5-7 @11|o 6-7 @12"},
		{"One two", "path_hierarchy_v2", nil, "One two 0-7 @0"},
		{"One two", "lowercase", nil, "one 0-3 @0|two 4-7 @1"},
		{"One two", "pattern", nil, "One 0-3 @0|two 4-7 @1"},
	} {
		c.run(t, analyze)
	}
}

// TestNGramTokenizers: the n-gram tokenizers as Lucene documents them
// (NGramTokenizer's javadoc: "abcde" with grams of 2 to 3 is ab, abc, bc,
// bcd, cd, cde, de; Elasticsearch's edge_ngram tokenizer page, which is
// Lucene's EdgeNGramTokenizer: "Quick Fox" with grams of 2 to 10 over
// letters and digits is Qu, Qui, Quic, Quick, Fo, Fox).
func TestNGramTokenizers(t *testing.T) {
	analyze := analyzeAll(t, `,"tokenizers":[
		{"@odata.type":"#Microsoft.Azure.Search.NGramTokenizer","name":"g23","minGram":2,"maxGram":3},
		{"@odata.type":"#Microsoft.Azure.Search.EdgeNGramTokenizer","name":"e210","minGram":2,"maxGram":10,"tokenChars":["letter","digit"]},
		{"@odata.type":"#Microsoft.Azure.Search.NGramTokenizer","name":"words","minGram":1,"maxGram":1,"tokenChars":["letter"]}]`)
	for _, c := range []analyzeCase{
		{"abcde", "g23", nil, "ab 0-2 @0|abc 0-3 @1|bc 1-3 @2|bcd 1-4 @3|cd 2-4 @4|cde 2-5 @5|de 3-5 @6"},
		{"Quick Fox", "e210", nil, "Qu 0-2 @0|Qui 0-3 @1|Quic 0-4 @2|Quick 0-5 @3|Fo 6-8 @4|Fox 6-9 @5"},
		{"a-b", "words", nil, "a 0-1 @0|b 2-3 @1"},
		{"é😀b", "words", nil, "é 0-1 @0|b 3-4 @1"},
	} {
		c.run(t, analyze)
	}
}

// TestPathHierarchyTokenizer: the outputs Lucene's tests pin for
// PathHierarchyTokenizer and ReversePathHierarchyTokenizer (all tokens at
// one position).
func TestPathHierarchyTokenizer(t *testing.T) {
	analyze := analyzeAll(t, `,"tokenizers":[
		{"@odata.type":"#Microsoft.Azure.Search.PathHierarchyTokenizerV2","name":"fwd"},
		{"@odata.type":"#Microsoft.Azure.Search.PathHierarchyTokenizerV2","name":"skip1","skip":1},
		{"@odata.type":"#Microsoft.Azure.Search.PathHierarchyTokenizerV2","name":"rev","reverse":true},
		{"@odata.type":"#Microsoft.Azure.Search.PathHierarchyTokenizerV2","name":"revskip","reverse":true,"skip":1},
		{"@odata.type":"#Microsoft.Azure.Search.PathHierarchyTokenizerV2","name":"win","delimiter":"\\","replacement":"/"}]`)
	for _, c := range []analyzeCase{
		{"/a/b/c", "fwd", nil, "/a 0-2 @0|/a/b 0-4 @0|/a/b/c 0-6 @0"},
		{"/a/b/c/", "fwd", nil, "/a 0-2 @0|/a/b 0-4 @0|/a/b/c 0-6 @0|/a/b/c/ 0-7 @0"},
		{"a/b/c", "fwd", nil, "a 0-1 @0|a/b 0-3 @0|a/b/c 0-5 @0"},
		{"//", "fwd", nil, "/ 0-1 @0|// 0-2 @0"},
		{"/a/b/c", "skip1", nil, "/b 2-4 @0|/b/c 2-6 @0"},
		{"a/b/c/", "skip1", nil, "/b 1-3 @0|/b/c 1-5 @0|/b/c/ 1-6 @0"},
		{"/", "skip1", nil, ""},
		{"/a/b/c", "rev", nil, "/a/b/c 0-6 @0|a/b/c 1-6 @0|b/c 3-6 @0|c 5-6 @0"},
		{"//", "rev", nil, "// 0-2 @0|/ 1-2 @0"},
		{"/a/b/c", "revskip", nil, "/a/b/ 0-5 @0|a/b/ 1-5 @0|b/ 3-5 @0"},
		{"//", "revskip", nil, "/ 0-1 @0"},
		{`c:\a\b`, "win", nil, "c: 0-2 @0|c:/a 0-4 @0|c:/a/b 0-6 @0"},
	} {
		c.run(t, analyze)
	}
}

// TestLuceneTokenFilters: token filters as Lucene and the Elasticsearch
// reference (which documents the same Lucene filters) give their
// examples.
func TestLuceneTokenFilters(t *testing.T) {
	analyze := analyzeAll(t, `,"tokenFilters":[
		{"@odata.type":"#Microsoft.Azure.Search.AsciiFoldingTokenFilter","name":"fold"},
		{"@odata.type":"#Microsoft.Azure.Search.AsciiFoldingTokenFilter","name":"foldkeep","preserveOriginal":true},
		{"@odata.type":"#Microsoft.Azure.Search.ShingleTokenFilter","name":"sh23","minShingleSize":2,"maxShingleSize":3,"outputUnigrams":false},
		{"@odata.type":"#Microsoft.Azure.Search.ShingleTokenFilter","name":"shnone","maxShingleSize":3,"minShingleSize":3,"outputUnigrams":false,"outputUnigramsIfNoShingles":true},
		{"@odata.type":"#Microsoft.Azure.Search.StopwordsTokenFilter","name":"nothis","stopwords":["this"]},
		{"@odata.type":"#Microsoft.Azure.Search.SnowballTokenFilter","name":"snow","language":"english"},
		{"@odata.type":"#Microsoft.Azure.Search.StemmerTokenFilter","name":"possessive","language":"possessiveEnglish"},
		{"@odata.type":"#Microsoft.Azure.Search.StemmerTokenFilter","name":"lightfr","language":"lightFrench"},
		{"@odata.type":"#Microsoft.Azure.Search.StemmerOverrideTokenFilter","name":"over","rules":["ran => run","mice, lice => mouse"]},
		{"@odata.type":"#Microsoft.Azure.Search.KeywordMarkerTokenFilter","name":"protect","keywords":["Running"],"ignoreCase":true},
		{"@odata.type":"#Microsoft.Azure.Search.LimitTokenFilter","name":"two","maxTokenCount":2},
		{"@odata.type":"#Microsoft.Azure.Search.KeepTokenFilter","name":"keep","keepWords":["Fox","jumps"],"keepWordsCase":true},
		{"@odata.type":"#Microsoft.Azure.Search.PatternCaptureTokenFilter","name":"threes","patterns":["(...)"],"preserveOriginal":false},
		{"@odata.type":"#Microsoft.Azure.Search.PatternCaptureTokenFilter","name":"parts","patterns":["([a-z]+)","([0-9]+)"]},
		{"@odata.type":"#Microsoft.Azure.Search.PatternReplaceTokenFilter","name":"repl","pattern":"(a+)b","replacement":"$1-\\$"}]`)
	for _, c := range []analyzeCase{
		// Elasticsearch's asciifolding page: "açaí à la carte" is acai, a,
		// la, carte, and with preserve_original acai, açaí, a, à, la, carte.
		{"açaí à la carte", "whitespace", []string{"fold"}, "acai 0-4 @0|a 5-6 @1|la 7-9 @2|carte 10-15 @3"},
		{"açaí à la carte", "whitespace", []string{"foldkeep"}, "acai 0-4 @0|açaí 0-4 @0|a 5-6 @1|à 5-6 @1|la 7-9 @2|carte 10-15 @3"},
		{"Straße Æon ﬁre", "whitespace", []string{"asciifolding"}, "Strasse 0-6 @0|AEon 7-10 @1|fire 11-14 @2"},
		// Elasticsearch's shingle page: "quick brown fox jumps".
		{"quick brown fox jumps", "whitespace", []string{"shingle"}, "quick 0-5 @0|quick brown 0-11 @0|brown 6-11 @1|brown fox 6-15 @1|fox 12-15 @2|fox jumps 12-21 @2|jumps 16-21 @3"},
		{"quick brown fox jumps", "whitespace", []string{"sh23"}, "quick brown 0-11 @0|quick brown fox 0-15 @0|brown fox 6-15 @1|brown fox jumps 6-21 @1|fox jumps 12-21 @2"},
		{"quick brown", "whitespace", []string{"shnone"}, "quick 0-5 @0|brown 6-11 @1"},
		// Lucene's ShingleFilter tests: an empty position takes part as _.
		{"please divide this sentence", "whitespace", []string{"nothis", "shingle"}, "please 0-6 @0|please divide 0-13 @0|divide 7-13 @1|divide _ 7-19 @1|_ sentence 19-27 @2|sentence 19-27 @3"},
		// Snowball's English (Porter2) and Lucene's light French stemmer.
		{"running jumps generously", "whitespace", []string{"snow"}, "run 0-7 @0|jump 8-13 @1|generous 14-24 @2"},
		{"John's dog’s", "whitespace", []string{"possessive"}, "John 0-6 @0|dog 7-12 @1"},
		{"chevaux", "whitespace", []string{"lightfr"}, "cheval 0-7 @0"},
		// Elasticsearch's keyword_repeat page: each token as a keyword, then
		// stemmed, at one position.
		{"fox running", "whitespace", []string{"keyword_repeat", "snow"}, "fox 0-3 @0|fox 0-3 @0|running 4-11 @1|run 4-11 @1"},
		{"Running jumping", "whitespace", []string{"protect", "snow"}, "Running 0-7 @0|jump 8-15 @1"},
		{"ran mice runs", "whitespace", []string{"over", "snow"}, "run 0-3 @0|mouse 4-8 @1|run 9-13 @2"},
		{"the quick fox jumps", "whitespace", []string{"limit"}, "the 0-3 @0"},
		{"the quick fox jumps", "whitespace", []string{"two"}, "the 0-3 @0|quick 4-9 @1"},
		{"the quick fox JUMPS", "whitespace", []string{"keep"}, "fox 10-13 @2|JUMPS 14-19 @3"},
		{"  a b  ", "keyword_v2", []string{"trim"}, "a b 0-7 @0"},
		{"One straße", "whitespace", []string{"uppercase"}, "ONE 0-3 @0|STRAßE 4-10 @1"},
		// Lucene's PatternCaptureGroupTokenFilter javadoc: "(...)" makes abc,
		// def, ghi of abcdefghi; the original is kept unless told, and
		// when nothing is captured.
		{"abcdefghi xy", "whitespace", []string{"threes"}, "abc 0-9 @0|def 0-9 @0|ghi 0-9 @0|xy 10-12 @1"},
		{"ab12cd", "whitespace", []string{"parts"}, "ab12cd 0-6 @0|ab 0-6 @0|12 0-6 @0|cd 0-6 @0"},
		{"xaab", "whitespace", []string{"repl"}, "xaa-$ 0-4 @0"},
	} {
		c.run(t, analyze)
	}
}

// TestStandardTokenizerMaxTokenLength: a token longer than
// maxTokenLength is split into pieces of that length, as the service
// documents for StandardTokenizerV2 and UaxUrlEmailTokenizer.
func TestStandardTokenizerMaxTokenLength(t *testing.T) {
	analyze := analyzeAll(t, `,"tokenizers":[
		{"@odata.type":"#Microsoft.Azure.Search.StandardTokenizerV2","name":"std3","maxTokenLength":3},
		{"@odata.type":"#Microsoft.Azure.Search.UaxUrlEmailTokenizer","name":"url"}]`)
	for _, c := range []analyzeCase{
		{"abcdefg hi", "std3", nil, "abc 0-3 @0|def 3-6 @1|g 6-7 @2|hi 8-10 @3"},
		{"mail me@example.com", "url", nil, "mail 0-4 @0|me@example.com 5-19 @1"},
	} {
		c.run(t, analyze)
	}
}

// TestAnalysisComponentsWrittenBack: the new component types are written
// back with their defaults filled in, as the service answered them in
// the Java SDK's recording CustomAnalyzerTests.canCreateAllAnalysisComponentsSync.
func TestAnalysisComponentsWrittenBack(t *testing.T) {
	d := def(t, `{"name":"wb","fields":[{"name":"id","type":"Edm.String","key":true}],
		"tokenizers":[{"@odata.type":"#Microsoft.Azure.Search.EdgeNGramTokenizer","name":"e"},
			{"@odata.type":"#Microsoft.Azure.Search.PathHierarchyTokenizerV2","name":"p","delimiter":":"}],
		"tokenFilters":[{"@odata.type":"#Microsoft.Azure.Search.AsciiFoldingTokenFilter","name":"f"},
			{"@odata.type":"#Microsoft.Azure.Search.KeepTokenFilter","name":"k","keepWords":["a"]},
			{"@odata.type":"#Microsoft.Azure.Search.LimitTokenFilter","name":"l"},
			{"@odata.type":"#Microsoft.Azure.Search.ShingleTokenFilter","name":"s"}]}`)
	res, err := decodeDefinition(Indexes, d)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := res.(*Index).analysis(); err != nil {
		t.Fatal(err)
	}
	body := jsonObject(res)
	for _, c := range []struct {
		list string
		i    int
		want string
	}{
		{"tokenizers", 0, "map[@odata.type:#Microsoft.Azure.Search.EdgeNGramTokenizer maxGram:2 minGram:1 name:e tokenChars:[]]"},
		{"tokenizers", 1, "map[@odata.type:#Microsoft.Azure.Search.PathHierarchyTokenizerV2 delimiter:: maxTokenLength:300 name:p replacement:: reverse:false skip:0]"},
		{"tokenFilters", 0, "map[@odata.type:#Microsoft.Azure.Search.AsciiFoldingTokenFilter name:f preserveOriginal:false]"},
		{"tokenFilters", 1, "map[@odata.type:#Microsoft.Azure.Search.KeepTokenFilter keepWords:[a] keepWordsCase:false name:k]"},
		{"tokenFilters", 2, "map[@odata.type:#Microsoft.Azure.Search.LimitTokenFilter consumeAllTokens:false maxTokenCount:1 name:l]"},
		{"tokenFilters", 3, "map[@odata.type:#Microsoft.Azure.Search.ShingleTokenFilter filterToken:_ maxShingleSize:2 minShingleSize:2 name:s outputUnigrams:true outputUnigramsIfNoShingles:false tokenSeparator: ]"},
	} {
		if got := fmt.Sprint(body[c.list].([]any)[c.i]); got != c.want {
			t.Errorf("%s[%d] = %s, want %s", c.list, c.i, got, c.want)
		}
	}
}

// TestUnservableComponentsRefused: what cerulean cannot serve exactly is
// refused with a 400 that names it, never approximated.
func TestUnservableComponentsRefused(t *testing.T) {
	for _, c := range []struct{ props, want string }{
		{`"tokenizers":[{"@odata.type":"#Microsoft.Azure.Search.KeywordTokenizer","name":"c"}]`, "KeywordTokenizer"},
		{`"tokenizers":[{"@odata.type":"#Microsoft.Azure.Search.MicrosoftLanguageTokenizer","name":"c"}]`, "MicrosoftLanguageTokenizer"},
		{`"tokenFilters":[{"@odata.type":"#Microsoft.Azure.Search.PhoneticTokenFilter","name":"c"}]`, "PhoneticTokenFilter"},
		{`"tokenFilters":[{"@odata.type":"#Microsoft.Azure.Search.StemmerTokenFilter","name":"c","language":"english"}]`, "'english'"},
		{`"tokenFilters":[{"@odata.type":"#Microsoft.Azure.Search.SnowballTokenFilter","name":"c","language":"lovins"}]`, "'lovins'"},
		{`"tokenFilters":[{"@odata.type":"#Microsoft.Azure.Search.PatternCaptureTokenFilter","name":"c","patterns":["(?<=a)b"]}]`, "(?<=a)b"},
		{`"analyzers":[{"@odata.type":"#Microsoft.Azure.Search.CustomAnalyzer","name":"c","tokenizer":"microsoft_language_tokenizer"}]`, "'microsoft_language_tokenizer'"},
		{`"analyzers":[{"@odata.type":"#Microsoft.Azure.Search.CustomAnalyzer","name":"c","tokenizer":"whitespace","tokenFilters":["kstem"]}]`, "'kstem'"},
	} {
		d := def(t, `{"name":"rf","fields":[{"name":"id","type":"Edm.String","key":true}],`+c.props+`}`)
		res, err := decodeDefinition(Indexes, d)
		if err == nil {
			_, err = res.(*Index).analysis()
		}
		if !errors.Is(err, ErrBadRequest) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want a 400 naming %s", c.props, err, c.want)
		}
	}
}

// TestMappingCharFilter: the outputs and corrected offsets of Lucene's
// TestMappingCharFilter (its map: aa → a, bbb → b, cccc → cc, h → i,
// j → jj, k → kkk, ll → llll, empty → nothing), one filter and two
// chained.
func TestMappingCharFilter(t *testing.T) {
	analyze := analyzeAll(t, `,"charFilters":[{"@odata.type":"#Microsoft.Azure.Search.MappingCharFilter","name":"m",
		"mappings":["aa=>a","bbb => b","cccc => cc","h => i","j => jj","k => kkk","ll => llll","empty =>"]},
		{"@odata.type":"#Microsoft.Azure.Search.MappingCharFilter","name":"esc","mappings":["\\u00e9 => e","\\t => \\\\"]}]`)
	ws := "whitespace"
	for _, c := range []struct {
		text  string
		chars []string
		want  string
	}{
		{"h i j k ll cccc bbb aa", []string{"m"}, "i 0-1 @0|i 2-3 @1|jj 4-5 @2|kkk 6-7 @3|llll 8-10 @4|cc 11-15 @5|b 16-19 @6|a 20-22 @7"},
		{"empty", []string{"m"}, ""},
		{"aaaa ll h", []string{"m", "m"}, "a 0-4 @0|llllllll 5-7 @1|i 8-9 @2"},
		{"café\tx", []string{"esc"}, `cafe\x 0-6 @0`},
	} {
		got := analyze(AnalyzeRequest{Text: c.text, Tokenizer: &ws, CharFilters: c.chars})
		if got != c.want {
			t.Errorf("%q through %v:\n got %s\nwant %s", c.text, c.chars, got, c.want)
		}
	}
}

// TestCommonGrams: Lucene's CommonGramsFilter and CommonGramsQueryFilter
// as the Elasticsearch common_grams page shows them ("the quick fox is
// brown", common words is and the).
func TestCommonGrams(t *testing.T) {
	analyze := analyzeAll(t, `,"tokenFilters":[
		{"@odata.type":"#Microsoft.Azure.Search.CommonGramTokenFilter","name":"cg","commonWords":["is","the"]},
		{"@odata.type":"#Microsoft.Azure.Search.CommonGramTokenFilter","name":"cgq","commonWords":["IS","The"],"ignoreCase":true,"queryMode":true}]`)
	for _, c := range []analyzeCase{
		{"the quick fox is brown", "whitespace", []string{"cg"}, "the 0-3 @0|the_quick 0-9 @0|quick 4-9 @1|fox 10-13 @2|fox_is 10-16 @2|is 14-16 @3|is_brown 14-22 @3|brown 17-22 @4"},
		{"the quick fox is brown", "whitespace", []string{"cgq"}, "the_quick 0-9 @0|quick 4-9 @1|fox_is 10-16 @2|is_brown 14-22 @3"},
		{"quick fox", "whitespace", []string{"cgq"}, "quick 0-5 @0|fox 6-9 @1"},
	} {
		c.run(t, analyze)
	}
}

// TestClassicTokenizer: Lucene's ClassicTokenizer and ClassicFilter as
// Lucene's TestClassicAnalyzer pins them (without its lower-casing and
// stop words); "One two" is One, two as Azure answered in the recording
// CustomAnalyzerTests.canAnalyzeWithAllPossibleNamesSync.
func TestClassicTokenizer(t *testing.T) {
	analyze := analyzeAll(t, `,"tokenizers":[{"@odata.type":"#Microsoft.Azure.Search.ClassicTokenizer","name":"short","maxTokenLength":5}]`)
	cl := []string{"classic"}
	terms := func(text string, filters []string) string {
		tk := "classic"
		var out []string
		for _, tok := range strings.Split(analyze(AnalyzeRequest{Text: text, Tokenizer: &tk, TokenFilters: filters}), "|") {
			out = append(out, strings.Fields(tok)[0])
		}
		return strings.Join(out, " ")
	}
	for _, c := range []struct {
		text    string
		filters []string
		want    string
	}{
		{"B2B 2B", nil, "B2B 2B"},
		{"O'Reilly you're she's Jim's O'Reilly's", cl, "O'Reilly you're she Jim O'Reilly"},
		{"t-com AT&T Excite@Home", nil, "t com AT&T Excite@Home"},
		{"www.nutch.org www.nutch.org.", nil, "www.nutch.org www.nutch.org"},
		{"test@example.com first.lastname@example.com first_lastname@example.com", nil, "test@example.com first.lastname@example.com first_lastname@example.com"},
		{"21.35 R2D2 C3PO 216.239.63.104 62.46", nil, "21.35 R2D2 C3PO 216.239.63.104 62.46"},
		{"U.S.A. IBM", cl, "USA IBM"},
		{"안녕하세요 한글입니다 十九", nil, "안녕하세요 한글입니다 十 九"},
		{"978-0-94045043-1 mid-20th 78academyawards/rules/rule02.html", nil, "978-0-94045043-1 mid-20th 78academyawards/rules/rule02.html"},
		{"/money.cnn.com/magazines/fortune/fortune_archive/2007/03/19/8402357/index.htm safari-0-sheikh-zayed-grand-mosque.jpg", nil,
			"money.cnn.com magazines fortune fortune archive/2007/03/19/8402357 index.htm safari-0-sheikh zayed grand mosque.jpg"},
	} {
		if got := terms(c.text, c.filters); got != c.want {
			t.Errorf("%q through classic %v:\n got %s\nwant %s", c.text, c.filters, got, c.want)
		}
	}
	for _, c := range []analyzeCase{
		{"One two", "classic", nil, "One 0-3 @0|two 4-7 @1"},
		{"www.nutch.org.", "classic", nil, "www.nutch.org 0-14 @0"},
		// Lucene drops a token over maxTokenLength and leaves its
		// position empty.
		{"ab cd toolong xy", "short", nil, "ab 0-2 @0|cd 3-5 @1|xy 14-16 @3"},
	} {
		c.run(t, analyze)
	}
}

// TestWordDelimiter: Lucene's WordDelimiterFilter as the Elasticsearch
// word_delimiter page shows it, each option on its own example.
func TestWordDelimiter(t *testing.T) {
	wd := func(name, opts string) string {
		return `{"@odata.type":"#Microsoft.Azure.Search.WordDelimiterTokenFilter","name":"` + name + `"` + opts + `}`
	}
	analyze := analyzeAll(t, `,"tokenFilters":[`+strings.Join([]string{
		wd("all", `,"catenateAll":true`), wd("nums", `,"catenateNumbers":true`), wd("words", `,"catenateWords":true`),
		wd("keep", `,"preserveOriginal":true`), wd("nocase", `,"splitOnCaseChange":false`), wd("nonum", `,"splitOnNumerics":false`),
		wd("prot", `,"protectedWords":["wi-fi"]`), wd("both", `,"catenateWords":true,"catenateAll":true`)}, ",")+`]`)
	for _, c := range []analyzeCase{
		{"Neil's-Super-Duper-XL500--42+AutoCoder", "whitespace", []string{"word_delimiter"}, "Neil 0-4 @0|Super 7-12 @1|Duper 13-18 @2|XL 19-21 @3|500 21-24 @4|42 26-28 @5|Auto 29-33 @6|Coder 33-38 @7"},
		{"super-duper-xl-500", "whitespace", []string{"all"}, "super 0-5 @0|superduperxl500 0-18 @0|duper 6-11 @1|xl 12-14 @2|500 15-18 @3"},
		{"01-02-03", "whitespace", []string{"nums"}, "01 0-2 @0|010203 0-8 @0|02 3-5 @1|03 6-8 @2"},
		{"super-duper-xl", "whitespace", []string{"words"}, "super 0-5 @0|superduperxl 0-14 @0|duper 6-11 @1|xl 12-14 @2"},
		{"super-duper", "whitespace", []string{"both"}, "super 0-5 @0|superduper 0-11 @0|duper 6-11 @1"},
		{"500-42", "whitespace", []string{"keep"}, "500-42 0-6 @0|500 0-3 @0|42 4-6 @1"},
		{"PowerShot", "whitespace", []string{"word_delimiter"}, "Power 0-5 @0|Shot 5-9 @1"},
		{"PowerShot", "whitespace", []string{"nocase"}, "PowerShot 0-9 @0"},
		{"j2se", "whitespace", []string{"word_delimiter"}, "j 0-1 @0|2 1-2 @1|se 2-4 @2"},
		{"j2se", "whitespace", []string{"nonum"}, "j2se 0-4 @0"},
		{"O'Neil's", "whitespace", []string{"word_delimiter"}, "O 0-1 @0|Neil 2-6 @1"},
		{"wi-fi -- x", "whitespace", []string{"prot"}, "wi-fi 0-5 @0|x 9-10 @1"},
	} {
		c.run(t, analyze)
	}
}

// TestStandardAnalyzerMaxTokenLength: a standard analyzer splits tokens
// longer than its maxTokenLength, as the service documents.
func TestStandardAnalyzerMaxTokenLength(t *testing.T) {
	analyze := analyzeAll(t, `,"analyzers":[{"@odata.type":"#Microsoft.Azure.Search.StandardAnalyzer","name":"std4","maxTokenLength":4,"stopwords":["the"]}]`)
	std4 := "std4"
	if got := analyze(AnalyzeRequest{Text: "The Ridiculous fox", Analyzer: &std4}); got != "ridi 4-8 @1|culo 8-12 @2|us 12-14 @3|fox 15-18 @4" {
		t.Errorf("std4: %s", got)
	}
}

// TestStopwordsTokenFilter: the language list is named by stopwordsList,
// the property the service has (the Java SDK's recording
// CustomAnalyzerTests.canCreateAllAnalysisComponentsSync sends
// "stopwordsList": "italian"), and ignoreCase makes Lucene's StopFilter
// match without regard to case.
func TestStopwordsTokenFilter(t *testing.T) {
	analyze := analyzeAll(t, `,"tokenFilters":[
		{"@odata.type":"#Microsoft.Azure.Search.StopwordsTokenFilter","name":"it","stopwordsList":"italian"},
		{"@odata.type":"#Microsoft.Azure.Search.StopwordsTokenFilter","name":"itci","stopwordsList":"italian","ignoreCase":true},
		{"@odata.type":"#Microsoft.Azure.Search.StopwordsTokenFilter","name":"mine","stopwords":["A","the"],"ignoreCase":true}]`)
	for _, c := range []analyzeCase{
		{"il gatto e Il cane", "whitespace", []string{"it"}, "gatto 3-8 @1|Il 11-13 @3|cane 14-18 @4"},
		{"il gatto e Il cane", "whitespace", []string{"itci"}, "gatto 3-8 @1|cane 14-18 @4"},
		{"a cat THE end", "whitespace", []string{"mine"}, "cat 2-5 @1|end 10-13 @3"},
	} {
		c.run(t, analyze)
	}
	d := def(t, `{"name":"rt","fields":[{"name":"id","type":"Edm.String","key":true}],"tokenFilters":[{"@odata.type":"#Microsoft.Azure.Search.StopwordsTokenFilter","name":"s","removeTrailing":false}]}`)
	res, err := decodeDefinition(Indexes, d)
	if err == nil {
		_, err = res.(*Index).analysis()
	}
	if !errors.Is(err, ErrBadRequest) || !strings.Contains(err.Error(), "removeTrailing") {
		t.Errorf("removeTrailing false: %v, want a 400 naming it", err)
	}
}

// everyComponent is an index with one analyzer per tokenizer and token
// filter of this file's kinds.
const everyComponent = `,"charFilters":[{"@odata.type":"#Microsoft.Azure.Search.MappingCharFilter","name":"map","mappings":["a => ","ß => ss","x=>yyy"]}],
	"tokenizers":[{"@odata.type":"#Microsoft.Azure.Search.NGramTokenizer","name":"ng","minGram":1,"maxGram":3,"tokenChars":["letter","punctuation"]},
		{"@odata.type":"#Microsoft.Azure.Search.PathHierarchyTokenizerV2","name":"rev","reverse":true,"skip":1,"delimiter":"é"},
		{"@odata.type":"#Microsoft.Azure.Search.StandardTokenizerV2","name":"std2","maxTokenLength":2},
		{"@odata.type":"#Microsoft.Azure.Search.ClassicTokenizer","name":"cl3","maxTokenLength":3}],
	"tokenFilters":[{"@odata.type":"#Microsoft.Azure.Search.AsciiFoldingTokenFilter","name":"fold","preserveOriginal":true},
		{"@odata.type":"#Microsoft.Azure.Search.ShingleTokenFilter","name":"sh","maxShingleSize":4,"outputUnigrams":false,"outputUnigramsIfNoShingles":true,"tokenSeparator":"","filterToken":""},
		{"@odata.type":"#Microsoft.Azure.Search.SnowballTokenFilter","name":"snow","language":"russian"},
		{"@odata.type":"#Microsoft.Azure.Search.StemmerTokenFilter","name":"light","language":"lightGerman"},
		{"@odata.type":"#Microsoft.Azure.Search.PatternCaptureTokenFilter","name":"cap","patterns":["(.)(.)?","()"]},
		{"@odata.type":"#Microsoft.Azure.Search.PatternReplaceTokenFilter","name":"rep","pattern":"(.)","replacement":"$1$1"},
		{"@odata.type":"#Microsoft.Azure.Search.CommonGramTokenFilter","name":"cg","commonWords":["a"],"queryMode":true},
		{"@odata.type":"#Microsoft.Azure.Search.WordDelimiterTokenFilter","name":"wd","catenateAll":true,"preserveOriginal":true,"catenateWords":true,"catenateNumbers":true}],
	"analyzers":[
		{"@odata.type":"#Microsoft.Azure.Search.CustomAnalyzer","name":"a1","tokenizer":"ng","tokenFilters":["fold","sh","keyword_repeat","snow"],"charFilters":["map"]},
		{"@odata.type":"#Microsoft.Azure.Search.CustomAnalyzer","name":"a2","tokenizer":"rev","tokenFilters":["wd","cap","light","trim","uppercase"],"charFilters":["map","html_strip"]},
		{"@odata.type":"#Microsoft.Azure.Search.CustomAnalyzer","name":"a3","tokenizer":"std2","tokenFilters":["stopwords","sh","cg","rep","limit"]},
		{"@odata.type":"#Microsoft.Azure.Search.CustomAnalyzer","name":"a4","tokenizer":"cl3","tokenFilters":["classic","word_delimiter","shingle","asciifolding"],"charFilters":["map"]},
		{"@odata.type":"#Microsoft.Azure.Search.CustomAnalyzer","name":"a5","tokenizer":"path_hierarchy_v2","tokenFilters":["wd","sh"]},
		{"@odata.type":"#Microsoft.Azure.Search.CustomAnalyzer","name":"a6","tokenizer":"classic","tokenFilters":["cg","wd","fold"]}]`

// FuzzAnalysisComponents: every component serves any text without
// panicking, with offsets inside the text and positions from 0.
func FuzzAnalysisComponents(f *testing.F) {
	for _, seed := range []string{"", "One two", "Straße a-b_C3PO'S x.y.z@é/é/é", "\xff\xfe a\u0301 😀 十九 --", "aaaa ll h -- 500-42 O'Neil's"} {
		f.Add(seed)
	}
	f.Fuzz(func(t *testing.T, text string) {
		s := newService(t)
		mustPut(t, s, Indexes, "", `{"name":"fz","fields":[{"name":"id","type":"Edm.String","key":true}]`+everyComponent+`}`, PutOptions{CreateOnly: true})
		units := len(utf16.Encode([]rune(text)))
		for _, a := range []string{"a1", "a2", "a3", "a4", "a5", "a6"} {
			toks, err := s.Analyze(context.Background(), "fz", AnalyzeRequest{Text: text, Analyzer: &a})
			if err != nil {
				t.Fatalf("%s: %v", a, err)
			}
			for _, tk := range toks {
				if tk.StartOffset < 0 || tk.StartOffset > tk.EndOffset || tk.EndOffset > units || tk.Position < 0 {
					t.Fatalf("%s on %q: token %+v outside the text", a, text, tk)
				}
			}
		}
	})
}

// TestNGramTokenFilters: the n-gram filters in Lucene's order, as the
// Elasticsearch ngram and edge_ngram token filter pages show them with
// the defaults the predefined nGram_v2 and edgeNGram_v2 have.
func TestNGramTokenFilters(t *testing.T) {
	analyze := analyzeAll(t, `,"tokenFilters":[{"@odata.type":"#Microsoft.Azure.Search.EdgeNGramTokenFilterV2","name":"back","minGram":2,"maxGram":3,"side":"back"}]`)
	for _, c := range []analyzeCase{
		{"Quick fox", "whitespace", []string{"nGram_v2"}, "Q 0-5 @0|Qu 0-5 @0|u 0-5 @0|ui 0-5 @0|i 0-5 @0|ic 0-5 @0|c 0-5 @0|ck 0-5 @0|k 0-5 @0|f 6-9 @1|fo 6-9 @1|o 6-9 @1|ox 6-9 @1|x 6-9 @1"},
		{"the quick", "whitespace", []string{"edgeNGram_v2"}, "t 0-3 @0|th 0-3 @0|q 4-9 @1|qu 4-9 @1"},
		{"a quick", "whitespace", []string{"back"}, "ck 2-7 @1|ick 2-7 @1"},
	} {
		c.run(t, analyze)
	}
}

// TestCustomNormalizerFilters: a normalizer may use the predefined
// character-by-character token filters, asciifolding and uppercase
// among them.
func TestCustomNormalizerFilters(t *testing.T) {
	analyze := analyzeAll(t, `,"normalizers":[{"@odata.type":"#Microsoft.Azure.Search.CustomNormalizer","name":"loud","tokenFilters":["asciifolding","uppercase"]}]`)
	loud := "loud"
	if got := analyze(AnalyzeRequest{Text: "Crème brûlée", Normalizer: &loud}); got != "CREME BRULEE 0-12 @0" {
		t.Errorf("loud: %s", got)
	}
	d := def(t, `{"name":"nf","fields":[{"name":"id","type":"Edm.String","key":true}],"normalizers":[{"@odata.type":"#Microsoft.Azure.Search.CustomNormalizer","name":"n","tokenFilters":["shingle"]}]}`)
	res, err := decodeDefinition(Indexes, d)
	if err == nil {
		_, err = res.(*Index).analysis()
	}
	if !errors.Is(err, ErrBadRequest) || !strings.Contains(err.Error(), "'shingle'") {
		t.Errorf("normalizer with shingle: %v, want a 400 naming it", err)
	}
}

// TestUppercaseNormalizer: the predefined uppercase normalizer keeps the
// value whole and upper-cases it.
func TestUppercaseNormalizer(t *testing.T) {
	analyze := analyzeAll(t, "")
	up := "uppercase"
	if got := analyze(AnalyzeRequest{Text: "Las Vegas", Normalizer: &up}); got != "LAS VEGAS 0-9 @0" {
		t.Errorf("uppercase: %s", got)
	}
}
