package script

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/big"
	"strings"
	"sync"
	"time"

	"github.com/dop251/goja"
)

// execution is one run of one script in its own runtime.
type execution struct {
	vm   *goja.Runtime
	ctx  context.Context
	o    Options
	id   string
	coll Collection // nil for a UDF

	acceptUntil time.Time // collection calls are refused from here on
	deadline    time.Time // the budget on Options.Now's clock

	parse, stringify goja.Callable // JSON's, taken before the script can replace them
	nativeError      goja.Value

	// pending are the callbacks of finished operations, run in order
	// once the code that issued them returns, as Cosmos DB runs them:
	// a chain of callbacks (the bulk-import pattern) then loops instead of
	// nesting ever deeper.
	pending []pendingCall

	req, resp *message

	log     strings.Builder
	logFull bool

	// rids maps the _rid of every document the script has been handed to
	// its id: a self link ("…/docs/<rid>/") names a document by _rid,
	// while the Collection takes ids.
	rids map[string]string

	mu      sync.Mutex
	stopErr error // why the execution was stopped; the first reason wins
}

type pendingCall struct {
	fn   goja.Callable
	args []goja.Value
}

func newExecution(ctx context.Context, id string, coll Collection, o Options) *execution {
	o = o.normalized()
	start := o.Now()
	x := &execution{
		vm:          goja.New(),
		ctx:         ctx,
		o:           o,
		id:          id,
		coll:        coll,
		acceptUntil: start.Add(time.Duration(float64(o.Budget) * acceptFraction)),
		deadline:    start.Add(o.Budget),
		rids:        make(map[string]string),
	}
	x.vm.SetMaxCallStackSize(maxCallDepth)
	return x
}

// stop interrupts the script; the execution then ends with err. It may be
// called from any goroutine.
func (x *execution) stop(err error) {
	x.mu.Lock()
	if x.stopErr == nil {
		x.stopErr = err
	}
	x.mu.Unlock()
	x.vm.Interrupt(err)
}

func (x *execution) stopped() error {
	x.mu.Lock()
	defer x.mu.Unlock()
	return x.stopErr
}

// guard runs f with the budget enforced: a timer on real time (and the
// context) interrupts the script wherever it is. Whatever f returns is
// translated into this package's errors.
func (x *execution) guard(f func() error) (err error) {
	defer func() {
		if r := recover(); r != nil {
			err = fmt.Errorf("script: internal error: %v", r)
		}
	}()
	if err := x.ctx.Err(); err != nil {
		return fmt.Errorf("script: %w", err)
	}
	timer := time.AfterFunc(x.o.Budget, func() { x.stop(ErrTimeout) })
	defer timer.Stop()
	stopOnCancel := context.AfterFunc(x.ctx, func() { x.stop(fmt.Errorf("script: %w", x.ctx.Err())) })
	defer stopOnCancel()
	defer watch.track(x)()

	if err := x.setup(); err != nil {
		return x.failure(err)
	}
	if err := f(); err != nil {
		return x.failure(err)
	}
	return x.stopped()
}

// call runs the script's program and then its function with args, then
// the callbacks its operations queued.
func (x *execution) call(p *program, args func() ([]goja.Value, error)) (goja.Value, error) {
	completion, err := x.vm.RunProgram(p.prog)
	if err != nil {
		return nil, err
	}
	fn, ok := p.entry(x.vm, x.id, completion)
	if !ok {
		return nil, &ThrownError{Message: "The script does not define a function to call.", Status: 400, Exception: "TypeError: not a function"}
	}
	var argv []goja.Value
	if args != nil {
		if argv, err = args(); err != nil {
			return nil, err
		}
	}
	ret, err := fn(goja.Undefined(), argv...)
	if err != nil {
		return nil, err
	}
	if err := x.stopped(); err != nil {
		return nil, err
	}
	return ret, x.drain()
}

func (x *execution) drain() error {
	for len(x.pending) > 0 {
		c := x.pending[0]
		x.pending[0] = pendingCall{}
		x.pending = x.pending[1:]
		if _, err := c.fn(goja.Undefined(), c.args...); err != nil {
			return err
		}
		if err := x.stopped(); err != nil {
			return err
		}
	}
	return nil
}

func (x *execution) enqueue(fn goja.Callable, args ...goja.Value) {
	x.pending = append(x.pending, pendingCall{fn: fn, args: args})
}

// failure translates what the runtime returned into this package's
// errors. A stop the execution asked for wins over the interrupt it
// caused.
func (x *execution) failure(err error) error {
	if s := x.stopped(); s != nil {
		return s
	}
	var te *ThrownError
	if errors.As(err, &te) {
		return te
	}
	var so *goja.StackOverflowError
	if errors.As(err, &so) {
		return &ThrownError{Message: "Maximum call stack size exceeded", Status: 400, Exception: "RangeError: Maximum call stack size exceeded"}
	}
	var ie *goja.InterruptedError
	if errors.As(err, &ie) {
		return ErrTimeout
	}
	var ex *goja.Exception
	if errors.As(err, &ex) {
		return x.thrown(ex.Value())
	}
	return fmt.Errorf("script: %w", err)
}

// thrown describes a thrown value without running the script's code where
// it can be helped (no toString calls); getters still may run, so a panic
// on the way only loses detail.
func (x *execution) thrown(v goja.Value) (t *ThrownError) {
	t = &ThrownError{Message: "The script threw an exception.", Status: 400, Exception: "Error"}
	defer func() { _ = recover() }()
	_ = x.vm.Try(func() {
		obj, ok := v.(*goja.Object)
		if !ok {
			if v == nil {
				v = goja.Undefined()
			}
			t.Message, t.Exception = v.String(), v.String()
			return
		}
		if n, ok := statusNumber(obj.Get("number")); ok {
			t.Status = n
		}
		msg, hasMsg := primitiveString(obj.Get("message"))
		if !hasMsg {
			msg, hasMsg = primitiveString(obj.Get("body"))
		}
		if !hasMsg {
			msg = "[object " + obj.ClassName() + "]"
		}
		t.Message, t.Exception = msg, msg
		if name, ok := primitiveString(obj.Get("name")); ok && name != "" && hasMsg {
			t.Exception = name
			if msg != "" {
				t.Exception += ": " + msg
			}
		}
	})
	return t
}

// statusNumber accepts an error number that is an HTTP error status.
func statusNumber(v goja.Value) (int, bool) {
	if v == nil {
		return 0, false
	}
	var f float64
	switch n := v.Export().(type) {
	case int64:
		f = float64(n)
	case float64:
		f = n
	default:
		return 0, false
	}
	if f != float64(int(f)) || f < 400 || f > 599 {
		return 0, false
	}
	return int(f), true
}

func primitiveString(v goja.Value) (string, bool) {
	if v == nil || goja.IsUndefined(v) || goja.IsNull(v) {
		return "", false
	}
	if _, ok := v.(*goja.Object); ok {
		return "", false
	}
	return v.String(), true
}

// accepted decides whether a collection call may still start: not in the
// last part of the budget, so that the script has time to record how far
// it got. Past the budget itself the script is stopped.
func (x *execution) accepted() bool {
	now := x.o.Now()
	if !now.Before(x.deadline) {
		x.stop(ErrTimeout)
		return false
	}
	if x.ctx.Err() != nil {
		x.stop(fmt.Errorf("script: %w", x.ctx.Err()))
		return false
	}
	if q, ok := x.coll.(Quota); ok && !q.Accepting() {
		return false
	}
	return now.Before(x.acceptUntil)
}

// withinBudget is accepted's check for work already accepted (the pages
// of one JavaScript query).
func (x *execution) withinBudget() bool {
	if !x.o.Now().Before(x.deadline) {
		x.stop(ErrTimeout)
		return false
	}
	return x.stopped() == nil
}

// JSON crosses into the runtime through its own JSON.parse and
// JSON.stringify: the values are then exactly what script code would
// produce.

func (x *execution) parseJSON(b []byte) (goja.Value, error) {
	return x.parse(goja.Undefined(), x.vm.ToValue(string(b)))
}

// toJSON returns nil for a value JSON has no text for (undefined, a
// function).
func (x *execution) toJSON(v goja.Value) ([]byte, error) {
	s, err := x.stringify(goja.Undefined(), v)
	if err != nil {
		return nil, err
	}
	if s == nil || goja.IsUndefined(s) {
		return nil, nil
	}
	return []byte(s.String()), nil
}

// mustParse and mustJSON are for Go code called from script code: a
// failure is thrown into the script.
func (x *execution) mustParse(b []byte) goja.Value {
	v, err := x.parseJSON(b)
	if err != nil {
		panic(err)
	}
	return v
}

func (x *execution) mustJSON(v goja.Value) []byte {
	b, err := x.toJSON(v)
	if err != nil {
		panic(err)
	}
	return b
}

// exportJSON turns a script value into decoded JSON (numbers as float64),
// the form the query engine takes.
func (x *execution) exportJSON(v goja.Value) any {
	b := x.mustJSON(v)
	if b == nil {
		return nil
	}
	var out any
	if err := json.Unmarshal(b, &out); err != nil {
		x.throw(400, "The value cannot be encoded as JSON.")
	}
	return out
}

// newError makes an Error object as Cosmos DB hands operation failures
// to callbacks: {number, body, message}.
func (x *execution) newError(status int, msg string) *goja.Object {
	e, err := x.vm.New(x.nativeError, x.vm.ToValue(msg))
	if err != nil {
		e = x.vm.NewObject()
		_ = e.Set("message", msg)
	}
	_ = e.Set("number", status)
	_ = e.Set("body", msg)
	return e
}

// throw raises an Error carrying status in the script.
func (x *execution) throw(status int, format string, args ...any) {
	panic(x.newError(status, fmt.Sprintf(format, args...)))
}

// appendLog adds console output, cut at maxLog.
func (x *execution) appendLog(s string) {
	if x.logFull {
		return
	}
	room := maxLog - x.log.Len()
	if len(s) > room {
		cut := room
		for cut > 0 && cut < len(s) && !isRuneStart(s[cut]) {
			cut--
		}
		s = s[:cut]
		x.logFull = true
	}
	x.log.WriteString(s)
}

func isRuneStart(b byte) bool { return b&0xC0 != 0x80 }

func jsTypeof(v goja.Value) string {
	switch {
	case v == nil || goja.IsUndefined(v):
		return "undefined"
	case goja.IsNull(v):
		return "object"
	}
	if o, ok := v.(*goja.Object); ok {
		if _, ok := goja.AssertFunction(o); ok {
			return "function"
		}
		return "object"
	}
	switch v.Export().(type) {
	case bool:
		return "boolean"
	case string:
		return "string"
	case int64, float64:
		return "number"
	case *big.Int:
		return "bigint"
	}
	return "symbol"
}
