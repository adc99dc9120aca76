package odata

import (
	"cmp"
	"encoding/hex"
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
	"time"
)

// Type is an entity property's EDM type.
type Type uint8

// The EDM types the Table service stores. The zero Type is invalid.
const (
	String Type = iota + 1
	Int32
	Int64
	Double
	Boolean
	DateTime
	Guid
	Binary
)

var typeNames = [...]string{
	String:   "Edm.String",
	Int32:    "Edm.Int32",
	Int64:    "Edm.Int64",
	Double:   "Edm.Double",
	Boolean:  "Edm.Boolean",
	DateTime: "Edm.DateTime",
	Guid:     "Edm.Guid",
	Binary:   "Edm.Binary",
}

// String returns the type's OData name, such as "Edm.Int64".
func (t Type) String() string {
	if t == 0 || int(t) >= len(typeNames) {
		return fmt.Sprintf("Type(%d)", uint8(t))
	}
	return typeNames[t]
}

// Valid reports whether t is one of the EDM types above.
func (t Type) Valid() bool { return t >= String && t <= Binary }

// ParseType maps an OData type name ("Edm.Guid") to its Type.
func ParseType(name string) (Type, bool) {
	for t, n := range typeNames {
		if n != "" && n == name {
			return Type(t), true
		}
	}
	return 0, false
}

// Value is one typed property value.
//
// Representation by type: String keeps its text and Binary its bytes in
// Str; Guid keeps its canonical lower-case text in Str; Int32, Int64 and
// DateTime (in ticks, see Ticks) keep Num; Boolean keeps 0 or 1 in Num;
// Double keeps Float.
type Value struct {
	Type  Type
	Str   string
	Num   int64
	Float float64
}

// Constructors for each type.
func StringValue(s string) Value       { return Value{Type: String, Str: s} }
func Int32Value(n int32) Value         { return Value{Type: Int32, Num: int64(n)} }
func Int64Value(n int64) Value         { return Value{Type: Int64, Num: n} }
func DoubleValue(f float64) Value      { return Value{Type: Double, Float: f} }
func BinaryValue(b []byte) Value       { return Value{Type: Binary, Str: string(b)} }
func DateTimeValue(ticks int64) Value  { return Value{Type: DateTime, Num: ticks} }
func TimeValue(t time.Time) Value      { return DateTimeValue(Ticks(t)) }
func guidValue(canonical string) Value { return Value{Type: Guid, Str: canonical} }

// BoolValue returns a Boolean value.
func BoolValue(b bool) Value {
	if b {
		return Value{Type: Boolean, Num: 1}
	}
	return Value{Type: Boolean}
}

// Bool returns a Boolean value's truth.
func (v Value) Bool() bool { return v.Num != 0 }

// Time returns a DateTime value as a UTC time.
func (v Value) Time() time.Time { return TicksTime(v.Num) }

// Equal reports whether v and o are the same typed value (NaN equals NaN
// here: this is identity, not the filter's IEEE comparison).
func (v Value) Equal(o Value) bool {
	if v.Type != o.Type {
		return false
	}
	if v.Type == Double {
		return v.Float == o.Float || math.IsNaN(v.Float) && math.IsNaN(o.Float)
	}
	return v.Str == o.Str && v.Num == o.Num
}

// compare orders two values of the same type; ok is false for values of
// different types and for comparisons involving NaN, which no operator
// but ne satisfies.
func compare(a, b Value) (c int, ok bool) {
	if a.Type != b.Type {
		return 0, false
	}
	switch a.Type {
	case String, Binary, Guid:
		return strings.Compare(a.Str, b.Str), true
	case Double:
		if math.IsNaN(a.Float) || math.IsNaN(b.Float) {
			return 0, false
		}
		return cmp.Compare(a.Float, b.Float), true
	default:
		return cmp.Compare(a.Num, b.Num), true
	}
}

// Ticks are .NET DateTime ticks: 100 ns intervals since 0001-01-01 UTC.
// They cover the whole range Azure accepts (1601 to 9999), which Unix
// nanoseconds in an int64 do not.
const unixEpochTicks = 621355968000000000

// Ticks converts t to ticks, truncating below 100 ns.
func Ticks(t time.Time) int64 {
	return t.Unix()*1e7 + int64(t.Nanosecond()/100) + unixEpochTicks
}

// TicksTime converts ticks back to a UTC time.
func TicksTime(ticks int64) time.Time {
	rel := ticks - unixEpochTicks
	sec, frac := rel/1e7, rel%1e7
	if frac < 0 {
		sec, frac = sec-1, frac+1e7
	}
	return time.Unix(sec, frac*100).UTC()
}

// DateTime limits: Azure stores times from 1601-01-01 to 9999-12-31.
var (
	MinDateTime = Ticks(time.Date(1601, 1, 1, 0, 0, 0, 0, time.UTC))
	MaxDateTime = Ticks(time.Date(9999, 12, 31, 23, 59, 59, 999999900, time.UTC))
)

// ErrBadValue is returned (wrapped) for text that is not a value of the
// type it claims to be.
var ErrBadValue = errors.New("odata: malformed value")

// wireTime is how DateTime values and Timestamps go on the wire: up to
// seven fractional digits with trailing zeros dropped, and no fraction at
// all on a whole second, as Azure writes them ("1992-12-20T21:55:00Z",
// "2022-04-13T19:28:58.730374Z", "2013-08-02T17:37:43.0090043Z" in the
// recorded answers of test/parity).
const wireTime = "2006-01-02T15:04:05.9999999Z"

// FormatDateTime renders ticks the way Azure sends DateTime values.
func FormatDateTime(ticks int64) string { return TicksTime(ticks).Format(wireTime) }

// ParseDateTime reads an ISO 8601 date-time (RFC 3339 with up to seven
// fractional digits; a missing zone means UTC) into ticks.
func ParseDateTime(s string) (int64, error) {
	for _, layout := range []string{time.RFC3339Nano, "2006-01-02T15:04:05.999999999", "2006-01-02T15:04Z07:00", "2006-01-02T15:04"} {
		t, err := time.Parse(layout, s)
		if err != nil {
			continue
		}
		ticks := Ticks(t.UTC())
		if ticks < MinDateTime || ticks > MaxDateTime {
			return 0, fmt.Errorf("%w: date-time %q is outside 1601-01-01 to 9999-12-31", ErrBadValue, s)
		}
		return ticks, nil
	}
	return 0, fmt.Errorf("%w: %q is not an ISO 8601 date-time", ErrBadValue, s)
}

// ParseGuid reads a GUID in its 8-4-4-4-12 hexadecimal form (optionally in
// braces) and returns the canonical lower-case text.
func ParseGuid(s string) (Value, error) {
	if len(s) == 38 && s[0] == '{' && s[37] == '}' {
		s = s[1:37]
	}
	if len(s) != 36 {
		return Value{}, fmt.Errorf("%w: %q is not a GUID", ErrBadValue, s)
	}
	for i := 0; i < 36; i++ {
		c := s[i]
		switch i {
		case 8, 13, 18, 23:
			if c != '-' {
				return Value{}, fmt.Errorf("%w: %q is not a GUID", ErrBadValue, s)
			}
		default:
			if !isHex(c) {
				return Value{}, fmt.Errorf("%w: %q is not a GUID", ErrBadValue, s)
			}
		}
	}
	return guidValue(strings.ToLower(s)), nil
}

func isHex(c byte) bool { return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F' }

// ParseDouble reads a Double from JSON text: a number or one of the
// strings Azure and the SDKs use for special values.
func ParseDouble(s string) (float64, error) {
	switch s {
	case "NaN":
		return math.NaN(), nil
	case "Infinity", "INF":
		return math.Inf(1), nil
	case "-Infinity", "-INF":
		return math.Inf(-1), nil
	}
	f, err := strconv.ParseFloat(s, 64)
	if err != nil || math.IsInf(f, 0) || math.IsNaN(f) {
		return 0, fmt.Errorf("%w: %q is not a Double", ErrBadValue, s)
	}
	return f, nil
}

// FormatDouble renders a finite double as JSON text that no reader takes
// for an integer (5 is written 5.0), or a special value as Azure's string.
func FormatDouble(f float64) (text string, special bool) {
	switch {
	case math.IsNaN(f):
		return "NaN", true
	case math.IsInf(f, 1):
		return "Infinity", true
	case math.IsInf(f, -1):
		return "-Infinity", true
	}
	s := strconv.FormatFloat(f, 'g', -1, 64)
	if !strings.ContainsAny(s, ".eEn") {
		s += ".0"
	}
	return s, false
}

// String renders v as a filter literal (used in tests and messages).
func (v Value) String() string {
	switch v.Type {
	case String:
		return "'" + strings.ReplaceAll(v.Str, "'", "''") + "'"
	case Int32:
		return strconv.FormatInt(v.Num, 10)
	case Int64:
		return strconv.FormatInt(v.Num, 10) + "L"
	case Double:
		s, _ := FormatDouble(v.Float)
		return s
	case Boolean:
		return strconv.FormatBool(v.Bool())
	case DateTime:
		return "datetime'" + FormatDateTime(v.Num) + "'"
	case Guid:
		return "guid'" + v.Str + "'"
	case Binary:
		return "X'" + hex.EncodeToString([]byte(v.Str)) + "'"
	}
	return "<invalid>"
}
