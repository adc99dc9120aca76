package query

import (
	"errors"
	"strings"
)

// OrderKind says what an $orderby clause sorts by.
type OrderKind int

const (
	OrderField OrderKind = iota
	OrderScore
	OrderGeoDistance
)

// OrderClause is one comma-separated part of $orderby.
type OrderClause struct {
	At    int
	Kind  OrderKind
	Path  string   // OrderField and OrderGeoDistance: the field
	Point GeoPoint // OrderGeoDistance: the reference point
	Desc  bool
}

// maxOrderByClauses is Azure's limit on $orderby clauses.
const maxOrderByClauses = 32

// ParseOrderBy parses $orderby: field paths, search.score() and
// geo.distance(field, geography'POINT(lon lat)'), each optionally followed
// by asc or desc. Fields must be sortable; geo.distance needs a filterable
// Edm.GeographyPoint field, as Azure requires.
func ParseOrderBy(text string, schema Schema) ([]OrderClause, error) {
	p := &filterParser{s: text, schema: schema, f: &Filter{Text: text}}
	fail := func(err error) ([]OrderClause, error) {
		var se *SyntaxError
		if errors.As(err, &se) {
			se.Param = ParamOrderBy
		}
		return nil, err
	}
	if err := p.advance(); err != nil {
		return fail(err)
	}
	var out []OrderClause
	for {
		c := OrderClause{At: p.tok.pos}
		switch {
		case p.isWord("search.score"):
			if _, err := p.args("search.score", 0, 0); err != nil {
				return fail(err)
			}
			c.Kind = OrderScore
		case p.isWord("geo.distance"):
			g, err := p.geoDistance()
			if err != nil {
				return fail(err)
			}
			c.Kind, c.Path, c.Point = OrderGeoDistance, g.Field.Path, g.Point
		case p.tok.kind == tIdent && !strings.Contains(p.tok.text, "."):
			segs := []string{p.tok.text}
			if err := p.advance(); err != nil {
				return fail(err)
			}
			for p.tok.kind == tSlash {
				if err := p.advance(); err != nil {
					return fail(err)
				}
				if p.tok.kind != tIdent {
					return fail(p.syntaxAt(p.tok.pos))
				}
				segs = append(segs, p.tok.text)
				if err := p.advance(); err != nil {
					return fail(err)
				}
			}
			path := strings.Join(segs, "/")
			f, ok := schema.Field(path)
			if !ok {
				return fail(errorf(ParamOrderBy, c.At, "Could not find a property named '%s' on type 'search.document'.", segs[len(segs)-1]))
			}
			if !f.Sortable || f.Collection || f.Type == TypeComplex {
				return fail(errorf(ParamOrderBy, c.At, "The field '%s' is not sortable. Only sortable fields can be used in $orderby.", path))
			}
			c.Kind, c.Path = OrderField, path
		default:
			return fail(p.syntaxAt(p.tok.pos))
		}
		switch {
		case p.isWord("asc"):
			if err := p.advance(); err != nil {
				return fail(err)
			}
		case p.isWord("desc"):
			c.Desc = true
			if err := p.advance(); err != nil {
				return fail(err)
			}
		}
		out = append(out, c)
		if len(out) > maxOrderByClauses {
			return fail(errorf(ParamOrderBy, c.At, "$orderby may have at most %d clauses.", maxOrderByClauses))
		}
		if p.tok.kind == tEOF {
			return out, nil
		}
		if err := p.expect(tComma); err != nil {
			return fail(err)
		}
	}
}

// ParseSelect parses $select: "*" (or empty) for every retrievable field,
// otherwise comma-separated field paths that must exist. Retrievability is
// the search layer's to apply. A nil result means all fields.
func ParseSelect(text string, schema Schema) ([]string, error) {
	t := strings.TrimSpace(text)
	if t == "" || t == "*" {
		return nil, nil
	}
	var out []string
	pos := 0
	for _, part := range strings.Split(text, ",") {
		name := strings.TrimSpace(part)
		if name == "" {
			return nil, errorf(ParamSelect, pos, "Syntax error at position %d in '%s'.", pos, text)
		}
		if _, ok := schema.Field(name); !ok {
			seg := name[strings.LastIndexByte(name, '/')+1:]
			return nil, errorf(ParamSelect, pos, "Could not find a property named '%s' on type 'search.document'.", seg)
		}
		out = append(out, name)
		pos += len(part) + 1
	}
	return out, nil
}
