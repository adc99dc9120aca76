package query

import (
	"regexp"
	"strconv"
	"strings"
)

// ParseLucene parses Azure's full Lucene query syntax (queryType=full) as
// Lucene's classic QueryParser does: field:term, AND/&&, OR/||, NOT/!,
// + and - modifiers, "phrases"~slop, wildcards * and ?, /regex/, fuzzy
// term~n, boosts ^n, [a TO b] and {a TO b} ranges, (grouping) and '\'
// escapes. Clauses combine with Lucene's occur rules; terms without an
// operator take the searchMode's default operator. Malformed text is a
// *SyntaxError for the "search" parameter.
func ParseLucene(text string, mode SearchMode) (SearchNode, error) {
	p := &luceneParser{s: text, mode: mode}
	if strings.TrimSpace(text) == "" {
		return &MatchAllNode{}, nil
	}
	n, err := p.query("", 0)
	if err != nil {
		return nil, err
	}
	p.skipSpace()
	if p.i < len(p.s) {
		return nil, p.errAt(p.i, "unexpected '%c'", p.s[p.i])
	}
	return n, nil
}

// maxLuceneDepth bounds nesting so a hostile query cannot exhaust the stack.
const maxLuceneDepth = 100

type luceneParser struct {
	s    string
	i    int
	mode SearchMode
}

func (p *luceneParser) errAt(pos int, format string, args ...any) error {
	return errorf(ParamSearch, pos, format, args...)
}

func (p *luceneParser) skipSpace() {
	for p.i < len(p.s) && isSpace(p.s[p.i]) {
		p.i++
	}
}

// isLuceneSpecial reports characters that end a term unless escaped.
func isLuceneSpecial(c byte) bool {
	switch c {
	case '(', ')', '{', '}', '[', ']', '^', '"', '~', ':', '\\':
		return true
	}
	return isSpace(c)
}

// keyword reports whether an operator word or symbol starts at p.i.
func (p *luceneParser) keyword() (string, int) {
	rest := p.s[p.i:]
	for _, sym := range []string{"&&", "||"} {
		if strings.HasPrefix(rest, sym) {
			return sym, len(sym)
		}
	}
	for _, w := range []string{"AND", "OR", "NOT"} {
		if strings.HasPrefix(rest, w) && (len(rest) == len(w) || isSpace(rest[len(w)]) || rest[len(w)] == '(' || rest[len(w)] == '"') {
			return w, len(w)
		}
	}
	return "", 0
}

const (
	conjNone = iota
	conjAnd
	conjOr
)

const (
	modNone = iota
	modReq
	modNot
)

func (p *luceneParser) query(field string, depth int) (SearchNode, error) {
	if depth > maxLuceneDepth {
		return nil, p.errAt(p.i, "query nested too deeply")
	}
	at := p.i
	var clauses []Clause
	var first SearchNode
	for {
		p.skipSpace()
		if p.i >= len(p.s) || p.s[p.i] == ')' {
			break
		}
		conj := conjNone
		if kw, n := p.keyword(); kw == "AND" || kw == "&&" || kw == "OR" || kw == "||" {
			if len(clauses) == 0 {
				return nil, p.errAt(p.i, "operator %s without a left operand", kw)
			}
			conj = conjAnd
			if kw == "OR" || kw == "||" {
				conj = conjOr
			}
			p.i += n
			p.skipSpace()
		}
		mod := modNone
		if p.i < len(p.s) {
			switch kw, n := p.keyword(); {
			case kw == "NOT":
				mod = modNot
				p.i += n
			case p.s[p.i] == '+':
				mod = modReq
				p.i++
			case p.s[p.i] == '-' || p.s[p.i] == '!':
				mod = modNot
				p.i++
			}
		}
		p.skipSpace()
		if p.i >= len(p.s) || p.s[p.i] == ')' {
			return nil, p.errAt(p.i, "missing operand")
		}
		q, err := p.clause(field, depth)
		if err != nil {
			return nil, err
		}
		if len(clauses) == 0 && mod == modNone {
			first = q
		} else {
			first = nil
		}
		clauses = p.addClause(clauses, conj, mod, q)
	}
	if len(clauses) == 0 {
		return nil, p.errAt(p.i, "empty query")
	}
	if len(clauses) == 1 && first != nil {
		return first, nil
	}
	return &BoolNode{At: at, Clauses: clauses}, nil
}

// addClause is Lucene QueryParserBase.addClause: AND makes the previous
// clause required, OR (under a default AND) makes it optional.
func (p *luceneParser) addClause(clauses []Clause, conj, mod int, q SearchNode) []Clause {
	if n := len(clauses); n > 0 {
		last := &clauses[n-1]
		if conj == conjAnd && last.Occur != MustNot {
			last.Occur = Must
		}
		if p.mode == ModeAll && conj == conjOr && last.Occur != MustNot {
			last.Occur = Should
		}
	}
	var required, prohibited bool
	if p.mode == ModeAny {
		prohibited = mod == modNot
		required = mod == modReq || (conj == conjAnd && !prohibited)
	} else {
		prohibited = mod == modNot
		required = !prohibited && conj != conjOr
	}
	occ := Should
	switch {
	case prohibited:
		occ = MustNot
	case required:
		occ = Must
	}
	return append(clauses, Clause{Occur: occ, Node: q})
}

// clause parses [field:] followed by a term, phrase, regex, range or group.
func (p *luceneParser) clause(field string, depth int) (SearchNode, error) {
	at := p.i
	// field:  — a term directly followed by ':'.
	if p.s[p.i] != '"' && p.s[p.i] != '(' && p.s[p.i] != '[' && p.s[p.i] != '{' && p.s[p.i] != '/' {
		save := p.i
		name, _ := p.termText()
		if name != "" && p.i < len(p.s) && p.s[p.i] == ':' {
			p.i++
			p.skipSpace()
			if p.i >= len(p.s) {
				return nil, p.errAt(p.i, "missing value after field %s", name)
			}
			if name == "*" && p.i < len(p.s) && p.s[p.i] == '*' {
				p.i++
				return &MatchAllNode{At: at}, nil
			}
			field = name
			at = p.i
		} else {
			p.i = save
		}
	}
	switch c := p.s[p.i]; c {
	case '(':
		return p.group(field, depth)
	case '"':
		return p.phrase(field, at)
	case '/':
		return p.regex(field, at)
	case '[', '{':
		return p.rangeClause(field, at)
	case ')', ']', '}', '^', '~', ':':
		return nil, p.errAt(p.i, "unexpected '%c'", c)
	}
	return p.term(field, at)
}

// readQuoted reads s from i, just past an opening delimiter, up to the
// closing one; a backslash escapes the next byte when escapes says so.
// end is just past the closing delimiter, closed false when there was
// none.
func readQuoted(s string, i int, closing byte, escapes func(next byte) bool) (text string, end int, closed bool) {
	var b strings.Builder
	for i < len(s) && s[i] != closing {
		if s[i] == '\\' && i+1 < len(s) && escapes(s[i+1]) {
			i++
		}
		b.WriteByte(s[i])
		i++
	}
	if i >= len(s) {
		return b.String(), i, false
	}
	return b.String(), i + 1, true
}

// anyByte: a backslash escapes whatever follows it.
func anyByte(byte) bool { return true }

func (p *luceneParser) group(field string, depth int) (SearchNode, error) {
	p.i++
	n, err := p.query(field, depth+1)
	if err != nil {
		return nil, err
	}
	p.skipSpace()
	if p.i >= len(p.s) || p.s[p.i] != ')' {
		return nil, p.errAt(p.i, "missing ')'")
	}
	p.i++
	boost, err := p.boost()
	if err != nil {
		return nil, err
	}
	if boost != 0 {
		if b, ok := n.(*BoolNode); ok {
			b.Boost = boost
		} else {
			setBoost(n, boost)
		}
	}
	return n, nil
}

func (p *luceneParser) phrase(field string, at int) (SearchNode, error) {
	text, end, closed := readQuoted(p.s, p.i+1, '"', anyByte)
	p.i = end
	if !closed {
		return nil, p.errAt(at, "unterminated phrase")
	}
	n := &PhraseNode{Leaf: Leaf{At: at, Field: field}, Text: text}
	if p.i < len(p.s) && p.s[p.i] == '~' {
		p.i++
		slop, ok, err := p.number()
		if err != nil {
			return nil, err
		}
		if ok {
			if slop < 0 || slop != float64(int(slop)) || slop > 1<<20 {
				return nil, p.errAt(at, "invalid proximity distance")
			}
			n.Slop = int(slop)
		}
	}
	var err error
	n.Boost, err = p.boost()
	return n, err
}

func (p *luceneParser) regex(field string, at int) (SearchNode, error) {
	pattern, end, closed := readQuoted(p.s, p.i+1, '/', func(next byte) bool { return next == '/' })
	p.i = end
	if !closed {
		// Reported where the closing '/' was looked for: the end of the
		// text ("/.*/.*/" fails at column 8; the Java SDK's recording
		// SearchTests.searchThrowsWhenSpecialCharInRegexIsUnescapedSync).
		return nil, p.errAt(end, "unterminated regular expression")
	}
	if _, err := regexp.Compile(pattern); err != nil {
		return nil, p.errAt(at, "invalid regular expression: %v", err)
	}
	n := &RegexNode{Leaf: Leaf{At: at, Field: field}, Pattern: pattern}
	var err error
	n.Boost, err = p.boost()
	return n, err
}

// term is a term, prefix, wildcard or fuzzy clause.
func (p *luceneParser) term(field string, at int) (SearchNode, error) {
	text, wild := p.termText()
	if text == "" {
		return nil, p.errAt(p.i, "missing term")
	}
	var node SearchNode
	switch {
	case text == "*" && wild:
		if field == "" {
			node = &MatchAllNode{At: at}
		} else {
			node = &WildcardNode{Leaf: Leaf{At: at, Field: field}, Pattern: "*"}
		}
	case wild && strings.HasSuffix(text, "*") && !strings.ContainsAny(text[:len(text)-1], "*?"):
		node = &PrefixNode{Leaf: Leaf{At: at, Field: field}, Prefix: text[:len(text)-1]}
	case wild:
		node = &WildcardNode{Leaf: Leaf{At: at, Field: field}, Pattern: text}
	default:
		node = &TermNode{Leaf: Leaf{At: at, Field: field}, Text: text}
	}
	if p.i < len(p.s) && p.s[p.i] == '~' {
		tildeAt := p.i
		p.i++
		d, ok, err := p.number()
		if err != nil {
			return nil, err
		}
		dist := 2
		if ok {
			if d != float64(int(d)) || d < 0 || d > 2 {
				return nil, p.errAt(tildeAt, "fuzzy edit distance must be 0, 1 or 2")
			}
			dist = int(d)
		}
		if wild {
			return nil, p.errAt(tildeAt, "fuzzy search on a wildcard term")
		}
		node = &FuzzyNode{Leaf: Leaf{At: at, Field: field}, Text: text, Distance: dist}
	}
	boost, err := p.boost()
	if err != nil {
		return nil, err
	}
	setBoost(node, boost)
	return node, nil
}

// termText reads a term: its unescaped text and whether it holds an
// unescaped * or ?. A '-', '+' or '!' inside a term belongs to it.
func (p *luceneParser) termText() (string, bool) {
	start := p.i
	var b strings.Builder
	wild := false
	for p.i < len(p.s) {
		c := p.s[p.i]
		if c == '\\' {
			if p.i+1 < len(p.s) {
				b.WriteByte(p.s[p.i+1])
				p.i += 2
				continue
			}
			p.i++
			continue
		}
		if isLuceneSpecial(c) {
			break
		}
		if p.i > start && c == '/' && fieldPathAhead(p.s, p.i+1) {
			// a complex field path a/b of a fielded clause (a/b:term)
			b.WriteByte(c)
			p.i++
			continue
		}
		if c == '/' {
			break
		}
		if c == '*' || c == '?' {
			wild = true
		}
		b.WriteByte(c)
		p.i++
	}
	return b.String(), wild
}

// fieldPathAhead reports whether s from i on continues a field path: the
// rest of a name, possibly with more '/' segments, then ':'. Elsewhere an
// unescaped '/' starts a regular expression.
func fieldPathAhead(s string, i int) bool {
	for ; i < len(s); i++ {
		switch c := s[i]; {
		case c == ':':
			return true
		case c == '/':
		case isLuceneSpecial(c) || c == '*' || c == '?':
			return false
		}
	}
	return false
}

// number reads an optional non-negative decimal number right after ~ or ^.
func (p *luceneParser) number() (float64, bool, error) {
	start := p.i
	for p.i < len(p.s) && (p.s[p.i] >= '0' && p.s[p.i] <= '9' || p.s[p.i] == '.') {
		p.i++
	}
	if p.i == start {
		return 0, false, nil
	}
	v, err := strconv.ParseFloat(p.s[start:p.i], 64)
	if err != nil {
		return 0, false, p.errAt(start, "invalid number")
	}
	return v, true, nil
}

func (p *luceneParser) boost() (float64, error) {
	if p.i >= len(p.s) || p.s[p.i] != '^' {
		return 0, nil
	}
	at := p.i
	p.i++
	v, ok, err := p.number()
	if err != nil {
		return 0, err
	}
	if !ok || v <= 0 {
		return 0, p.errAt(at, "boost needs a positive number")
	}
	return v, nil
}

func (p *luceneParser) rangeClause(field string, at int) (SearchNode, error) {
	n := &RangeNode{Leaf: Leaf{At: at, Field: field}, IncludeLower: p.s[p.i] == '['}
	p.i++
	bound := func() (string, bool, error) {
		p.skipSpace()
		if p.i >= len(p.s) {
			return "", false, p.errAt(p.i, "unterminated range")
		}
		if p.s[p.i] == '"' {
			text, end, closed := readQuoted(p.s, p.i+1, '"', anyByte)
			p.i = end
			if !closed {
				return "", false, p.errAt(at, "unterminated range")
			}
			return text, false, nil
		}
		start := p.i
		var b strings.Builder
		for p.i < len(p.s) && !isSpace(p.s[p.i]) && p.s[p.i] != ']' && p.s[p.i] != '}' {
			if p.s[p.i] == '\\' && p.i+1 < len(p.s) {
				p.i++
			}
			b.WriteByte(p.s[p.i])
			p.i++
		}
		if p.i == start {
			return "", false, p.errAt(p.i, "missing range bound")
		}
		if p.s[start:p.i] == "*" {
			return "", true, nil
		}
		return b.String(), false, nil
	}
	var err error
	if n.Lower, n.LowerOpen, err = bound(); err != nil {
		return nil, err
	}
	p.skipSpace()
	if !strings.HasPrefix(p.s[p.i:], "TO") {
		return nil, p.errAt(p.i, "range needs TO")
	}
	p.i += 2
	if n.Upper, n.UpperOpen, err = bound(); err != nil {
		return nil, err
	}
	p.skipSpace()
	if p.i >= len(p.s) || (p.s[p.i] != ']' && p.s[p.i] != '}') {
		return nil, p.errAt(p.i, "unterminated range")
	}
	n.IncludeUpper = p.s[p.i] == ']'
	p.i++
	n.Boost, err = p.boost()
	return n, err
}

// boosted is a node with a boost of its own: a leaf, or a group.
type boosted interface{ setBoost(float64) }

func (l *Leaf) setBoost(b float64)     { l.Boost = b }
func (n *BoolNode) setBoost(b float64) { n.Boost = b }

func setBoost(n SearchNode, boost float64) {
	if b, ok := n.(boosted); ok {
		b.setBoost(boost)
	}
}
