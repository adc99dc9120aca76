package odata

import (
	"errors"
	"fmt"
	"strings"
)

// MaxComparisons is how many comparisons Azure allows in one $filter.
const MaxComparisons = 15

// maxDepth bounds nesting (parentheses and not), so that a hostile filter
// cannot exhaust the stack.
const maxDepth = 64

// ErrSyntax is returned (wrapped, with the position and reason) for a
// filter that does not parse or breaks one of the Table service's rules.
var ErrSyntax = errors.New("odata: invalid $filter")

// Getter returns an entity's property by name; ok is false when the
// entity has no such property.
type Getter func(name string) (v Value, ok bool)

// Filter is a parsed $filter expression. It is immutable and safe for
// concurrent use.
type Filter struct {
	root node
}

// Parse parses a $filter expression:
//
//	expr       = and { "or" and }
//	and        = unary { "and" unary }
//	unary      = "not" unary | comparison | "(" expr ")" | "true" | "false"
//	comparison = operand ( "eq" | "ne" | "gt" | "ge" | "lt" | "le" ) operand
//	operand    = property | literal
//
// Keywords and property names are case-sensitive. "not" applies to the
// comparison or parenthesized expression that follows it. A comparison
// needs a literal on at least one side: the Table service cannot compare
// two properties. At most MaxComparisons comparisons are allowed.
func Parse(s string) (*Filter, error) {
	toks, err := lex(s)
	if err != nil {
		return nil, err
	}
	p := &parser{toks: toks}
	root, err := p.expr(0)
	if err != nil {
		return nil, err
	}
	if t := p.peek(); t.kind != tEOF {
		return nil, p.fail(t, "unexpected %s", t)
	}
	if p.comparisons > MaxComparisons {
		return nil, fmt.Errorf("%w: %d comparisons, at most %d are allowed", ErrSyntax, p.comparisons, MaxComparisons)
	}
	return &Filter{root: root}, nil
}

// Match reports whether the entity whose properties get returns satisfies
// the filter. A comparison with a missing property, or with a value of
// another type than the literal's, is false: Azure matches values only
// against literals of their own type.
func (f *Filter) Match(get Getter) bool { return f.root.match(get) }

// String renders the filter fully parenthesized, showing how it parsed.
func (f *Filter) String() string {
	var b strings.Builder
	f.root.write(&b)
	return b.String()
}

// node is one boolean expression of the tree.
type node interface {
	match(Getter) bool
	// keyRange returns a range that holds the value of the String
	// property prop of every entity the node matches.
	keyRange(prop string) Range
	write(*strings.Builder)
}

type andNode struct{ l, r node }
type orNode struct{ l, r node }
type notNode struct{ x node }
type constNode struct{ v bool }

// cmpNode compares a property with a literal; the parser puts the
// property on the left, flipping the operator when needed.
type cmpNode struct {
	op   op
	prop string
	lit  Value
}

func (n andNode) match(g Getter) bool   { return n.l.match(g) && n.r.match(g) }
func (n orNode) match(g Getter) bool    { return n.l.match(g) || n.r.match(g) }
func (n notNode) match(g Getter) bool   { return !n.x.match(g) }
func (n constNode) match(Getter) bool   { return n.v }
func (n cmpNode) match(get Getter) bool { v, ok := get(n.prop); return ok && n.op.holds(v, n.lit) }

func (n andNode) write(b *strings.Builder) {
	b.WriteString("(")
	n.l.write(b)
	b.WriteString(" and ")
	n.r.write(b)
	b.WriteString(")")
}

func (n orNode) write(b *strings.Builder) {
	b.WriteString("(")
	n.l.write(b)
	b.WriteString(" or ")
	n.r.write(b)
	b.WriteString(")")
}

func (n notNode) write(b *strings.Builder) {
	b.WriteString("not ")
	n.x.write(b)
}

func (n constNode) write(b *strings.Builder) { fmt.Fprint(b, n.v) }

func (n cmpNode) write(b *strings.Builder) {
	b.WriteString(n.prop + " " + n.op.String() + " " + n.lit.String())
}

// op is a comparison operator.
type op uint8

const (
	opEq op = iota
	opNe
	opGt
	opGe
	opLt
	opLe
)

var opNames = [...]string{opEq: "eq", opNe: "ne", opGt: "gt", opGe: "ge", opLt: "lt", opLe: "le"}

func (o op) String() string { return opNames[o] }

func parseOp(s string) (op, bool) {
	for i, n := range opNames {
		if n == s {
			return op(i), true
		}
	}
	return 0, false
}

// flip returns the operator that gives the same result with its operands
// swapped (5 lt Age is Age gt 5).
func (o op) flip() op {
	switch o {
	case opGt:
		return opLt
	case opGe:
		return opLe
	case opLt:
		return opGt
	case opLe:
		return opGe
	}
	return o
}

// holds applies o to a and b. Values of different types never compare;
// NaN compares unequal to everything, as in IEEE 754.
func (o op) holds(a, b Value) bool {
	if a.Type != b.Type {
		return false
	}
	c, ok := compare(a, b)
	if !ok {
		return o == opNe
	}
	switch o {
	case opEq:
		return c == 0
	case opNe:
		return c != 0
	case opGt:
		return c > 0
	case opGe:
		return c >= 0
	case opLt:
		return c < 0
	default:
		return c <= 0
	}
}

type parser struct {
	toks        []token
	pos         int
	comparisons int
}

func (p *parser) peek() token { return p.toks[p.pos] }

func (p *parser) next() token {
	t := p.toks[p.pos]
	if t.kind != tEOF {
		p.pos++
	}
	return t
}

func (p *parser) fail(t token, format string, args ...any) error {
	return fmt.Errorf("%w: at offset %d: %s", ErrSyntax, t.pos, fmt.Sprintf(format, args...))
}

func (p *parser) keyword(word string) bool {
	t := p.peek()
	if t.kind == tIdent && t.text == word {
		p.pos++
		return true
	}
	return false
}

func (p *parser) expr(depth int) (node, error) {
	if depth > maxDepth {
		return nil, p.fail(p.peek(), "expression nested too deeply")
	}
	l, err := p.and(depth)
	if err != nil {
		return nil, err
	}
	for p.keyword("or") {
		r, err := p.and(depth)
		if err != nil {
			return nil, err
		}
		l = orNode{l, r}
	}
	return l, nil
}

func (p *parser) and(depth int) (node, error) {
	l, err := p.unary(depth)
	if err != nil {
		return nil, err
	}
	for p.keyword("and") {
		r, err := p.unary(depth)
		if err != nil {
			return nil, err
		}
		l = andNode{l, r}
	}
	return l, nil
}

func (p *parser) unary(depth int) (node, error) {
	if depth > maxDepth {
		return nil, p.fail(p.peek(), "expression nested too deeply")
	}
	if p.keyword("not") {
		x, err := p.unary(depth + 1)
		if err != nil {
			return nil, err
		}
		return notNode{x}, nil
	}
	t := p.peek()
	if t.kind == tLParen {
		p.next()
		x, err := p.expr(depth + 1)
		if err != nil {
			return nil, err
		}
		if c := p.next(); c.kind != tRParen {
			return nil, p.fail(c, "expected ')' but found %s", c)
		}
		if n := p.peek(); n.kind == tIdent {
			if _, isOp := parseOp(n.text); isOp {
				return nil, p.fail(n, "a parenthesized expression cannot be compared")
			}
		}
		return x, nil
	}
	return p.comparison()
}

// operand is one side of a comparison.
type operand struct {
	prop string
	lit  Value
}

func (p *parser) operand() (operand, error) {
	t := p.next()
	switch t.kind {
	case tLiteral:
		return operand{lit: t.val}, nil
	case tIdent:
		switch t.text {
		case "and", "or", "not", "eq", "ne", "gt", "ge", "lt", "le":
			return operand{}, p.fail(t, "expected a property or a literal but found %q", t.text)
		case "null":
			return operand{}, p.fail(t, "null is not supported")
		}
		return operand{prop: t.text}, nil
	}
	return operand{}, p.fail(t, "expected a property or a literal but found %s", t)
}

func (p *parser) comparison() (node, error) {
	start := p.peek()
	l, err := p.operand()
	if err != nil {
		return nil, err
	}
	t := p.peek()
	o, isOp := parseOp(t.text)
	if t.kind != tIdent || !isOp {
		// A lone boolean literal is a predicate of its own.
		if l.prop == "" && l.lit.Type == Boolean {
			p.comparisons++
			return constNode{l.lit.Bool()}, nil
		}
		if l.prop != "" {
			return nil, p.fail(start, "property %q must be compared with a value", l.prop)
		}
		return nil, p.fail(t, "expected a comparison operator but found %s", t)
	}
	p.next()
	r, err := p.operand()
	if err != nil {
		return nil, err
	}
	p.comparisons++
	switch {
	case l.prop != "" && r.prop != "":
		return nil, p.fail(start, "cannot compare property %q with property %q: one side must be a literal", l.prop, r.prop)
	case l.prop != "":
		return cmpNode{op: o, prop: l.prop, lit: r.lit}, nil
	case r.prop != "":
		return cmpNode{op: o.flip(), prop: r.prop, lit: l.lit}, nil
	default:
		return constNode{o.holds(l.lit, r.lit)}, nil
	}
}
