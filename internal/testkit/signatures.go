package testkit

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"strings"
	"testing"
)

// MaxParams is the most parameters an exported function of a domain
// package takes: past the context and the resource's name, a call's
// inputs go in an options struct.
const MaxParams = 5

// CheckSignatures fails t for every exported function or method (of an
// exported type) in the non-test files of the package in dir that takes
// more than MaxParams parameters, or a bool beside others: a call such
// as f(ctx, ref, true, false) says nothing of what it asks for. A lone
// bool (a setter such as WithVersioning(on)) is named by its function.
func CheckSignatures(t testing.TB, dir string) {
	t.Helper()
	fset := token.NewFileSet()
	pkgs, err := parser.ParseDir(fset, dir, func(fi fs.FileInfo) bool {
		return !strings.HasSuffix(fi.Name(), "_test.go")
	}, 0)
	if err != nil {
		t.Fatal(err)
	}
	for _, pkg := range pkgs {
		for _, f := range pkg.Files {
			for _, d := range f.Decls {
				fn, ok := d.(*ast.FuncDecl)
				if !ok || !fn.Name.IsExported() || !exportedReceiver(fn) {
					continue
				}
				for _, problem := range signatureProblems(fn.Type) {
					t.Errorf("%s: %s %s", fset.Position(fn.Pos()), fn.Name.Name, problem)
				}
			}
		}
	}
}

// exportedReceiver reports whether fn is a function or a method of an
// exported type.
func exportedReceiver(fn *ast.FuncDecl) bool {
	if fn.Recv == nil {
		return true
	}
	typ := fn.Recv.List[0].Type
	if star, ok := typ.(*ast.StarExpr); ok {
		typ = star.X
	}
	if idx, ok := typ.(*ast.IndexExpr); ok { // a generic receiver
		typ = idx.X
	}
	id, ok := typ.(*ast.Ident)
	return !ok || id.IsExported()
}

func signatureProblems(ft *ast.FuncType) []string {
	var problems []string
	n, bools := 0, 0
	for _, field := range ft.Params.List {
		names := max(len(field.Names), 1)
		n += names
		if id, ok := field.Type.(*ast.Ident); ok && id.Name == "bool" {
			bools += names
		}
	}
	if n > MaxParams {
		problems = append(problems, "takes more than 5 parameters: name the resource with one value and put the rest in an options struct")
	}
	if bools > 0 && n > 1 {
		problems = append(problems, "takes a positional bool: put it in an options struct")
	}
	return problems
}
