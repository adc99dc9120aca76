package blob

import (
	"errors"
	"net/http"
	"strings"
)

// TagCondition is a parsed x-ms-if-tags expression: comparisons of a
// tag's value with a string literal ("key" op 'value', op one of = <> >
// >= < <=), joined by AND and OR and grouped by parentheses. A comparison
// with a tag the blob lacks is false; values compare as byte strings.
type TagCondition struct {
	or [][]tagComparison // OR of ANDs
	// groups hold parenthesised sub-expressions: a comparison with
	// group >= 0 stands for groups[group].
	groups []*TagCondition
	// malformed holds a header value that did not parse: it fails every
	// check with a 400, so that parsing needs no error path of its own.
	malformed string
}

// ifTags reads a request's x-ms-if-tags condition, nil when absent.
func ifTags(h http.Header) *TagCondition {
	v := h.Get("x-ms-if-tags")
	if v == "" {
		return nil
	}
	c, err := ParseTagCondition(v)
	if err != nil || c.names("@") {
		return &TagCondition{malformed: v}
	}
	return c
}

type tagComparison struct {
	key, op, value string
	group          int // -1 for a plain comparison
}

var errBadTagExpression = errors.New("malformed tag expression")

// ParseTagCondition parses an x-ms-if-tags header value.
func ParseTagCondition(s string) (*TagCondition, error) {
	p := &tagParser{s: s}
	c, err := p.expr(0)
	if err != nil {
		return nil, err
	}
	p.space()
	if p.i != len(p.s) {
		return nil, errBadTagExpression
	}
	return c, nil
}

// Match evaluates the condition against a blob's tags.
func (c *TagCondition) Match(tags Tags) bool {
	for _, and := range c.or {
		ok := true
		for _, cmp := range and {
			if !c.compare(cmp, tags) {
				ok = false
				break
			}
		}
		if ok {
			return true
		}
	}
	return false
}

func (c *TagCondition) compare(cmp tagComparison, tags Tags) bool {
	if cmp.group >= 0 {
		return c.groups[cmp.group].Match(tags)
	}
	v, ok := tags.lookup(cmp.key)
	if !ok {
		return false
	}
	d := strings.Compare(v, cmp.value)
	switch cmp.op {
	case "=":
		return d == 0
	case "<>":
		return d != 0
	case ">":
		return d > 0
	case ">=":
		return d >= 0
	case "<":
		return d < 0
	default: // "<="
		return d <= 0
	}
}

// maxTagExpressionDepth bounds parenthesis nesting, so that a hostile
// header cannot exhaust the stack.
const maxTagExpressionDepth = 10

type tagParser struct {
	s string
	i int
}

func (p *tagParser) space() {
	for p.i < len(p.s) && p.s[p.i] == ' ' {
		p.i++
	}
}

// keyword consumes kw (case-insensitive) followed by a space or '('.
func (p *tagParser) keyword(kw string) bool {
	p.space()
	end := p.i + len(kw)
	if end > len(p.s) || !strings.EqualFold(p.s[p.i:end], kw) {
		return false
	}
	if end < len(p.s) && p.s[end] != ' ' && p.s[end] != '(' {
		return false
	}
	p.i = end
	return true
}

func (p *tagParser) expr(depth int) (*TagCondition, error) {
	if depth > maxTagExpressionDepth {
		return nil, errBadTagExpression
	}
	c := &TagCondition{}
	var and []tagComparison
	for {
		cmp, err := p.term(c, depth)
		if err != nil {
			return nil, err
		}
		and = append(and, cmp)
		switch {
		case p.keyword("and"):
		case p.keyword("or"):
			c.or = append(c.or, and)
			and = nil
		default:
			c.or = append(c.or, and)
			return c, nil
		}
	}
}

func (p *tagParser) term(c *TagCondition, depth int) (tagComparison, error) {
	p.space()
	if p.i < len(p.s) && p.s[p.i] == '(' {
		p.i++
		g, err := p.expr(depth + 1)
		if err != nil {
			return tagComparison{}, err
		}
		p.space()
		if p.i >= len(p.s) || p.s[p.i] != ')' {
			return tagComparison{}, errBadTagExpression
		}
		p.i++
		c.groups = append(c.groups, g)
		return tagComparison{group: len(c.groups) - 1}, nil
	}
	key, err := p.key()
	if err != nil {
		return tagComparison{}, err
	}
	p.space()
	var op string
	for _, o := range []string{"<>", ">=", "<=", "=", ">", "<"} {
		if strings.HasPrefix(p.s[p.i:], o) {
			op = o
			break
		}
	}
	if op == "" {
		return tagComparison{}, errBadTagExpression
	}
	p.i += len(op)
	p.space()
	value, err := p.quoted('\'')
	if err != nil {
		return tagComparison{}, err
	}
	return tagComparison{key: key, op: op, value: value, group: -1}, nil
}

// key reads a double-quoted tag key, or a bare one of tag characters.
func (p *tagParser) key() (string, error) {
	if p.i < len(p.s) && p.s[p.i] == '"' {
		return p.quoted('"')
	}
	start := p.i
	if p.i < len(p.s) && p.s[p.i] == '@' { // @container, which only Find Blobs by Tags takes
		p.i++
	}
	for p.i < len(p.s) && p.s[p.i] != ' ' && validTagChar(rune(p.s[p.i])) && !strings.ContainsRune("<>=", rune(p.s[p.i])) {
		p.i++
	}
	if p.i == start {
		return "", errBadTagExpression
	}
	return p.s[start:p.i], nil
}

// quoted reads a literal enclosed in q; a doubled q stands for itself.
func (p *tagParser) quoted(q byte) (string, error) {
	if p.i >= len(p.s) || p.s[p.i] != q {
		return "", errBadTagExpression
	}
	p.i++
	var b strings.Builder
	for p.i < len(p.s) {
		c := p.s[p.i]
		p.i++
		if c != q {
			b.WriteByte(c)
			continue
		}
		if p.i < len(p.s) && p.s[p.i] == q {
			b.WriteByte(q)
			p.i++
			continue
		}
		return b.String(), nil
	}
	return "", errBadTagExpression
}

// names reports whether the condition compares a key starting with prefix.
func (c *TagCondition) names(prefix string) bool {
	for _, and := range c.or {
		for _, cmp := range and {
			if cmp.group < 0 && strings.HasPrefix(cmp.key, prefix) {
				return true
			}
		}
	}
	for _, g := range c.groups {
		if g.names(prefix) {
			return true
		}
	}
	return false
}
