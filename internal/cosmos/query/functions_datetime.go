package query

import (
	"math"
	"strings"
	"time"
)

// Cosmos date and time strings are ISO 8601 UTC with seven fractional
// digits: "YYYY-MM-DDThh:mm:ss.fffffffZ".
const dateTimeLayout = "2006-01-02T15:04:05.0000000Z"

func init() {
	current := func(f func(t time.Time) any) func(*runContext, []any) any {
		return func(run *runContext, _ []any) any { return f(run.now) }
	}
	for _, suffix := range []string{"", "STATIC"} {
		register("GETCURRENTDATETIME"+suffix, 0, 0, current(func(t time.Time) any { return formatDateTime(t) }))
		register("GETCURRENTTIMESTAMP"+suffix, 0, 0, current(func(t time.Time) any { return float64(t.UnixMilli()) }))
		register("GETCURRENTTICKS"+suffix, 0, 0, current(func(t time.Time) any { return float64(unixTicks(t)) }))
	}
	register("DATETIMEADD", 3, 3, pure(fnDateTimeAdd))
	register("DATETIMEDIFF", 3, 3, pure(fnDateTimeDiff))
	register("DATETIMEPART", 2, 2, pure(fnDateTimePart))
	register("DATETIMEFROMPARTS", 3, 7, pure(fnDateTimeFromParts))
	register("DATETIMETOTIMESTAMP", 1, 1, pure(func(a []any) any {
		t, ok := dateTimeArg(a[0])
		if !ok {
			return undefined
		}
		return float64(t.UnixMilli())
	}))
	register("DATETIMETOTICKS", 1, 1, pure(func(a []any) any {
		t, ok := dateTimeArg(a[0])
		if !ok {
			return undefined
		}
		return float64(unixTicks(t))
	}))
	register("TIMESTAMPTODATETIME", 1, 1, pure(func(a []any) any {
		ms, ok := toNumber(a[0])
		if !ok || math.Abs(ms) > 1e15 {
			return undefined
		}
		return formatDateTime(time.UnixMilli(toInt(ms)))
	}))
	register("TICKSTODATETIME", 1, 1, pure(func(a []any) any {
		ticks, ok := toNumber(a[0])
		if !ok || math.Abs(ticks) > 9e18/100 {
			return undefined
		}
		return formatDateTime(time.Unix(0, toInt(ticks)*100))
	}))
}

func formatDateTime(t time.Time) string { return t.UTC().Format(dateTimeLayout) }

func unixTicks(t time.Time) int64 { return t.Unix()*10_000_000 + int64(t.Nanosecond()/100) }

// dateTimeArg parses a Cosmos date and time string.
func dateTimeArg(v any) (time.Time, bool) {
	s, ok := v.(string)
	if !ok {
		return time.Time{}, false
	}
	for _, layout := range []string{time.RFC3339Nano, "2006-01-02T15:04:05.9999999", "2006-01-02"} {
		if t, err := time.Parse(layout, s); err == nil {
			return t.UTC(), true
		}
	}
	return time.Time{}, false
}

// dateTimePart normalizes a DateTimePart name or abbreviation.
func dateTimePart(v any) string {
	s, ok := v.(string)
	if !ok {
		return ""
	}
	return dateTimeParts[strings.ToLower(s)]
}

// dateTimeParts maps each DateTimePart name and abbreviation Cosmos
// accepts to the part's name.
var dateTimeParts = func() map[string]string {
	m := map[string]string{}
	for part, names := range map[string][]string{
		"year":        {"year", "yyyy", "yy"},
		"month":       {"month", "mm", "m"},
		"day":         {"day", "dd", "d"},
		"hour":        {"hour", "hh"},
		"minute":      {"minute", "mi", "n"},
		"second":      {"second", "ss", "s"},
		"millisecond": {"millisecond", "ms"},
		"microsecond": {"microsecond", "mcs"},
		"nanosecond":  {"nanosecond", "ns"},
	} {
		for _, n := range names {
			m[n] = part
		}
	}
	return m
}()

var partDurations = map[string]time.Duration{
	"hour":        time.Hour,
	"minute":      time.Minute,
	"second":      time.Second,
	"millisecond": time.Millisecond,
	"microsecond": time.Microsecond,
	"nanosecond":  time.Nanosecond,
}

// addMonths adds n months, clamping the day to the end of the target
// month as .NET does (Jan 31 + 1 month = Feb 28 or 29).
func addMonths(t time.Time, n int) time.Time {
	y, m, d := t.Date()
	total := int(m) - 1 + n
	ny, nm := y+floorDiv(total, 12), time.Month(floorMod(total, 12)+1)
	last := time.Date(ny, nm+1, 0, 0, 0, 0, 0, time.UTC).Day()
	d = min(d, last)
	hh, mm, ss := t.Clock()
	return time.Date(ny, nm, d, hh, mm, ss, t.Nanosecond(), time.UTC)
}

// floorDiv divides rounding toward negative infinity.
func floorDiv[T int | int64](a, b T) T {
	q := a / b
	if (a%b != 0) && ((a < 0) != (b < 0)) {
		q--
	}
	return q
}

func floorMod(a, b int) int { return a - floorDiv(a, b)*b }

func fnDateTimeAdd(a []any) any {
	part := dateTimePart(a[0])
	f, ok1 := toNumber(a[1])
	t, ok2 := dateTimeArg(a[2])
	if part == "" || !ok1 || !ok2 || math.Abs(f) > 1e12 {
		return undefined
	}
	n := toInt(f)
	var r time.Time
	switch part {
	case "year":
		r = addMonths(t, int(n)*12)
	case "month":
		r = addMonths(t, int(n))
	case "day":
		r = t.AddDate(0, 0, int(n))
	default:
		d := partDurations[part]
		if n > math.MaxInt64/int64(d) || n < math.MinInt64/int64(d) {
			return undefined
		}
		r = t.Add(time.Duration(n) * d)
	}
	if r.Year() < 1 || r.Year() > 9999 {
		return undefined
	}
	return formatDateTime(r)
}

// fnDateTimeDiff counts the part boundaries crossed between two times,
// like SQL Server's DATEDIFF, which Cosmos documents.
func fnDateTimeDiff(a []any) any {
	part := dateTimePart(a[0])
	s, ok1 := dateTimeArg(a[1])
	e, ok2 := dateTimeArg(a[2])
	if part == "" || !ok1 || !ok2 {
		return undefined
	}
	switch part {
	case "year":
		return float64(e.Year() - s.Year())
	case "month":
		return float64((e.Year()-s.Year())*12 + int(e.Month()) - int(s.Month()))
	case "day":
		sd := time.Date(s.Year(), s.Month(), s.Day(), 0, 0, 0, 0, time.UTC)
		ed := time.Date(e.Year(), e.Month(), e.Day(), 0, 0, 0, 0, time.UTC)
		return math.Round(ed.Sub(sd).Hours() / 24)
	}
	d := partDurations[part]
	return float64(floorDiv(e.UnixNano(), int64(d)) - floorDiv(s.UnixNano(), int64(d)))
}

func fnDateTimePart(a []any) any {
	part := dateTimePart(a[0])
	t, ok := dateTimeArg(a[1])
	if part == "" || !ok {
		return undefined
	}
	switch part {
	case "year":
		return float64(t.Year())
	case "month":
		return float64(t.Month())
	case "day":
		return float64(t.Day())
	case "hour":
		return float64(t.Hour())
	case "minute":
		return float64(t.Minute())
	case "second":
		return float64(t.Second())
	case "millisecond":
		return float64(t.Nanosecond() / 1e6)
	case "microsecond":
		return float64(t.Nanosecond() / 1e3)
	}
	return float64(t.Nanosecond())
}

// fnDateTimeFromParts takes year, month, day and optionally hour, minute,
// second and a fraction in 100 ns ticks; out-of-range parts give
// undefined.
func fnDateTimeFromParts(a []any) any {
	limits := [][2]int64{{1, 9999}, {1, 12}, {1, 31}, {0, 23}, {0, 59}, {0, 59}, {0, 9_999_999}}
	parts := make([]int64, 7)
	for i, v := range a {
		n, ok := intValue(v)
		if !ok || n < limits[i][0] || n > limits[i][1] {
			return undefined
		}
		parts[i] = n
	}
	t := time.Date(int(parts[0]), time.Month(parts[1]), int(parts[2]), int(parts[3]), int(parts[4]), int(parts[5]), int(parts[6])*100, time.UTC)
	if t.Day() != int(parts[2]) {
		return undefined // e.g. February 30
	}
	return formatDateTime(t)
}
