// Package query holds Azure AI Search's query languages: the simple and full
// Lucene search syntaxes, OData $filter, $orderby, $select and facet
// expressions. Each parser produces a typed AST whose nodes carry byte
// positions, and a malformed input is a *SyntaxError (errors.Is ErrInvalid),
// which the handler answers with 400.
//
// The translators turn the ASTs into bleve v2 queries against an index whose
// mapping follows the naming contract of [FieldName] and [ExactFieldName],
// described by a [Schema] the resource layer implements. Where bleve cannot
// express a filter exactly (all() lambdas, correlated conditions on complex
// collections, null tests, ne on collections), the translated query is a
// superset and [Filter.Match] is the exact predicate the search layer applies
// to each candidate document.
package query
