package script

import (
	"errors"
	"time"
)

// Collection is what getContext().getCollection() reaches: item operations
// inside the script's one transaction, on one logical partition.
//
// Documents cross it as JSON text both ways. A failure of the operation
// itself (not found, conflict, failed precondition, too large, bad input)
// is an error implementing StatusError, which the script sees as a
// callback error it may handle; any other error is the store's and ends
// the execution at once, returned unchanged (wrapped) from the Run call,
// because a script must not be able to swallow a broken transaction.
//
// A Collection is used by one execution at a time, from the goroutine
// that called the Engine.
type Collection interface {
	SelfLink() string // "dbs/<db rid>/colls/<coll rid>/"
	AltLink() string  // "dbs/<db id>/colls/<coll id>"
	CreateDocument(doc []byte, opts DocOptions) ([]byte, error)
	ReadDocument(id string, opts DocOptions) ([]byte, error)
	ReplaceDocument(id string, doc []byte, opts DocOptions) ([]byte, error)
	UpsertDocument(doc []byte, opts DocOptions) ([]byte, error)
	DeleteDocument(id string, opts DocOptions) error
	// QueryDocuments runs Cosmos SQL (params, "@name" → value, may be nil)
	// within the partition; pageSize <= 0 means the default (100 items);
	// continuation "" starts at the beginning; the returned continuation
	// is "" at the end.
	QueryDocuments(query string, params map[string]any, pageSize int, continuation string) (docs [][]byte, next string, err error)
	ReadDocuments(pageSize int, continuation string) (docs [][]byte, next string, err error)
}

// DocOptions are the options a script passes with one operation.
type DocOptions struct {
	// IfMatch is the script's etag option; a mismatch is the Collection's
	// 412 error.
	IfMatch string
	// DisableAutomaticIDGeneration is the script's option of that name.
	// The runtime has already acted on it: a document without an id was
	// refused (400) when it is set, and given a generated GUID otherwise.
	DisableAutomaticIDGeneration bool
}

// StatusError is an error with Cosmos DB's HTTP status (400, 404, 409,
// 412, 413, …). Scripts see it as {number: status, body: message}.
type StatusError interface {
	error
	HTTPStatus() int
}

// Script is a script resource as stored. Compiled programs are cached by
// (ID, ETag): a new ETag compiles the new body.
type Script struct{ ID, ETag, Body string }

// Options bound one execution.
type Options struct {
	// Budget is the wall time one execution may take; 0 means 5s.
	Budget time.Duration
	// EnableLogging collects console.log output into Result.Log.
	EnableLogging bool
	// MaxResponse is the size in bytes of a body a script may set; 0
	// means 2 MiB. Over it, the script gets error 413.
	MaxResponse int
	// MaxMemory bounds how far the server's live heap may grow while the
	// script runs; 0 means 1 GiB. Past it the script is stopped with
	// ErrMemory (see memoryWatch for why the bound is on the process).
	MaxMemory int
	// Now is the clock that decides when collection calls stop being
	// accepted and when the budget is spent; nil means time.Now. A timer
	// on real time interrupts the script at Budget in any case, so that a
	// script that never calls back cannot run on.
	Now func() time.Time
}

// Request is the request a trigger (or stored procedure) sees through
// getContext().getRequest().
type Request struct {
	// Body is JSON; a pre-trigger may replace it with setBody, or change
	// the object getBody returned.
	Body []byte
	// OperationType is what getOperationType returns: "Create",
	// "Replace", "Upsert" or "Delete".
	OperationType string
	// Headers are what getValue and setValue reach.
	Headers map[string]string
}

// Response is what a post-trigger sees through getResponse(): Body is the
// written item, and what setBody (or a change to the object getBody
// returned) leaves there is what the client receives.
type Response struct{ Body []byte }

// Result is the outcome of a stored procedure.
type Result struct {
	// Body is the JSON of what the script set with
	// getResponse().setBody(...); nil if it set nothing.
	Body []byte
	// Log is the console.log output, concatenated as Cosmos DB does
	// (no separator), when Options.EnableLogging is set.
	Log string
}

// ErrTimeout means the budget ran out and the script was interrupted;
// Cosmos DB answers 408 RequestTimeout.
var ErrTimeout = errors.New("script: the execution exceeded its time budget")

// ErrCompile means the script body is not a function a script may be:
// a syntax error or no function to call. It is wrapped with the details;
// Cosmos DB answers 400.
var ErrCompile = errors.New("script: compile error")

// ThrownError is a script that ended by throwing (or by aborting, or by an
// operation that failed without a callback to handle it).
type ThrownError struct {
	// Message is the error's message (or the thrown value as a string).
	Message string
	// Status is 400 unless the script threw new Error(ErrorCodes.X, msg)
	// or rethrew a collection error carrying a status.
	Status int
	// Exception is the thrown value as JavaScript prints it, such as
	// "Error: msg": what Cosmos DB quotes after "Exception = ".
	Exception string
}

func (e *ThrownError) Error() string { return e.Message }

// statusError is a failure the runtime itself reports to a script, in the
// same shape as a Collection's.
type statusError struct {
	status int
	msg    string
}

func (e *statusError) Error() string   { return e.msg }
func (e *statusError) HTTPStatus() int { return e.status }

const (
	defaultBudget      = 5 * time.Second
	defaultMaxResponse = 2 << 20
	// maxLog bounds console output kept per execution; the rest is cut.
	maxLog = 8 << 10
	// acceptFraction of the budget may pass before collection calls are
	// refused, leaving the rest for the script to wrap up.
	acceptFraction = 0.8
	// maxCallDepth keeps runaway recursion from growing the VM stack
	// until the budget ends.
	maxCallDepth = 10000
)

func (o Options) normalized() Options {
	if o.Budget <= 0 {
		o.Budget = defaultBudget
	}
	if o.MaxResponse <= 0 {
		o.MaxResponse = defaultMaxResponse
	}
	if o.Now == nil {
		o.Now = time.Now
	}
	if o.MaxMemory <= 0 {
		o.MaxMemory = defaultMaxMemory
	}
	return o
}

// Quota is what a Collection may also implement to refuse further calls
// for reasons other than time — the transaction that will commit the
// script's writes nearing its size limit. While Accepting reports false,
// collection calls return false (not accepted) exactly as near the end of
// the time budget, so a well-written script records how far it got.
type Quota interface {
	Accepting() bool
}
