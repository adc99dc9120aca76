package azerr

import (
	"fmt"
)

// Error is one Azure Storage error: the HTTP status, the machine-readable
// code SDKs switch on (sent in x-ms-error-code and the body), and a message.
type Error struct {
	Status  int
	Code    string
	Message string
	// Details are Azure's extra elements naming the offending input
	// (HeaderName, QueryParameterName, Reason, …), in document order.
	Details []Detail
}

func (e *Error) Error() string { return e.Code + ": " + e.Message }

// Is reports whether target is an *Error with the same code and status, so a
// WithMessage copy still matches its sentinel. The status takes part because
// ConditionNotMet exists as both 304 (reads) and 412 (writes), and a handler
// asking for one must not be answered by the other.
func (e *Error) Is(target error) bool {
	t, ok := target.(*Error)
	return ok && t.Code == e.Code && t.Status == e.Status
}

// WithMessage returns a copy of e with another message; sentinels stay
// untouched because they are shared by every request.
func (e *Error) WithMessage(format string, args ...any) *Error {
	c := *e
	c.Message = fmt.Sprintf(format, args...)
	return &c
}
