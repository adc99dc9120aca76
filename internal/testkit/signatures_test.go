package testkit

import (
	"go/ast"
	"go/parser"
	"testing"
)

func TestSignatureProblems(t *testing.T) {
	for src, want := range map[string]int{
		"func(ctx int, ref int, o int)":                     0,
		"func(on bool)":                                     0,
		"func(ctx int, ref int, committed bool)":            1,
		"func(a, b, c, d, e int)":                           0,
		"func(a, b, c, d, e, f int)":                        1,
		"func(a, b, c int, d, e bool, f int)":               2,
		"func(ctx int, a, b, c string, o struct{ X bool })": 0,
	} {
		expr, err := parser.ParseExpr(src)
		if err != nil {
			t.Fatal(err)
		}
		if got := signatureProblems(expr.(*ast.FuncType)); len(got) != want {
			t.Errorf("%s: %d problems %q, want %d", src, len(got), got, want)
		}
	}
}
