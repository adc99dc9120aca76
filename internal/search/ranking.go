package search

import (
	"math"
	"sort"
	"strings"
	"time"

	"github.com/cerulean-db/cerulean/internal/search/query"
)

// rangeBuckets counts interval and explicit-boundary facets. Interval
// buckets are keyed by their lower bound and only non-empty ones are
// returned, in value order; boundary buckets are returned all, in order.
func rangeBuckets(f *query.Facet, hits []*hit) []FacetBucket {
	isDate := f.Field.Type == query.TypeDateTimeOffset
	if len(f.Values) > 0 {
		n := len(f.Values)
		counts := make([]int64, n+1)
		for _, h := range hits {
			seen := map[int]bool{}
			for _, v := range valuesAt(h.doc, f.Path) {
				i, ok := boundaryBucket(f, v, isDate)
				if ok && !seen[i] {
					seen[i] = true
					counts[i]++
				}
			}
		}
		out := make([]FacetBucket, 0, n+1)
		for i := 0; i <= n; i++ {
			b := FacetBucket{Count: counts[i]}
			if i > 0 {
				b.From = boundary(f, i-1, isDate)
			}
			if i < n {
				b.To = boundary(f, i, isDate)
			}
			out = append(out, b)
		}
		return out
	}
	counts := map[any]int64{}
	for _, h := range hits {
		seen := map[any]bool{}
		for _, v := range valuesAt(h.doc, f.Path) {
			var key any
			if isDate {
				s, _ := v.(string)
				t, err := time.Parse(time.RFC3339Nano, s)
				if err != nil {
					continue
				}
				key = truncateDate(t.UTC(), f.DateInterval).Format(time.RFC3339)
			} else {
				x, ok := query.ToFloat(v)
				if !ok || math.IsNaN(x) || math.IsInf(x, 0) {
					continue
				}
				key = math.Floor(x/f.Interval) * f.Interval
			}
			if !seen[key] {
				seen[key] = true
				counts[key]++
			}
		}
	}
	out := make([]FacetBucket, 0, len(counts))
	for v, n := range counts {
		out = append(out, FacetBucket{Value: v, Count: n})
	}
	sort.Slice(out, func(i, j int) bool { return compareAny(out[i].Value, out[j].Value) < 0 })
	return out
}

// boundaryDateLayout is how Azure writes the bounds of a DateTimeOffset
// range facet: milliseconds and a colon-less offset
// ("2000-01-01T00:00:00.000+0000", as the Java SDK's recorded live tests
// show), unlike the values of interval buckets and documents.
const boundaryDateLayout = "2006-01-02T15:04:05.000-0700"

func boundary(f *query.Facet, i int, isDate bool) any {
	if isDate {
		return f.TimeValues[i].UTC().Format(boundaryDateLayout)
	}
	if i < len(f.NumericValues) {
		if f.Field.Type == query.TypeDouble {
			// A double field's bounds are doubles: 5 is answered 5.0 (the
			// Java SDK's recording SearchTests.canSearchWithRangeFacetsSync).
			return dotNetDouble(f.NumericValues[i])
		}
		return f.NumericValues[i]
	}
	return f.Values[i]
}

// boundaryBucket is the index of the bucket [b(i-1), b(i)) holding v.
func boundaryBucket(f *query.Facet, v any, isDate bool) (int, bool) {
	n := len(f.Values)
	if isDate {
		s, _ := v.(string)
		t, err := time.Parse(time.RFC3339Nano, s)
		if err != nil || len(f.TimeValues) != n {
			return 0, false
		}
		return sort.Search(n, func(i int) bool { return t.Before(f.TimeValues[i]) }), true
	}
	x, ok := query.ToFloat(v)
	if !ok || math.IsNaN(x) || len(f.NumericValues) != n {
		return 0, false
	}
	return sort.Search(n, func(i int) bool { return x < f.NumericValues[i] }), true
}

func truncateDate(t time.Time, unit string) time.Time {
	switch unit {
	case "minute":
		return t.Truncate(time.Minute)
	case "hour":
		return t.Truncate(time.Hour)
	case "day":
		return time.Date(t.Year(), t.Month(), t.Day(), 0, 0, 0, 0, time.UTC)
	case "week":
		d := time.Date(t.Year(), t.Month(), t.Day(), 0, 0, 0, 0, time.UTC)
		// Weeks start on Monday.
		return d.AddDate(0, 0, -((int(d.Weekday()) + 6) % 7))
	case "month":
		return time.Date(t.Year(), t.Month(), 1, 0, 0, 0, 0, time.UTC)
	case "quarter":
		return time.Date(t.Year(), t.Month()-(t.Month()-1)%3, 1, 0, 0, 0, 0, time.UTC)
	}
	return time.Date(t.Year(), 1, 1, 0, 0, 0, 0, time.UTC)
}

// scoringWeights returns the text weights and the functions of the
// scoring profile the request names (or the index's default).
func (s *Service) scoringWeights(qc *queryContext, req *SearchRequest) (map[string]float64, *scoringFunctions, error) {
	name := req.ScoringProfile
	explicit := name != ""
	if name == "" {
		name = deref(qc.ix.DefaultScoringProfile)
	}
	if name == "" {
		if len(req.ScoringParameters) > 0 {
			return nil, nil, badRequest("scoringParameter was given, but no scoring profile applies to the request.")
		}
		return nil, nil, nil
	}
	for _, p := range qc.ix.ScoringProfiles {
		if p.Name != name {
			continue
		}
		fns, err := scoringProfileFunctions(p, req.ScoringParameters, s.now().UTC())
		if err != nil {
			return nil, nil, err
		}
		weights := map[string]float64{}
		if p.Text != nil {
			for path, w := range p.Text.Weights {
				if x, err := w.Float64(); err == nil {
					weights[path] = x
				}
			}
		}
		return weights, fns, nil
	}
	if explicit {
		return nil, nil, badRequest("Unknown scoring profile '%s'.", name)
	}
	return nil, nil, nil
}

// synonymsFor loads the synonym rules of every synonym map a searchable
// field names, keyed by field path. A map that does not exist (yet) adds
// no synonyms, as in Azure.
func (s *Service) synonymsFor(qc *queryContext) (map[string][]SynonymRule, error) {
	out := map[string][]SynonymRule{}
	cache := map[string][]SynonymRule{}
	for path, f := range qc.schema.byPath {
		if len(f.SynonymMaps) == 0 {
			continue
		}
		name := f.SynonymMaps[0]
		rules, ok := cache[name]
		if !ok {
			res, err := s.load(qc.rd, SynonymMaps, name)
			if err != nil && !isNotFound(err) {
				return nil, err
			}
			if err == nil {
				if sm, ok := res.Definition.(*SynonymMap); ok {
					rules, _ = ParseSynonyms(deref(sm.Synonyms))
				}
			}
			cache[name] = rules
		}
		if len(rules) > 0 {
			out[path] = rules
		}
	}
	return out, nil
}

func isNotFound(err error) bool {
	e, ok := err.(*Error) //nolint:errorlint // load returns *Error unwrapped
	return ok && e.Status == 404
}

// expander rewrites a parsed search so that each unfielded term searches
// every search field as its own fielded term: weighted by the scoring
// profile and, on fields with a synonym map, OR-ed with the term's
// synonyms (rules "a, b" make each equivalent; "a => b" replaces a by b).
type expander struct {
	schema   *indexSchema
	fields   []string
	weights  map[string]float64
	synonyms map[string][]SynonymRule
}

func (e *expander) node(n query.SearchNode) query.SearchNode {
	switch n := n.(type) {
	case *query.BoolNode:
		c := *n
		c.Clauses = make([]query.Clause, len(n.Clauses))
		for i, cl := range n.Clauses {
			c.Clauses[i] = query.Clause{Occur: cl.Occur, Node: e.node(cl.Node)}
		}
		return &c
	case *query.NotNode:
		return &query.NotNode{At: n.At, Child: e.node(n.Child)}
	case *query.TermNode:
		return e.leaf(n.Leaf, n.Text, func(l query.Leaf) query.SearchNode { return &query.TermNode{Leaf: l, Text: n.Text} })
	case *query.PhraseNode:
		return e.leaf(n.Leaf, n.Text, func(l query.Leaf) query.SearchNode { return &query.PhraseNode{Leaf: l, Text: n.Text, Slop: n.Slop} })
	case *query.PrefixNode:
		return e.leaf(n.Leaf, "", func(l query.Leaf) query.SearchNode { return &query.PrefixNode{Leaf: l, Prefix: n.Prefix} })
	case *query.WildcardNode:
		return e.leaf(n.Leaf, "", func(l query.Leaf) query.SearchNode { return &query.WildcardNode{Leaf: l, Pattern: n.Pattern} })
	case *query.RegexNode:
		return e.leaf(n.Leaf, "", func(l query.Leaf) query.SearchNode { return &query.RegexNode{Leaf: l, Pattern: n.Pattern} })
	case *query.FuzzyNode:
		return e.leaf(n.Leaf, "", func(l query.Leaf) query.SearchNode {
			return &query.FuzzyNode{Leaf: l, Text: n.Text, Distance: n.Distance}
		})
	case *query.RangeNode:
		return e.leaf(n.Leaf, "", func(l query.Leaf) query.SearchNode {
			c := *n
			c.Leaf = l
			return &c
		})
	}
	return n
}

func (e *expander) leaf(l query.Leaf, text string, with func(query.Leaf) query.SearchNode) query.SearchNode {
	fields := e.fields
	if l.Field != "" {
		if _, ok := e.schema.Field(l.Field); !ok {
			return with(l)
		}
		fields = []string{l.Field}
	}
	var clauses []query.Clause
	for _, f := range fields {
		fl := l
		fl.Field = f
		if w, ok := e.weights[f]; ok {
			b := l.Boost
			if b == 0 {
				b = 1
			}
			fl.Boost = b * w
		}
		replaced := false
		for _, alt := range synonymsOf(e.synonyms[f], text) {
			if alt.replace {
				replaced = true
			}
			sl := fl
			var sn query.SearchNode
			if strings.Contains(alt.text, " ") {
				sn = &query.PhraseNode{Leaf: sl, Text: alt.text}
			} else {
				sn = &query.TermNode{Leaf: sl, Text: alt.text}
			}
			clauses = append(clauses, query.Clause{Occur: query.Should, Node: sn})
		}
		if !replaced {
			clauses = append(clauses, query.Clause{Occur: query.Should, Node: with(fl)})
		}
	}
	if len(clauses) == 0 {
		return with(l)
	}
	if len(clauses) == 1 {
		return clauses[0].Node
	}
	return &query.BoolNode{At: l.At, Clauses: clauses}
}

type synonymAlt struct {
	text    string
	replace bool
}

func synonymsOf(rules []SynonymRule, text string) []synonymAlt {
	t := strings.ToLower(strings.TrimSpace(text))
	if t == "" {
		return nil
	}
	var out []synonymAlt
	for _, r := range rules {
		hit := false
		for _, in := range r.Inputs {
			if strings.ToLower(in) == t {
				hit = true
			}
		}
		if !hit {
			continue
		}
		if r.Equivalent {
			for _, in := range r.Inputs {
				if strings.ToLower(in) != t {
					out = append(out, synonymAlt{text: in})
				}
			}
			continue
		}
		for _, o := range r.Outputs {
			out = append(out, synonymAlt{text: o, replace: true})
		}
	}
	return out
}

// vectorPlan is one vector query made ready: the field, its metric.
type vectorPlan struct {
	path   string
	vector []float64
	k      int
	metric string
	weight float64
}

func (s *Service) vectorPlans(qc *queryContext, vqs []VectorQuery) ([]*vectorPlan, error) {
	var out []*vectorPlan
	for i, vq := range vqs {
		fields := strings.Split(vq.Fields, ",")
		if strings.TrimSpace(vq.Fields) == "" {
			return nil, badRequest("The vector query %d must name the vector field it searches (fields).", i)
		}
		for _, name := range fields {
			name = strings.TrimSpace(name)
			f := qc.schema.byPath[name]
			if f == nil || !f.IsVector() {
				return nil, badRequest("The field '%s' in vector query %d is not a vector field of the index.", name, i)
			}
			if len(vq.Vector) != f.Dimensions {
				return nil, badRequest("The vector field '%s' expects a vector of dimension %d, but the query vector has length %d.", name, f.Dimensions, len(vq.Vector))
			}
			k := vq.K
			if k <= 0 {
				k = defaultTop
			}
			w := vq.Weight
			if w == 0 {
				w = 1
			}
			out = append(out, &vectorPlan{path: name, vector: vq.Vector, k: k, metric: metricOf(qc.ix, f.VectorSearchProfile), weight: w})
		}
	}
	return out, nil
}

// metricOf is the similarity metric of a vector search profile's
// algorithm (cosine unless the algorithm says otherwise).
func metricOf(ix *Index, profile string) string { return ix.VectorSearch.metric(profile) }

// nearest scores every candidate exactly and returns the k best. The
// score follows Azure's: cosine 1/(1+(1-cos)), euclidean 1/(1+d),
// dotProduct the dot product itself.
func (v *vectorPlan) nearest(candidates []*hit) []*hit {
	var out []*hit
	for _, c := range candidates {
		vals := valuesAt(c.doc, v.path)
		if len(vals) != len(v.vector) {
			continue
		}
		vec := make([]float64, len(vals))
		ok := true
		for i, x := range vals {
			vec[i], ok = query.ToFloat(x)
			if !ok {
				break
			}
		}
		if !ok {
			continue
		}
		out = append(out, &hit{key: c.key, doc: c.doc, score: vectorSimilarity(v.metric, v.vector, vec)})
	}
	sort.SliceStable(out, func(i, j int) bool {
		if out[i].score != out[j].score {
			return out[i].score > out[j].score
		}
		return out[i].key < out[j].key
	})
	if len(out) > v.k {
		out = out[:v.k]
	}
	return out
}

func vectorSimilarity(metric string, a, b []float64) float64 {
	var dot, na, nb, d2 float64
	for i := range a {
		dot += a[i] * b[i]
		na += a[i] * a[i]
		nb += b[i] * b[i]
		d := a[i] - b[i]
		d2 += d * d
	}
	switch metric {
	case "euclidean":
		return 1 / (1 + math.Sqrt(d2))
	case "dotProduct":
		return dot
	}
	if na == 0 || nb == 0 {
		return 0
	}
	cos := dot / (math.Sqrt(na) * math.Sqrt(nb))
	return 1 / (2 - cos)
}

// fuse combines ranked lists with Reciprocal Rank Fusion, as Azure ranks
// hybrid and multi-vector queries: each list adds weight/(60+rank).
func fuse(lists [][]*hit, vectors []*vectorPlan, hasText bool) []*hit {
	byKey := map[string]*hit{}
	var order []string
	for li, list := range lists {
		w := 1.0
		vi := li
		if hasText {
			vi--
		}
		if vi >= 0 {
			w = vectors[vi].weight
		}
		for rank, h := range list {
			f := byKey[h.key]
			if f == nil {
				f = &hit{key: h.key, doc: h.doc, locations: h.locations}
				byKey[h.key] = f
				order = append(order, h.key)
			}
			if f.locations == nil {
				f.locations = h.locations
			}
			f.score += w / float64(rrfK+rank+1)
		}
	}
	out := make([]*hit, 0, len(order))
	for _, k := range order {
		out = append(out, byKey[k])
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].score > out[j].score })
	return out
}
