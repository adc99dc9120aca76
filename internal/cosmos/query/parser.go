package query

import (
	"fmt"
	"math"
	"strings"
)

// Limits that keep hostile input from exhausting the stack: maxDepth
// bounds nesting (parentheses, subqueries, prefix operators) and
// maxOperators the binary operators of a query, since a chain such as
// a+b+c+... is as deep as it is long. maxQueryLength is Cosmos's own limit.
const (
	maxDepth       = 200
	maxOperators   = 10_000
	maxQueryLength = 512 << 10
)

// Query is a parsed query, safe for concurrent use by several Runs.
type Query struct {
	sel *selectStmt
}

// Parse parses a Cosmos DB NoSQL query. A syntax error is an *Error whose
// message names the line and column.
func Parse(text string) (*Query, error) {
	if len(text) > maxQueryLength {
		return nil, &Error{Message: fmt.Sprintf("the query text exceeds the maximum length of %d bytes", maxQueryLength)}
	}
	toks, err := lex(text)
	if err != nil {
		return nil, err
	}
	p := &parser{text: text, toks: toks}
	sel, err := p.parseTop()
	if err != nil {
		return nil, err
	}
	return &Query{sel: sel}, nil
}

type parser struct {
	text      string
	toks      []token
	i         int
	depth     int
	operators int
}

// parseError unwinds the recursive-descent parser; parseTop recovers it.
type parseError struct{ err *Error }

func (p *parser) parseTop() (sel *selectStmt, err error) {
	defer func() {
		if r := recover(); r != nil {
			pe, ok := r.(parseError)
			if !ok {
				panic(r)
			}
			sel, err = nil, pe.err
		}
	}()
	sel = p.parseSelect()
	if t := p.peek(); t.kind != tokEOF {
		p.failAt(t, "unexpected %s after end of query", describe(t))
	}
	if err := resolveSelect(p.text, sel, nil); err != nil {
		return nil, err
	}
	return sel, nil
}

func (p *parser) peek() token { return p.toks[p.i] }

func (p *parser) peekAt(n int) token {
	if p.i+n < len(p.toks) {
		return p.toks[p.i+n]
	}
	return p.toks[len(p.toks)-1]
}

func (p *parser) next() token {
	t := p.toks[p.i]
	if t.kind != tokEOF {
		p.i++
	}
	return t
}

// prevEnd is the end offset of the last consumed token.
func (p *parser) prevEnd() int {
	if p.i == 0 {
		return 0
	}
	return p.toks[p.i-1].end
}

func (p *parser) src(start int) string { return p.text[start:p.prevEnd()] }

func (p *parser) failAt(t token, format string, args ...any) {
	panic(parseError{syntaxErrorf(p.text, t.pos, format, args...)})
}

func (p *parser) failSemanticAt(t token, format string, args ...any) {
	panic(parseError{semanticErrorf(p.text, t.pos, format, args...)})
}

func describe(t token) string {
	switch t.kind {
	case tokEOF:
		return "end of query"
	case tokString:
		return fmt.Sprintf("string %q", t.text)
	case tokParam:
		return "'@" + t.text + "'"
	case tokNumber:
		return "number " + t.text
	}
	return "'" + t.text + "'"
}

func (p *parser) isKeyword(kw string) bool {
	t := p.peek()
	return t.kind == tokKeyword && t.text == kw
}

func (p *parser) isOp(op string) bool {
	t := p.peek()
	return t.kind == tokOp && t.text == op
}

func (p *parser) acceptKeyword(kw string) bool {
	if p.isKeyword(kw) {
		p.i++
		return true
	}
	return false
}

func (p *parser) acceptOp(op string) bool {
	if p.isOp(op) {
		p.i++
		return true
	}
	return false
}

func (p *parser) expectKeyword(kw string) {
	if !p.acceptKeyword(kw) {
		p.failAt(p.peek(), "expected %s, found %s", kw, describe(p.peek()))
	}
}

func (p *parser) expectOp(op string) {
	if !p.acceptOp(op) {
		p.failAt(p.peek(), "expected '%s', found %s", op, describe(p.peek()))
	}
}

func (p *parser) expectIdent(what string) string {
	t := p.peek()
	if t.kind != tokIdent {
		p.failAt(t, "expected %s, found %s", what, describe(t))
	}
	p.i++
	return t.text
}

func (p *parser) enter() {
	p.depth++
	if p.depth > maxDepth {
		p.failAt(p.peek(), "query is nested too deeply")
	}
}

func (p *parser) leave() { p.depth-- }

func (p *parser) countOperator() {
	p.operators++
	if p.operators > maxOperators {
		p.failAt(p.peek(), "query has more than %d operators", maxOperators)
	}
}

func (p *parser) parseSelect() *selectStmt {
	p.enter()
	defer p.leave()
	p.expectKeyword("SELECT")
	sel := &selectStmt{}
	for {
		if p.acceptKeyword("DISTINCT") {
			sel.distinct = true
			continue
		}
		if sel.top == nil && p.acceptKeyword("TOP") {
			sel.top = p.parseLimitArg("TOP")
			continue
		}
		break
	}
	switch {
	case p.acceptOp("*"):
		sel.star = true
	case p.acceptKeyword("VALUE"):
		sel.value = p.parseExpr()
	default:
		p.parseSelectItems(sel)
	}
	if p.acceptKeyword("FROM") {
		sel.from = p.parseFrom()
	}
	if p.acceptKeyword("WHERE") {
		sel.where = p.parseExpr()
		p.rejectAggregates(sel.where, "WHERE")
	}
	if p.isKeyword("GROUP") {
		p.next()
		p.expectKeyword("BY")
		for {
			e := p.parseExpr()
			p.rejectAggregates(e, "GROUP BY")
			sel.groupBy = append(sel.groupBy, e)
			if !p.acceptOp(",") {
				break
			}
		}
	}
	if p.isKeyword("ORDER") {
		p.next()
		p.expectKeyword("BY")
		for {
			item := orderItem{e: p.parseExpr()}
			if p.acceptKeyword("DESC") {
				item.desc = true
			} else {
				p.acceptKeyword("ASC")
			}
			sel.orderBy = append(sel.orderBy, item)
			if !p.acceptOp(",") {
				break
			}
		}
	}
	if p.acceptKeyword("OFFSET") {
		sel.offset = p.parseLimitArg("OFFSET")
		p.expectKeyword("LIMIT")
		sel.limit = p.parseLimitArg("LIMIT")
	} else if t := p.peek(); t.kind == tokKeyword && t.text == "LIMIT" {
		p.failAt(t, "LIMIT requires a preceding OFFSET")
	}
	if sel.star && sel.from == nil {
		p.failAt(p.peek(), "'SELECT *' is not valid if FROM clause is omitted")
	}
	if sel.star && sel.from != nil && len(sel.from.sources) > 1 {
		p.failAt(p.peek(), "'SELECT *' is only valid with a single input set")
	}
	var projected []expr
	if sel.value != nil {
		projected = append(projected, sel.value)
	}
	for _, it := range sel.items {
		projected = append(projected, it.e)
	}
	for _, e := range projected {
		if containsAggregate(e) {
			sel.aggregate = true
		}
	}
	if len(sel.groupBy) > 0 {
		sel.aggregate = true
	}
	if sel.star && sel.aggregate {
		p.failAt(p.peek(), "'SELECT *' is not valid with GROUP BY")
	}
	return sel
}

func (p *parser) rejectAggregates(e expr, clause string) {
	if containsAggregate(e) {
		p.failAt(p.peek(), "aggregate functions are not allowed in %s", clause)
	}
}

func (p *parser) parseLimitArg(clause string) *limitArg {
	t := p.next()
	switch t.kind {
	case tokNumber:
		if t.num < 0 || t.num != math.Trunc(t.num) || t.num > math.MaxInt32 {
			p.failAt(t, "%s expects a non-negative integer, found %s", clause, t.text)
		}
		return &limitArg{n: int(t.num)}
	case tokParam:
		return &limitArg{param: t.text}
	}
	p.failAt(t, "%s expects an integer or a parameter, found %s", clause, describe(t))
	return nil
}

func (p *parser) parseSelectItems(sel *selectStmt) {
	seen := map[string]bool{}
	unnamed := 0
	for {
		start := p.peek()
		e := p.parseExpr()
		name := ""
		if p.acceptKeyword("AS") {
			name = p.expectIdent("an alias after AS")
		} else if p.peek().kind == tokIdent {
			name = p.next().text
		} else {
			switch x := e.(type) {
			case *propertyExpr:
				if x.index == nil {
					name = x.name
				}
			case *identExpr:
				name = x.name
			}
		}
		if name == "" {
			unnamed++
			name = fmt.Sprintf("$%d", unnamed)
		}
		if seen[name] {
			p.failAt(start, "duplicate alias %q in the SELECT list", name)
		}
		seen[name] = true
		sel.items = append(sel.items, selectItem{e: e, name: name})
		if !p.acceptOp(",") {
			return
		}
	}
}

func (p *parser) parseFrom() *fromClause {
	f := &fromClause{}
	f.sources = append(f.sources, p.parseFromSource())
	for p.acceptKeyword("JOIN") {
		f.sources = append(f.sources, p.parseFromSource())
	}
	seen := map[string]bool{}
	for _, s := range f.sources {
		if seen[s.alias] {
			p.failAt(p.peek(), "alias %q is bound more than once in FROM", s.alias)
		}
		seen[s.alias] = true
	}
	return f
}

func (p *parser) parseFromSource() *fromSource {
	t := p.peek()
	if t.kind == tokIdent && p.peekAt(1).kind == tokKeyword && p.peekAt(1).text == "IN" {
		p.i += 2
		return &fromSource{alias: t.text, e: p.parseContainerPath(), in: true}
	}
	if p.isOp("(") {
		start := p.peek().pos
		p.next()
		if !p.isKeyword("SELECT") {
			p.failAt(p.peek(), "expected a subquery, found %s", describe(p.peek()))
		}
		sub := p.parseSelect()
		p.expectOp(")")
		src := &fromSource{e: &subqueryExpr{exprBase{p.src(start)}, "ARRAY", sub}}
		p.acceptKeyword("AS")
		src.alias = p.expectIdent("an alias for the subquery")
		return src
	}
	e := p.parseContainerPath()
	src := &fromSource{e: e}
	if p.acceptKeyword("AS") {
		src.alias = p.expectIdent("an alias after AS")
	} else if p.peek().kind == tokIdent {
		src.alias = p.next().text
	} else {
		switch x := e.(type) {
		case *identExpr:
			src.alias = x.name
		case *propertyExpr:
			if x.index == nil {
				src.alias = x.name
			}
		}
		if src.alias == "" {
			p.failAt(p.peek(), "an alias is required for %q", e.source())
		}
	}
	return src
}

// parseContainerPath parses the path of a FROM source: an identifier
// followed by property and index accessors with constant operands.
func (p *parser) parseContainerPath() expr {
	start := p.peek().pos
	name := p.expectIdent("a container name or alias")
	var e expr = &identExpr{exprBase{name}, name, start}
	for {
		switch {
		case p.acceptOp("."):
			prop := p.parsePropertyName()
			e = &propertyExpr{exprBase: exprBase{p.src(start)}, target: e, name: prop}
		case p.acceptOp("["):
			t := p.next()
			prop := &propertyExpr{target: e}
			switch t.kind {
			case tokString:
				prop.name = t.text
			case tokNumber:
				prop.index = &literalExpr{exprBase{t.text}, t.num}
			case tokParam:
				prop.index = &paramExpr{exprBase{"@" + t.text}, t.text}
			default:
				p.failAt(t, "expected a property name or index, found %s", describe(t))
			}
			p.expectOp("]")
			prop.src = p.src(start)
			e = prop
		default:
			return e
		}
	}
}

// clauseKeywords may not follow '.' as property names; other keywords may
// (c.value, c.top), which Cosmos itself only allows as c["value"].
var clauseKeywords = map[string]bool{
	"SELECT": true, "FROM": true, "WHERE": true, "ORDER": true, "GROUP": true, "JOIN": true,
	"OFFSET": true, "LIMIT": true, "AND": true, "OR": true, "AS": true,
}

// parsePropertyName accepts an identifier or non-clause keyword after '.'.
func (p *parser) parsePropertyName() string {
	t := p.next()
	switch {
	case t.kind == tokIdent:
		return t.text
	case t.kind == tokKeyword && !clauseKeywords[t.text]:
		return p.text[t.pos:t.end]
	}
	p.failAt(t, "expected a property name after '.', found %s", describe(t))
	return ""
}

// Expressions, lowest precedence first.

func (p *parser) parseExpr() expr {
	p.enter()
	defer p.leave()
	start := p.peek().pos
	cond := p.parseCoalesce()
	if p.acceptOp("?") {
		then := p.parseExpr()
		p.expectOp(":")
		els := p.parseExpr()
		return &ternaryExpr{exprBase{p.src(start)}, cond, then, els}
	}
	return cond
}

func (p *parser) parseCoalesce() expr { return p.leftAssoc("??", p.acceptOp, p.parseOr) }

func (p *parser) parseOr() expr { return p.leftAssoc("OR", p.acceptKeyword, p.parseAnd) }

func (p *parser) parseAnd() expr { return p.leftAssoc("AND", p.acceptKeyword, p.parseNot) }

// leftAssoc parses operand (op operand)*, nesting to the left; accept
// consumes op when it comes next.
func (p *parser) leftAssoc(op string, accept func(string) bool, operand func() expr) expr {
	start := p.peek().pos
	e := operand()
	for accept(op) {
		right := operand()
		e = &binaryExpr{exprBase{p.src(start)}, op, e, right}
		p.countOperator()
	}
	return e
}

func (p *parser) parseNot() expr {
	start := p.peek().pos
	if p.acceptKeyword("NOT") {
		p.enter()
		defer p.leave()
		operand := p.parseNot()
		return &unaryExpr{exprBase{p.src(start)}, "NOT", operand}
	}
	return p.parseComparison()
}

var comparisonOps = map[string]bool{"=": true, "!=": true, "<>": true, "<": true, "<=": true, ">": true, ">=": true}

func (p *parser) parseComparison() expr {
	start := p.peek().pos
	e := p.parseBitOr()
	for {
		t := p.peek()
		if t.kind == tokOp && comparisonOps[t.text] {
			p.next()
			op := t.text
			if op == "<>" {
				op = "!="
			}
			right := p.parseBitOr()
			e = &binaryExpr{exprBase{p.src(start)}, op, e, right}
			p.countOperator()
			continue
		}
		not := false
		if t.kind == tokKeyword && t.text == "NOT" {
			nt := p.peekAt(1)
			if nt.kind != tokKeyword || (nt.text != "IN" && nt.text != "BETWEEN" && nt.text != "LIKE") {
				return e
			}
			p.next()
			not = true
			t = p.peek()
		}
		if t.kind != tokKeyword {
			return e
		}
		switch t.text {
		case "IN":
			p.next()
			p.expectOp("(")
			var list []expr
			if !p.isOp(")") {
				for {
					list = append(list, p.parseExpr())
					if !p.acceptOp(",") {
						break
					}
				}
			}
			p.expectOp(")")
			e = &inExpr{exprBase{p.src(start)}, e, list, not}
		case "BETWEEN":
			p.next()
			lo := p.parseBitOr()
			p.expectKeyword("AND")
			hi := p.parseBitOr()
			e = &betweenExpr{exprBase{p.src(start)}, e, lo, hi, not}
		case "LIKE":
			p.next()
			pat := p.parseBitOr()
			var esc expr
			if p.acceptKeyword("ESCAPE") {
				esc = p.parseBitOr()
			}
			e = &likeExpr{exprBase{p.src(start)}, e, pat, esc, not}
		default:
			return e
		}
	}
}

// binaryLevels lists the binary operators from loosest to tightest
// binding, below comparison.
var binaryLevels = [][]string{
	{"|"},
	{"^"},
	{"&"},
	{"<<", ">>", ">>>"},
	{"+", "-", "||"},
	{"*", "/", "%"},
}

func (p *parser) parseBitOr() expr { return p.parseBinaryLevel(0) }

func (p *parser) parseBinaryLevel(level int) expr {
	if level == len(binaryLevels) {
		return p.parseUnary()
	}
	start := p.peek().pos
	e := p.parseBinaryLevel(level + 1)
	for {
		t := p.peek()
		matched := false
		if t.kind == tokOp {
			for _, op := range binaryLevels[level] {
				if t.text == op {
					matched = true
					break
				}
			}
		}
		if !matched {
			return e
		}
		p.next()
		right := p.parseBinaryLevel(level + 1)
		e = &binaryExpr{exprBase{p.src(start)}, t.text, e, right}
		p.countOperator()
	}
}

func (p *parser) parseUnary() expr {
	t := p.peek()
	if t.kind == tokOp && (t.text == "-" || t.text == "+" || t.text == "~") {
		p.next()
		p.enter()
		defer p.leave()
		// Fold a negative number literal so that "-1" is a constant.
		if nt := p.peek(); t.text == "-" && nt.kind == tokNumber && !isPostfixStart(p.peekAt(1)) {
			p.next()
			return &literalExpr{exprBase{p.src(t.pos)}, -nt.num}
		}
		operand := p.parseUnary()
		return &unaryExpr{exprBase{p.src(t.pos)}, t.text, operand}
	}
	return p.parsePostfix()
}

func isPostfixStart(t token) bool {
	return t.kind == tokOp && (t.text == "." || t.text == "[")
}

func (p *parser) parsePostfix() expr {
	start := p.peek().pos
	e := p.parsePrimary()
	for {
		switch {
		case p.acceptOp("."):
			name := p.parsePropertyName()
			e = &propertyExpr{exprBase: exprBase{p.src(start)}, target: e, name: name}
		case p.acceptOp("["):
			idx := p.parseExpr()
			p.expectOp("]")
			if lit, ok := idx.(*literalExpr); ok {
				if s, ok := lit.v.(string); ok {
					e = &propertyExpr{exprBase: exprBase{p.src(start)}, target: e, name: s}
					continue
				}
			}
			e = &propertyExpr{exprBase: exprBase{p.src(start)}, target: e, index: idx}
		default:
			return e
		}
	}
}

func (p *parser) parsePrimary() expr {
	p.enter()
	defer p.leave()
	t := p.next()
	switch t.kind {
	case tokNumber:
		return &literalExpr{exprBase{t.text}, t.num}
	case tokString:
		return &literalExpr{exprBase{p.src(t.pos)}, t.text}
	case tokParam:
		return &paramExpr{exprBase{"@" + t.text}, t.text}
	case tokKeyword:
		switch t.text {
		case "TRUE":
			return &literalExpr{exprBase{p.src(t.pos)}, true}
		case "FALSE":
			return &literalExpr{exprBase{p.src(t.pos)}, false}
		case "NULL":
			return &literalExpr{exprBase{p.src(t.pos)}, nil}
		case "UNDEFINED":
			return &literalExpr{exprBase{p.src(t.pos)}, undefined}
		case "EXISTS", "ARRAY":
			p.expectOp("(")
			if !p.isKeyword("SELECT") {
				p.failAt(p.peek(), "%s expects a subquery, found %s", t.text, describe(p.peek()))
			}
			sub := p.parseSelect()
			p.expectOp(")")
			return &subqueryExpr{exprBase{p.src(t.pos)}, t.text, sub}
		case "UDF":
			p.expectOp(".")
			name := p.expectIdent("a user-defined function name")
			args := p.parseArgs()
			return &callExpr{exprBase{p.src(t.pos)}, name, args, true}
		}
	case tokIdent:
		if p.isOp("(") {
			args := p.parseArgs()
			name := strings.ToUpper(t.text)
			p.checkCall(t, name, len(args))
			return &callExpr{exprBase{p.src(t.pos)}, name, args, false}
		}
		return &identExpr{exprBase{t.text}, t.text, t.pos}
	case tokOp:
		switch t.text {
		case "(":
			if p.isKeyword("SELECT") {
				sub := p.parseSelect()
				p.expectOp(")")
				return &subqueryExpr{exprBase{p.src(t.pos)}, "SCALAR", sub}
			}
			e := p.parseExpr()
			p.expectOp(")")
			return e
		case "[":
			var elems []expr
			if !p.isOp("]") {
				for {
					elems = append(elems, p.parseExpr())
					if !p.acceptOp(",") {
						break
					}
				}
			}
			p.expectOp("]")
			return &arrayExpr{exprBase{p.src(t.pos)}, elems}
		case "{":
			obj := &objectExpr{}
			seen := map[string]bool{}
			if !p.isOp("}") {
				for {
					kt := p.next()
					var key string
					switch kt.kind {
					case tokIdent, tokString:
						key = kt.text
					case tokKeyword:
						key = p.text[kt.pos:kt.end]
					default:
						p.failAt(kt, "expected a property name in object constructor, found %s", describe(kt))
					}
					if seen[key] {
						p.failAt(kt, "duplicate property %q in object constructor", key)
					}
					seen[key] = true
					p.expectOp(":")
					obj.keys = append(obj.keys, key)
					obj.vals = append(obj.vals, p.parseExpr())
					if !p.acceptOp(",") {
						break
					}
				}
			}
			p.expectOp("}")
			obj.src = p.src(t.pos)
			return obj
		}
	}
	p.failAt(t, "unexpected %s", describe(t))
	return nil
}

func (p *parser) parseArgs() []expr {
	p.expectOp("(")
	var args []expr
	if !p.isOp(")") {
		for {
			args = append(args, p.parseExpr())
			if !p.acceptOp(",") {
				break
			}
		}
	}
	p.expectOp(")")
	return args
}

// checkCall rejects unknown functions and wrong argument counts at parse
// time, so that the error does not depend on the data.
func (p *parser) checkCall(t token, name string, n int) {
	if _, ok := aggregates[name]; ok {
		if n != 1 {
			p.failSemanticAt(t, "the %s function requires 1 argument(s), found %d", t.text, n)
		}
		return
	}
	fn, ok := functions[name]
	if !ok {
		p.failSemanticAt(t, "%q is not a recognized built-in function name", t.text)
	}
	if n < fn.minArgs || (fn.maxArgs >= 0 && n > fn.maxArgs) {
		p.failSemanticAt(t, "the %s function requires %s argument(s), found %d", t.text, fn.arity(), n)
	}
}

// containsAggregate reports whether e calls an aggregate function outside
// any subquery.
func containsAggregate(e expr) bool {
	found := false
	walk(e, func(x expr) {
		if c, ok := x.(*callExpr); ok && !c.udf {
			if _, ok := aggregates[c.name]; ok {
				found = true
			}
		}
	})
	return found
}

// walk visits e and its sub-expressions, not descending into subqueries.
func walk(e expr, visit func(expr)) {
	if e == nil {
		return
	}
	visit(e)
	switch x := e.(type) {
	case *propertyExpr:
		walk(x.target, visit)
		walk(x.index, visit)
	case *objectExpr:
		for _, v := range x.vals {
			walk(v, visit)
		}
	case *arrayExpr:
		for _, v := range x.elems {
			walk(v, visit)
		}
	case *unaryExpr:
		walk(x.operand, visit)
	case *binaryExpr:
		walk(x.left, visit)
		walk(x.right, visit)
	case *inExpr:
		walk(x.e, visit)
		for _, v := range x.list {
			walk(v, visit)
		}
	case *betweenExpr:
		walk(x.e, visit)
		walk(x.lo, visit)
		walk(x.hi, visit)
	case *likeExpr:
		walk(x.e, visit)
		walk(x.pattern, visit)
		walk(x.escape, visit)
	case *ternaryExpr:
		walk(x.cond, visit)
		walk(x.then, visit)
		walk(x.els, visit)
	case *callExpr:
		for _, v := range x.args {
			walk(v, visit)
		}
	}
}
