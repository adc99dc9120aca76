package query

// The abstract syntax tree. Every expression node records its source text
// (src) so that Plan can report ORDER BY and GROUP BY expressions as the
// SDKs expect them.

// selectStmt is one SELECT, either the whole query or a subquery.
type selectStmt struct {
	distinct bool
	top      *limitArg
	star     bool // SELECT *
	value    expr // SELECT VALUE expr; nil otherwise
	items    []selectItem
	from     *fromClause // nil for SELECT without FROM
	where    expr
	groupBy  []expr
	orderBy  []orderItem
	offset   *limitArg
	limit    *limitArg

	// aggregate is true when the projection (or ORDER BY) calls an
	// aggregate function outside any subquery: the rows then collapse
	// into groups (one group when there is no GROUP BY).
	aggregate bool
}

// limitArg is the operand of TOP, OFFSET and LIMIT: a literal or a
// parameter.
type limitArg struct {
	n     int
	param string // parameter name without '@'; empty for a literal
}

type selectItem struct {
	e    expr
	name string // output property name (alias or derived); "" until numbered
}

type orderItem struct {
	e    expr
	desc bool
}

// fromClause is the first FROM source plus its JOINs.
type fromClause struct {
	sources []*fromSource
}

// fromSource binds alias to each value produced by the source: with in
// set, to each element of the array e evaluates to ("alias IN e"), else to
// the value of e itself ("e AS alias"). A subquery source binds to each of
// its results.
type fromSource struct {
	alias string
	e     expr // path expression rooted at an identifier, or a *subqueryExpr
	in    bool
}

type expr interface{ source() string }

type exprBase struct{ src string }

func (b exprBase) source() string { return b.src }

type (
	literalExpr struct {
		exprBase
		v any // JSON value or undefinedValue
	}
	paramExpr struct {
		exprBase
		name string // without '@'
	}
	identExpr struct {
		exprBase
		name string
		pos  int // byte offset in the query text, for error messages
	}
	// propertyExpr is a.b, a["b"] or a[0], a[expr].
	propertyExpr struct {
		exprBase
		target expr
		name   string // constant property name (a.b, a["b"])
		index  expr   // non-nil for a[expr] when not a string literal
	}
	objectExpr struct {
		exprBase
		keys []string
		vals []expr
	}
	arrayExpr struct {
		exprBase
		elems []expr
	}
	unaryExpr struct {
		exprBase
		op      string // "-", "+", "~", "NOT"
		operand expr
	}
	binaryExpr struct {
		exprBase
		op          string
		left, right expr
	}
	inExpr struct {
		exprBase
		e    expr
		list []expr
		not  bool
	}
	betweenExpr struct {
		exprBase
		e, lo, hi expr
		not       bool
	}
	likeExpr struct {
		exprBase
		e, pattern, escape expr
		not                bool
	}
	ternaryExpr struct {
		exprBase
		cond, then, els expr
	}
	callExpr struct {
		exprBase
		name string // upper-cased
		args []expr
		udf  bool
	}
	// subqueryExpr is (SELECT ...), EXISTS(SELECT ...) or ARRAY(SELECT ...).
	subqueryExpr struct {
		exprBase
		kind string // "SCALAR", "EXISTS", "ARRAY"
		sel  *selectStmt
	}
)
