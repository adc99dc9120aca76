package query

import "strings"

// SearchMode is the request's searchMode: whether terms without an
// explicit operator must all match (All) or any may (Any, the default).
type SearchMode int

const (
	ModeAny SearchMode = iota
	ModeAll
)

// ParseSearchMode reads the searchMode parameter ("" is any).
func ParseSearchMode(s string) (SearchMode, error) {
	switch strings.ToLower(s) {
	case "", "any":
		return ModeAny, nil
	case "all":
		return ModeAll, nil
	}
	return ModeAny, errorf("searchMode", 0, "The value '%s' is not a valid searchMode; expected 'any' or 'all'.", s)
}

func (m SearchMode) defaultOccur() Occur {
	if m == ModeAll {
		return Must
	}
	return Should
}

// ParseSimple parses Azure's simple query syntax (queryType=simple), which
// is Lucene's SimpleQueryParser: it never rejects input. Whitespace joins
// clauses with the searchMode's operator, '+' is AND, '|' is OR, a leading
// '-' negates, a trailing '*' makes a prefix, "..." is a phrase, (...)
// groups and '\' escapes the next character. Operators apply left to right
// without precedence. An empty text (or "*") matches every document.
func ParseSimple(text string, mode SearchMode) SearchNode {
	p := &simpleParser{s: text, mode: mode}
	n := p.sub(0)
	if n == nil {
		if strings.TrimSpace(text) == "" {
			return &MatchAllNode{}
		}
		return &BoolNode{}
	}
	return n
}

type simpleParser struct {
	s    string
	i    int
	mode SearchMode
}

// folded marks BoolNodes built by the left fold, which may absorb further
// operands of the same operator; a parenthesised group is never extended.
type simpleFold struct {
	node  *BoolNode
	occur Occur
}

func (p *simpleParser) sub(depth int) SearchNode {
	var cur SearchNode
	var fold *simpleFold
	explicit := -1 // -1 none, else Occur of an explicit + or |
	negate := 0
	add := func(n SearchNode, at int) {
		if negate%2 == 1 {
			n = &NotNode{At: at, Child: n}
		}
		negate = 0
		occ := p.mode.defaultOccur()
		if explicit >= 0 {
			occ = Occur(explicit)
		}
		explicit = -1
		switch {
		case cur == nil:
			cur = n
		case fold != nil && fold.occur == occ && cur == SearchNode(fold.node):
			fold.node.Clauses = append(fold.node.Clauses, Clause{Occur: occ, Node: n})
		default:
			b := &BoolNode{At: cur.Pos(), Clauses: []Clause{{Occur: occ, Node: cur}, {Occur: occ, Node: n}}}
			fold = &simpleFold{node: b, occur: occ}
			cur = b
		}
	}
	for p.i < len(p.s) {
		c := p.s[p.i]
		switch {
		case isSpace(c):
			p.i++
		case c == '(':
			at := p.i
			p.i++
			if n := p.sub(depth + 1); n != nil {
				add(n, at)
			} else {
				negate, explicit = 0, -1
			}
		case c == ')':
			p.i++
			if depth > 0 {
				return cur
			}
		case c == '+':
			p.i++
			if cur != nil {
				explicit = int(Must)
			}
		case c == '|':
			p.i++
			if cur != nil {
				explicit = int(Should)
			}
		case c == '-':
			p.i++
			negate++
		case c == '"':
			at := p.i
			text, end, _ := readQuoted(p.s, p.i+1, '"', anyByte)
			p.i = end
			if strings.TrimSpace(text) != "" {
				add(&PhraseNode{Leaf: Leaf{At: at}, Text: text}, at)
			}
		default:
			at := p.i
			var b strings.Builder
			prefix := false
			for p.i < len(p.s) {
				c := p.s[p.i]
				if isSpace(c) || c == '"' || c == '|' || c == '+' || c == '(' || c == ')' {
					break
				}
				if c == '\\' && p.i+1 < len(p.s) {
					b.WriteByte(p.s[p.i+1])
					p.i += 2
					prefix = false
					continue
				}
				prefix = c == '*'
				b.WriteByte(c)
				p.i++
			}
			text := b.String()
			if prefix {
				text = strings.TrimRight(text, "*")
			}
			switch {
			case text == "" && prefix:
				add(&MatchAllNode{At: at}, at)
			case text == "":
			case prefix:
				add(&PrefixNode{Leaf: Leaf{At: at}, Prefix: text}, at)
			default:
				add(&TermNode{Leaf: Leaf{At: at}, Text: text}, at)
			}
		}
	}
	return cur
}

func isSpace(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' }
