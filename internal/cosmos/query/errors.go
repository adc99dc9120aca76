package query

import "fmt"

// Error is the one error type of this package: a syntax error found by
// Parse or a semantic error found by Run (unknown function, wrong arity,
// undefined parameter, ...). The gateway answers every *Error with 400
// Bad Request and Message as the error text.
type Error struct {
	Message string
	// cause is the error a user-defined function failed with, kept so
	// that the gateway can answer it as the function's own failure (a
	// script that timed out is not a bad query).
	cause error
}

func (e *Error) Error() string { return e.Message }

// Unwrap returns the error a user-defined function failed with, if any.
func (e *Error) Unwrap() error { return e.cause }

// syntaxErrorf builds a syntax error that points at a byte offset of the
// query text, as "line L, column C".
func syntaxErrorf(text string, pos int, format string, args ...any) *Error {
	line, col := position(text, pos)
	return &Error{Message: fmt.Sprintf("syntax error at line %d, column %d: %s", line, col, fmt.Sprintf(format, args...))}
}

// semanticErrorf builds an error for a well-formed query that cannot be
// compiled (unknown identifier or function, wrong argument count).
func semanticErrorf(text string, pos int, format string, args ...any) *Error {
	line, col := position(text, pos)
	return &Error{Message: fmt.Sprintf("%s (at line %d, column %d)", fmt.Sprintf(format, args...), line, col)}
}

// position converts a byte offset into a 1-based line and column.
func position(text string, pos int) (line, col int) {
	line, col = 1, 1
	for i, r := range text {
		if i >= pos {
			break
		}
		if r == '\n' {
			line++
			col = 1
		} else {
			col++
		}
	}
	return line, col
}

// runtimeError is how the evaluator unwinds: evaluation code panics with
// a runtimeError and Query.Run recovers it into a returned *Error. This
// keeps the many small evaluation functions free of error plumbing, the
// way encoding/json and text/template handle deep recursion.
type runtimeError struct{ err *Error }

func failf(format string, args ...any) {
	panic(runtimeError{&Error{Message: fmt.Sprintf(format, args...)}})
}
