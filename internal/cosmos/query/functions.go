package query

import "fmt"

// function is a built-in scalar function. Its arguments arrive evaluated
// (possibly undefined); most functions return undefined when an argument
// has the wrong type, as Cosmos does.
type function struct {
	minArgs, maxArgs int // maxArgs < 0: variadic
	call             func(run *runContext, args []any) any
}

func (f function) arity() string {
	switch {
	case f.minArgs == f.maxArgs:
		return fmt.Sprint(f.minArgs)
	case f.maxArgs < 0:
		return fmt.Sprintf("at least %d", f.minArgs)
	}
	return fmt.Sprintf("%d to %d", f.minArgs, f.maxArgs)
}

// functions holds every built-in scalar function by upper-case name.
// Each family registers itself from its own file.
var functions = map[string]function{}

func register(name string, minArgs, maxArgs int, call func(run *runContext, args []any) any) {
	functions[name] = function{minArgs: minArgs, maxArgs: maxArgs, call: call}
}

// pure adapts a function that needs no run context.
func pure(f func(args []any) any) func(*runContext, []any) any {
	return func(_ *runContext, args []any) any { return f(args) }
}

func init() {
	typeCheck := func(name string, test func(v any) bool) {
		register(name, 1, 1, pure(func(a []any) any { return test(a[0]) }))
	}
	typeCheck("IS_DEFINED", func(v any) bool { return !isUndefined(v) })
	typeCheck("IS_NULL", func(v any) bool { return rank(v) == rankNull })
	typeCheck("IS_BOOL", func(v any) bool { return rank(v) == rankBool })
	typeCheck("IS_NUMBER", func(v any) bool { return rank(v) == rankNumber })
	typeCheck("IS_STRING", func(v any) bool { return rank(v) == rankString })
	typeCheck("IS_ARRAY", func(v any) bool { return rank(v) == rankArray })
	typeCheck("IS_OBJECT", func(v any) bool { return rank(v) == rankObject })
	typeCheck("IS_PRIMITIVE", func(v any) bool {
		r := rank(v)
		return r == rankNull || r == rankBool || r == rankNumber || r == rankString
	})
	typeCheck("IS_FINITE_NUMBER", func(v any) bool {
		_, ok := toNumber(v)
		return ok
	})
	typeCheck("IS_INTEGER", func(v any) bool {
		f, ok := toNumber(v)
		return ok && isInteger(f)
	})
}
