package script

import (
	"bytes"
	"strings"

	"github.com/dop251/goja"
)

// message is the request or response a script reaches through
// getContext(): a body plus named values (headers).
type message struct {
	raw []byte // the body as given
	val goja.Value
	// parsed: val is the body as the script sees it; from then on the
	// body is what val serializes to.
	parsed bool
	// set: the script called setBody or appendBody. Otherwise the body
	// only changed if the object getBody returned was modified, which
	// snapshot (its JSON when handed out) tells.
	set      bool
	snapshot []byte

	headers  map[string]string
	opType   string
	response bool
}

func (m *message) body(x *execution) goja.Value {
	if !m.parsed {
		m.val = goja.Undefined()
		if len(m.raw) > 0 {
			m.val = x.mustParse(m.raw)
		}
		m.snapshot = x.mustJSON(m.val)
		m.parsed = true
	}
	return m.val
}

func (m *message) setBody(x *execution, v goja.Value) {
	x.checkSize(v)
	m.val, m.parsed, m.set = v, true, true
}

// appendBody follows Cosmos DB's appendBody: strings concatenate, numbers
// add, and an empty body takes the value as it is.
func (m *message) appendBody(x *execution, v goja.Value) {
	cur := m.body(x)
	next := v
	if !goja.IsUndefined(cur) && !goja.IsNull(cur) {
		a, aok := cur.Export().(float64)
		b, bok := v.Export().(float64)
		if ai, ok := cur.Export().(int64); ok {
			a, aok = float64(ai), true
		}
		if bi, ok := v.Export().(int64); ok {
			b, bok = float64(bi), true
		}
		if aok && bok {
			next = x.vm.ToValue(a + b)
		} else {
			next = x.vm.ToValue(cur.String() + v.String())
		}
	}
	m.setBody(x, next)
}

// appendValue is Cosmos DB's appendValue(name, value): the value named
// ("Body", in any case, or a header) becomes what JavaScript's += makes of
// it, starting from an empty string. The JavaScript SDK's stored
// procedure test, run against Azure, appends 0 to 9 to "Body" and reads
// back 0123456789.
func (m *message) appendValue(x *execution, name string, v goja.Value) {
	if strings.EqualFold(name, "body") {
		cur := m.body(x)
		if goja.IsUndefined(cur) || goja.IsNull(cur) {
			cur = x.vm.ToValue("")
		}
		m.setBody(x, jsAdd(x.vm, cur, v))
		return
	}
	cur, _ := m.header(name)
	m.setHeader(name, jsAdd(x.vm, x.vm.ToValue(cur), v).String())
}

// jsAdd is JavaScript's a + b: a sum when both are numbers, else the
// concatenation of their string forms.
func jsAdd(vm *goja.Runtime, a, b goja.Value) goja.Value {
	if isNumber(a) && isNumber(b) {
		return vm.ToValue(a.ToFloat() + b.ToFloat())
	}
	return vm.ToValue(a.String() + b.String())
}

func isNumber(v goja.Value) bool {
	switch v.Export().(type) {
	case int64, float64:
		return true
	}
	return false
}

// final is the body after the script: the original bytes unless the
// script changed it.
func (m *message) final(x *execution) ([]byte, error) {
	if !m.parsed {
		return m.raw, nil
	}
	b, err := x.toJSON(m.val)
	if err != nil {
		return nil, err
	}
	if !m.set && bytes.Equal(b, m.snapshot) {
		return m.raw, nil
	}
	if len(b) > x.o.MaxResponse {
		return nil, &ThrownError{Message: tooLargeMessage, Status: 413, Exception: "Error: " + tooLargeMessage}
	}
	return b, nil
}

const tooLargeMessage = `Resulting message would be too large because of "body". Return from script with current message and use continuation token to call the script again or modify your script.`

// checkSize refuses a body over MaxResponse before it is kept, so that a
// script learns at the call that grew it too far.
func (x *execution) checkSize(v goja.Value) {
	if b := x.mustJSON(v); len(b) > x.o.MaxResponse {
		x.throw(413, "%s", tooLargeMessage)
	}
}

func (m *message) header(name string) (string, bool) {
	if v, ok := m.headers[name]; ok {
		return v, true
	}
	for k, v := range m.headers {
		if strings.EqualFold(k, name) {
			return v, true
		}
	}
	return "", false
}

func (m *message) setHeader(name, v string) {
	if m.headers == nil {
		m.headers = make(map[string]string)
	}
	for k := range m.headers {
		if strings.EqualFold(k, name) {
			name = k
			break
		}
	}
	m.headers[name] = v
}

// object is the script's view of m.
func (m *message) object(x *execution) *goja.Object {
	o := x.vm.NewObject()
	set := func(name string, fn func(goja.FunctionCall) goja.Value) { _ = o.Set(name, fn) }
	set("getBody", func(goja.FunctionCall) goja.Value { return m.body(x) })
	set("setBody", func(c goja.FunctionCall) goja.Value {
		m.setBody(x, c.Argument(0))
		return goja.Undefined()
	})
	set("appendBody", func(c goja.FunctionCall) goja.Value {
		m.appendBody(x, c.Argument(0))
		return goja.Undefined()
	})
	set("appendValue", func(c goja.FunctionCall) goja.Value {
		m.appendValue(x, c.Argument(0).String(), c.Argument(1))
		return goja.Undefined()
	})
	set("getValue", func(c goja.FunctionCall) goja.Value {
		name := c.Argument(0).String()
		if strings.EqualFold(name, "body") {
			return m.body(x)
		}
		if v, ok := m.header(name); ok {
			return x.vm.ToValue(v)
		}
		return goja.Undefined()
	})
	set("setValue", func(c goja.FunctionCall) goja.Value {
		name, v := c.Argument(0).String(), c.Argument(1)
		if strings.EqualFold(name, "body") {
			m.setBody(x, v)
		} else {
			m.setHeader(name, v.String())
		}
		return goja.Undefined()
	})
	if m.response {
		set("getMaxResponseBodySize", func(goja.FunctionCall) goja.Value { return x.vm.ToValue(x.o.MaxResponse) })
	} else {
		set("getOperationType", func(goja.FunctionCall) goja.Value { return x.vm.ToValue(m.opType) })
	}
	return o
}

// setup prepares the global environment: Cosmos DB's Error and
// ErrorCodes, console, and — for stored procedures and triggers —
// getContext() and __. Nothing else reaches outside the runtime: goja
// has no require, timers, network or file access unless given them.
func (x *execution) setup() error {
	vm := x.vm
	j, _ := vm.Get("JSON").(*goja.Object)
	x.parse, _ = goja.AssertFunction(j.Get("parse"))
	x.stringify, _ = goja.AssertFunction(j.Get("stringify"))
	x.nativeError = vm.Get("Error")
	if _, err := vm.RunProgram(prelude); err != nil {
		return err
	}
	console := vm.NewObject()
	_ = console.Set("log", x.consoleLog)
	_ = vm.Set("console", console)
	if x.coll == nil {
		return nil
	}

	coll := x.collectionObject()
	context := vm.NewObject()
	under := vm.CreateObject(coll)
	_ = context.Set("getCollection", func(goja.FunctionCall) goja.Value { return coll })
	if x.req != nil {
		req := x.req.object(x)
		_ = context.Set("getRequest", func(goja.FunctionCall) goja.Value { return req })
		_ = under.Set("request", req)
	}
	if x.resp != nil {
		resp := x.resp.object(x)
		_ = context.Set("getResponse", func(goja.FunctionCall) goja.Value { return resp })
		_ = under.Set("response", resp)
	}
	_ = context.Set("abort", func(c goja.FunctionCall) goja.Value {
		x.stop(x.thrown(c.Argument(0)))
		return goja.Undefined()
	})
	_ = vm.Set("getContext", func(goja.FunctionCall) goja.Value { return context })
	_ = vm.Set("__", under)
	return nil
}

// consoleLog is console.log as Cosmos DB has it: output is concatenated
// without separators; several arguments need a format string whose %s
// take them in turn. With logging off it does nothing at all.
func (x *execution) consoleLog(c goja.FunctionCall) goja.Value {
	if !x.o.EnableLogging {
		return goja.Undefined()
	}
	switch {
	case len(c.Arguments) == 0:
		x.throw(400, `The function "log" requires at least 1 argument(s) but was called with 0 argument(s).`)
	case len(c.Arguments) == 1:
		x.appendLog(c.Arguments[0].String())
	case jsTypeof(c.Arguments[0]) != "string":
		x.throw(400, "First argument to console.log should be a string containing zero or more substitution strings.")
	default:
		x.appendLog(substitute(c.Arguments[0].String(), c.Arguments[1:]))
	}
	return goja.Undefined()
}

// substitute replaces each %s with the next argument and %% with %.
func substitute(format string, args []goja.Value) string {
	var b strings.Builder
	for i := 0; i < len(format); i++ {
		if format[i] != '%' || i+1 >= len(format) {
			b.WriteByte(format[i])
			continue
		}
		switch format[i+1] {
		case '%':
			b.WriteByte('%')
			i++
		case 's':
			if len(args) > 0 {
				b.WriteString(args[0].String())
				args = args[1:]
			} else {
				b.WriteString("undefined")
			}
			i++
		default:
			b.WriteByte('%')
		}
	}
	return b.String()
}
