package script

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"strconv"

	"github.com/dop251/goja"
)

var errNoCollection = errors.New("script: stored procedures and triggers need a collection")

// RunSproc runs stored procedure s with params, a JSON array spread as
// the function's arguments (any other JSON value is its one argument).
// The script's collection operations go to coll, inside the caller's
// transaction: the caller commits when RunSproc returns no error and
// rolls back otherwise.
func (e *Engine) RunSproc(ctx context.Context, s Script, params []byte, coll Collection, o Options) (*Result, error) {
	body, x, err := e.runInCollection(ctx, "sproc", s, coll, o, func(x *execution) (*message, func() ([]goja.Value, error)) {
		x.req = &message{raw: params}
		x.resp = &message{response: true}
		return x.resp, func() ([]goja.Value, error) { return x.paramArgs(params) }
	})
	if err != nil {
		return nil, err
	}
	return &Result{Body: body, Log: x.log.String()}, nil
}

// runInCollection is what stored procedures and triggers share: it
// compiles s and calls it once against coll, and returns the body the
// script left in the message setup names (with the execution, for its
// log and headers). setup fills the execution's request and response
// and gives the script's arguments (nil for none). kind labels the run's
// metrics.
func (e *Engine) runInCollection(ctx context.Context, kind string, s Script, coll Collection, o Options, setup func(x *execution) (*message, func() ([]goja.Value, error))) ([]byte, *execution, error) {
	if coll == nil {
		return nil, nil, errNoCollection
	}
	p, err := e.program(s)
	if err != nil {
		return nil, nil, err
	}
	x := newExecution(ctx, s.ID, coll, o)
	out, args := setup(x)
	var body []byte
	err = x.guard(func() error {
		if _, err := x.call(p, args); err != nil {
			return err
		}
		body, err = out.final(x)
		return err
	})
	e.ran(kind, err)
	if err != nil {
		return nil, nil, err
	}
	return body, x, nil
}

// paramArgs spreads a JSON array into arguments.
func (x *execution) paramArgs(params []byte) ([]goja.Value, error) {
	if len(bytes.TrimSpace(params)) == 0 {
		return nil, nil
	}
	v, err := x.parseJSON(params)
	if err != nil {
		return nil, &ThrownError{Message: "The stored procedure parameters are not valid JSON.", Status: 400, Exception: "SyntaxError: invalid parameters"}
	}
	arr, ok := v.(*goja.Object)
	if !ok || arr.ClassName() != "Array" {
		return []goja.Value{v}, nil
	}
	n := arr.Get("length").ToInteger()
	args := make([]goja.Value, 0, n)
	for i := int64(0); i < n; i++ {
		args = append(args, arr.Get(strconv.FormatInt(i, 10)))
	}
	return args, nil
}

// RunPreTrigger runs pre-trigger s on req before the operation: what the
// script leaves as the request body (setBody, or a change to the object
// getBody returned) is written back to req.Body, its setValue calls to
// req.Headers. On error req is unchanged.
func (e *Engine) RunPreTrigger(ctx context.Context, s Script, req *Request, coll Collection, o Options) error {
	body, x, err := e.runInCollection(ctx, "pretrigger", s, coll, o, func(x *execution) (*message, func() ([]goja.Value, error)) {
		x.req = &message{raw: req.Body, headers: maps.Clone(req.Headers), opType: req.OperationType}
		return x.req, nil
	})
	if err != nil {
		return err
	}
	req.Body, req.Headers = body, x.req.headers
	return nil
}

// RunPostTrigger runs post-trigger s after the operation, in the same
// transaction: resp.Body is the written item, and what the script leaves
// as the response body is written back to resp.Body. A throw fails (and
// so rolls back) the operation.
func (e *Engine) RunPostTrigger(ctx context.Context, s Script, req *Request, resp *Response, coll Collection, o Options) error {
	body, _, err := e.runInCollection(ctx, "posttrigger", s, coll, o, func(x *execution) (*message, func() ([]goja.Value, error)) {
		x.req = &message{raw: req.Body, headers: maps.Clone(req.Headers), opType: req.OperationType}
		x.resp = &message{raw: resp.Body, response: true}
		return x.resp, nil
	})
	if err != nil {
		return err
	}
	resp.Body = body
	return nil
}

// CallUDF calls user-defined function s with args (decoded JSON: nil,
// bool, float64, json.Number, string, []any, map[string]any) and returns
// its result as decoded JSON with float64 numbers; undefined comes back
// as nil. The body defines a function named like the UDF's id, as Cosmos
// DB's UDF bodies do; a UDF has no getContext().
func (e *Engine) CallUDF(ctx context.Context, s Script, args []any, o Options) (any, error) {
	p, err := e.program(s)
	if err != nil {
		return nil, err
	}
	x := newExecution(ctx, s.ID, nil, o)
	var out any
	err = x.guard(func() error {
		ret, err := x.call(p, func() ([]goja.Value, error) { return x.udfArgs(args) })
		if err != nil {
			return err
		}
		b, err := x.toJSON(ret)
		if err != nil || b == nil {
			return err
		}
		return json.Unmarshal(b, &out)
	})
	e.ran("udf", err)
	if err != nil {
		return nil, err
	}
	return out, nil
}

func (x *execution) udfArgs(args []any) ([]goja.Value, error) {
	vals := make([]goja.Value, len(args))
	for i, a := range args {
		b, err := json.Marshal(a)
		if err != nil {
			return nil, fmt.Errorf("udf argument %d: %w", i, err)
		}
		if vals[i], err = x.parseJSON(b); err != nil {
			return nil, err
		}
	}
	return vals, nil
}
