package script

import (
	"cmp"
	"errors"
	"sort"
	"strconv"

	"github.com/dop251/goja"
)

// The JavaScript query API (__.filter, __.chain()…value(), …) runs over
// every document of the partition, read page by page through
// ReadDocuments within the budget, with the script's functions applied in
// the runtime. Cosmos DB compiles such predicates to index lookups; the
// results are the same, only slower, and a partition in this emulator is
// small enough for that.

// queryPage is the page size the query API reads with.
const queryPage = 1000

type queryStep struct {
	kind    string // filter, map, pluck, flatten, sortBy, sortByDescending, unwind
	fn, fn2 goja.Callable
	prop    string
	shallow bool
}

func (x *execution) addQueryFunctions(o *goja.Object) {
	define := func(name string, parse func(args []goja.Value) (queryStep, []goja.Value)) {
		_ = o.Set(name, func(c goja.FunctionCall) goja.Value {
			step, rest := parse(x.dropCollection(c.Arguments))
			opts, cb := x.optionsAndCallback(arg(rest, 0), arg(rest, 1))
			return x.runQueryCall([]queryStep{step}, opts, cb)
		})
	}
	for _, name := range []string{"filter", "map", "sortBy", "sortByDescending"} {
		define(name, func(args []goja.Value) (queryStep, []goja.Value) { return x.functionStep(name, args) })
	}
	define("pluck", x.pluckStep)
	define("flatten", x.flattenStep)
	define("unwind", x.unwindStep)
	_ = o.Set("chain", x.chain)
}

func arg(args []goja.Value, i int) goja.Value {
	if i < len(args) {
		return args[i]
	}
	return goja.Undefined()
}

// dropCollection skips the optional leading collection argument
// (filter([collection], predicate, …)), which can only be this one.
func (x *execution) dropCollection(args []goja.Value) []goja.Value {
	if len(args) == 0 {
		return args
	}
	if o, ok := args[0].(*goja.Object); ok {
		if _, isFn := goja.AssertFunction(o); !isFn && o.ClassName() != "Array" {
			return args[1:]
		}
	}
	return args
}

func (x *execution) functionStep(kind string, args []goja.Value) (queryStep, []goja.Value) {
	step := queryStep{kind: kind}
	a := arg(args, 0)
	if fn, ok := goja.AssertFunction(a); ok {
		step.fn = fn
	} else if s, ok := a.Export().(string); ok && s != "" && (kind == "sortBy" || kind == "sortByDescending") {
		step.prop = s
	} else {
		x.throw(400, "The predicate/transform function must be provided.")
	}
	return step, rest(args, 1)
}

func rest(args []goja.Value, n int) []goja.Value {
	if len(args) <= n {
		return nil
	}
	return args[n:]
}

func (x *execution) pluckStep(args []goja.Value) (queryStep, []goja.Value) {
	s, ok := arg(args, 0).Export().(string)
	if !ok || s == "" {
		x.throw(400, "The property name must be a string and cannot be empty.")
	}
	return queryStep{kind: "pluck", prop: s}, rest(args, 1)
}

func (x *execution) flattenStep(args []goja.Value) (queryStep, []goja.Value) {
	if b, ok := arg(args, 0).Export().(bool); ok {
		return queryStep{kind: "flatten", shallow: b}, rest(args, 1)
	}
	if len(args) > 0 && goja.IsUndefined(args[0]) {
		return queryStep{kind: "flatten"}, rest(args, 1)
	}
	return queryStep{kind: "flatten"}, args
}

func (x *execution) unwindStep(args []goja.Value) (queryStep, []goja.Value) {
	cs, ok := goja.AssertFunction(arg(args, 0))
	if !ok {
		x.throw(400, `When using "unwind", "collectionSelector" must be a function.`)
	}
	step := queryStep{kind: "unwind", fn: cs}
	if rs, ok := goja.AssertFunction(arg(args, 1)); ok {
		step.fn2 = rs
		return step, rest(args, 2)
	}
	return step, rest(args, 1)
}

func (x *execution) queryResponse(accepted bool) *goja.Object {
	r := x.vm.NewObject()
	_ = r.Set("isAccepted", accepted)
	return r
}

// chain starts a chained query; its steps take no options or callback,
// value([options], [callback]) runs them.
func (x *execution) chain(goja.FunctionCall) goja.Value {
	q := x.vm.NewObject()
	accepted := x.accepted()
	_ = q.Set("isAccepted", accepted)
	var steps []queryStep
	add := func(name string, parse func(args []goja.Value) (queryStep, []goja.Value)) {
		_ = q.Set(name, func(c goja.FunctionCall) goja.Value {
			if !accepted {
				return q
			}
			step, more := parse(x.dropCollection(c.Arguments))
			for _, a := range more {
				switch jsTypeof(a) {
				case "undefined":
				case "function":
					x.throw(400, `When using "chain", the callback parameter can only be provided on the "value" function.`)
				default:
					x.throw(400, `When using "chain", options can only be provided on the call to the "value" function`)
				}
			}
			steps = append(steps, step)
			return q
		})
	}
	for _, name := range []string{"filter", "map", "sortBy", "sortByDescending"} {
		add(name, func(args []goja.Value) (queryStep, []goja.Value) { return x.functionStep(name, args) })
	}
	add("pluck", x.pluckStep)
	add("flatten", x.flattenStep)
	add("unwind", x.unwindStep)
	_ = q.Set("value", func(c goja.FunctionCall) goja.Value {
		if !accepted {
			return q
		}
		opts, cb := x.optionsAndCallback(c.Argument(0), c.Argument(1))
		return x.runQueryCall(steps, opts, cb)
	})
	return q
}

// errQueryStopped ends a query whose execution was stopped meanwhile.
var errQueryStopped = errors.New("script: query stopped")

func (x *execution) runQueryCall(steps []queryStep, _ *goja.Object, cb goja.Callable) goja.Value {
	if !x.accepted() {
		return x.queryResponse(false)
	}
	docs, err := x.readAll()
	if errors.Is(err, errQueryStopped) {
		return x.queryResponse(true)
	}
	if err != nil {
		x.finish(cb, err, nil)
		return x.queryResponse(true)
	}
	out, err := x.apply(steps, docs)
	if err != nil {
		var ex *goja.Exception
		if cb == nil || !errors.As(err, &ex) {
			panic(err)
		}
		x.enqueue(cb, ex.Value())
		return x.queryResponse(true)
	}
	result := x.vm.NewArray(toAny(out)...)
	if cb != nil {
		opts := x.vm.NewObject()
		_ = opts.Set("continuation", "")
		x.enqueue(cb, goja.Undefined(), result, opts)
		return x.queryResponse(true)
	}
	// Without a callback the results go to the response body, as text.
	if x.resp == nil {
		x.throw(400, "The callback function must be provided for scenarios, such as pre-trigger, when response object is not available.")
	}
	x.resp.appendBody(x, x.vm.ToValue(string(x.mustJSON(result))))
	return x.queryResponse(true)
}

func toAny(vs []goja.Value) []any {
	out := make([]any, len(vs))
	for i, v := range vs {
		out[i] = v
	}
	return out
}

func (x *execution) readAll() ([]goja.Value, error) {
	var all [][]byte
	cont := ""
	for {
		docs, next, err := x.coll.ReadDocuments(queryPage, cont)
		if err != nil {
			return nil, err
		}
		all = append(all, docs...)
		if next == "" {
			break
		}
		if !x.withinBudget() {
			return nil, errQueryStopped
		}
		cont = next
	}
	arr := x.docArray(all)
	out := make([]goja.Value, len(all))
	for i := range all {
		out[i] = arr.Get(strconv.Itoa(i))
	}
	return out, nil
}

func (x *execution) apply(steps []queryStep, items []goja.Value) ([]goja.Value, error) {
	var err error
	for _, s := range steps {
		switch s.kind {
		case "filter":
			items, err = x.filterItems(s.fn, items)
		case "map":
			items, err = x.mapItems(s.fn, items)
		case "pluck":
			items = pluckItems(s.prop, items)
		case "flatten":
			items = x.flattenItems(items, s.shallow, 0)
		case "sortBy", "sortByDescending":
			items, err = x.sortItems(s, items)
		case "unwind":
			items, err = x.unwindItems(s, items)
		}
		if err != nil {
			return nil, err
		}
	}
	return items, nil
}

func (x *execution) filterItems(fn goja.Callable, items []goja.Value) ([]goja.Value, error) {
	var out []goja.Value
	for i, it := range items {
		r, err := fn(goja.Undefined(), it, x.vm.ToValue(i))
		if err != nil {
			return nil, err
		}
		if r.ToBoolean() {
			out = append(out, it)
		}
	}
	return out, nil
}

func (x *execution) mapItems(fn goja.Callable, items []goja.Value) ([]goja.Value, error) {
	out := make([]goja.Value, len(items))
	for i, it := range items {
		r, err := fn(goja.Undefined(), it, x.vm.ToValue(i))
		if err != nil {
			return nil, err
		}
		out[i] = r
	}
	return out, nil
}

func pluckItems(prop string, items []goja.Value) []goja.Value {
	out := make([]goja.Value, len(items))
	for i, it := range items {
		out[i] = goja.Undefined()
		if o, ok := it.(*goja.Object); ok {
			if v := o.Get(prop); v != nil {
				out[i] = v
			}
		}
	}
	return out
}

// maxFlattenDepth stops a deep flatten of a self-containing array.
const maxFlattenDepth = 100

// flattenItems spreads array items into the result: one level when
// shallow, else all the way down.
func (x *execution) flattenItems(items []goja.Value, shallow bool, depth int) []goja.Value {
	var out []goja.Value
	for _, it := range items {
		o, ok := it.(*goja.Object)
		if !ok || o.ClassName() != "Array" || depth >= maxFlattenDepth {
			out = append(out, it)
			continue
		}
		elems := x.arrayElements(o)
		if shallow {
			out = append(out, elems...)
		} else {
			out = append(out, x.flattenItems(elems, false, depth+1)...)
		}
		x.checkLength(len(out))
	}
	return out
}

// checkLength bounds what flattening can multiply (one array may be an
// element of another many times).
func (x *execution) checkLength(n int) {
	if n > maxArrayElements {
		x.throw(400, "The query functions produced more than %d items.", maxArrayElements)
	}
}

// maxArrayElements bounds the arrays the query functions spread: the
// walk is native code, which the budget's interrupt cannot stop.
const maxArrayElements = 1 << 20

func (x *execution) arrayElements(o *goja.Object) []goja.Value {
	n := o.Get("length").ToInteger()
	if n > maxArrayElements {
		x.throw(400, "An array of %d elements is too large for the query functions.", n)
	}
	out := make([]goja.Value, 0, n)
	for i := int64(0); i < n; i++ {
		v := o.Get(strconv.FormatInt(i, 10))
		if v == nil {
			v = goja.Undefined()
		}
		out = append(out, v)
	}
	return out
}

// sortItems orders by the key the function (or property) gives, in Cosmos
// DB's cross-type order; equal keys keep their order.
func (x *execution) sortItems(s queryStep, items []goja.Value) ([]goja.Value, error) {
	keys := make([]goja.Value, len(items))
	for i, it := range items {
		if s.fn != nil {
			k, err := s.fn(goja.Undefined(), it, x.vm.ToValue(i))
			if err != nil {
				return nil, err
			}
			keys[i] = k
		} else {
			keys[i] = pluckItems(s.prop, []goja.Value{it})[0]
		}
	}
	idx := make([]int, len(items))
	for i := range idx {
		idx[i] = i
	}
	desc := s.kind == "sortByDescending"
	sort.SliceStable(idx, func(a, b int) bool {
		c := compareKeys(keys[idx[a]], keys[idx[b]])
		if desc {
			return c > 0
		}
		return c < 0
	})
	out := make([]goja.Value, len(items))
	for i, j := range idx {
		out[i] = items[j]
	}
	return out, nil
}

// keyRank is the cross-type order of ORDER BY: undefined < null <
// booleans < numbers < strings < arrays < objects.
func keyRank(v goja.Value) int {
	switch {
	case v == nil || goja.IsUndefined(v):
		return 0
	case goja.IsNull(v):
		return 1
	}
	if o, ok := v.(*goja.Object); ok {
		if o.ClassName() == "Array" {
			return 5
		}
		return 6
	}
	switch v.Export().(type) {
	case bool:
		return 2
	case int64, float64:
		return 3
	case string:
		return 4
	}
	return 6
}

func compareKeys(a, b goja.Value) int {
	ra, rb := keyRank(a), keyRank(b)
	if ra != rb {
		return ra - rb
	}
	switch ra {
	case 2:
		ab, bb := a.ToBoolean(), b.ToBoolean()
		switch {
		case ab == bb:
			return 0
		case !ab:
			return -1
		}
		return 1
	case 3:
		af, bf := a.ToFloat(), b.ToFloat()
		switch {
		case af < bf:
			return -1
		case af > bf:
			return 1
		}
		return 0
	case 4:
		return cmp.Compare(a.String(), b.String())
	}
	return 0
}

// unwindItems joins each item with the elements of the array the
// collection selector picks, as (item, element) through the result
// selector, or the elements themselves without one.
func (x *execution) unwindItems(s queryStep, items []goja.Value) ([]goja.Value, error) {
	var out []goja.Value
	for _, it := range items {
		c, err := s.fn(goja.Undefined(), it)
		if err != nil {
			return nil, err
		}
		o, ok := c.(*goja.Object)
		if !ok || o.ClassName() != "Array" {
			continue
		}
		for _, el := range x.arrayElements(o) {
			if s.fn2 == nil {
				out = append(out, el)
				x.checkLength(len(out))
				continue
			}
			r, err := s.fn2(goja.Undefined(), it, el)
			if err != nil {
				return nil, err
			}
			out = append(out, x.flattenItems([]goja.Value{r}, true, 0)...)
			x.checkLength(len(out))
		}
	}
	return out, nil
}
