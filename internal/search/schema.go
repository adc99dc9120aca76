package search

import (
	"strings"

	"github.com/cerulean-db/cerulean/internal/search/query"
)

// indexSchema is an index's fields as the query package sees them.
type indexSchema struct {
	fields     map[string]query.Field
	byPath     map[string]*Field
	searchable []string
}

func newSchema(ix *Index) *indexSchema {
	s := &indexSchema{fields: map[string]query.Field{}, byPath: map[string]*Field{}}
	var walk func(prefix string, fs []*Field)
	walk = func(prefix string, fs []*Field) {
		for _, f := range fs {
			path := prefix + f.Name
			s.byPath[path] = f
			s.fields[path] = query.Field{
				Path: path, Type: f.ElementType, Collection: f.Collection, Searchable: f.Searchable && !f.IsVector(),
				Filterable: f.Filterable, Sortable: f.Sortable, Facetable: f.Facetable, Analyzer: searchAnalyzerOf(f),
			}
			if f.Searchable && f.ElementType == "Edm.String" {
				s.searchable = append(s.searchable, path)
			}
			walk(path+"/", f.Fields)
		}
	}
	walk("", ix.Fields)
	return s
}

func (s *indexSchema) Field(path string) (query.Field, bool) {
	f, ok := s.fields[path]
	return f, ok
}

func (s *indexSchema) SearchableFields() []string { return s.searchable }

func searchAnalyzerOf(f *Field) string {
	switch {
	case f.SearchAnalyzer != "":
		return f.SearchAnalyzer
	case f.Analyzer != "":
		return f.Analyzer
	}
	return "standard.lucene"
}

// valuesAt collects the values at a field path of a document, flattening
// collections along the way (a path under a complex collection yields
// every element's value).
func valuesAt(doc map[string]any, path string) []any {
	cur := []any{doc}
	for _, seg := range strings.Split(path, "/") {
		var next []any
		for _, c := range cur {
			m, ok := c.(map[string]any)
			if !ok {
				continue
			}
			switch v := m[seg].(type) {
			case nil:
			case []any:
				next = append(next, v...)
			default:
				next = append(next, v)
			}
		}
		cur = next
	}
	return cur
}
