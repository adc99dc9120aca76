package azhttp

import (
	"context"
	"net/http"
	"reflect"
	"runtime"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"
)

// RequestInfo is what the layer serving a request learns from the service
// handling it, and what it hands that service: the serving layer puts one
// in the request's context (WithRequestInfo), the service names the
// operation once it has routed the request (Routed), and Wrap records the
// status it answered.
type RequestInfo struct {
	// Operation is the routed operation's name (Azure's, e.g. "PutBlob"),
	// empty when the request was refused before routing.
	Operation string
	// Fault, when set, is asked once the operation is known whether to
	// answer with an injected fault instead (see Routed).
	Fault func(w http.ResponseWriter, r *http.Request, operation string) error
	// Status is the status answered, set by Wrap when the request ends
	// (whatever it holds when the handler's panic dropped the connection).
	Status int
}

type requestInfoKey struct{}

// WithRequestInfo returns r carrying info, for Routed to fill in.
func WithRequestInfo(r *http.Request, info *RequestInfo) *http.Request {
	return r.WithContext(context.WithValue(r.Context(), requestInfoKey{}, info))
}

// Routed records that r was routed to operation and returns the fault to
// answer instead of running it, if fault injection picked one (nil
// otherwise). A service calls it after routing and before doing anything
// the operation would do, and returns a non-nil error as its answer.
func Routed(w http.ResponseWriter, r *http.Request, operation string) error {
	info, _ := r.Context().Value(requestInfoKey{}).(*RequestInfo)
	if info == nil {
		return nil
	}
	info.Operation = operation
	if info.Fault == nil {
		return nil
	}
	return info.Fault(w, r, operation)
}

var operationNames sync.Map // func pointer -> name

// OperationName names the operation a handler method implements after
// the method: (*handler).putBlob is "PutBlob". Services whose routing
// tables hold method expressions name their operations with it.
func OperationName(method any) string {
	pc := reflect.ValueOf(method).Pointer()
	if name, ok := operationNames.Load(pc); ok {
		return name.(string)
	}
	name := "Unknown"
	if fn := runtime.FuncForPC(pc); fn != nil {
		name = fn.Name()
		name = strings.TrimSuffix(name[strings.LastIndexByte(name, '.')+1:], "-fm")
		r, size := utf8.DecodeRuneInString(name)
		name = string(unicode.ToUpper(r)) + name[size:]
	}
	operationNames.Store(pc, name)
	return name
}
