package search

import (
	"context"
	"fmt"
	"net/http"
	"sort"
	"strings"
	"unicode"
	"unicode/utf8"

	bquery "github.com/blevesearch/bleve/v2/search/query"

	"github.com/cerulean-db/cerulean/internal/kv"
	"github.com/cerulean-db/cerulean/internal/search/query"
)

// SuggestRequest is a docs/suggest or docs/autocomplete call.
type SuggestRequest struct {
	Search, SuggesterName string
	Fuzzy                 bool
	Filter, OrderBy       string
	Select, SearchFields  string
	// AutocompleteMode is oneTerm (default), twoTerms or oneTermWithContext.
	AutocompleteMode                  string
	HighlightPreTag, HighlightPostTag string
	Top                               *int
	// MinimumCoverage, when given, makes a suggest answer report
	// @search.coverage.
	MinimumCoverage *float64
}

// Suggestion is one suggest result: the matched source text and the
// selected fields (the key field unless $select says otherwise).
type Suggestion struct {
	Text     string
	Document Document
}

// Completion is one autocomplete result.
type Completion struct {
	// The keys in Azure's order: text, then queryPlusText (the Java
	// SDK's AutocompleteTests recordings).
	Text          string `json:"text"`
	QueryPlusText string `json:"queryPlusText"`
}

const (
	defaultSuggestTop = 5
	maxSuggestTop     = 100
)

// suggestScope is what suggest and autocomplete share: the suggester's
// source fields, the query's terms and the documents passing the filter.
type suggestScope struct {
	qc     *queryContext
	fields []string
	terms  []string
	docs   []*hit
	top    int
	fuzzy  bool
}

func (s *Service) suggestScope(rd kv.Reader, index string, req *SuggestRequest) (*suggestScope, func(), error) {
	n := utf8.RuneCountInString(req.Search)
	if n < 1 || n > 100 {
		return nil, nil, badRequest("The search parameter of a suggest or autocomplete request must have between 1 and 100 characters.")
	}
	top := defaultSuggestTop
	if req.Top != nil {
		top = *req.Top
	}
	if top < 1 || top > maxSuggestTop {
		return nil, nil, badRequest("Invalid request. $top must be between 1 and %d for suggestions.", maxSuggestTop)
	}
	// Both suggester refusals are Azure's (the Java SDK's recordings
	// AutocompleteTests.canAutocompleteThrowsWhenRequestIsMalformedSync and
	// canAutocompleteThrowsWhenGivenBadSuggesterNameSync).
	if req.SuggesterName == "" {
		return nil, nil, missingSuggester("Cannot find fields enabled for suggestions. Please provide a value for 'suggesterName' in the query.", "suggestions")
	}
	qc, release, err := s.open(rd, index)
	if err != nil {
		return nil, nil, err
	}
	ok := false
	defer func() {
		if !ok {
			release()
		}
	}()
	var fields []string
	for _, sg := range qc.ix.Suggesters {
		if sg.Name == req.SuggesterName {
			fields = append(fields, sg.SourceFields...)
		}
	}
	if fields == nil {
		return nil, nil, missingSuggester(fmt.Sprintf("The specified suggester name '%s' does not exist in this index definition.", req.SuggesterName), "name")
	}
	if req.SearchFields != "" {
		restricted, err := query.ParseSearchFields(req.SearchFields, qc.schema)
		if err != nil {
			return nil, nil, queryError(err)
		}
		var keep []string
		for _, f := range fields {
			for _, r := range restricted {
				if r == f {
					keep = append(keep, f)
				}
			}
		}
		fields = keep
	}
	fq := bquery.Query(bquery.NewMatchAllQuery())
	var filter *query.Filter
	exact := true
	if strings.TrimSpace(req.Filter) != "" {
		if filter, err = query.ParseFilter(req.Filter, qc.schema); err != nil {
			return nil, nil, queryError(err)
		}
		fq, exact = filter.Query()
	}
	docs, err := qc.filtered(fq, filter, exact)
	if err != nil {
		return nil, nil, err
	}
	if req.OrderBy != "" {
		order, err := query.ParseOrderBy(req.OrderBy, qc.schema)
		if err != nil {
			return nil, nil, queryError(err)
		}
		sortHits(docs, order, qc.schema)
	}
	ok = true
	return &suggestScope{qc: qc, fields: fields, terms: tokens(req.Search), docs: docs, top: top, fuzzy: req.Fuzzy}, release, nil
}

// missingSuggester is Azure's refusal of a request naming no suggester, or
// one the index lacks: 400 MissingRequiredParameter, the message followed
// by the .NET parameter it names, detail MissingSuggesterName.
func missingSuggester(msg, param string) *Error {
	return &Error{Status: http.StatusBadRequest, Code: "MissingRequiredParameter", Message: msg + "\r\nParameter name: " + param,
		Details: []ErrorDetail{{Code: "MissingSuggesterName", Message: msg}}}
}

// Suggest returns documents whose suggester fields have words starting
// with every term of the search text (with one edit allowed when fuzzy).
func (s *Service) Suggest(ctx context.Context, index string, req *SuggestRequest) ([]Suggestion, error) {
	var out []Suggestion
	err := s.viewIndex(ctx, func(rd kv.Reader) error {
		sc, release, err := s.suggestScope(rd, index, req)
		if err != nil {
			return err
		}
		defer release()
		var selected []string
		if strings.TrimSpace(req.Select) == "" {
			selected = []string{sc.qc.ix.Key.Name}
		} else if selected, err = query.ParseSelect(req.Select, sc.qc.schema); err != nil {
			return queryError(err)
		}
		if len(sc.terms) == 0 {
			return nil
		}
		for _, h := range sc.docs {
			text, ok := sc.match(h.doc, req.HighlightPreTag, req.HighlightPostTag)
			if !ok {
				continue
			}
			out = append(out, Suggestion{Text: text, Document: Document{Values: project(sc.qc.ix.Fields, h.doc, selected), Fields: sc.qc.ix.Fields}})
			if len(out) == sc.top {
				break
			}
		}
		return nil
	})
	return out, err
}

// match finds the first source value in which every query term prefixes
// a word, and returns it with those words highlighted.
func (sc *suggestScope) match(doc map[string]any, pre, post string) (string, bool) {
	for _, path := range sc.fields {
		for _, v := range valuesAt(doc, path) {
			s, ok := v.(string)
			if !ok {
				continue
			}
			words := wordSpans(s)
			marked := map[int]bool{}
			all := true
			for _, t := range sc.terms {
				found := false
				for i, w := range words {
					if completes(strings.ToLower(s[w[0]:w[1]]), t, sc.fuzzy) {
						marked[i] = true
						found = true
					}
				}
				if !found {
					all = false
					break
				}
			}
			if !all {
				continue
			}
			if pre == "" && post == "" {
				return s, true
			}
			var sb strings.Builder
			pos := 0
			for i, w := range words {
				if !marked[i] {
					continue
				}
				sb.WriteString(s[pos:w[0]])
				sb.WriteString(pre)
				sb.WriteString(s[w[0]:w[1]])
				sb.WriteString(post)
				pos = w[1]
			}
			sb.WriteString(s[pos:])
			return sb.String(), true
		}
	}
	return "", false
}

// Autocomplete completes the last term of the search text from the words
// of the suggester fields of the documents the filter admits. The terms
// before it do not choose documents: oneTermWithContext only wants the
// term right before it to precede the completion ("looking for very po"
// is completed "very police", answered "looking for very police"). With
// fuzzy, a word one edit from the whole last term completes it too, beside
// the words it begins ("mod" gives model and modern, not motel; "polit"
// gives polite, not police). Sources: the Java SDK's recordings
// AutocompleteTests.canAutocompleteOneTermWithContextSync,
// canAutocompleteStaticallyTypedDocumentsSync, testAutocompleteOneTermWithFuzzySync,
// testAutocompleteOneTermWithContextWithFuzzySync and testAutocompleteTwoTermsWithFuzzySync.
func (s *Service) Autocomplete(ctx context.Context, index string, req *SuggestRequest) ([]Completion, error) {
	var out []Completion
	err := s.viewIndex(ctx, func(rd kv.Reader) error {
		sc, release, err := s.suggestScope(rd, index, req)
		if err != nil {
			return err
		}
		defer release()
		mode := req.AutocompleteMode
		switch mode {
		case "", "oneTerm", "twoTerms", "oneTermWithContext":
		default:
			return badRequest("The autocompleteMode '%s' is not one of oneTerm, twoTerms or oneTermWithContext.", mode)
		}
		if len(sc.terms) == 0 {
			return nil
		}
		last := sc.terms[len(sc.terms)-1]
		prev := sc.terms[:len(sc.terms)-1]
		freq := map[string]int{}
		for _, h := range sc.docs {
			seen := map[string]bool{}
			for _, path := range sc.fields {
				for _, v := range valuesAt(h.doc, path) {
					str, ok := v.(string)
					if !ok {
						continue
					}
					words := tokens(str)
					for i, w := range words {
						if !completes(w, last, sc.fuzzy) {
							continue
						}
						text := w
						switch mode {
						case "twoTerms":
							if i+1 < len(words) {
								text = w + " " + words[i+1]
							}
						case "oneTermWithContext":
							if len(prev) > 0 {
								if i == 0 || words[i-1] != prev[len(prev)-1] {
									continue
								}
								text = prev[len(prev)-1] + " " + w
							}
						}
						if !seen[text] {
							seen[text] = true
							freq[text]++
						}
					}
				}
			}
		}
		texts := make([]string, 0, len(freq))
		for t := range freq {
			texts = append(texts, t)
		}
		sort.Slice(texts, func(i, j int) bool {
			if freq[texts[i]] != freq[texts[j]] {
				return freq[texts[i]] > freq[texts[j]]
			}
			return texts[i] < texts[j]
		})
		if len(texts) > sc.top {
			texts = texts[:sc.top]
		}
		for _, t := range texts {
			plus := t
			ctxTerms := prev
			if mode == "oneTermWithContext" && len(prev) > 0 {
				ctxTerms = prev[:len(prev)-1]
			}
			if len(ctxTerms) > 0 {
				plus = strings.Join(ctxTerms, " ") + " " + t
			}
			c := Completion{Text: t, QueryPlusText: plus}
			if req.HighlightPreTag != "" || req.HighlightPostTag != "" {
				c.QueryPlusText = req.HighlightPreTag + plus + req.HighlightPostTag
			}
			out = append(out, c)
		}
		return nil
	})
	return out, err
}

// tokens splits text into lower-cased words of letters and digits.
func tokens(text string) []string {
	var out []string
	for _, w := range wordSpans(text) {
		out = append(out, strings.ToLower(text[w[0]:w[1]]))
	}
	return out
}

// wordSpans returns the byte spans of the words of text.
func wordSpans(text string) [][2]int {
	var out [][2]int
	start := -1
	for i, r := range text {
		word := unicode.IsLetter(r) || unicode.IsDigit(r)
		switch {
		case word && start < 0:
			start = i
		case !word && start >= 0:
			out = append(out, [2]int{start, i})
			start = -1
		}
	}
	if start >= 0 {
		out = append(out, [2]int{start, len(text)})
	}
	return out
}

// completes reports whether word completes term: it starts with term, or
// (fuzzy) is one edit from it. Suggest matches words so too: "hitel"
// suggests "Countryside Hotel" from a name rather than "… traditional
// hotels" from a description (the Java SDK's recording
// SuggestTests.canGetFuzzySuggestionsSync).
func completes(word, term string, fuzzy bool) bool {
	return strings.HasPrefix(word, term) || fuzzy && editDistance([]rune(word), []rune(term)) <= 1
}

// editDistance is the optimal-string-alignment distance: insertions,
// deletions, substitutions and transpositions of neighbours count one
// edit each, as Lucene's fuzzy matching counts them.
func editDistance(a, b []rune) int {
	d := make([][]int, len(a)+1)
	for i := range d {
		d[i] = make([]int, len(b)+1)
		d[i][0] = i
	}
	for j := range d[0] {
		d[0][j] = j
	}
	for i := 1; i <= len(a); i++ {
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			d[i][j] = min(d[i-1][j]+1, d[i][j-1]+1, d[i-1][j-1]+cost)
			if i > 1 && j > 1 && a[i-1] == b[j-2] && a[i-2] == b[j-1] {
				d[i][j] = min(d[i][j], d[i-2][j-2]+1)
			}
		}
	}
	return d[len(a)][len(b)]
}
