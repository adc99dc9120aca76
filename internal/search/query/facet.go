package query

import (
	"math"
	"strconv"
	"strings"
	"time"
)

// FacetSort is the order of a facet's buckets.
type FacetSort int

const (
	FacetSortCountDesc FacetSort = iota // "count" (default): most documents first
	FacetSortCountAsc                   // "-count"
	FacetSortValueAsc                   // "value"
	FacetSortValueDesc                  // "-value"
)

// Facet is one parsed facet expression. For value facets Count is the
// number of buckets (default 10). Interval (numeric, > 0) or DateInterval
// (minute … year) makes range buckets of that width; Values gives explicit
// bucket boundaries ("values:10|20|30" → <10, [10,20), [20,30), ≥30).
type Facet struct {
	Field        Field
	Path         string
	Count        int
	Sort         FacetSort
	Interval     float64
	DateInterval string
	// Values holds the boundaries as given; NumericValues / TimeValues their
	// typed form for numeric and date fields.
	Values        []string
	NumericValues []float64
	TimeValues    []time.Time
}

// defaultFacetCount is Azure's default number of buckets.
const defaultFacetCount = 10

var dateIntervals = map[string]bool{"minute": true, "hour": true, "day": true, "week": true, "month": true, "quarter": true, "year": true}

// ParseFacet parses one facet parameter value, e.g. "Category,count:5,
// sort:-value", "Rating,interval:1", "LastRenovated,interval:year" or
// "Rating,values:2|4". The field must be facetable.
func ParseFacet(text string, schema Schema) (*Facet, error) {
	parts := strings.Split(text, ",")
	fail := func(pos int, format string, args ...any) (*Facet, error) {
		return nil, errorf(ParamFacet, pos, format, args...)
	}
	path := strings.TrimSpace(parts[0])
	if path == "" {
		return fail(0, "The facet expression '%s' has no field name.", text)
	}
	f, ok := schema.Field(path)
	if !ok {
		return fail(0, "Could not find a property named '%s' on type 'search.document'.", path)
	}
	if !f.Facetable || f.Type == TypeComplex {
		return fail(0, "The field '%s' is not facetable. Only facetable fields can be used in facet expressions.", path)
	}
	ft := &Facet{Field: f, Path: path, Count: defaultFacetCount}
	pos := len(parts[0]) + 1
	seen := map[string]bool{}
	for _, part := range parts[1:] {
		at := pos
		pos += len(part) + 1
		name, value, ok := strings.Cut(strings.TrimSpace(part), ":")
		name = strings.ToLower(strings.TrimSpace(name))
		value = strings.TrimSpace(value)
		if !ok || value == "" {
			return fail(at, "The facet parameter '%s' in '%s' must have the form name:value.", part, text)
		}
		if seen[name] {
			return fail(at, "The facet parameter '%s' is given more than once in '%s'.", name, text)
		}
		seen[name] = true
		switch name {
		case "count":
			n, err := strconv.Atoi(value)
			if err != nil || n < 0 {
				return fail(at, "The facet count '%s' must be a non-negative integer.", value)
			}
			ft.Count = n
		case "sort":
			s, ok := map[string]FacetSort{"count": FacetSortCountDesc, "-count": FacetSortCountAsc, "value": FacetSortValueAsc, "-value": FacetSortValueDesc}[value]
			if !ok {
				return fail(at, "The facet sort '%s' must be one of count, -count, value, -value.", value)
			}
			ft.Sort = s
		case "interval":
			switch {
			case isNumeric(f.Type):
				v, err := strconv.ParseFloat(value, 64)
				if err != nil || v <= 0 || math.IsInf(v, 0) || math.IsNaN(v) {
					return fail(at, "The facet interval '%s' must be a number greater than zero.", value)
				}
				ft.Interval = v
			case f.Type == TypeDateTimeOffset:
				if !dateIntervals[strings.ToLower(value)] {
					return fail(at, "The facet interval '%s' for a date field must be minute, hour, day, week, month, quarter or year.", value)
				}
				ft.DateInterval = strings.ToLower(value)
			default:
				return fail(at, "The facet interval is only valid for numeric and date fields; '%s' is %s.", path, f.Type)
			}
		case "values":
			if !isNumeric(f.Type) && f.Type != TypeDateTimeOffset {
				return fail(at, "Facet values are only valid for numeric and date fields; '%s' is %s.", path, f.Type)
			}
			for i, v := range strings.Split(value, "|") {
				v = strings.TrimSpace(v)
				ft.Values = append(ft.Values, v)
				if isNumeric(f.Type) {
					n, err := strconv.ParseFloat(v, 64)
					if err != nil || math.IsNaN(n) {
						return fail(at, "The facet value '%s' is not a number.", v)
					}
					if i > 0 && n <= ft.NumericValues[i-1] {
						return fail(at, "Facet values must be in ascending order.")
					}
					ft.NumericValues = append(ft.NumericValues, n)
				} else {
					t, err := time.Parse(time.RFC3339Nano, v)
					if err != nil {
						return fail(at, "The facet value '%s' is not a DateTimeOffset.", v)
					}
					if i > 0 && !t.After(ft.TimeValues[i-1]) {
						return fail(at, "Facet values must be in ascending order.")
					}
					ft.TimeValues = append(ft.TimeValues, t)
				}
			}
		case "timeoffset":
			return fail(at, "The facet parameter timeoffset is not supported by this server.")
		default:
			return fail(at, "Unknown facet parameter '%s' in '%s'.", name, text)
		}
	}
	if seen["interval"] && seen["values"] {
		return fail(0, "A facet cannot have both interval and values: '%s'.", text)
	}
	if f.Type == TypeGeographyPoint {
		return fail(0, "The field '%s' of type Edm.GeographyPoint cannot be faceted.", path)
	}
	return ft, nil
}
