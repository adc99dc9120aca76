package query

import (
	"math"
)

// env is one row of bindings (FROM aliases to values), chained to the row
// of the enclosing query for correlated subqueries. When a projection is
// evaluated over a group, group holds the group's rows and the env's own
// bindings are those of the group's first row.
type env struct {
	names []string
	vals  []any
	outer *env
	run   *runContext
	group []*env
}

// lookup resolves an identifier through the chain of rows.
func (e *env) lookup(name string) (any, bool) {
	for x := e; x != nil; x = x.outer {
		for i, n := range x.names {
			if n == name {
				return x.vals[i], true
			}
		}
	}
	return nil, false
}

// bind returns a new row extending e with one more binding.
func (e *env) bind(name string, v any) *env {
	n := &env{outer: e.outer, run: e.run}
	n.names = append(append(make([]string, 0, len(e.names)+1), e.names...), name)
	n.vals = append(append(make([]any, 0, len(e.vals)+1), e.vals...), v)
	return n
}

// eval evaluates x in row e. It never returns nil for a missing value:
// a missing value is undefined.
func eval(x expr, e *env) any {
	switch x := x.(type) {
	case *literalExpr:
		return x.v
	case *paramExpr:
		return e.run.param(x.name)
	case *identExpr:
		v, ok := e.lookup(x.name)
		if !ok {
			failf("Identifier '%s' could not be resolved", x.name)
		}
		return v
	case *propertyExpr:
		target := eval(x.target, e)
		if x.index == nil {
			return member(target, x.name)
		}
		return index(target, eval(x.index, e))
	case *objectExpr:
		obj := make(map[string]any, len(x.keys))
		for i, k := range x.keys {
			if v := eval(x.vals[i], e); !isUndefined(v) {
				obj[k] = v
			}
		}
		return obj
	case *arrayExpr:
		arr := make([]any, 0, len(x.elems))
		for _, el := range x.elems {
			if v := eval(el, e); !isUndefined(v) {
				arr = append(arr, v)
			}
		}
		return arr
	case *unaryExpr:
		return evalUnary(x.op, eval(x.operand, e))
	case *binaryExpr:
		return evalBinary(x, e)
	case *inExpr:
		return evalIn(x, e)
	case *betweenExpr:
		v := eval(x.e, e)
		r := and(compare(">=", v, eval(x.lo, e)), compare("<=", v, eval(x.hi, e)))
		if x.not {
			return not(r)
		}
		return r
	case *likeExpr:
		return evalLike(x, e)
	case *ternaryExpr:
		if eval(x.cond, e) == true {
			return eval(x.then, e)
		}
		return eval(x.els, e)
	case *callExpr:
		return evalCall(x, e)
	case *subqueryExpr:
		results := execSelect(x.sel, e)
		switch x.kind {
		case "EXISTS":
			return len(results) > 0
		case "ARRAY":
			return results
		}
		if len(results) == 0 {
			return undefined
		}
		return results[0]
	}
	failf("unsupported expression %q", x.source())
	return nil
}

func member(target any, name string) any {
	if obj, ok := target.(map[string]any); ok {
		if v, ok := obj[name]; ok {
			return v
		}
	}
	return undefined
}

func index(target, idx any) any {
	switch t := target.(type) {
	case []any:
		if f, ok := toNumber(idx); ok && f == math.Trunc(f) && f >= 0 && f < float64(len(t)) {
			return t[int(f)]
		}
	case map[string]any:
		if s, ok := idx.(string); ok {
			if v, ok := t[s]; ok {
				return v
			}
		}
	}
	return undefined
}

func evalUnary(op string, v any) any {
	if op == "NOT" {
		return not(v)
	}
	f, ok := toNumber(v)
	if !ok {
		return undefined
	}
	switch op {
	case "-":
		return -f
	case "+":
		return f
	case "~":
		return float64(^int64(f))
	}
	return undefined
}

// Three-valued logic: operands other than true and false are undefined.

func not(v any) any {
	if b, ok := v.(bool); ok {
		return !b
	}
	return undefined
}

func and(l, r any) any {
	if l == false || r == false {
		return false
	}
	if l == true && r == true {
		return true
	}
	return undefined
}

func or(l, r any) any {
	if l == true || r == true {
		return true
	}
	if l == false && r == false {
		return false
	}
	return undefined
}

func evalBinary(x *binaryExpr, e *env) any {
	switch x.op {
	case "AND":
		l := eval(x.left, e)
		if l == false {
			return false
		}
		return and(l, eval(x.right, e))
	case "OR":
		l := eval(x.left, e)
		if l == true {
			return true
		}
		return or(l, eval(x.right, e))
	case "??":
		if l := eval(x.left, e); !isUndefined(l) {
			return l
		}
		return eval(x.right, e)
	}
	l, r := eval(x.left, e), eval(x.right, e)
	switch x.op {
	case "=", "!=", "<", "<=", ">", ">=":
		return compare(x.op, l, r)
	case "||":
		ls, ok1 := l.(string)
		rs, ok2 := r.(string)
		if ok1 && ok2 {
			return ls + rs
		}
		return undefined
	}
	a, ok1 := toNumber(l)
	b, ok2 := toNumber(r)
	if !ok1 || !ok2 {
		return undefined
	}
	switch x.op {
	case "+":
		return number(a + b)
	case "-":
		return number(a - b)
	case "*":
		return number(a * b)
	case "/":
		return number(a / b)
	case "%":
		return number(math.Mod(a, b))
	case "&":
		return float64(toInt(a) & toInt(b))
	case "|":
		return float64(toInt(a) | toInt(b))
	case "^":
		return float64(toInt(a) ^ toInt(b))
	case "<<":
		return float64(toInt(a) << (uint64(toInt(b)) & 63))
	case ">>":
		return float64(toInt(a) >> (uint64(toInt(b)) & 63))
	case ">>>":
		return float64(uint64(toInt(a)) >> (uint64(toInt(b)) & 63))
	}
	return undefined
}

// toInt truncates a float to int64, saturating out-of-range values.
func toInt(f float64) int64 {
	switch {
	case math.IsNaN(f):
		return 0
	case f >= math.MaxInt64:
		return math.MaxInt64
	case f <= math.MinInt64:
		return math.MinInt64
	}
	return int64(f)
}

// compare applies a comparison operator with Cosmos semantics: operands
// of different types, undefined operands, and ordering comparisons of
// arrays or objects all yield undefined.
func compare(op string, l, r any) any {
	rl, rr := rank(l), rank(r)
	if rl != rr || rl == rankUndefined {
		return undefined
	}
	c := compareSameRank(l, r, rl)
	switch op {
	case "=":
		return c == 0
	case "!=":
		return c != 0
	}
	if rl == rankArray || rl == rankObject {
		return undefined
	}
	switch op {
	case "<":
		return c < 0
	case "<=":
		return c <= 0
	case ">":
		return c > 0
	case ">=":
		return c >= 0
	}
	return undefined
}

func evalIn(x *inExpr, e *env) any {
	v := eval(x.e, e)
	if isUndefined(v) {
		return undefined
	}
	found := false
	for _, item := range x.list {
		if eq, ok := equalValues(v, eval(item, e)); ok && eq {
			found = true
			break
		}
	}
	return found != x.not
}

func evalLike(x *likeExpr, e *env) any {
	s, ok1 := eval(x.e, e).(string)
	pat, ok2 := eval(x.pattern, e).(string)
	if !ok1 || !ok2 {
		return undefined
	}
	var esc rune = -1
	if x.escape != nil {
		es, ok := eval(x.escape, e).(string)
		if !ok || len([]rune(es)) != 1 {
			failf("the ESCAPE clause of LIKE requires a single character")
		}
		esc = []rune(es)[0]
	}
	return likeMatch([]rune(s), []rune(pat), esc) != x.not
}

// likeMatch implements LIKE: % matches any run of characters, _ exactly
// one, [abc] / [a-z] / [^a] a character class, and esc quotes the next
// pattern character.
func likeMatch(s, p []rune, esc rune) bool {
	// Iterative matching with backtracking to the last %.
	si, pi := 0, 0
	starP, starS := -1, 0
	for si < len(s) {
		if pi < len(p) {
			c := p[pi]
			switch {
			case c == esc && pi+1 < len(p):
				if s[si] == p[pi+1] {
					si++
					pi += 2
					continue
				}
			case c == '%':
				starP, starS = pi, si
				pi++
				continue
			case c == '_':
				si++
				pi++
				continue
			case c == '[':
				if n, ok := matchClass(p[pi:], s[si]); n > 0 {
					if ok {
						si++
						pi += n
						continue
					}
				} else if s[si] == '[' {
					si++
					pi++
					continue
				}
			default:
				if s[si] == c {
					si++
					pi++
					continue
				}
			}
		}
		if starP < 0 {
			return false
		}
		starS++
		si, pi = starS, starP+1
	}
	for pi < len(p) && p[pi] == '%' {
		pi++
	}
	return pi == len(p)
}

// matchClass matches r against the character class at the start of p
// ("[...]"). It returns the class's length (0 if p has no closing ']')
// and whether r is in the class.
func matchClass(p []rune, r rune) (int, bool) {
	end := -1
	for i := 2; i < len(p); i++ {
		if p[i] == ']' {
			end = i
			break
		}
	}
	if end < 0 {
		return 0, false
	}
	body := p[1:end]
	negate := len(body) > 0 && body[0] == '^'
	if negate {
		body = body[1:]
	}
	in := false
	for i := 0; i < len(body); i++ {
		if i+2 < len(body) && body[i+1] == '-' {
			if r >= body[i] && r <= body[i+2] {
				in = true
			}
			i += 2
			continue
		}
		if body[i] == r {
			in = true
		}
	}
	return end + 1, in != negate
}

func evalCall(x *callExpr, e *env) any {
	if x.udf {
		return evalUDF(x, e)
	}
	if agg, ok := aggregates[x.name]; ok {
		if e.group == nil {
			failf("aggregate function %s is not allowed in this context", x.name)
		}
		vals := make([]any, 0, len(e.group))
		for _, row := range e.group {
			if v := eval(x.args[0], row); !isUndefined(v) {
				vals = append(vals, v)
			}
		}
		return agg(vals)
	}
	fn, ok := functions[x.name]
	if !ok {
		failf("%q is not a recognized built-in function name", x.name)
	}
	if len(x.args) < fn.minArgs || (fn.maxArgs >= 0 && len(x.args) > fn.maxArgs) {
		failf("the %s function requires %s argument(s), found %d", x.name, fn.arity(), len(x.args))
	}
	args := make([]any, len(x.args))
	for i, a := range x.args {
		args[i] = eval(a, e)
	}
	return fn.call(e.run, args)
}

// evalUDF calls a user-defined function through the run's UDFs.
func evalUDF(x *callExpr, e *env) any {
	udfs := e.run.udfs
	if udfs == nil {
		failf("user-defined function 'udf.%s' is not supported here", x.name)
	}
	args := make([]any, len(x.args))
	for i, a := range x.args {
		if v := eval(a, e); !isUndefined(v) {
			args[i] = v
		}
	}
	v, err := udfs.CallUDF(x.name, args)
	if err != nil {
		panic(runtimeError{&Error{Message: err.Error(), cause: err}})
	}
	return v
}
