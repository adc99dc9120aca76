package blob

import (
	"errors"
	"fmt"
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
	v := h.Get("X-Ms-If-Tags")
	if v == "" {
		return nil
	}
	c, err := ParseTagCondition(v)
	if err != nil {
		return &TagCondition{malformed: v}
	}
	return c
}

type tagComparison struct {
	key, op, value string
	group          int // -1 for a plain comparison
}

var errBadTagExpression = errors.New("malformed tag expression")

// tagSyntaxError is an expression that does not parse, worded as Azure
// words it ("Error parsing query at or near character position 25:
// unexpected 'Year'", azure-sdk-for-net#18226 and #31963, code
// InvalidQueryParameterValue). The reports do not show from where Azure
// counts; this counts the first character as 1.
type tagSyntaxError struct {
	pos  int
	near string
}

func (e *tagSyntaxError) Error() string {
	if e.near == "" {
		return fmt.Sprintf("Error parsing query at or near character position %d: unexpected end of query", e.pos)
	}
	return fmt.Sprintf("Error parsing query at or near character position %d: unexpected '%s'", e.pos, e.near)
}

func (e *tagSyntaxError) Unwrap() error { return errBadTagExpression }

// ParseTagCondition parses an x-ms-if-tags header value.
func ParseTagCondition(s string) (*TagCondition, error) {
	return parseTagExpression(s, false)
}

// parseTagExpression parses a whole expression; find selects the Find
// Blobs by Tags grammar, which has no OR, no <> and no parentheses but
// takes @container (the blob index tags guide's two operator tables).
func parseTagExpression(s string, find bool) (*TagCondition, error) {
	p := &tagParser{s: s, find: find}
	c, err := p.expr(0)
	if err != nil {
		return nil, err
	}
	p.space()
	if p.i != len(p.s) {
		return nil, p.fail()
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
	s    string
	i    int
	find bool // the Find Blobs by Tags grammar
}

// fail reports a syntax error at the current position, naming the token
// found there.
func (p *tagParser) fail() error {
	rest := p.s[p.i:]
	n := 0
	switch {
	case rest == "":
	case strings.HasPrefix(rest, "<>"), strings.HasPrefix(rest, ">="), strings.HasPrefix(rest, "<="):
		n = 2
	case strings.ContainsRune("()'\"<>=", rune(rest[0])):
		n = 1
	default:
		n = strings.IndexAny(rest[1:], " ()'\"<>=") + 1
		if n == 0 {
			n = len(rest)
		}
	}
	return &tagSyntaxError{pos: p.i + 1, near: rest[:min(n, 32)]}
}

func (p *tagParser) space() {
	for p.i < len(p.s) && p.s[p.i] == ' ' {
		p.i++
	}
}

// keyword consumes kw (case-insensitive) when what follows cannot
// continue a bare key: a space, '(', a quoted key or @container. Azure
// takes "tag1"='firsttag'AND"tag2"='secondtag' with no spaces around the
// AND (azblob's TestFilterBlobsWithTags, run against Azure).
func (p *tagParser) keyword(kw string) bool {
	p.space()
	end := p.i + len(kw)
	if end > len(p.s) || !strings.EqualFold(p.s[p.i:end], kw) {
		return false
	}
	if end < len(p.s) && !strings.ContainsRune(" (\"@", rune(p.s[end])) {
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
		at := p.i
		switch {
		case p.keyword("and"):
		case p.keyword("or"):
			if p.find {
				p.i = at
				p.space()
				return nil, p.fail()
			}
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
		if p.find {
			return tagComparison{}, p.fail()
		}
		p.i++
		g, err := p.expr(depth + 1)
		if err != nil {
			return tagComparison{}, err
		}
		p.space()
		if p.i >= len(p.s) || p.s[p.i] != ')' {
			return tagComparison{}, p.fail()
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
	if op == "" || op == "<>" && p.find {
		return tagComparison{}, p.fail()
	}
	p.i += len(op)
	p.space()
	value, err := p.quoted('\'')
	if err != nil {
		return tagComparison{}, err
	}
	return tagComparison{key: key, op: op, value: value, group: -1}, nil
}

// key reads a double-quoted tag key, or a bare one of tag characters, or
// (Find Blobs by Tags only) @container.
func (p *tagParser) key() (string, error) {
	if p.i < len(p.s) && p.s[p.i] == '"' {
		return p.quoted('"')
	}
	start := p.i
	if p.i < len(p.s) && p.s[p.i] == '@' {
		if !p.find || !strings.HasPrefix(p.s[p.i:], "@container") {
			return "", p.fail()
		}
		p.i += len("@container")
		return "@container", nil
	}
	for p.i < len(p.s) && p.s[p.i] != ' ' && validTagChar(rune(p.s[p.i])) && !strings.ContainsRune("<>=", rune(p.s[p.i])) {
		p.i++
	}
	if p.i == start {
		return "", p.fail()
	}
	return p.s[start:p.i], nil
}

// quoted reads a literal enclosed in q; a doubled q stands for itself.
func (p *tagParser) quoted(q byte) (string, error) {
	if p.i >= len(p.s) || p.s[p.i] != q {
		return "", p.fail()
	}
	start := p.i
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
	p.i = start
	return "", p.fail()
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
