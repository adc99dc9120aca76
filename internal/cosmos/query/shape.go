package query

// Shape is the order of the properties of the objects a query builds, as
// its text writes them: a select list's names, an object literal's keys.
// Results are Go maps, which keep no order; whoever encodes them writes
// an object's properties in its Shape's order, the ones the query did
// not name (an object taken from a document) after them.
type Shape struct {
	// Keys are the object's property names in the order written.
	Keys []string
	// Fields are the shapes of the property values the query builds.
	Fields map[string]*Shape
	// Elems are the shapes of an array literal's elements, by position;
	// Elem is the shape of every element (an ARRAY subquery's results).
	Elems []*Shape
	Elem  *Shape
}

// Shape returns the shape of the query's results, nil when they are not
// objects the query builds (SELECT *, SELECT VALUE c, aggregates).
func (q *Query) Shape() *Shape { return selectShape(q.sel) }

func selectShape(sel *selectStmt) *Shape {
	switch {
	case sel.star:
		return nil
	case sel.value != nil:
		return exprShape(sel.value)
	}
	s := &Shape{Keys: make([]string, len(sel.items))}
	for i, it := range sel.items {
		s.Keys[i] = it.name
		s.field(it.name, exprShape(it.e))
	}
	return s
}

func (s *Shape) field(name string, sub *Shape) {
	if sub == nil {
		return
	}
	if s.Fields == nil {
		s.Fields = make(map[string]*Shape)
	}
	s.Fields[name] = sub
}

// exprShape is the shape of the values e evaluates to, when e builds
// them: an object or array literal, or a subquery.
func exprShape(e expr) *Shape {
	switch x := e.(type) {
	case *objectExpr:
		s := &Shape{Keys: x.keys}
		for i, k := range x.keys {
			s.field(k, exprShape(x.vals[i]))
		}
		return s
	case *arrayExpr:
		elems := make([]*Shape, len(x.elems))
		some := false
		for i, el := range x.elems {
			elems[i] = exprShape(el)
			some = some || elems[i] != nil
		}
		if !some {
			return nil
		}
		return &Shape{Elems: elems}
	case *subqueryExpr:
		inner := selectShape(x.sel)
		switch {
		case inner == nil || x.kind == "EXISTS":
			return nil
		case x.kind == "ARRAY":
			return &Shape{Elem: inner}
		}
		return inner
	}
	return nil
}
