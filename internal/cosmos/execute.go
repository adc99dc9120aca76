package cosmos

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"strings"
	"time"

	"github.com/cerulean-db/cerulean/internal/cosmos/script"
)

// ExecuteOptions are the options of a stored procedure's run.
type ExecuteOptions struct {
	// Params is a JSON array of the procedure's arguments; empty means
	// none.
	Params []byte
	// EnableLogging keeps what the script wrote with console.log.
	EnableLogging bool
}

// ExecuteResult is what a stored procedure answered.
type ExecuteResult struct {
	// Body is the JSON the script set with getResponse().setBody; nil
	// when it set none.
	Body []byte
	// Log is the script's console.log output, when logging was enabled.
	Log string
}

// scriptOptions are the run limits of one script call; deadline, when
// set, is the latest the call may end.
func (s *Service) scriptOptions(logging bool, deadline time.Time) script.Options {
	o := script.Options{Budget: s.scriptBudget, EnableLogging: logging, Now: s.now, MaxResponse: maxBody}
	if !deadline.IsZero() {
		o.Budget = max(time.Until(deadline), time.Millisecond)
	}
	return o
}

func engineScript(sc *Script) script.Script {
	return script.Script{ID: sc.ID, ETag: sc.ETag, Body: sc.Source}
}

// ExecuteStoredProcedure runs stored procedure id of a container in the
// logical partition pk names, with opts.Params as its arguments. The whole run is one transaction: every read sees
// one snapshot, and the writes commit together when the script completes
// or not at all when it throws or runs past the script budget. A conflict
// with a concurrent commit runs the script again from the start.
//
// A thrown error is ErrBadRequest (or the status of the failed operation
// it rethrows), a compile error ErrBadRequest, a timeout 408
// RequestTimeout.
func (s *Service) ExecuteStoredProcedure(ctx context.Context, ref CollectionRef, pk PartitionKey, id string, opts ExecuteOptions) (*ExecuteResult, error) {
	db, coll := ref.DB, ref.Coll
	params, err := sprocParams(opts.Params)
	if err != nil {
		return nil, err
	}
	var out *ExecuteResult
	err = s.Update(ctx, func(t *Tx) error {
		out = nil
		sc, err := t.script(db, coll, StoredProcedures, id)
		if err != nil {
			return err
		}
		p, err := t.partition(db, coll, pk, nil)
		if err != nil {
			return err
		}
		col := t.newScriptCollection(p.c, p.pk)
		res, err := s.scripts.RunSproc(ctx, engineScript(sc), params, col, s.scriptOptions(opts.EnableLogging, time.Time{}))
		if col.storeErr != nil {
			return col.storeErr
		}
		if err != nil {
			return scriptFailure(err, s.scriptBudget)
		}
		out = &ExecuteResult{Body: res.Body, Log: res.Log}
		return nil
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// sprocParams checks the arguments of a stored procedure: a JSON array,
// or nothing for none.
func sprocParams(b []byte) ([]byte, error) {
	if len(strings.TrimSpace(string(b))) == 0 {
		return []byte("[]"), nil
	}
	var args []json.RawMessage
	if err := json.Unmarshal(b, &args); err != nil {
		return nil, badRequest("The stored procedure parameters must be a JSON array: %v", err)
	}
	return b, nil
}

// scriptFailure maps a script's failure to the error Cosmos DB answers:
// the failed operation's own error when the script let it through, 408
// when it ran out of time, 400 (or the status it threw) otherwise, with
// the message shape of the gateway ("Message: {"Errors":[…]}").
func scriptFailure(err error, budget time.Duration) error {
	var e *Error
	var thrown *script.ThrownError
	switch {
	case errors.Is(err, script.ErrTimeout):
		return newError(http.StatusRequestTimeout, "RequestTimeout",
			"Message: {\"Errors\":[\"The script did not complete within its time budget (%s); nothing it wrote was kept.\"]}", budget)
	case errors.Is(err, script.ErrMemory):
		return tooLarge("%s", gatewayMessage("The script allocated more memory than a script may; nothing it wrote was kept."))
	case errors.As(err, &thrown):
		status := thrown.Status
		if status < 400 || status > 599 {
			status = http.StatusBadRequest
		}
		exception := thrown.Exception
		if exception == "" {
			exception = "Error: " + thrown.Message
		}
		return &Error{Status: status, Code: statusCode(status), Message: gatewayMessage("Encountered exception while executing function. Exception = " + exception)}
	case errors.Is(err, script.ErrCompile):
		return badRequest("%s", gatewayMessage("Encountered exception while compiling function. Exception = "+err.Error()))
	case errors.As(err, &e):
		return e
	}
	return err
}

// gatewayMessage renders a script error as the gateway does: the errors
// as a JSON document after "Message: ".
func gatewayMessage(msg string) string {
	b, _ := marshal(map[string][]string{"Errors": {msg}})
	return "Message: " + string(b)
}

// statusCode names a status as Cosmos DB's error codes do.
func statusCode(status int) string {
	switch status {
	case http.StatusBadRequest:
		return "BadRequest"
	case http.StatusForbidden:
		return "Forbidden"
	case http.StatusNotFound:
		return "NotFound"
	case http.StatusConflict:
		return "Conflict"
	case http.StatusPreconditionFailed:
		return "PreconditionFailed"
	case http.StatusRequestEntityTooLarge:
		return "RequestEntityTooLarge"
	case http.StatusRequestTimeout:
		return "RequestTimeout"
	case 449:
		return "RetryWith"
	}
	return strings.ReplaceAll(http.StatusText(status), " ", "")
}
