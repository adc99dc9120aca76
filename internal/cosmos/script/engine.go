package script

import (
	"container/list"
	"errors"
	"fmt"
	"strings"
	"sync"
	"sync/atomic"

	"github.com/dop251/goja"
	"github.com/dop251/goja/ast"
	"github.com/dop251/goja/parser"
)

// maxCached bounds the compiled programs an Engine keeps; the least
// recently used go first. Superseded versions (an old ETag) age out the
// same way.
const maxCached = 512

// Engine compiles scripts once per (ID, ETag) and runs them, each
// execution in a fresh goja runtime: runtimes are not safe for concurrent
// use, and a fresh one carries nothing from one execution to the next.
// An Engine is safe for concurrent use.
type Engine struct {
	// onRun, when set, is told of every run (see Observe).
	onRun   atomic.Pointer[func(kind string, err error)]
	mu      sync.Mutex
	lru     *list.List // of *cacheEntry, most recently used first
	entries map[cacheKey]*list.Element
}

type cacheKey struct{ id, etag string }

type cacheEntry struct {
	key  cacheKey
	prog *program
}

// program is a compiled script body and how to find the function to call.
type program struct {
	body string
	prog *goja.Program
	// expression: the body is a function expression, the program's
	// completion value. Otherwise funcs are the top-level function
	// declarations, in order.
	expression bool
	funcs      []string
}

// Observe has fn told of every script run that got to execute: its kind
// ("sproc", "pretrigger", "posttrigger" or "udf") and how it ended (nil,
// ErrTimeout past its budget, or its error). fn must not block.
func (e *Engine) Observe(fn func(kind string, err error)) { e.onRun.Store(&fn) }

func (e *Engine) ran(kind string, err error) {
	if fn := e.onRun.Load(); fn != nil {
		(*fn)(kind, err)
	}
}

// NewEngine returns an Engine with an empty cache.
func NewEngine() *Engine {
	return &Engine{lru: list.New(), entries: make(map[cacheKey]*list.Element)}
}

// program returns the compiled form of s, compiling it unless cached.
// The cached body is compared too: two containers' scripts may share an
// id, and an ETag is only unique together with its resource.
func (e *Engine) program(s Script) (*program, error) {
	k := cacheKey{s.ID, s.ETag}
	e.mu.Lock()
	if el, ok := e.entries[k]; ok {
		// Read under the lock: a concurrent recompile replaces ce.prog.
		if p := el.Value.(*cacheEntry).prog; p.body == s.Body {
			e.lru.MoveToFront(el)
			e.mu.Unlock()
			return p, nil
		}
	}
	e.mu.Unlock()

	p, err := compile(s)
	if err != nil {
		return nil, err
	}

	e.mu.Lock()
	defer e.mu.Unlock()
	if el, ok := e.entries[k]; ok {
		el.Value.(*cacheEntry).prog = p
		e.lru.MoveToFront(el)
	} else {
		e.entries[k] = e.lru.PushFront(&cacheEntry{key: k, prog: p})
	}
	for e.lru.Len() > maxCached {
		last := e.lru.Back()
		delete(e.entries, last.Value.(*cacheEntry).key)
		e.lru.Remove(last)
	}
	return p, nil
}

// CheckSyntax reports (as ErrCompile) a script body that does not parse as
// JavaScript in any of the shapes compile accepts. Cosmos DB compiles a
// script when it is created or replaced and refuses one with a syntax
// error then; a body that parses but defines no function is only found
// out when it runs.
func CheckSyntax(s Script) error {
	_, err := compile(s)
	if err != nil && errors.Is(err, errNoFunction) {
		return nil
	}
	return err
}

// errNoFunction is the compile error of a body that parses but defines no
// function.
var errNoFunction = errors.New("the script body does not define a function")

// compile accepts the shapes Cosmos DB users write: one or more function
// declarations ("function name(a) {…}", the portal's form) or a lone
// function expression ("function (a) {…}", what the JavaScript SDK sends
// for a function-valued body, or an arrow function).
func compile(s Script) (p *program, err error) {
	defer func() {
		// The parser is fed untrusted text; a failure inside it is still
		// just a script that does not compile.
		if r := recover(); r != nil {
			p, err = nil, fmt.Errorf("%w: %v", ErrCompile, r)
		}
	}()
	name := s.ID
	if name == "" {
		name = "script"
	}
	ast1, perr := parser.ParseFile(nil, name, s.Body, 0)
	if perr == nil {
		if funcs := declaredFunctions(ast1); len(funcs) > 0 {
			return compiled(s.Body, ast1, false, funcs)
		}
		if endsWithFunctionExpression(ast1) {
			return compiled(s.Body, ast1, true, nil)
		}
		return nil, fmt.Errorf("%w: %w", ErrCompile, errNoFunction)
	}
	// An anonymous function is not a statement; as an expression it is.
	// The newline keeps a trailing line comment from swallowing the ")".
	wrapped := "(" + strings.TrimRight(s.Body, " \t\r\n;") + "\n)"
	ast2, werr := parser.ParseFile(nil, name, wrapped, 0)
	if werr == nil && endsWithFunctionExpression(ast2) {
		return compiled(s.Body, ast2, true, nil)
	}
	return nil, fmt.Errorf("%w: %w", ErrCompile, perr)
}

func compiled(body string, tree *ast.Program, expression bool, funcs []string) (*program, error) {
	prog, err := goja.CompileAST(tree, false)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrCompile, err)
	}
	return &program{body: body, prog: prog, expression: expression, funcs: funcs}, nil
}

func declaredFunctions(tree *ast.Program) []string {
	var names []string
	for _, st := range tree.Body {
		if d, ok := st.(*ast.FunctionDeclaration); ok && d.Function != nil && d.Function.Name != nil {
			names = append(names, string(d.Function.Name.Name))
		}
	}
	return names
}

func endsWithFunctionExpression(tree *ast.Program) bool {
	if len(tree.Body) == 0 {
		return false
	}
	st, ok := tree.Body[len(tree.Body)-1].(*ast.ExpressionStatement)
	if !ok {
		return false
	}
	switch st.Expression.(type) {
	case *ast.FunctionLiteral, *ast.ArrowFunctionLiteral:
		return true
	}
	return false
}

// entry is the function an execution calls: the one named like the
// script (as a UDF's body names it), else the first declared, else the
// expression's value.
func (p *program) entry(vm *goja.Runtime, id string, completion goja.Value) (goja.Callable, bool) {
	if p.expression {
		return goja.AssertFunction(completion)
	}
	name := p.funcs[0]
	for _, f := range p.funcs {
		if f == id {
			name = f
			break
		}
	}
	return goja.AssertFunction(vm.Get(name))
}
