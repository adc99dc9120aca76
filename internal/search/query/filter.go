package query

import (
	"math"
	"regexp"
	"strconv"
	"strings"
	"time"

	"github.com/blevesearch/bleve/v2/search/query"
)

// Filter is a parsed and type-checked $filter.
type Filter struct {
	Text string
	Root FilterExpr
	// Scoring holds the bleve queries of the search.ismatchscoring calls,
	// which the search layer adds to the scored part of the search.
	Scoring []query.Query
}

// maxFilterDepth bounds nesting so a hostile filter cannot exhaust the stack.
const maxFilterDepth = 100

// ParseFilter parses an OData $filter as Azure AI Search accepts it and
// checks it against schema: unknown fields, fields that are not filterable
// and operands of the wrong type are *SyntaxErrors for "$filter".
func ParseFilter(text string, schema Schema) (*Filter, error) {
	p := &filterParser{s: text, schema: schema, f: &Filter{Text: text}}
	if err := p.advance(); err != nil {
		return nil, err
	}
	if p.tok.kind == tEOF {
		return nil, p.syntaxAt(0)
	}
	root, err := p.or(0)
	if err != nil {
		return nil, err
	}
	if p.tok.kind != tEOF {
		return nil, p.syntaxAt(p.tok.pos)
	}
	p.f.Root = root
	return p.f, nil
}

type tokKind int

const (
	tEOF tokKind = iota
	tIdent
	tString
	tNumber
	tDateTime
	tGeo
	tLParen
	tRParen
	tComma
	tColon
	tSlash
)

type token struct {
	kind tokKind
	pos  int
	text string // identifier, unescaped string, number text, geography body
}

type lambdaScope struct {
	name string
	ref  *FieldRef // the collection
}

type filterParser struct {
	s      string
	i      int
	tok    token
	schema Schema
	f      *Filter
	scopes []lambdaScope
}

func (p *filterParser) errAt(pos int, format string, args ...any) error {
	return errorf(ParamFilter, pos, format, args...)
}

// syntaxAt is ODataLib's generic syntax error.
func (p *filterParser) syntaxAt(pos int) error {
	return p.errAt(pos, "Syntax error at position %d in '%s'.", pos, p.s)
}

var dateTimeLiteral = regexp.MustCompile(`^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d{1,7})?)?(Z|[+-]\d{2}:\d{2})`)
var numberLiteral = regexp.MustCompile(`^-?\d+(\.\d+)?([eE][+-]?\d+)?`)

func isIdentStart(c byte) bool {
	return c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
}

func isIdentPart(c byte) bool { return isIdentStart(c) || c >= '0' && c <= '9' }

var punctuation = map[byte]tokKind{'(': tLParen, ')': tRParen, ',': tComma, ':': tColon, '/': tSlash}

func (p *filterParser) advance() error {
	for p.i < len(p.s) && isSpace(p.s[p.i]) {
		p.i++
	}
	start := p.i
	if p.i >= len(p.s) {
		p.tok = token{kind: tEOF, pos: p.i}
		return nil
	}
	c := p.s[p.i]
	if k, ok := punctuation[c]; ok {
		p.i++
		p.tok = token{kind: k, pos: start, text: string(c)}
		return nil
	}
	switch {
	case c == '\'':
		s, err := p.quoted()
		if err != nil {
			return err
		}
		p.tok = token{kind: tString, pos: start, text: s}
		return nil
	case c >= '0' && c <= '9' || c == '-' && p.i+1 < len(p.s) && (p.s[p.i+1] >= '0' && p.s[p.i+1] <= '9' || p.s[p.i+1] == 'I'):
		rest := p.s[p.i:]
		if m := dateTimeLiteral.FindString(rest); m != "" {
			p.i += len(m)
			p.tok = token{kind: tDateTime, pos: start, text: m}
			return nil
		}
		if strings.HasPrefix(rest, "-INF") {
			p.i += 4
			p.tok = token{kind: tNumber, pos: start, text: "-INF"}
			return nil
		}
		m := numberLiteral.FindString(rest)
		if m == "" {
			return p.syntaxAt(start)
		}
		p.i += len(m)
		// OData type suffixes: 1.5d, 3L, 2.5f, 1m
		if p.i < len(p.s) && strings.IndexByte("dDfFmMlL", p.s[p.i]) >= 0 && (p.i+1 == len(p.s) || !isIdentPart(p.s[p.i+1])) {
			p.i++
		}
		if p.i < len(p.s) && isIdentPart(p.s[p.i]) {
			return p.syntaxAt(p.i)
		}
		p.tok = token{kind: tNumber, pos: start, text: m}
		return nil
	case isIdentStart(c):
		for p.i < len(p.s) && (isIdentPart(p.s[p.i]) || p.s[p.i] == '.' && p.i+1 < len(p.s) && isIdentStart(p.s[p.i+1])) {
			p.i++
		}
		word := p.s[start:p.i]
		if (word == "geography" || word == "geometry") && p.i < len(p.s) && p.s[p.i] == '\'' {
			body, err := p.quoted()
			if err != nil {
				return err
			}
			p.tok = token{kind: tGeo, pos: start, text: body}
			return nil
		}
		p.tok = token{kind: tIdent, pos: start, text: word}
		return nil
	}
	return p.syntaxAt(start)
}

// quoted reads a '...' literal with ” standing for one quote.
func (p *filterParser) quoted() (string, error) {
	start := p.i
	p.i++
	var b strings.Builder
	for p.i < len(p.s) {
		if p.s[p.i] == '\'' {
			if p.i+1 < len(p.s) && p.s[p.i+1] == '\'' {
				b.WriteByte('\'')
				p.i += 2
				continue
			}
			p.i++
			return b.String(), nil
		}
		b.WriteByte(p.s[p.i])
		p.i++
	}
	return "", p.errAt(start, "There is an unterminated string literal at position %d in '%s'.", start, p.s)
}

func (p *filterParser) isWord(w string) bool { return p.tok.kind == tIdent && p.tok.text == w }

func (p *filterParser) expect(k tokKind) error {
	if p.tok.kind != k {
		return p.syntaxAt(p.tok.pos)
	}
	return p.advance()
}

func (p *filterParser) or(depth int) (FilterExpr, error) {
	left, err := p.and(depth)
	if err != nil {
		return nil, err
	}
	for p.isWord("or") {
		at := p.tok.pos
		if err := p.advance(); err != nil {
			return nil, err
		}
		right, err := p.and(depth)
		if err != nil {
			return nil, err
		}
		left = &OrExpr{At: at, Left: left, Right: right}
	}
	return left, nil
}

func (p *filterParser) and(depth int) (FilterExpr, error) {
	left, err := p.unary(depth)
	if err != nil {
		return nil, err
	}
	for p.isWord("and") {
		at := p.tok.pos
		if err := p.advance(); err != nil {
			return nil, err
		}
		right, err := p.unary(depth)
		if err != nil {
			return nil, err
		}
		left = &AndExpr{At: at, Left: left, Right: right}
	}
	return left, nil
}

func (p *filterParser) unary(depth int) (FilterExpr, error) {
	if depth > maxFilterDepth {
		return nil, p.errAt(p.tok.pos, "The filter is nested too deeply.")
	}
	if p.isWord("not") {
		at := p.tok.pos
		if err := p.advance(); err != nil {
			return nil, err
		}
		x, err := p.unary(depth + 1)
		if err != nil {
			return nil, err
		}
		return &NotExpr{At: at, X: x}, nil
	}
	return p.primary(depth)
}

// operand is one side of a comparison before it is known which side the
// field is on.
type operand struct {
	pos   int
	field *parsedField
	geo   *GeoDistanceExpr // geo.distance(field, point) without op yet
	lit   *Literal
}

func (p *filterParser) primary(depth int) (FilterExpr, error) {
	at := p.tok.pos
	switch {
	case p.tok.kind == tLParen:
		if err := p.advance(); err != nil {
			return nil, err
		}
		x, err := p.or(depth + 1)
		if err != nil {
			return nil, err
		}
		return x, p.expect(tRParen)
	case p.isWord("search.in"):
		return p.searchIn()
	case p.isWord("search.ismatch") || p.isWord("search.ismatchscoring"):
		return p.isMatch()
	case p.isWord("geo.intersects"):
		return p.geoIntersects()
	}
	left, err := p.operand(depth)
	if err != nil {
		return nil, err
	}
	_, isOp := compareOpNames[p.tok.text]
	isOp = isOp && p.tok.kind == tIdent
	if left.lit != nil && !isOp {
		if left.lit.Kind == LitBool {
			return &BoolLiteral{At: at, Value: left.lit.Bool}, nil
		}
		return nil, p.syntaxAt(p.tok.pos)
	}
	if left.field != nil && left.field.lambda != nil {
		return left.field.lambda, nil
	}
	if left.geo != nil && !isOp {
		return nil, p.syntaxAt(p.tok.pos)
	}
	op := compareOpNames[p.tok.text]
	if !isOp {
		// A Boolean field (or range variable) on its own is a condition.
		if left.field != nil && left.field.ref.Field.Type == TypeBoolean {
			return &CompareExpr{At: at, Op: OpEq, Field: left.field.ref, Value: Literal{At: at, Kind: LitBool, Bool: true}}, nil
		}
		return nil, p.syntaxAt(p.tok.pos)
	}
	opPos := p.tok.pos
	if err := p.advance(); err != nil {
		return nil, err
	}
	right, err := p.operand(depth)
	if err != nil {
		return nil, err
	}
	if right.field != nil && right.field.lambda != nil {
		return nil, p.syntaxAt(right.pos)
	}
	// Put the field (or geo.distance) on the left.
	if left.lit != nil {
		left, right = right, left
		op = op.mirror()
	}
	if right.lit == nil {
		return nil, p.errAt(opPos, "Comparisons must be between a field or geo.distance and a constant; found two non-constant operands at position %d.", opPos)
	}
	if left.lit != nil {
		return nil, p.errAt(opPos, "Comparisons must be between a field or geo.distance and a constant; found two constants at position %d.", opPos)
	}
	if left.geo != nil {
		g := left.geo
		g.Op = op
		switch right.lit.Kind {
		case LitInt, LitDouble:
			g.Distance = right.lit.Float
		default:
			return nil, p.errAt(right.pos, "A binary operator with incompatible types was detected. Found operand types 'Edm.Double' and '%s' for operator kind '%s'.", literalType(*right.lit), op.kind())
		}
		return g, nil
	}
	return p.compare(at, op, left.field.ref, *right.lit)
}

type parsedField struct {
	ref    *FieldRef
	lambda *LambdaExpr
}

func (p *filterParser) operand(depth int) (operand, error) {
	at := p.tok.pos
	switch p.tok.kind {
	case tString:
		lit := Literal{At: at, Kind: LitString, Str: p.tok.text}
		return operand{pos: at, lit: &lit}, p.advance()
	case tNumber:
		lit, err := p.number(p.tok.text, at)
		if err != nil {
			return operand{}, err
		}
		return operand{pos: at, lit: &lit}, p.advance()
	case tDateTime:
		t, err := time.Parse(time.RFC3339Nano, p.tok.text)
		if err != nil {
			return operand{}, p.errAt(at, "The DateTimeOffset literal '%s' is not valid.", p.tok.text)
		}
		lit := Literal{At: at, Kind: LitDateTime, Time: t}
		return operand{pos: at, lit: &lit}, p.advance()
	case tGeo:
		lit, err := parseGeography(p.tok.text)
		if err != nil {
			return operand{}, p.errAt(at, "%s", err.Error())
		}
		lit.At = at
		return operand{pos: at, lit: &lit}, p.advance()
	case tIdent:
		switch p.tok.text {
		case "true", "false":
			lit := Literal{At: at, Kind: LitBool, Bool: p.tok.text == "true"}
			return operand{pos: at, lit: &lit}, p.advance()
		case "null":
			lit := Literal{At: at, Kind: LitNull}
			return operand{pos: at, lit: &lit}, p.advance()
		case "NaN", "INF":
			lit := Literal{At: at, Kind: LitDouble, Float: math.NaN()}
			if p.tok.text == "INF" {
				lit.Float = math.Inf(1)
			}
			return operand{pos: at, lit: &lit}, p.advance()
		case "geo.distance":
			g, err := p.geoDistance()
			return operand{pos: at, geo: g}, err
		}
		if strings.Contains(p.tok.text, ".") {
			return operand{}, p.errAt(at, "Unknown function '%s'.", p.tok.text)
		}
		pf, err := p.path(depth)
		return operand{pos: at, field: &pf}, err
	}
	return operand{}, p.syntaxAt(at)
}

func (p *filterParser) number(text string, at int) (Literal, error) {
	if text == "-INF" {
		return Literal{At: at, Kind: LitDouble, Float: math.Inf(-1)}, nil
	}
	if !strings.ContainsAny(text, ".eE") {
		if v, err := strconv.ParseInt(text, 10, 64); err == nil {
			return Literal{At: at, Kind: LitInt, Int: v, Float: float64(v)}, nil
		}
	}
	v, err := strconv.ParseFloat(text, 64)
	if err != nil {
		return Literal{}, p.errAt(at, "The number '%s' is not valid.", text)
	}
	return Literal{At: at, Kind: LitDouble, Float: v}, nil
}

// path reads a field path, possibly starting with a range variable and
// possibly ending in /any(...) or /all(...).
func (p *filterParser) path(depth int) (parsedField, error) {
	at := p.tok.pos
	segs := []string{p.tok.text}
	if err := p.advance(); err != nil {
		return parsedField{}, err
	}
	for p.tok.kind == tSlash {
		if err := p.advance(); err != nil {
			return parsedField{}, err
		}
		if p.tok.kind != tIdent || strings.Contains(p.tok.text, ".") {
			return parsedField{}, p.syntaxAt(p.tok.pos)
		}
		word := p.tok.text
		if err := p.advance(); err != nil {
			return parsedField{}, err
		}
		if (word == "any" || word == "all") && p.tok.kind == tLParen {
			ref, err := p.resolve(segs, at, true)
			if err != nil {
				return parsedField{}, err
			}
			l, err := p.lambda(ref, word == "all", at, depth)
			return parsedField{lambda: l}, err
		}
		segs = append(segs, word)
	}
	ref, err := p.resolve(segs, at, false)
	return parsedField{ref: ref}, err
}

// resolve looks a path up in the schema, starting from a range variable
// when the first segment names one in scope.
func (p *filterParser) resolve(segs []string, at int, collection bool) (*FieldRef, error) {
	ref := &FieldRef{At: at}
	base := ""
	rel := segs
	for i := len(p.scopes) - 1; i >= 0; i-- {
		if p.scopes[i].name == segs[0] {
			ref.Var = segs[0]
			ref.Element = len(segs) == 1
			base = p.scopes[i].ref.Path
			rel = segs[1:]
			break
		}
	}
	ref.Rel = rel
	path := base
	for i, seg := range rel {
		if path == "" {
			path = seg
		} else {
			path += "/" + seg
		}
		f, ok := p.schema.Field(path)
		if !ok {
			return nil, p.errAt(at, "Could not find a property named '%s' on type 'search.document'.", seg)
		}
		last := i == len(rel)-1
		if f.Collection && !last {
			return nil, p.errAt(at, "The field '%s' is a collection; use the 'any' or 'all' operator to filter on its elements.", path)
		}
		if !last && f.Type != TypeComplex {
			return nil, p.errAt(at, "Could not find a property named '%s' on type '%s'.", rel[i+1], f.Type)
		}
	}
	ref.Path = path
	if path == "" {
		return nil, p.syntaxAt(at)
	}
	f, _ := p.schema.Field(path)
	ref.Field = f
	if collection {
		if !f.Collection || (ref.Var != "" && len(rel) == 0) {
			return nil, p.errAt(at, "The 'any' and 'all' operators can only be applied to collection fields; '%s' is not a collection.", path)
		}
		if f.Type != TypeComplex && !f.Filterable {
			return nil, p.errAt(at, "The field '%s' is not filterable. Only filterable fields can be used in filter expressions.", path)
		}
		return ref, nil
	}
	if len(rel) > 0 && f.Collection {
		return nil, p.errAt(at, "The field '%s' is a collection; use the 'any' or 'all' operator to filter on its elements.", path)
	}
	if f.Type == TypeComplex {
		return nil, p.errAt(at, "The field '%s' is a complex field and cannot be compared; filter on one of its sub-fields.", path)
	}
	if !f.Filterable {
		return nil, p.errAt(at, "The field '%s' is not filterable. Only filterable fields can be used in filter expressions.", path)
	}
	return ref, nil
}

func (p *filterParser) lambda(coll *FieldRef, all bool, at, depth int) (*LambdaExpr, error) {
	if err := p.expect(tLParen); err != nil {
		return nil, err
	}
	l := &LambdaExpr{At: at, All: all, Collection: coll}
	if p.tok.kind == tRParen {
		if all {
			return nil, p.errAt(p.tok.pos, "The 'all' operator requires a lambda expression.")
		}
		return l, p.advance()
	}
	if p.tok.kind != tIdent || strings.Contains(p.tok.text, ".") {
		return nil, p.syntaxAt(p.tok.pos)
	}
	l.Var = p.tok.text
	if err := p.advance(); err != nil {
		return nil, err
	}
	if err := p.expect(tColon); err != nil {
		return nil, err
	}
	p.scopes = append(p.scopes, lambdaScope{name: l.Var, ref: coll})
	body, err := p.or(depth + 1)
	p.scopes = p.scopes[:len(p.scopes)-1]
	if err != nil {
		return nil, err
	}
	l.Body = body
	return l, p.expect(tRParen)
}

// literalType is the EDM type ODataLib infers for a constant.
func literalType(l Literal) string {
	switch l.Kind {
	case LitString:
		return TypeString
	case LitInt:
		if l.Int >= math.MinInt32 && l.Int <= math.MaxInt32 {
			return TypeInt32
		}
		return TypeInt64
	case LitDouble:
		return TypeDouble
	case LitBool:
		return TypeBoolean
	case LitDateTime:
		return TypeDateTimeOffset
	case LitPoint:
		return "Edm.GeographyPoint"
	case LitPolygon:
		return "Edm.GeographyPolygon"
	}
	return "null"
}

func (p *filterParser) compare(at int, op CompareOp, ref *FieldRef, lit Literal) (FilterExpr, error) {
	t := ref.Field.Type
	if !ref.Element && ref.Field.Collection {
		return nil, p.errAt(at, "The field '%s' is a collection; use the 'any' or 'all' operator to filter on its elements.", ref.Path)
	}
	mismatch := func() error {
		fieldType := t
		return p.errAt(lit.At, "A binary operator with incompatible types was detected. Found operand types '%s' and '%s' for operator kind '%s'.", fieldType, literalType(lit), op.kind())
	}
	ok := false
	switch lit.Kind {
	case LitNull:
		ok = op == OpEq || op == OpNe
		if ref.Element && ok {
			return nil, p.errAt(lit.At, "Range variables in lambda expressions cannot be compared with null.")
		}
	case LitString:
		ok = t == TypeString
	case LitInt:
		ok = isNumeric(t)
		if t == TypeInt32 && (lit.Int < math.MinInt32 || lit.Int > math.MaxInt32) {
			ok = false
		}
	case LitDouble:
		ok = t == TypeDouble || t == TypeSingle || t == TypeInt32 || t == TypeInt64
	case LitBool:
		ok = t == TypeBoolean && (op == OpEq || op == OpNe)
	case LitDateTime:
		ok = t == TypeDateTimeOffset
	}
	if t == TypeGeographyPoint && lit.Kind != LitNull {
		ok = false
	}
	if !ok {
		return nil, mismatch()
	}
	return &CompareExpr{At: at, Op: op, Field: ref, Value: lit}, nil
}

// args reads '(' a, b, ... ')' as raw operands.
func (p *filterParser) args(name string, min, max int) ([]operand, error) {
	at := p.tok.pos
	if err := p.advance(); err != nil {
		return nil, err
	}
	if err := p.expect(tLParen); err != nil {
		return nil, err
	}
	var out []operand
	for p.tok.kind != tRParen {
		if len(out) > 0 {
			if err := p.expect(tComma); err != nil {
				return nil, err
			}
		}
		o, err := p.operand(0)
		if err != nil {
			return nil, err
		}
		if o.field != nil && o.field.lambda != nil || o.geo != nil {
			return nil, p.syntaxAt(o.pos)
		}
		out = append(out, o)
		if p.tok.kind == tEOF {
			return nil, p.syntaxAt(p.tok.pos)
		}
	}
	if err := p.advance(); err != nil {
		return nil, err
	}
	if len(out) < min || len(out) > max {
		return nil, p.errAt(at, "The function '%s' takes %d to %d arguments; %d were given.", name, min, max, len(out))
	}
	return out, nil
}

func (p *filterParser) fieldArg(name string, o operand) (*FieldRef, error) {
	if o.field == nil || o.field.ref == nil {
		return nil, p.errAt(o.pos, "The first argument of '%s' must be a field or range variable.", name)
	}
	return o.field.ref, nil
}

func (p *filterParser) stringArg(name string, o operand) (string, error) {
	if o.lit == nil || o.lit.Kind != LitString {
		return "", p.errAt(o.pos, "The arguments of '%s' after the first must be string literals.", name)
	}
	return o.lit.Str, nil
}

func (p *filterParser) searchIn() (FilterExpr, error) {
	at := p.tok.pos
	args, err := p.args("search.in", 2, 3)
	if err != nil {
		return nil, err
	}
	ref, err := p.fieldArg("search.in", args[0])
	if err != nil {
		return nil, err
	}
	if ref.Field.Type != TypeString || ref.Field.Collection && !ref.Element {
		return nil, p.errAt(at, "search.in can only be applied to fields or range variables of type Edm.String; '%s' is %s.", ref.Path, describeType(ref))
	}
	list, err := p.stringArg("search.in", args[1])
	if err != nil {
		return nil, err
	}
	delims := " ,"
	if len(args) == 3 {
		if delims, err = p.stringArg("search.in", args[2]); err != nil {
			return nil, err
		}
		if delims == "" {
			return nil, p.errAt(args[2].pos, "The delimiters of search.in must not be empty.")
		}
	}
	values := strings.FieldsFunc(list, func(r rune) bool { return strings.ContainsRune(delims, r) })
	return &SearchInExpr{At: at, Field: ref, Values: values}, nil
}

func describeType(ref *FieldRef) string {
	if ref.Field.Collection && !ref.Element {
		return "Collection(" + ref.Field.Type + ")"
	}
	return ref.Field.Type
}

func (p *filterParser) isMatch() (FilterExpr, error) {
	at := p.tok.pos
	name := p.tok.text
	if len(p.scopes) > 0 {
		return nil, p.errAt(at, "The function %s has no parameters bound to the range variable '%s'. Only bound field references are supported inside lambda expressions ('any' or 'all'). However, you can change your filter so that the %s function is outside the lambda expression and try again.", strings.TrimPrefix(name, "search."), p.scopes[len(p.scopes)-1].name, strings.TrimPrefix(name, "search."))
	}
	args, err := p.args(name, 1, 4)
	if err != nil {
		return nil, err
	}
	strs := make([]string, len(args))
	for i, a := range args {
		if strs[i], err = p.stringArg(name, a); err != nil {
			return nil, err
		}
	}
	m := &IsMatchExpr{At: at, Scoring: name == "search.ismatchscoring", Text: strs[0]}
	if len(strs) > 1 && strings.TrimSpace(strs[1]) != "" {
		m.Fields, err = ParseSearchFields(strs[1], p.schema)
		if err != nil {
			return nil, p.errAt(args[1].pos, "%s", syntaxMessage(err))
		}
	}
	if len(strs) > 2 {
		switch strings.ToLower(strs[2]) {
		case "simple":
		case "full":
			m.Full = true
		default:
			return nil, p.errAt(args[2].pos, "The query type '%s' of %s is not valid; expected 'simple' or 'full'.", strs[2], name)
		}
	}
	if len(strs) > 3 {
		if m.Mode, err = ParseSearchMode(strs[3]); err != nil {
			return nil, p.errAt(args[3].pos, "The search mode '%s' of %s is not valid; expected 'any' or 'all'.", strs[3], name)
		}
	}
	if m.Full {
		m.Node, err = ParseLucene(m.Text, m.Mode)
		if err != nil {
			return nil, p.errAt(args[0].pos, "The query '%s' of %s is not valid Lucene syntax: %s", m.Text, name, syntaxMessage(err))
		}
	} else {
		m.Node = ParseSimple(m.Text, m.Mode)
	}
	m.Query, err = TranslateSearch(m.Node, SearchOptions{Schema: p.schema, Fields: m.Fields, Mode: m.Mode})
	if err != nil {
		return nil, p.errAt(args[0].pos, "%s", syntaxMessage(err))
	}
	if m.Scoring {
		p.f.Scoring = append(p.f.Scoring, m.Query)
	}
	return m, nil
}

func (p *filterParser) geoField(name string, o operand) (*FieldRef, error) {
	ref, err := p.fieldArg(name, o)
	if err != nil {
		return nil, err
	}
	if ref.Field.Type != TypeGeographyPoint || ref.Field.Collection && !ref.Element {
		return nil, p.errAt(o.pos, "The first argument of %s must be a field of type Edm.GeographyPoint; '%s' is %s.", name, ref.Path, describeType(ref))
	}
	return ref, nil
}

func (p *filterParser) geoDistance() (*GeoDistanceExpr, error) {
	at := p.tok.pos
	args, err := p.args("geo.distance", 2, 2)
	if err != nil {
		return nil, err
	}
	if args[0].lit != nil && args[1].field != nil {
		args[0], args[1] = args[1], args[0]
	}
	ref, err := p.geoField("geo.distance", args[0])
	if err != nil {
		return nil, err
	}
	if args[1].lit == nil || args[1].lit.Kind != LitPoint {
		return nil, p.errAt(args[1].pos, "The second argument of geo.distance must be a geography'POINT(lon lat)' literal.")
	}
	return &GeoDistanceExpr{At: at, Field: ref, Point: args[1].lit.Point}, nil
}

func (p *filterParser) geoIntersects() (FilterExpr, error) {
	at := p.tok.pos
	args, err := p.args("geo.intersects", 2, 2)
	if err != nil {
		return nil, err
	}
	ref, err := p.geoField("geo.intersects", args[0])
	if err != nil {
		return nil, err
	}
	if args[1].lit == nil || args[1].lit.Kind != LitPolygon {
		return nil, p.errAt(args[1].pos, "The second argument of geo.intersects must be a geography'POLYGON((...))' literal.")
	}
	return &GeoIntersectsExpr{At: at, Field: ref, Polygon: args[1].lit.Polygon}, nil
}
