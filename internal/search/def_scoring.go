package search

import (
	"encoding/json"
	"regexp"
	"strings"
)

// ScoringProfile is a named way of ranking: weights of text fields and
// functions over field values.
type ScoringProfile struct {
	Name                string             `json:"name"`
	FunctionAggregation *string            `json:"functionAggregation"`
	Text                *TextWeights       `json:"text"`
	Functions           []*ScoringFunction `json:"functions"`
}

// TextWeights weigh matches in fields, by field path.
type TextWeights struct {
	Weights map[string]json.Number `json:"weights"`
	// order is the order the service writes the weights in: that of the
	// fields they weigh (Index.fillDefaults sets it). The hotels index of
	// the Java SDK's recordings (IndexManagementTests.canCreateAndListIndexesSyncAndAsync)
	// weighs Description and Category, answered in that order.
	order []string
}

// UnmarshalJSON decodes the weights and the order they are written in.
func (t *TextWeights) UnmarshalJSON(b []byte) error {
	type plain TextWeights
	if err := unmarshalJSON(b, (*plain)(t)); err != nil {
		return err
	}
	t.order = keysUnder(b, "weights")
	return nil
}

// MarshalJSON writes the weights in order.
func (t TextWeights) MarshalJSON() ([]byte, error) {
	weights, err := marshalInOrder(t.Weights, t.order)
	if err != nil {
		return nil, err
	}
	return json.Marshal(struct {
		Weights json.RawMessage `json:"weights"`
	}{weights})
}

// ScoringFunction boosts documents by one field's value; the parameters
// of its type are set, the others nil, and written as null as the
// service writes them (the Python SDK's scoring aggregation recording).
type ScoringFunction struct {
	FieldName     string             `json:"fieldName"`
	Interpolation string             `json:"interpolation"`
	Type          string             `json:"type"`
	Boost         *json.Number       `json:"boost"`
	Freshness     *FreshnessFunction `json:"freshness"`
	Magnitude     *MagnitudeFunction `json:"magnitude"`
	Distance      *DistanceFunction  `json:"distance"`
	Tag           *TagFunction       `json:"tag"`
}

// MagnitudeFunction boosts by a numeric field's place in a range.
type MagnitudeFunction struct {
	BoostingRangeStart       *json.Number `json:"boostingRangeStart"`
	BoostingRangeEnd         *json.Number `json:"boostingRangeEnd"`
	ConstantBoostBeyondRange *bool        `json:"constantBoostBeyondRange"`
}

// FreshnessFunction boosts by a date's age.
type FreshnessFunction struct {
	BoostingDuration string `json:"boostingDuration"`
}

// DistanceFunction boosts by the distance from a point the query gives.
type DistanceFunction struct {
	ReferencePointParameter string       `json:"referencePointParameter"`
	BoostingDistance        *json.Number `json:"boostingDistance"`
}

// TagFunction boosts documents sharing tags the query gives.
type TagFunction struct {
	TagsParameter string `json:"tagsParameter"`
}

// Validate checks the profile alone (not the fields it names).
func (p *ScoringProfile) Validate() error {
	return p.validate("scoringProfile", nil)
}

// validate checks the profile against the index's fields (nil: not
// checked) and fills in the function defaults.
func (p *ScoringProfile) validate(where string, fields map[string]*Field) error {
	if !validComponentName(p.Name) {
		return componentNameError(where+".name", "scoring profile", p.Name)
	}
	if err := p.Text.validate(where+".text", p.Name, fields); err != nil {
		return err
	}
	for j, fn := range p.Functions {
		if err := fn.validate(at(where+".functions", j), fields); err != nil {
			return err
		}
	}
	switch agg := deref(p.FunctionAggregation); agg {
	case "":
		if len(p.Functions) > 0 {
			p.FunctionAggregation = ptr("sum")
		}
	case "sum", "average", "minimum", "maximum", "firstMatching", "product":
	default:
		return invalid(where+".functionAggregation", "The function aggregation '%s' is not one of sum, average, minimum, maximum or firstMatching.", agg)
	}
	p.Functions = orEmpty(p.Functions)
	return nil
}

func (t *TextWeights) validate(where, profile string, fields map[string]*Field) error {
	if t == nil {
		return nil
	}
	for _, path := range sortedKeys(t.Weights) {
		if fields != nil {
			f := fields[path]
			if f == nil || !f.Searchable || f.ElementType != "Edm.String" {
				return invalid(where+".weights", "The weighted field '%s' of scoring profile '%s' must be a searchable field of type Edm.String or Collection(Edm.String).", path, profile)
			}
		}
		n := t.Weights[path]
		double(&n)
		t.Weights[path] = n
		w, _, err := finite(&n, where+".weights."+path)
		if err != nil {
			return err
		}
		if w <= 0 {
			return invalid(where+".weights", "The weight of field '%s' must be a positive number.", path)
		}
	}
	return nil
}

var iso8601Duration = regexp.MustCompile(`^-?P(?:\d+Y)?(?:\d+M)?(?:\d+W)?(?:\d+D)?(?:T(?:\d+H)?(?:\d+M)?(?:\d+(?:\.\d+)?S)?)?$`)

// scoringFieldTypes are the field types each function reads, and how
// messages name them.
var scoringFieldTypes = map[string]struct {
	ok   func(f *Field) bool
	want string
}{
	"magnitude": {func(f *Field) bool {
		return !f.Collection && (f.ElementType == "Edm.Int32" || f.ElementType == "Edm.Int64" || f.ElementType == "Edm.Double")
	}, "Edm.Int32, Edm.Int64 or Edm.Double"},
	"freshness": {func(f *Field) bool { return f.Type == "Edm.DateTimeOffset" }, "Edm.DateTimeOffset"},
	"distance":  {func(f *Field) bool { return f.Type == "Edm.GeographyPoint" }, "Edm.GeographyPoint"},
	"tag":       {func(f *Field) bool { return f.ElementType == "Edm.String" }, "Edm.String or Collection(Edm.String)"},
}

// Validate checks the function alone (not the field it names) and fills
// in its interpolation.
func (fn *ScoringFunction) Validate() error { return fn.validate("scoringFunction", nil) }

func (fn *ScoringFunction) validate(where string, fields map[string]*Field) error {
	var f *Field
	if fields != nil {
		if f = fields[fn.FieldName]; f == nil {
			return invalid(where+".fieldName", "The field '%s' of the scoring function does not exist in the index.", fn.FieldName)
		}
		if !f.Filterable {
			return invalid(where+".fieldName", "The field '%s' of a scoring function must be filterable.", fn.FieldName)
		}
	}
	double(fn.Boost)
	boost, ok, err := finite(fn.Boost, where+".boost")
	if err != nil {
		return err
	}
	if !ok || boost <= 0 || boost == 1 {
		return invalid(where+".boost", "The boost of a scoring function must be a positive number other than 1.0.")
	}
	switch fn.Interpolation {
	case "":
		fn.Interpolation = "linear"
	case "linear", "constant", "quadratic", "logarithmic":
	default:
		return invalid(where+".interpolation", "The interpolation '%s' is not one of linear, constant, quadratic or logarithmic.", fn.Interpolation)
	}
	types, known := scoringFieldTypes[fn.Type]
	if !known {
		return invalid(where+".type", "The scoring function type '%s' is not one of magnitude, freshness, distance or tag.", fn.Type)
	}
	if f != nil && !types.ok(f) {
		return invalid(where+".fieldName", "A %s function needs a field of type %s; '%s' is of type '%s'.", fn.Type, types.want, fn.FieldName, f.Type)
	}
	return fn.validateParameters(where)
}

// validateParameters checks the parameters of the function's type.
func (fn *ScoringFunction) validateParameters(where string) error {
	pat := where + "." + fn.Type
	given := map[string]bool{"magnitude": fn.Magnitude != nil, "freshness": fn.Freshness != nil, "distance": fn.Distance != nil, "tag": fn.Tag != nil}
	if !given[fn.Type] {
		return invalid(pat, "A %s function needs its '%s' parameters.", fn.Type, fn.Type)
	}
	switch fn.Type {
	case "magnitude":
		return fn.Magnitude.validate(pat)
	case "freshness":
		d := fn.Freshness.BoostingDuration
		if d == "" || !iso8601Duration.MatchString(d) || d == "P" || strings.HasSuffix(d, "T") {
			return invalid(pat+".boostingDuration", "The boosting duration '%s' is not an ISO 8601 duration such as P7D or PT12H.", d)
		}
		// Azure keeps the duration as a time span and writes it back in
		// days, hours, minutes and seconds: PT8760H is answered P365D (the
		// Java SDK's recording IndexManagementTests.canCreateAndListIndexesSyncAndAsync).
		if span, err := ParseDuration(d); err == nil {
			fn.Freshness.BoostingDuration = formatDuration(span)
		}
	case "distance":
		return fn.Distance.validate(pat)
	case "tag":
		if fn.Tag.TagsParameter == "" {
			return invalid(pat+".tagsParameter", "The tag function needs tagsParameter.")
		}
	}
	return nil
}

func (m *MagnitudeFunction) validate(pat string) error {
	double(m.BoostingRangeStart)
	double(m.BoostingRangeEnd)
	for _, r := range []struct {
		k string
		n *json.Number
	}{{"boostingRangeStart", m.BoostingRangeStart}, {"boostingRangeEnd", m.BoostingRangeEnd}} {
		if _, ok, err := finite(r.n, pat+"."+r.k); err != nil {
			return err
		} else if !ok {
			return invalid(pat+"."+r.k, "The magnitude function needs %s.", r.k)
		}
	}
	// Not given, it is false, and Azure says so (the Java SDK's recording
	// IndexManagementTests.createIndexReturnsCorrectDefaultValuesSync).
	if m.ConstantBoostBeyondRange == nil {
		m.ConstantBoostBeyondRange = ptr(false)
	}
	return nil
}

func (d *DistanceFunction) validate(pat string) error {
	double(d.BoostingDistance)
	if d.ReferencePointParameter == "" {
		return invalid(pat+".referencePointParameter", "The distance function needs referencePointParameter.")
	}
	if dist, ok, err := finite(d.BoostingDistance, pat+".boostingDistance"); err != nil {
		return err
	} else if !ok || dist <= 0 {
		return invalid(pat+".boostingDistance", "The distance function needs a positive boostingDistance (kilometres).")
	}
	return nil
}
