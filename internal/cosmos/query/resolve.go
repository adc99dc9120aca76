package query

import "slices"

// resolveSelect checks, before any document is seen, that every
// identifier names an alias in scope: the FROM aliases of its own SELECT
// or of an enclosing one (correlated subqueries). outer is the enclosing
// scope. The first FROM source's root identifier names the container, so
// any name is accepted there unless it is an enclosing alias.
func resolveSelect(text string, sel *selectStmt, outer []string) *Error {
	scope := slices.Clone(outer)
	if sel.from != nil {
		for i, src := range sel.from.sources {
			switch {
			case isSubquery(src.e):
				// A FROM subquery sees the enclosing scope; a JOIN subquery
				// also sees the aliases bound before it.
				if err := resolveSelect(text, src.e.(*subqueryExpr).sel, scope); err != nil {
					return err
				}
			case i == 0:
				if err := resolveExprs(text, scope, pathIndexes(src.e)...); err != nil {
					return err
				}
			default:
				if err := resolveExprs(text, scope, src.e); err != nil {
					return err
				}
			}
			scope = append(scope, src.alias)
		}
	}
	exprs := []expr{sel.value, sel.where}
	for _, it := range sel.items {
		exprs = append(exprs, it.e)
	}
	exprs = append(exprs, sel.groupBy...)
	for _, it := range sel.orderBy {
		exprs = append(exprs, it.e)
	}
	return resolveExprs(text, scope, exprs...)
}

func isSubquery(e expr) bool {
	_, ok := e.(*subqueryExpr)
	return ok
}

// pathIndexes returns the computed index operands of a FROM path, the
// only parts of the first source that are evaluated as expressions.
func pathIndexes(e expr) []expr {
	var out []expr
	for {
		p, ok := e.(*propertyExpr)
		if !ok {
			return out
		}
		if p.index != nil {
			out = append(out, p.index)
		}
		e = p.target
	}
}

func resolveExprs(text string, scope []string, exprs ...expr) *Error {
	var err *Error
	for _, e := range exprs {
		walk(e, func(x expr) {
			if err != nil {
				return
			}
			switch x := x.(type) {
			case *identExpr:
				if !slices.Contains(scope, x.name) {
					err = semanticErrorf(text, x.pos, "Identifier '%s' could not be resolved", x.name)
				}
			case *subqueryExpr:
				err = resolveSelect(text, x.sel, scope)
			}
		})
		if err != nil {
			return err
		}
	}
	return nil
}
