package query

import (
	"errors"
	"reflect"
	"testing"
)

type udfFuncs map[string]func(args []any) (any, error)

func (u udfFuncs) CallUDF(name string, args []any) (any, error) {
	f, ok := u[name]
	if !ok {
		return nil, errors.New("no such function " + name)
	}
	return f(args)
}

func TestUDFs(t *testing.T) {
	docs := []map[string]any{{"id": "a", "n": 1.0}, {"id": "b", "n": 2.0}, {"id": "c"}}
	var seen [][]any
	udfs := udfFuncs{
		"double": func(args []any) (any, error) {
			seen = append(seen, args)
			n, _ := args[0].(float64)
			return n * 2, nil
		},
	}
	q, err := Parse("SELECT VALUE udf.double(c.n) FROM c WHERE udf.double(c.n) > 1")
	if err != nil {
		t.Fatal(err)
	}
	res, err := q.RunWith(docs, nil, Options{UDFs: udfs})
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(res, []any{2.0, 4.0}) {
		t.Fatalf("results %v", res)
	}
	if len(seen) != 5 || seen[2][0] != nil {
		t.Fatalf("calls %v: an undefined argument must arrive as nil", seen)
	}
	if _, err := q.Run(docs, nil); err == nil {
		t.Fatal("a UDF without a resolver must fail")
	}
	cause := errors.New("boom")
	q, _ = Parse("SELECT VALUE udf.fail(1) FROM c")
	_, err = q.RunWith(docs, nil, Options{UDFs: udfFuncs{"fail": func([]any) (any, error) { return nil, cause }}})
	var qe *Error
	if !errors.As(err, &qe) || !errors.Is(err, cause) {
		t.Fatalf("failing UDF: %v, want an *Error wrapping its cause", err)
	}
}
