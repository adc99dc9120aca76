package query

import (
	"time"

	"github.com/blevesearch/bleve/v2/search/query"
)

// FilterExpr is a node of a parsed $filter. Pos is its byte offset.
type FilterExpr interface {
	Pos() int
}

// CompareOp is an OData comparison operator.
type CompareOp int

const (
	OpEq CompareOp = iota
	OpNe
	OpGt
	OpGe
	OpLt
	OpLe
)

var compareOpNames = map[string]CompareOp{"eq": OpEq, "ne": OpNe, "gt": OpGt, "ge": OpGe, "lt": OpLt, "le": OpLe}

// kind is ODataLib's name of the operator, used in its error messages.
func (o CompareOp) kind() string {
	return [...]string{"Equal", "NotEqual", "GreaterThan", "GreaterThanOrEqual", "LessThan", "LessThanOrEqual"}[o]
}

// mirror is the operator with its operands swapped (5 lt x ⇔ x gt 5).
func (o CompareOp) mirror() CompareOp {
	return [...]CompareOp{OpEq, OpNe, OpLt, OpLe, OpGt, OpGe}[o]
}

// negate is the operator of not (x op y) for non-null operands.
func (o CompareOp) negate() CompareOp {
	return [...]CompareOp{OpNe, OpEq, OpLe, OpLt, OpGe, OpGt}[o]
}

// LiteralKind is the type of an OData constant.
type LiteralKind int

const (
	LitNull LiteralKind = iota
	LitString
	LitInt
	LitDouble
	LitBool
	LitDateTime
	LitPoint
	LitPolygon
)

// GeoPoint is a longitude/latitude pair in degrees.
type GeoPoint struct {
	Lon, Lat float64
}

// Literal is an OData constant; the field that Kind names holds its value.
type Literal struct {
	At      int
	Kind    LiteralKind
	Str     string
	Int     int64
	Float   float64 // LitDouble, and LitInt as float
	Bool    bool
	Time    time.Time
	Point   GeoPoint
	Polygon []GeoPoint
}

// FieldRef is a field path in a filter. Path is the full schema path
// ("Rooms/Type"); Var is the lambda range variable the reference starts
// from ("" for the document root) and Rel the path segments after it.
// Field is the schema entry; Element is true when the reference denotes one
// element of a collection (a range variable, or a path under one), so the
// value compared is a single value even though Field.Collection is set.
type FieldRef struct {
	At      int
	Path    string
	Var     string
	Rel     []string
	Field   Field
	Element bool
}

// AndExpr is left and right.
type AndExpr struct {
	At          int
	Left, Right FilterExpr
}

// OrExpr is left or right.
type OrExpr struct {
	At          int
	Left, Right FilterExpr
}

// NotExpr is not x.
type NotExpr struct {
	At int
	X  FilterExpr
}

// BoolLiteral is true or false as a whole condition.
type BoolLiteral struct {
	At    int
	Value bool
}

// CompareExpr is field op constant (a constant on the left is mirrored).
// A bare Boolean field is field eq true.
type CompareExpr struct {
	At    int
	Op    CompareOp
	Field *FieldRef
	Value Literal
}

// GeoDistanceExpr is geo.distance(field, point) op kilometres.
type GeoDistanceExpr struct {
	At       int
	Op       CompareOp
	Field    *FieldRef
	Point    GeoPoint
	Distance float64
}

// GeoIntersectsExpr is geo.intersects(field, polygon).
type GeoIntersectsExpr struct {
	At      int
	Field   *FieldRef
	Polygon []GeoPoint
}

// SearchInExpr is search.in(field, 'values', 'delimiters').
type SearchInExpr struct {
	At     int
	Field  *FieldRef
	Values []string
}

// IsMatchExpr is search.ismatch / search.ismatchscoring: a full-text query
// inside the filter. Query is its bleve translation; Scoring is true for
// ismatchscoring, whose matches also add to the document's score.
type IsMatchExpr struct {
	At      int
	Scoring bool
	Text    string
	Node    SearchNode
	Fields  []string
	Full    bool
	Mode    SearchMode
	Query   query.Query
}

// LambdaExpr is collection/any(v: body), collection/all(v: body), or
// collection/any() (Body nil: the collection is not empty).
type LambdaExpr struct {
	At         int
	All        bool
	Collection *FieldRef
	Var        string
	Body       FilterExpr
}

// Pos implementations.
func (e *AndExpr) Pos() int           { return e.At }
func (e *OrExpr) Pos() int            { return e.At }
func (e *NotExpr) Pos() int           { return e.At }
func (e *BoolLiteral) Pos() int       { return e.At }
func (e *CompareExpr) Pos() int       { return e.At }
func (e *GeoDistanceExpr) Pos() int   { return e.At }
func (e *GeoIntersectsExpr) Pos() int { return e.At }
func (e *SearchInExpr) Pos() int      { return e.At }
func (e *IsMatchExpr) Pos() int       { return e.At }
func (e *LambdaExpr) Pos() int        { return e.At }
