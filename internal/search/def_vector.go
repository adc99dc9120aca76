package search

import (
	"encoding/json"
)

// VectorSearch is an index's vector search configuration.
type VectorSearch struct {
	Algorithms   []*VectorAlgorithm   `json:"algorithms"`
	Profiles     []*VectorProfile     `json:"profiles"`
	Vectorizers  []*Vectorizer        `json:"vectorizers"`
	Compressions []*VectorCompression `json:"compressions"`
}

// VectorAlgorithm is an approximate (hnsw) or exhaustive k-NN algorithm;
// the parameters of its kind are set.
type VectorAlgorithm struct {
	Name                    string                     `json:"name"`
	Kind                    string                     `json:"kind"`
	HNSWParameters          *VectorAlgorithmParameters `json:"hnswParameters"`
	ExhaustiveKnnParameters *VectorAlgorithmParameters `json:"exhaustiveKnnParameters"`
}

// VectorAlgorithmParameters are an algorithm's parameters; M,
// EfConstruction and EfSearch are HNSW's.
type VectorAlgorithmParameters struct {
	Metric         string       `json:"metric"`
	M              *json.Number `json:"m,omitempty" shape:"int"`
	EfConstruction *json.Number `json:"efConstruction,omitempty" shape:"int"`
	EfSearch       *json.Number `json:"efSearch,omitempty" shape:"int"`
}

// VectorProfile ties vector fields to an algorithm, and optionally a
// vectorizer and a compression.
type VectorProfile struct {
	Name        string  `json:"name"`
	Algorithm   string  `json:"algorithm"`
	Vectorizer  *string `json:"vectorizer"`
	Compression *string `json:"compression"`
}

// Vectorizer turns query text into a vector; the parameters of its kind
// are kept as given (cerulean does not call vectorizers).
type Vectorizer struct {
	AIServicesVisionParameters *VectorizerParameters `json:"aiServicesVisionParameters,omitempty"`
	AMLParameters              *VectorizerParameters `json:"amlParameters,omitempty"`
	AzureOpenAIParameters      *VectorizerParameters `json:"azureOpenAIParameters,omitempty"`
	CustomWebAPIParameters     *VectorizerParameters `json:"customWebApiParameters,omitempty"`
	Kind                       string                `json:"kind"`
	Name                       string                `json:"name"`
}

// VectorizerParameters are the connection settings of every vectorizer
// kind (each kind uses some of them).
type VectorizerParameters struct {
	APIKey         string            `json:"apiKey,omitempty"`
	AuthIdentity   *Identity         `json:"authIdentity,omitempty"`
	AuthResourceID string            `json:"authResourceId,omitempty"`
	DeploymentID   string            `json:"deploymentId,omitempty"`
	HTTPHeaders    map[string]string `json:"httpHeaders,omitempty"`
	HTTPMethod     string            `json:"httpMethod,omitempty"`
	Key            string            `json:"key,omitempty"`
	ModelName      string            `json:"modelName,omitempty"`
	ModelVersion   string            `json:"modelVersion,omitempty"`
	Region         string            `json:"region,omitempty"`
	ResourceID     string            `json:"resourceId,omitempty"`
	ResourceURI    string            `json:"resourceUri,omitempty"`
	Timeout        string            `json:"timeout,omitempty"`
	URI            string            `json:"uri,omitempty"`
}

// Identity is a managed identity a definition names.
type Identity struct {
	ODataType            string `json:"@odata.type"`
	UserAssignedIdentity string `json:"userAssignedIdentity,omitempty"`
}

// VectorCompression is a scalar or binary quantization.
type VectorCompression struct {
	Name                         string              `json:"name"`
	Kind                         string              `json:"kind"`
	RerankWithOriginalVectors    *bool               `json:"rerankWithOriginalVectors,omitempty"`
	DefaultOversampling          *json.Number        `json:"defaultOversampling,omitempty"`
	TruncationDimension          *json.Number        `json:"truncationDimension,omitempty" shape:"int"`
	ScalarQuantizationParameters *ScalarQuantization `json:"scalarQuantizationParameters,omitempty"`
	RescoringOptions             *RescoringOptions   `json:"rescoringOptions,omitempty"`
}

// RescoringOptions say how a compressed profile's results are rescored
// with the full vectors. Not given, rescoring is on, with an
// oversampling of 4 over the original vectors kept (the Java SDK's
// VectorSearchTests recordings at 2024-11-01-preview and
// 2025-11-01-preview).
type RescoringOptions struct {
	EnableRescoring      *bool        `json:"enableRescoring"`
	DefaultOversampling  *json.Number `json:"defaultOversampling"`
	RescoreStorageMethod *string      `json:"rescoreStorageMethod"`
}

// fillDefaults gives the options the service's defaults.
func (o *RescoringOptions) fillDefaults() {
	if o.EnableRescoring == nil {
		o.EnableRescoring = ptr(true)
	}
	if o.DefaultOversampling == nil {
		o.DefaultOversampling = number("4.0")
	}
	double(o.DefaultOversampling)
	if o.RescoreStorageMethod == nil {
		o.RescoreStorageMethod = ptr("preserveOriginals")
	}
}

// ScalarQuantization are a scalar quantization's parameters.
type ScalarQuantization struct {
	QuantizedDataType string `json:"quantizedDataType,omitempty"`
}

// Validate checks the configuration and fills in its defaults.
func (vs *VectorSearch) Validate() error {
	_, err := vs.validate()
	return err
}

// validate checks the configuration and returns its profile names.
func (vs *VectorSearch) validate() (map[string]bool, error) {
	if vs == nil {
		return map[string]bool{}, nil
	}
	algs := nameSet{}
	for i, a := range vs.Algorithms {
		where := at("index.vectorSearch.algorithms", i)
		if err := a.validate(where); err != nil {
			return nil, err
		}
		if err := algs.add("algorithm", where, a.Name); err != nil {
			return nil, err
		}
	}
	vecs := map[string]bool{}
	for _, z := range vs.Vectorizers {
		vecs[z.Name] = true
	}
	comps := map[string]bool{}
	for _, c := range vs.Compressions {
		comps[c.Name] = true
		if c.RescoringOptions != nil {
			c.RescoringOptions.fillDefaults()
		}
	}
	names := nameSet{}
	for i, p := range vs.Profiles {
		where := at("index.vectorSearch.profiles", i)
		if err := p.validate(where, algs, vecs, comps); err != nil {
			return nil, err
		}
		if err := names.add("profile", where, p.Name); err != nil {
			return nil, err
		}
	}
	vs.Algorithms, vs.Profiles = orEmpty(vs.Algorithms), orEmpty(vs.Profiles)
	vs.Vectorizers, vs.Compressions = orEmpty(vs.Vectorizers), orEmpty(vs.Compressions)
	return names, nil
}

// hnswRanges bound HNSW's parameters.
var hnswRanges = []struct {
	k      string
	get    func(p *VectorAlgorithmParameters) **json.Number
	def    string
	lo, hi int64
}{
	{"m", func(p *VectorAlgorithmParameters) **json.Number { return &p.M }, "4", 4, 10},
	{"efConstruction", func(p *VectorAlgorithmParameters) **json.Number { return &p.EfConstruction }, "400", 100, 1000},
	{"efSearch", func(p *VectorAlgorithmParameters) **json.Number { return &p.EfSearch }, "500", 100, 1000},
}

// Validate checks the algorithm and fills in its parameters' defaults.
func (a *VectorAlgorithm) Validate() error { return a.validate("vectorAlgorithm") }

func (a *VectorAlgorithm) validate(where string) error {
	if !validComponentName(a.Name) {
		return componentNameError(where+".name", "vector search algorithm", a.Name)
	}
	params, key := &a.HNSWParameters, "hnswParameters"
	switch a.Kind {
	case "hnsw":
	case "exhaustiveKnn":
		params, key = &a.ExhaustiveKnnParameters, "exhaustiveKnnParameters"
	default:
		return invalid(where+".kind", "The algorithm kind '%s' is not 'hnsw' or 'exhaustiveKnn'.", a.Kind)
	}
	if *params == nil {
		*params = &VectorAlgorithmParameters{}
	}
	p := *params
	switch p.Metric {
	case "":
		p.Metric = "cosine"
	case "cosine", "euclidean", "dotProduct":
	default:
		return invalid(where+"."+key+".metric", "The metric '%s' is not one of cosine, euclidean or dotProduct.", p.Metric)
	}
	if a.Kind != "hnsw" {
		return nil
	}
	for _, r := range hnswRanges {
		n := r.get(p)
		if _, ok, err := intIn(*n, where+".hnswParameters."+r.k, r.lo, r.hi); err != nil {
			return err
		} else if !ok {
			*n = number(r.def)
		}
	}
	return nil
}

func (p *VectorProfile) validate(where string, algs, vecs, comps map[string]bool) error {
	if !validComponentName(p.Name) {
		return componentNameError(where+".name", "vector search profile", p.Name)
	}
	if !algs[p.Algorithm] {
		return invalid(where+".algorithm", "The algorithm '%s' of profile '%s' is not defined in vectorSearch.algorithms.", p.Algorithm, p.Name)
	}
	for _, ref := range []struct {
		key     string
		name    *string
		defined map[string]bool
	}{{"vectorizer", p.Vectorizer, vecs}, {"compression", p.Compression, comps}} {
		if ref.name != nil && !ref.defined[*ref.name] {
			return invalid(where+"."+ref.key, "The %s '%s' of profile '%s' is not defined in the index's vector search settings.", ref.key, *ref.name, p.Name)
		}
	}
	return nil
}

// metric is the similarity metric of a profile's algorithm (cosine
// unless the algorithm says otherwise).
func (vs *VectorSearch) metric(profile string) string {
	if vs == nil {
		return "cosine"
	}
	var alg string
	for _, p := range vs.Profiles {
		if p.Name == profile {
			alg = p.Algorithm
		}
	}
	for _, a := range vs.Algorithms {
		if a.Name != alg {
			continue
		}
		for _, p := range []*VectorAlgorithmParameters{a.HNSWParameters, a.ExhaustiveKnnParameters} {
			if p != nil && p.Metric != "" {
				return p.Metric
			}
		}
	}
	return "cosine"
}
