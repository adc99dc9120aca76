package search

import (
	"encoding/json"
	"math"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/cerulean-db/cerulean/internal/search/query"
)

// scoringFunctions are the functions of the scoring profile a search
// applies, with how their boosts combine.
type scoringFunctions struct {
	fns         []scoringFunc
	aggregation string // sum (default), average, minimum, maximum, firstMatching, product
}

// scoringFunc is one function of a scoring profile: how far a document's
// field value lies within the function's range gives a fraction f in
// [0, 1], shaped by the interpolation, and the document's score is
// multiplied by 1 + (boost-1)·f. A document the function does not reach
// keeps its score.
type scoringFunc struct {
	typ, path, interpolation string
	boost                    float64
	// magnitude
	start, end  float64
	constBeyond bool
	// freshness
	duration time.Duration
	now      time.Time
	// distance
	lon, lat, km float64
	// tag
	tags map[string]bool
}

// scoringProfileFunctions reads the functions of profile pm with the
// request's scoringParameters ("name-value" or "name-v1,v2").
func scoringProfileFunctions(p *ScoringProfile, params []string, now time.Time) (*scoringFunctions, error) {
	if len(p.Functions) == 0 {
		return nil, nil
	}
	named := map[string]string{}
	for _, param := range params {
		name, value, ok := strings.Cut(param, "-")
		if !ok || name == "" {
			return nil, badRequest("The scoring parameter '%s' is not of the form name-value.", param)
		}
		named[name] = value
	}
	out := &scoringFunctions{aggregation: "sum"}
	if a := deref(p.FunctionAggregation); a != "" {
		out.aggregation = a
	}
	for _, fn := range p.Functions {
		f, err := scoringFunctionOf(fn, named, now)
		if err != nil {
			return nil, err
		}
		out.fns = append(out.fns, f)
	}
	return out, nil
}

// numberOf is a stored number (0 when absent).
func numberOf(n *json.Number) float64 {
	if n == nil {
		return 0
	}
	f, _ := n.Float64()
	return f
}

// scoringFunctionOf reads one function with the request's parameters.
func scoringFunctionOf(fn *ScoringFunction, named map[string]string, now time.Time) (scoringFunc, error) {
	f := scoringFunc{now: now, typ: fn.Type, path: fn.FieldName, interpolation: fn.Interpolation, boost: numberOf(fn.Boost)}
	switch {
	case fn.Type == "magnitude" && fn.Magnitude != nil:
		f.start, f.end = numberOf(fn.Magnitude.BoostingRangeStart), numberOf(fn.Magnitude.BoostingRangeEnd)
		f.constBeyond = deref(fn.Magnitude.ConstantBoostBeyondRange)
	case fn.Type == "freshness" && fn.Freshness != nil:
		d := fn.Freshness.BoostingDuration
		dur, err := ParseDuration(d)
		if err != nil || dur <= 0 {
			return f, badRequest("The boostingDuration '%s' of a freshness function is not a positive ISO 8601 duration.", d)
		}
		f.duration = dur
	case fn.Type == "distance" && fn.Distance != nil:
		name := fn.Distance.ReferencePointParameter
		f.km = numberOf(fn.Distance.BoostingDistance)
		v, ok := named[name]
		if !ok {
			return f, badRequest("Expected a value for the scoring parameter '%s' of the distance function.", name)
		}
		lonText, latText, ok := strings.Cut(v, ",")
		lon, err1 := strconv.ParseFloat(strings.TrimSpace(lonText), 64)
		lat, err2 := strconv.ParseFloat(strings.TrimSpace(latText), 64)
		if !ok || err1 != nil || err2 != nil || lon < -180 || lon > 180 || lat < -90 || lat > 90 {
			return f, badRequest("The scoring parameter '%s' must be a longitude and a latitude separated by a comma.", name)
		}
		f.lon, f.lat = lon, lat
	case fn.Type == "tag" && fn.Tag != nil:
		name := fn.Tag.TagsParameter
		v, ok := named[name]
		if !ok {
			return f, badRequest("Expected a value for the scoring parameter '%s' of the tag function.", name)
		}
		f.tags = map[string]bool{}
		for _, t := range strings.Split(v, ",") {
			f.tags[strings.ToLower(strings.TrimSpace(t))] = true
		}
	}
	return f, nil
}

// fraction is how far doc lies within f's range, in [0, 1], and whether
// the function reaches it at all.
func (f *scoringFunc) fraction(doc map[string]any) (float64, bool) {
	vals := valuesAt(doc, f.path)
	switch f.typ {
	case "magnitude":
		best, found := 0.0, false
		for _, v := range vals {
			x, ok := query.ToFloat(v)
			if !ok || f.end == f.start {
				continue
			}
			fr := (x - f.start) / (f.end - f.start)
			switch {
			case fr > 1 && f.constBeyond:
				fr = 1
			case fr < 0 || fr > 1:
				continue
			}
			best, found = max(best, fr), true
		}
		return best, found
	case "freshness":
		for _, v := range vals {
			s, _ := v.(string)
			t, err := time.Parse(time.RFC3339Nano, s)
			if err != nil {
				continue
			}
			age := f.now.Sub(t)
			if age < 0 {
				age = -age
			}
			if age <= f.duration {
				return 1 - float64(age)/float64(f.duration), true
			}
		}
	case "distance":
		for _, v := range vals {
			lon, lat, ok := geoPoint(v)
			if !ok || f.km <= 0 {
				continue
			}
			if d := query.DistanceKm(query.GeoPoint{Lon: lon, Lat: lat}, query.GeoPoint{Lon: f.lon, Lat: f.lat}); d <= f.km {
				return 1 - d/f.km, true
			}
		}
	case "tag":
		if len(vals) == 0 {
			return 0, false
		}
		hits := 0
		for _, v := range vals {
			if s, ok := v.(string); ok && f.tags[strings.ToLower(s)] {
				hits++
			}
		}
		if hits > 0 {
			return float64(hits) / float64(len(vals)), true
		}
	}
	return 0, false
}

// shape applies the interpolation to a fraction: constant boosts the
// whole range alike, quadratic favours its top, logarithmic its bottom.
func (f *scoringFunc) shape(fr float64) float64 {
	switch f.interpolation {
	case "constant":
		return 1
	case "quadratic":
		return fr * fr
	case "logarithmic":
		return math.Log1p(fr * (math.E - 1))
	}
	return fr
}

// multiplier is what a document's score is multiplied by: each function
// that reaches the document contributes (boost-1)·shape(fraction), and
// the contributions combine by the profile's functionAggregation.
func (sf *scoringFunctions) multiplier(doc map[string]any) float64 {
	var parts []float64
	for i := range sf.fns {
		f := &sf.fns[i]
		fr, ok := f.fraction(doc)
		if !ok {
			continue
		}
		parts = append(parts, (f.boost-1)*f.shape(fr))
		if sf.aggregation == "firstMatching" {
			break
		}
	}
	return sf.combine(parts)
}

// combine aggregates the contributions of the functions that reached a
// document into the multiplier.
func (sf *scoringFunctions) combine(parts []float64) float64 {
	if len(parts) == 0 {
		return 1
	}
	var d float64
	switch sf.aggregation {
	case "product":
		// The product of the functions' results, each function's result
		// being the factor it alone would apply (1 + its contribution).
		m := 1.0
		for _, p := range parts {
			m *= max(1+p, 0)
		}
		return m
	case "average":
		for _, p := range parts {
			d += p
		}
		d /= float64(len(sf.fns))
	case "minimum":
		d = parts[0]
		for _, p := range parts[1:] {
			d = min(d, p)
		}
	case "maximum":
		d = parts[0]
		for _, p := range parts[1:] {
			d = max(d, p)
		}
	default: // sum, firstMatching
		for _, p := range parts {
			d += p
		}
	}
	return max(1+d, 0)
}

// apply rescales the text hits (their documents loaded) and puts them
// back in score order.
func (sf *scoringFunctions) apply(hits []*hit) {
	for _, h := range hits {
		h.score *= sf.multiplier(h.doc)
	}
	sort.SliceStable(hits, func(i, j int) bool { return hits[i].score > hits[j].score })
}
