// Package query holds Azure AI Search's query languages: the simple and full
// Lucene search syntaxes, OData $filter, $orderby, $select and facet
// expressions. Each parser produces a typed AST whose nodes carry byte
// positions, and a malformed input is a *SyntaxError (errors.Is ErrInvalid),
// which the handler answers with 400 and err.Error() as the message.
//
// The translators turn the ASTs into bleve v2 queries against an index whose
// mapping follows the naming contract of [FieldName] and [ExactFieldName],
// described by a [Schema] the resource layer implements.
//
// A search request is put together like this:
//
//	mode, err := query.ParseSearchMode(req.SearchMode)
//	node, err := query.ParseSearch(req.Search, req.QueryType, mode)
//	fields, err := query.ParseSearchFields(req.SearchFields, schema) // when given
//	text, err := query.TranslateSearch(node, query.SearchOptions{Schema: schema, Fields: fields, Mode: mode})
//	f, err := query.ParseFilter(req.Filter, schema)                  // when given
//	fq, exact := f.Query()
//	// search text + f.Scoring, and keep only the hits that a separate search
//	// for fq returns (bleve v2.6.3's BooleanQuery.AddFilter leaks a searcher
//	// per query); when !exact, keep only hits whose stored document passes
//	// f.Match(doc, matcher) BEFORE counting, skipping and paging.
//
// Where bleve cannot express a filter exactly (all() lambdas, correlated
// conditions on complex collections, null tests, ne inside any()), the
// translated query is a superset and [Filter.Match] is the exact predicate.
//
// Values handed to bleve must be plain Go values: bleve's geo-point parser
// panics on json.Number, so GeographyPoint values are indexed as
// []float64{lon, lat}, and numbers as float64.
package query
