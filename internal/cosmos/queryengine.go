package cosmos

import (
	"errors"

	"github.com/cerulean-db/cerulean/internal/cosmos/query"
)

// engineQuery adapts package query to the gateway.
type engineQuery struct {
	q *query.Query
	s *query.Shape
}

// compileQuery parses a query; a syntax error is 400 BadRequest with the
// engine's message.
func compileQuery(text string) (compiledQuery, error) {
	q, err := query.Parse(text)
	if err != nil {
		return nil, queryError(err)
	}
	return engineQuery{q: q, s: q.Shape()}, nil
}

func (e engineQuery) shape() *query.Shape { return e.s }

func (e engineQuery) run(docs []map[string]any, params map[string]any, udfs query.UDFs) ([]any, error) {
	res, err := e.q.RunWith(docs, params, query.Options{UDFs: udfs})
	if err != nil {
		return nil, queryError(err)
	}
	return res, nil
}

// queryError maps a query failure: a user-defined function's own failure
// (a script error, a timeout) as that, any other as 400 BadRequest.
func queryError(err error) error {
	var qe *query.Error
	if errors.As(err, &qe) {
		if cause := qe.Unwrap(); cause != nil {
			return cause
		}
		return badRequest("%s", qe.Error())
	}
	return err
}
