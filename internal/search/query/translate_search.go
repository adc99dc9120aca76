package query

import (
	"strings"

	"github.com/blevesearch/bleve/v2/search/query"
)

// SearchOptions are the request parameters that shape a search's bleve
// query besides its text.
type SearchOptions struct {
	Schema Schema
	// Fields restricts unfielded terms to these searchable field paths
	// (searchFields); empty means every searchable field.
	Fields []string
	Mode   SearchMode
}

// ParseSearchFields reads the searchFields parameter (comma-separated field
// paths) and checks that each is a searchable field.
func ParseSearchFields(s string, schema Schema) ([]string, error) {
	var out []string
	pos := 0
	for _, part := range strings.Split(s, ",") {
		name := strings.TrimSpace(part)
		if name == "" {
			return nil, errorf(ParamSearchFields, pos, "The field list '%s' has an empty field name.", s)
		}
		if err := checkSearchable(name, schema, ParamSearchFields, pos); err != nil {
			return nil, err
		}
		out = append(out, name)
		pos += len(part) + 1
	}
	return out, nil
}

func checkSearchable(path string, schema Schema, param string, pos int) error {
	f, ok := schema.Field(path)
	if !ok {
		return errorf(param, pos, "Unknown field '%s' in the search field list.", path)
	}
	if !f.Searchable {
		return errorf(param, pos, "The field '%s' in the search field list is not searchable.", path)
	}
	return nil
}

// ParseSearch parses search text in the syntax the queryType parameter
// names ("simple", the default, or "full").
func ParseSearch(text, queryType string, mode SearchMode) (SearchNode, error) {
	switch strings.ToLower(queryType) {
	case "", "simple":
		return ParseSimple(text, mode), nil
	case "full":
		return ParseLucene(text, mode)
	case "semantic":
		return nil, errorf("queryType", 0, "queryType 'semantic' is not supported by this server.")
	}
	return nil, errorf("queryType", 0, "The value '%s' is not a valid queryType; expected 'simple' or 'full'.", queryType)
}

// TranslateSearch turns a parsed search into a bleve query. Unfielded terms
// search opts.Fields (or every searchable field) through the field's own
// analyzer in the bleve mapping (FieldName); a fielded term's field must be
// searchable. Prefix, wildcard and fuzzy terms are not analyzed, only
// lowercased, as Azure does; regular expressions are used as given (Go
// RE2 syntax, matched against whole terms).
//
// Proximity ("a b"~n with n > 0) needs positional slop, which bleve's query
// API does not offer: it is answered as all of the phrase's terms in the
// field, a superset of the Lucene result.
func TranslateSearch(n SearchNode, opts SearchOptions) (query.Query, error) {
	t := searchTranslator{opts: opts}
	if len(opts.Fields) > 0 {
		t.fields = opts.Fields
	} else {
		t.fields = opts.Schema.SearchableFields()
	}
	return t.node(n)
}

type searchTranslator struct {
	opts   SearchOptions
	fields []string
}

func (t *searchTranslator) node(n SearchNode) (query.Query, error) {
	switch n := n.(type) {
	case *MatchAllNode:
		return query.NewMatchAllQuery(), nil
	case *NotNode:
		child, err := t.node(n.Child)
		if err != nil {
			return nil, err
		}
		return query.NewBooleanQuery([]query.Query{query.NewMatchAllQuery()}, nil, []query.Query{child}), nil
	case *BoolNode:
		return t.boolean(n)
	case *TermNode:
		return t.leaf(n.Leaf, func(field string) query.Query { return onField(query.NewMatchQuery(n.Text), field) })
	case *PhraseNode:
		return t.leaf(n.Leaf, func(field string) query.Query {
			if n.Slop > 0 {
				q := query.NewMatchQuery(n.Text)
				q.SetOperator(query.MatchQueryOperatorAnd)
				return onField(q, field)
			}
			return onField(query.NewMatchPhraseQuery(n.Text), field)
		})
	case *PrefixNode:
		return t.leaf(n.Leaf, func(field string) query.Query {
			return onField(query.NewPrefixQuery(strings.ToLower(n.Prefix)), field)
		})
	case *WildcardNode:
		return t.leaf(n.Leaf, func(field string) query.Query {
			return onField(query.NewWildcardQuery(strings.ToLower(n.Pattern)), field)
		})
	case *RegexNode:
		return t.leaf(n.Leaf, func(field string) query.Query { return onField(query.NewRegexpQuery(n.Pattern), field) })
	case *FuzzyNode:
		return t.leaf(n.Leaf, func(field string) query.Query {
			q := query.NewFuzzyQuery(strings.ToLower(n.Text))
			q.SetFuzziness(n.Distance)
			return onField(q, field)
		})
	case *RangeNode:
		return t.leaf(n.Leaf, func(field string) query.Query {
			lo, hi := strings.ToLower(n.Lower), strings.ToLower(n.Upper)
			if lo == "" && hi == "" {
				// [* TO *]: any term in the field (bleve refuses a range
				// without bounds).
				return onField(query.NewWildcardQuery("*"), field)
			}
			incLo, incHi := n.IncludeLower, n.IncludeUpper
			return onField(query.NewTermRangeInclusiveQuery(lo, hi, &incLo, &incHi), field)
		})
	}
	return nil, errorf(ParamSearch, n.Pos(), "unsupported query node %T", n)
}

// leaf builds one query per field the leaf searches, OR-ed together.
func (t *searchTranslator) leaf(l Leaf, build func(field string) query.Query) (query.Query, error) {
	fields := t.fields
	if l.Field != "" {
		if err := checkSearchable(l.Field, t.opts.Schema, ParamSearch, l.At); err != nil {
			return nil, err
		}
		fields = []string{l.Field}
	}
	if len(fields) == 0 {
		return query.NewMatchNoneQuery(), nil
	}
	qs := make([]query.Query, len(fields))
	for i, f := range fields {
		qs[i] = build(FieldName(f))
	}
	var q query.Query
	if len(qs) == 1 {
		q = qs[0]
	} else {
		q = query.NewDisjunctionQuery(qs)
	}
	if l.Boost > 0 {
		if b, ok := q.(query.BoostableQuery); ok {
			b.SetBoost(l.Boost)
		}
	}
	return q, nil
}

// boolean maps Lucene occurs onto a bleve BooleanQuery. Under searchMode=any
// a prohibited clause next to optional ones, with nothing required, becomes
// "or not": Azure documents that "wifi -luxury" then matches documents with
// wifi or without luxury.
func (t *searchTranslator) boolean(b *BoolNode) (query.Query, error) {
	var must, should, mustNot []query.Query
	hasMust, hasShould := false, false
	for _, c := range b.Clauses {
		hasMust = hasMust || c.Occur == Must
		hasShould = hasShould || c.Occur == Should
	}
	orNot := t.opts.Mode == ModeAny && !hasMust && hasShould
	for _, c := range b.Clauses {
		q, err := t.node(c.Node)
		if err != nil {
			return nil, err
		}
		switch {
		case c.Occur == Must:
			must = append(must, q)
		case c.Occur == Should:
			should = append(should, q)
		case orNot:
			should = append(should, query.NewBooleanQuery([]query.Query{query.NewMatchAllQuery()}, nil, []query.Query{q}))
		default:
			mustNot = append(mustNot, q)
		}
	}
	var q query.Query
	switch {
	case len(must) == 0 && len(should) == 0 && len(mustNot) == 0:
		q = query.NewMatchNoneQuery()
	case len(mustNot) == 0 && len(should) == 0 && len(must) == 1:
		q = must[0]
	case len(mustNot) == 0 && len(must) == 0:
		d := query.NewDisjunctionQuery(should)
		d.SetMin(1)
		q = d
	default:
		switch {
		case len(must) == 0 && len(should) == 0:
			must = []query.Query{query.NewMatchAllQuery()}
		case len(must) == 0:
			// bleve drives a BooleanQuery from its must part: with none,
			// at least one optional clause has to match.
			d := query.NewDisjunctionQuery(should)
			d.SetMin(1)
			must, should = []query.Query{d}, nil
		}
		bq := query.NewBooleanQuery(must, should, mustNot)
		q = bq
	}
	if b.Boost > 0 {
		if bq, ok := q.(query.BoostableQuery); ok {
			bq.SetBoost(b.Boost)
		}
	}
	return q, nil
}

// onField sets the field a bleve query searches.
func onField[Q query.FieldableQuery](q Q, field string) Q {
	q.SetField(field)
	return q
}
