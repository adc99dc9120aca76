package search

import (
	"slices"
	"unicode"

	"github.com/blevesearch/bleve/v2/analysis"
)

// WordDelimiterTokenFilter is Lucene's WordDelimiterFilter: it splits
// each token into subwords at characters that are neither letters nor
// digits, at case changes (PowerShot: Power, Shot) and between letters
// and digits (XL500: XL, 500), drops a final English possessive ('s),
// and can join the runs of word or number parts, or all parts, into one
// more token ("super-duper-xl" with catenateWords: super, superduperxl,
// duper, xl). The service writes all ten properties back (the Java SDK's
// recording CustomAnalyzerTests.canCreateAllAnalysisComponentsSync);
// the defaults are Lucene's: generate word and number parts, split on
// case changes and numerics, stem possessives, nothing catenated, the
// original not kept.
type WordDelimiterTokenFilter struct {
	ComponentHead
	GenerateWordParts     *bool    `json:"generateWordParts"`
	GenerateNumberParts   *bool    `json:"generateNumberParts"`
	CatenateWords         *bool    `json:"catenateWords"`
	CatenateNumbers       *bool    `json:"catenateNumbers"`
	CatenateAll           *bool    `json:"catenateAll"`
	SplitOnCaseChange     *bool    `json:"splitOnCaseChange"`
	PreserveOriginal      *bool    `json:"preserveOriginal"`
	SplitOnNumerics       *bool    `json:"splitOnNumerics"`
	StemEnglishPossessive *bool    `json:"stemEnglishPossessive"`
	ProtectedWords        []string `json:"protectedWords"`
}

func (*WordDelimiterTokenFilter) tokenFilter() {}

func (c *WordDelimiterTokenFilter) serve(b *analysisBuilder, _ string) error {
	cfg := map[string]any{"type": wordDelimiterFilterName}
	for _, o := range []struct {
		p   **bool
		key string
		def bool
	}{
		{&c.GenerateWordParts, "generate_word_parts", true}, {&c.GenerateNumberParts, "generate_number_parts", true},
		{&c.CatenateWords, "catenate_words", false}, {&c.CatenateNumbers, "catenate_numbers", false},
		{&c.CatenateAll, "catenate_all", false}, {&c.SplitOnCaseChange, "split_on_case_change", true},
		{&c.PreserveOriginal, "preserve_original", false}, {&c.SplitOnNumerics, "split_on_numerics", true},
		{&c.StemEnglishPossessive, "stem_english_possessive", true},
	} {
		if *o.p == nil {
			*o.p = ptr(o.def)
		}
		cfg[o.key] = **o.p
	}
	c.ProtectedWords = orEmpty(c.ProtectedWords)
	cfg["protected_words"] = stringsToAny(c.ProtectedWords)
	return b.filter(c.Name, cfg)
}

// wordDelimiterFilterName is the bleve token filter that serves
// WordDelimiterTokenFilter and the predefined word_delimiter.
const wordDelimiterFilterName = "cerulean_word_delimiter"

// wordDelimiterDefaults is the predefined word_delimiter: Lucene's
// defaults, which WordDelimiterTokenFilter's are.
var wordDelimiterDefaults = map[string]any{
	"type": wordDelimiterFilterName, "generate_word_parts": true, "generate_number_parts": true,
	"catenate_words": false, "catenate_numbers": false, "catenate_all": false, "split_on_case_change": true,
	"preserve_original": false, "split_on_numerics": true, "stem_english_possessive": true, "protected_words": []any{},
}

// Character kinds, as bits: a kind may be letter and digit at once.
const (
	wdLower = 1 << iota
	wdUpper
	wdDigit
	wdDelim
	wdAlpha = wdLower | wdUpper
)

// wdKind is the kind of r as Java's Character.getType puts it.
func wdKind(r rune) int {
	switch {
	case r > 0xffff:
		// Java sees the two halves of a surrogate pair, which never split.
		return wdAlpha | wdDigit
	case unicode.Is(unicode.Lu, r):
		return wdUpper
	case unicode.Is(unicode.Ll, r):
		return wdLower
	case unicode.In(r, unicode.Lt, unicode.Lm, unicode.Lo, unicode.Mn, unicode.Me, unicode.Mc):
		return wdAlpha
	case unicode.In(r, unicode.Nd, unicode.Nl, unicode.No):
		return wdDigit
	}
	return wdDelim
}

type wordDelimiter struct {
	genWords, genNumbers, catWords, catNumbers, catAll bool
	splitCase, preserve, splitNumerics, possessive     bool
	protected                                          map[string]bool
}

// wdIterator walks the subwords of one token.
type wdIterator struct {
	wd        *wordDelimiter
	text      []rune
	kinds     []int
	lo, hi    int // the bounds, delimiters at both ends left out
	finalPoss bool
	cur, end  int
	skipPoss  bool
	done      bool
}

func newWDIterator(wd *wordDelimiter, text []rune) *wdIterator {
	it := &wdIterator{wd: wd, text: text, kinds: make([]int, len(text)), hi: len(text)}
	for i, r := range text {
		it.kinds[i] = wdKind(r)
	}
	for it.lo < len(text) && it.kinds[it.lo]&wdDelim != 0 {
		it.lo++
	}
	for it.hi > it.lo && it.kinds[it.hi-1]&wdDelim != 0 {
		it.hi--
	}
	it.finalPoss = it.possessiveEndsAt(it.hi)
	it.cur, it.end = it.lo, it.lo
	return it
}

// possessiveEndsAt is whether 's (after a letter) ends at pos, the end of
// the bounds or a delimiter following.
func (it *wdIterator) possessiveEndsAt(pos int) bool {
	return it.wd.possessive && pos > 2 && pos <= len(it.text) && it.text[pos-2] == '\'' &&
		(it.text[pos-1] == 's' || it.text[pos-1] == 'S') && it.kinds[pos-3]&wdAlpha != 0 &&
		(pos == it.hi || pos < len(it.text) && it.kinds[pos]&wdDelim != 0)
}

// split is whether a subword ends between characters of kinds last and
// next.
func (it *wdIterator) split(last, next int) bool {
	switch {
	case next&last != 0:
		return false
	case !it.wd.splitCase && last&wdAlpha != 0 && next&wdAlpha != 0:
		return false
	case last&wdUpper != 0 && next&wdAlpha != 0:
		return false
	case !it.wd.splitNumerics && (last&wdAlpha != 0 && next&wdDigit != 0 || last&wdDigit != 0 && next&wdAlpha != 0):
		return false
	}
	return true
}

// next moves to the next subword; done is set when there is none.
func (it *wdIterator) next() {
	if it.done {
		return
	}
	it.cur = it.end
	if it.skipPoss {
		it.cur += 2
		it.skipPoss = false
	}
	last := 0
	for it.cur < it.hi {
		last = it.kinds[it.cur]
		if last&wdDelim == 0 {
			break
		}
		it.cur++
	}
	if it.cur >= it.hi {
		it.done = true
		return
	}
	for it.end = it.cur + 1; it.end < it.hi; it.end++ {
		k := it.kinds[it.end]
		if it.split(last, k) {
			break
		}
		last = k
	}
	if it.end < it.hi-1 && it.possessiveEndsAt(it.end+2) {
		it.skipPoss = true
	}
}

func (it *wdIterator) singleWord() bool {
	if it.finalPoss {
		return it.cur == it.lo && it.end == it.hi-2
	}
	return it.cur == it.lo && it.end == it.hi
}

// kind is the subword's kind: letters, digits, or both.
func (it *wdIterator) kind() int {
	if k := it.kinds[it.cur]; k == wdLower || k == wdUpper {
		return wdAlpha
	} else {
		return k
	}
}

// wdToken is a token the filter makes, with Lucene's position increment.
type wdToken struct {
	term       []byte
	start, end int
	inc        int
}

// wdConcat is a run of subwords being joined.
type wdConcat struct {
	term       []rune
	kind       int
	count      int
	start, end int
}

// Filter follows Lucene's WordDelimiterFilter, position increments
// included: the parts and joined runs of a token are sorted by where they
// start, a joined run (increment 0) after the part it starts with.
func (wd *wordDelimiter) Filter(in analysis.TokenStream) analysis.TokenStream {
	var out analysis.TokenStream
	lastIn, lastOut, accum := 0, 0, 0
	first := true
	emit := func(t *analysis.Token, inc int) {
		lastOut += inc
		t.Position = lastOut
		out = append(out, t)
	}
	for _, t := range in {
		inc := t.Position - lastIn
		lastIn = t.Position
		accum += inc
		text := []rune(string(t.Term))
		it := newWDIterator(wd, text)
		it.next()
		if !it.done && it.cur == 0 && it.end == len(text) || wd.protected[string(t.Term)] {
			emit(t, accum)
			accum, first = 0, false
			continue
		}
		if it.done && !wd.preserve {
			if inc == 1 && !first {
				accum--
			}
			continue
		}
		// byteAt maps rune indexes of the term to offsets in the text.
		byteAt := make([]int, len(text)+1)
		for i, n := 0, 0; i < len(text); i++ {
			byteAt[i] = n
			n += len(string(text[i]))
		}
		byteAt[len(text)] = len(t.Term)
		whole := t.End-t.Start != len(t.Term)
		offsets := func(from, to int) (int, int) {
			if whole {
				return t.Start, t.End
			}
			return t.Start + byteAt[from], t.Start + byteAt[to]
		}
		hasOutput, followedOriginal := false, !wd.preserve
		position := func(inject bool) int {
			inc := accum
			if hasOutput {
				accum = 0
				if inject {
					return 0
				}
				return max(1, inc)
			}
			hasOutput = true
			if !followedOriginal {
				followedOriginal = true
				return 0
			}
			accum = 0
			return max(1, inc)
		}
		if wd.preserve {
			orig := *t
			orig.Term = slices.Clone(t.Term)
			emit(&orig, accum)
			accum, first = 0, false
		}
		var buffered []wdToken
		part := func() wdToken {
			s, e := offsets(it.cur, it.end)
			if whole && it.singleWord() && t.Start+byteAt[it.cur] <= t.End {
				s = t.Start + byteAt[it.cur]
			}
			return wdToken{term: []byte(string(text[it.cur:it.end])), start: s, end: e, inc: position(false)}
		}
		write := func(c *wdConcat) wdToken {
			s, e := offsets(c.start, c.end)
			tok := wdToken{term: []byte(string(c.term)), start: s, end: e, inc: position(true)}
			accum = 0
			*c = wdConcat{}
			return tok
		}
		join := func(c *wdConcat) {
			if c.count == 0 {
				c.start = it.cur
			}
			c.term = append(c.term, text[it.cur:it.end]...)
			c.count++
			c.end = it.end
		}
		lastJoined := 0
		// flush writes a run unless it is a lone part the parts already
		// carry.
		flush := func(c *wdConcat) bool {
			lastJoined = c.count
			if c.count != 1 || !wd.generates(c.kind) {
				buffered = append(buffered, write(c))
				return true
			}
			*c = wdConcat{}
			return false
		}
		var words, all wdConcat
		for !it.done {
			if it.singleWord() {
				p := part()
				emit(&analysis.Token{Term: p.term, Start: p.start, End: p.end, Type: t.Type}, p.inc)
				first = false
				it.next()
				continue
			}
			kind := it.kind()
			if words.count > 0 && words.kind&kind == 0 {
				flush(&words)
				hasOutput = false
			}
			if wd.catWords && kind&wdAlpha != 0 || wd.catNumbers && kind&wdDigit != 0 {
				if words.count == 0 {
					words.kind = kind
				}
				join(&words)
			}
			if wd.catAll {
				join(&all)
			}
			if wd.generates(kind) {
				buffered = append(buffered, part())
			}
			it.next()
		}
		if words.count > 0 {
			flush(&words)
		}
		if all.count > 0 && all.count > lastJoined {
			buffered = append(buffered, write(&all))
		}
		slices.SortStableFunc(buffered, func(a, b wdToken) int {
			if a.start != b.start {
				return a.start - b.start
			}
			return b.inc - a.inc
		})
		for _, b := range buffered {
			inc := b.inc
			if first && inc == 0 {
				inc = 1
			}
			first = false
			emit(&analysis.Token{Term: b.term, Start: b.start, End: b.end, Type: t.Type}, inc)
		}
	}
	return out
}

// generates is whether parts of kind are emitted.
func (wd *wordDelimiter) generates(kind int) bool {
	return wd.genWords && kind&wdAlpha != 0 || wd.genNumbers && kind&wdDigit != 0
}

func init() {
	registerTokenFilter(wordDelimiterFilterName, func(config map[string]any) (analysis.TokenFilter, error) {
		flag := func(key string) bool { v, _ := config[key].(bool); return v }
		words, err := configStrings(config, "protected_words")
		if err != nil {
			return nil, err
		}
		wd := &wordDelimiter{
			genWords: flag("generate_word_parts"), genNumbers: flag("generate_number_parts"),
			catWords: flag("catenate_words"), catNumbers: flag("catenate_numbers"), catAll: flag("catenate_all"),
			splitCase: flag("split_on_case_change"), preserve: flag("preserve_original"),
			splitNumerics: flag("split_on_numerics"), possessive: flag("stem_english_possessive"),
			protected: map[string]bool{},
		}
		for _, w := range words {
			wd.protected[w] = true
		}
		return wd, nil
	})
}
