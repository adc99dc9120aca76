// Package query is the Cosmos DB for NoSQL query language: a parser and
// an in-memory evaluator over the documents of one container. It knows
// nothing of HTTP, storage or partitions; the Cosmos gateway hands it the
// query text, the parameters and the candidate documents, and gets back
// the full ordered result list (to page as the REST API requires) and the
// Plan for the SDKs' query-plan request.
//
// Files: lexer.go (tokens), parser.go and ast.go (recursive descent into a
// tree that keeps each expression's source text for Plan), resolve.go
// (identifier scoping, checked at parse time), value.go (the value model
// and its total order), eval.go (expressions), run.go (the SELECT
// pipeline), order.go (ORDER BY), aggregate.go (aggregates and GROUP BY),
// functions*.go (built-in functions, one family per file), plan.go.
//
// Pipeline: FROM and JOIN produce rows binding aliases to values; WHERE
// keeps rows whose condition is exactly true; an aggregate query
// collapses rows into groups (one group when there is no GROUP BY);
// ORDER BY sorts rows or groups; the projection yields one value per row,
// skipping undefined for SELECT VALUE; then DISTINCT, OFFSET/LIMIT, TOP.
//
// Values are decoded JSON (nil, bool, float64, string, []any,
// map[string]any) plus undefined, the value of a missing property. The
// semantics follow the NoSQL query reference:
//
//   - Comparisons between different types, or with undefined, are
//     undefined, including = and != (as the equality table of the
//     reference says); < <= > >= between arrays or objects are undefined.
//     AND, OR and NOT use three-valued logic in which any non-boolean
//     operand counts as undefined.
//   - Arithmetic is on numbers only (else undefined); || concatenates
//     strings; a result that JSON cannot carry (1/0) is undefined.
//   - A projected property whose value is undefined is omitted, and so is
//     an undefined element of an array constructor; a row whose SELECT
//     VALUE is undefined produces no result.
//   - The cross-type order of ORDER BY, MIN and MAX is undefined < null <
//     false < true < numbers < strings < arrays < objects, so documents
//     missing an ORDER BY property come first in ascending order.
//   - Aggregates skip undefined values; SUM and AVG are undefined if any
//     value is not a number, MIN and MAX if any is an array or object.
//     Without GROUP BY an aggregate query yields one row even over no
//     documents: COUNT and SUM give 0 there, AVG, MIN and MAX undefined
//     (so SELECT VALUE AVG(...) returns []).
//   - GetCurrentDateTime and its kin read one clock value per run; RunAt
//     fixes it for tests.
//
// Errors are *Error. Parse reports syntax errors, unresolved identifiers,
// unknown functions and wrong argument counts with line and column; Run
// reports what depends on the input (an undefined parameter, a bad
// regular expression, a TOP parameter that is not an integer, too many
// JOIN rows).
package query
