package query

import (
	"math"
	"math/rand/v2"
)

func init() {
	unary := func(name string, f func(float64) float64) {
		register(name, 1, 1, pure(func(a []any) any {
			x, ok := toNumber(a[0])
			if !ok {
				return undefined
			}
			return number(f(x))
		}))
	}
	unary("ABS", math.Abs)
	unary("ACOS", math.Acos)
	unary("ASIN", math.Asin)
	unary("ATAN", math.Atan)
	unary("CEILING", math.Ceil)
	unary("COS", math.Cos)
	unary("COT", func(x float64) float64 { return 1 / math.Tan(x) })
	unary("DEGREES", func(x float64) float64 { return x * 180 / math.Pi })
	unary("EXP", math.Exp)
	unary("FLOOR", math.Floor)
	unary("LOG10", math.Log10)
	unary("RADIANS", func(x float64) float64 { return x * math.Pi / 180 })
	// ROUND rounds half away from zero, as Cosmos documents.
	unary("ROUND", math.Round)
	unary("SIGN", func(x float64) float64 {
		switch {
		case x > 0:
			return 1
		case x < 0:
			return -1
		}
		return 0
	})
	unary("SIN", math.Sin)
	unary("SQRT", math.Sqrt)
	unary("SQUARE", func(x float64) float64 { return x * x })
	unary("TAN", math.Tan)
	unary("TRUNC", math.Trunc)

	binary := func(name string, f func(a, b float64) float64) {
		register(name, 2, 2, pure(func(a []any) any {
			x, ok1 := toNumber(a[0])
			y, ok2 := toNumber(a[1])
			if !ok1 || !ok2 {
				return undefined
			}
			return number(f(x, y))
		}))
	}
	// ATN2(a, b) is the angle of the point (a, b): atan2(b, a).
	binary("ATN2", func(a, b float64) float64 { return math.Atan2(b, a) })
	binary("POWER", math.Pow)

	register("LOG", 1, 2, pure(func(a []any) any {
		x, ok := toNumber(a[0])
		if !ok {
			return undefined
		}
		if len(a) == 1 {
			return number(math.Log(x))
		}
		base, ok := toNumber(a[1])
		if !ok {
			return undefined
		}
		return number(math.Log(x) / math.Log(base))
	}))
	register("PI", 0, 0, pure(func([]any) any { return math.Pi }))
	register("RAND", 0, 0, pure(func([]any) any { return rand.Float64() }))
	register("NUMBERBIN", 1, 2, pure(fnNumberBin))

	intOp := func(name string, f func(a, b int64) (int64, bool)) {
		register(name, 2, 2, pure(func(a []any) any {
			x, ok1 := intValue(a[0])
			y, ok2 := intValue(a[1])
			if !ok1 || !ok2 {
				return undefined
			}
			r, ok := f(x, y)
			if !ok {
				return undefined
			}
			return float64(r)
		}))
	}
	intOp("INTADD", func(a, b int64) (int64, bool) { return a + b, true })
	intOp("INTSUB", func(a, b int64) (int64, bool) { return a - b, true })
	intOp("INTMUL", func(a, b int64) (int64, bool) { return a * b, true })
	intOp("INTDIV", func(a, b int64) (int64, bool) {
		if b == 0 || (a == math.MinInt64 && b == -1) {
			return 0, false
		}
		return a / b, true
	})
	intOp("INTMOD", func(a, b int64) (int64, bool) {
		if b == 0 || (a == math.MinInt64 && b == -1) {
			return 0, false
		}
		return a % b, true
	})
	intOp("INTBITAND", func(a, b int64) (int64, bool) { return a & b, true })
	intOp("INTBITOR", func(a, b int64) (int64, bool) { return a | b, true })
	intOp("INTBITXOR", func(a, b int64) (int64, bool) { return a ^ b, true })
	intOp("INTBITLEFTSHIFT", func(a, b int64) (int64, bool) { return a << (uint64(b) & 63), true })
	intOp("INTBITRIGHTSHIFT", func(a, b int64) (int64, bool) { return a >> (uint64(b) & 63), true })
	register("INTBITNOT", 1, 1, pure(func(a []any) any {
		x, ok := intValue(a[0])
		if !ok {
			return undefined
		}
		return float64(^x)
	}))
}

func isInteger(f float64) bool {
	return f == math.Trunc(f) && !math.IsInf(f, 0)
}

// intValue accepts only integral numbers, as the Int* functions do.
func intValue(v any) (int64, bool) {
	f, ok := toNumber(v)
	if !ok || !isInteger(f) || math.Abs(f) > 1<<63 {
		return 0, false
	}
	return toInt(f), true
}

// fnNumberBin rounds down to a multiple of the bin size (default 1).
func fnNumberBin(a []any) any {
	x, ok := toNumber(a[0])
	if !ok {
		return undefined
	}
	bin := 1.0
	if len(a) == 2 {
		if bin, ok = toNumber(a[1]); !ok || bin == 0 {
			return undefined
		}
	}
	return number(math.Floor(x/bin) * bin)
}
