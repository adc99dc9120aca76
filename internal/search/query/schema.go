package query

import "strings"

// EDM type names as Azure AI Search spells them in an index definition.
const (
	TypeString         = "Edm.String"
	TypeInt32          = "Edm.Int32"
	TypeInt64          = "Edm.Int64"
	TypeDouble         = "Edm.Double"
	TypeSingle         = "Edm.Single"
	TypeBoolean        = "Edm.Boolean"
	TypeDateTimeOffset = "Edm.DateTimeOffset"
	TypeGeographyPoint = "Edm.GeographyPoint"
	TypeComplex        = "Edm.ComplexType"
)

// Field is what the query layer needs to know about one index field.
type Field struct {
	// Path is the field's path with '/' between the names of complex
	// parents, e.g. "Address/City".
	Path string
	// Type is the element type (an Edm name above); for Collection(X) it is X
	// and Collection is true. Collection describes the field's own type
	// only: "Rooms/Type" of a Collection(Edm.ComplexType) "Rooms" is a
	// plain Edm.String.
	Type       string
	Collection bool
	Searchable bool
	Filterable bool
	Sortable   bool
	Facetable  bool
	// Analyzer names the search analyzer ("standard.lucene" when empty). The
	// translator leaves analysis to the bleve mapping; the name is carried for
	// callers that need it (highlighting, suggesters).
	Analyzer string
}

// Schema resolves field paths of one index. Field must return false for a
// path that names no field; paths of sub-fields of complex fields are full
// paths ("Rooms/Type"). Implementations must be safe for concurrent use.
type Schema interface {
	Field(path string) (Field, bool)
	// SearchableFields lists the paths of every searchable field, in index
	// definition order: what a search without searchFields covers.
	SearchableFields() []string
}

// FieldName is the bleve field name under which the value of the field at
// path is indexed: analyzed text for searchable strings, numbers, dates,
// booleans and geo points. Bleve names nested object fields with '.', so
// "Address/City" is "Address.City".
func FieldName(path string) string { return strings.ReplaceAll(path, "/", ".") }

// ExactFieldName is the bleve field under which a filterable, sortable or
// facetable string field's whole value is indexed unanalyzed (keyword
// analyzer), which $filter equality, ranges and search.in match against. In a
// bleve document mapping it is a second FieldMapping on the same property
// whose Name is the property name + ExactSuffix.
func ExactFieldName(path string) string { return FieldName(path) + ExactSuffix }

// ExactSuffix is appended to a string field's name for its keyword copy.
const ExactSuffix = "$exact"

func isNumeric(t string) bool {
	return t == TypeInt32 || t == TypeInt64 || t == TypeDouble || t == TypeSingle
}
