package search

import (
	"fmt"
	"net/http"
)

// Error is an Azure AI Search error: an HTTP status and the body
// {"error":{"code":…,"message":…,"details":[…]}}. Domain operations return
// it (or the kv store's errors) and the handler writes it as is.
type Error struct {
	Status  int
	Code    string
	Message string
	// Details are the inner errors Azure lists for some failures (a
	// refused index update names CannotChangeExistingField).
	Details []ErrorDetail
	// requestInvalid marks Azure's "The request is invalid." answers to a
	// body it could not accept, which alone among errors carry
	// Preference-Applied.
	requestInvalid bool
}

// ErrorDetail is one entry of an error's details.
type ErrorDetail struct {
	Code    string `json:"code"`
	Message string `json:"message"`
}

func (e *Error) Error() string {
	if e.Code == "" {
		return e.Message
	}
	return e.Code + ": " + e.Message
}

// Is matches an *Error with the same status and code, so that an error
// with its own message still matches its sentinel (errors.Is(err,
// ErrNotFound)).
func (e *Error) Is(target error) bool {
	t, ok := target.(*Error)
	return ok && t.Status == e.Status && t.Code == e.Code
}

// Sentinels to match domain errors against with errors.Is. The real
// service leaves the code empty for most failures, so the status is what
// tells them apart.
var (
	// ErrBadRequest: the definition or a parameter is invalid.
	ErrBadRequest = &Error{Status: http.StatusBadRequest}
	// ErrNotFound: the resource does not exist.
	ErrNotFound = &Error{Status: http.StatusNotFound}
	// ErrConflict: POST of a resource whose name is taken.
	ErrConflict = &Error{Status: http.StatusConflict, Code: "ResourceNameAlreadyInUse"}
	// ErrPreconditionFailed: an If-Match or If-None-Match condition failed.
	ErrPreconditionFailed = &Error{Status: http.StatusPreconditionFailed}
	// ErrNotAllowed: an index update the service refuses (a changed or
	// removed field; new analysis components without allowIndexDowntime are
	// a plain ErrBadRequest, as Azure answers them).
	ErrNotAllowed = &Error{Status: http.StatusBadRequest, Code: "OperationNotAllowed"}
	// ErrForbidden: the api-key is unknown or may not do this.
	ErrForbidden = &Error{Status: http.StatusForbidden}
	// ErrNotImplemented: a part of the service cerulean does not serve yet.
	ErrNotImplemented = &Error{Status: http.StatusNotImplemented, Code: "NotImplemented"}
)

// invalid is the service's answer to a bad definition: 400 with the
// message "The request is invalid. Details: <where> : <what>".
func invalid(where, format string, args ...any) *Error {
	return &Error{Status: http.StatusBadRequest, Message: "The request is invalid. Details: " + where + " : " + fmt.Sprintf(format, args...), requestInvalid: true}
}

// badRequest is a 400 with a message of its own.
func badRequest(format string, args ...any) *Error {
	return &Error{Status: http.StatusBadRequest, Message: fmt.Sprintf(format, args...)}
}

func notFound(format string, args ...any) *Error {
	return &Error{Status: http.StatusNotFound, Message: fmt.Sprintf(format, args...)}
}

func preconditionFailed() *Error {
	return &Error{Status: http.StatusPreconditionFailed,
		Message: "The precondition given in one of the request headers evaluated to false. No change was made to the resource from this request."}
}

// detailed is an error whose one detail repeats its message under a code
// of its own, the form of most of Azure's coded Search errors.
func detailed(status int, code, detail, msg string) *Error {
	return &Error{Status: status, Code: code, Message: msg, Details: []ErrorDetail{{Code: detail, Message: msg}}}
}

// invalidDetailed is Azure's coded refusal of a request part: 400 code,
// "The request is invalid. Details: <param> : <msg>", and detail
// "<msg> Parameters: <param>". Unlike invalid's uncoded answers, these
// carry no Preference-Applied (the recordings that show them).
func invalidDetailed(code, detail, param, msg string) *Error {
	return &Error{Status: http.StatusBadRequest, Code: code, Message: "The request is invalid. Details: " + param + " : " + msg,
		Details: []ErrorDetail{{Code: detail, Message: msg + " Parameters: " + param}}}
}

// cannotChange is Azure's refusal of an index update that would change
// or drop an existing field.
func cannotChange(field string) *Error {
	return detailed(http.StatusBadRequest, "OperationNotAllowed", "CannotChangeExistingField", fmt.Sprintf("Existing field '%s' cannot be changed.", field))
}

// needsDowntime refuses new analysis components on an existing index
// unless the caller allowed the index to go offline: a 400 with no code
// (the Java SDK's recording
// CustomAnalyzerTests.addingCustomAnalyzerThrowsHttpExceptionByDefaultSync).
func needsDowntime() *Error {
	return &Error{Status: http.StatusBadRequest,
		Message: "Index update not allowed because it would cause downtime. In order to add new analyzers, tokenizers, token filters, or character filters to an existing index, set the 'allowIndexDowntime' query parameter to 'true' in the index update request. Note that this operation will put your index offline for at least a few seconds, causing your indexing and query requests to fail. Performance and write availability of the index can be impaired for several minutes after the index is updated, or longer for very large indexes."}
}

// NotImplemented answers a request for something cerulean does not serve
// yet, naming it.
func NotImplemented(what string) *Error {
	return &Error{Status: http.StatusNotImplemented, Code: "NotImplemented", Message: what + " is not supported by cerulean yet."}
}
