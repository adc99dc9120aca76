package search

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"testing"
)

// FuzzDefinitions: whatever the validators accept is stored, parses back,
// and is accepted again unchanged when sent back (the normalised shape is
// a fixed point, as an SDK's read-modify-write relies on); whatever they
// refuse is a 400 or 409, never a panic or a 500.
func FuzzDefinitions(f *testing.F) {
	for _, seed := range []string{
		hotels,
		smallIndex,
		`{"name":"x1","fields":[{"name":"id","type":"Edm.String","key":true,"normalizer":"lowercase"},{"name":"d","type":"Edm.DateTimeOffset"},{"name":"n","type":"Edm.Int64"}],"scoringProfiles":[{"name":"p","text":{"weights":{"id":2}},"functions":[{"type":"freshness","fieldName":"d","boost":2,"freshness":{"boostingDuration":"P7D"}},{"type":"magnitude","fieldName":"n","boost":3,"magnitude":{"boostingRangeStart":1,"boostingRangeEnd":9}}]}],"defaultScoringProfile":"p","corsOptions":{"allowedOrigins":["*"]},"suggesters":[{"name":"sg","sourceFields":["id"]}]}`,
		`{"name":"x1","fields":[{"name":"id","type":"Edm.String","key":true,"analyzer":"folded"}],"analyzers":[{"@odata.type":"#Microsoft.Azure.Search.CustomAnalyzer","name":"folded","tokenizer":"standard_v2","tokenFilters":["lowercase"]}]}`,
		`{"name":"syn","format":"solr","synonyms":"a, b => c"}`,
		`{"name":"ds","type":"azureblob","credentials":{"connectionString":"UseDevelopmentStorage=true"},"container":{"name":"c"}}`,
		`{"name":"sk","skills":[{"@odata.type":"#Microsoft.Skills.Util.ShaperSkill","inputs":[{"name":"a"}],"outputs":[{"name":"b"}]}]}`,
		`{"name":7}`, `{}`, `{"fields":[{"name":"id","type":"Collection(Edm.ComplexType)","fields":[{"name":"a","type":"Edm.String"}]}]}`,
	} {
		for kind := range len(Kinds) {
			f.Add(uint8(kind), seed)
		}
	}
	f.Fuzz(func(t *testing.T, kindByte uint8, body string) {
		kind := Kinds[int(kindByte)%len(Kinds)]
		d, err := ParseDefinition([]byte(body))
		if err != nil {
			return
		}
		s := newService(t)
		ctx := context.Background()
		// References for indexers and aliases.
		mustPut(t, s, Indexes, "", smallIndex, PutOptions{CreateOnly: true})
		mustPut(t, s, DataSources, "ds", `{"type":"azureblob","credentials":{"connectionString":"x"},"container":{"name":"c"}}`, PutOptions{})
		res, _, err := s.Put(ctx, kind, "", d, PutOptions{CreateOnly: true})
		if err != nil {
			var e *Error
			if !errors.As(err, &e) || (e.Status != http.StatusBadRequest && e.Status != http.StatusConflict) {
				t.Fatalf("%s %s: %v, want a 400 or 409", kind, body, err)
			}
			return
		}
		if kind == Indexes {
			if _, err := ParseIndex(res.Definition); err != nil {
				t.Fatalf("stored index does not parse: %v", err)
			}
		}
		again, err := ParseDefinition(mustJSON(t, res.Body()))
		if err != nil {
			t.Fatal(err)
		}
		if kind == DataSources {
			again["credentials"] = jsonObject(res.Definition)["credentials"]
		}
		res2, created, err := s.Put(ctx, kind, res.Name, again, PutOptions{})
		if err != nil || created {
			t.Fatalf("%s sent back refused (%v, created %v): %s", kind, err, created, mustJSON(t, res.Body()))
		}
		if !sameJSON(res.Definition, res2.Definition) {
			t.Fatalf("normalised %s is not a fixed point:\n%s\n%s", kind, mustJSON(t, res.Definition), mustJSON(t, res2.Definition))
		}
	})
}

func mustJSON(t *testing.T, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
