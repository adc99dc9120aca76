package query

import (
	"errors"
	"fmt"
)

// ErrInvalid is matched by every error the parsers and type checker return:
// the request is malformed and the answer is 400.
var ErrInvalid = errors.New("invalid query")

// SyntaxError is a malformed or ill-typed query parameter. Param names the
// request parameter ("search", "$filter", "$orderby", "$select", "facet"),
// Pos is the byte offset in the input where the problem was found.
type SyntaxError struct {
	Param string
	Pos   int
	Msg   string
}

// Error is the message the service answers with. A search text that does
// not parse gets Azure's Lucene parser message (1-based column); OData
// parameters get ODataLib's "Invalid expression" form.
func (e *SyntaxError) Error() string {
	if e.Param == ParamSearch {
		return fmt.Sprintf("Failed to parse query string at line 1, column %d. See https://aka.ms/azure-search-full-query for supported syntax.", e.Pos+1)
	}
	return fmt.Sprintf("Invalid expression: %s\r\nParameter name: %s", e.Msg, e.Param)
}

// Request parameter names a SyntaxError can carry.
const (
	ParamSearch       = "search"
	ParamSearchFields = "searchFields"
	ParamFilter       = "$filter"
	ParamOrderBy      = "$orderby"
	ParamSelect       = "$select"
	ParamFacet        = "facet"
)

// Is makes errors.Is(err, ErrInvalid) hold for every SyntaxError.
func (e *SyntaxError) Is(target error) bool { return target == ErrInvalid }

func errorf(param string, pos int, format string, args ...any) *SyntaxError {
	return &SyntaxError{Param: param, Pos: pos, Msg: fmt.Sprintf(format, args...)}
}

// syntaxMessage is the detail of a *SyntaxError, or the error's text.
func syntaxMessage(err error) string {
	var se *SyntaxError
	if errors.As(err, &se) {
		return se.Msg
	}
	return err.Error()
}
