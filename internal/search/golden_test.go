package search

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"testing"
	"time"

	"github.com/cerulean-db/cerulean/internal/kv"
	"github.com/cerulean-db/cerulean/internal/testkit"
)

var update = flag.Bool("update", false, "rewrite testdata/definitions.golden")

// TestDefinitionsGolden: definitions of every kind are answered, and bad
// ones refused, exactly as testdata/definitions.golden records (the
// service's property order and defaults, the error paths and messages);
// a definition reads back from the store as it was answered.
func TestDefinitionsGolden(t *testing.T) {
	s := newService(t)
	// A schedule without a start starts now: a fixed now keeps the answers
	// the same from run to run.
	s.now = func() time.Time { return time.Date(2026, 1, 2, 3, 4, 5, 600_000_000, time.UTC) }
	ctx := context.Background()
	out := &bytes.Buffer{}
	defer func() {
		const golden = "testdata/definitions.golden"
		if *update {
			if err := os.WriteFile(golden, out.Bytes(), 0o644); err != nil {
				t.Fatal(err)
			}
			return
		}
		want, err := os.ReadFile(golden)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(want, out.Bytes()) {
			t.Fatalf("answers differ from %s (go test -run DefinitionsGolden -update to rewrite):\n%s", golden, out.Bytes())
		}
	}()
	put := func(kind Kind, body string) {
		res, _, err := s.Put(ctx, kind, "", def(t, body), PutOptions{CreateOnly: true})
		if err != nil {
			fmt.Fprintf(out, "%s ERR %v\n", kind, err)
			return
		}
		b, _ := json.Marshal(res.Body())
		fmt.Fprintf(out, "%s %s\n", kind, b)
		got, _ := s.Get(ctx, kind, res.Name)
		b2, _ := json.Marshal(got.Body())
		if string(b2) != string(b) {
			fmt.Fprintf(out, "GET DIFFERS %s\n", b2)
		}
	}
	put(Indexes, hotels)
	put(Indexes, `{"name":"x1","fields":[{"name":"id","type":"Edm.String","key":true,"normalizer":"lowercase"},{"name":"d","type":"Edm.DateTimeOffset"},{"name":"n","type":"Edm.Int64"},{"name":"g","type":"Edm.GeographyPoint"},{"name":"tg","type":"Collection(Edm.String)"}],"scoringProfiles":[{"name":"p","text":{"weights":{"id":2}},"functions":[{"type":"freshness","fieldName":"d","boost":2,"freshness":{"boostingDuration":"P7D"}},{"type":"magnitude","fieldName":"n","boost":3,"magnitude":{"boostingRangeStart":1,"boostingRangeEnd":9,"constantBoostBeyondRange":true}},{"type":"distance","fieldName":"g","boost":1.5,"interpolation":"quadratic","distance":{"referencePointParameter":"here","boostingDistance":10}},{"type":"tag","fieldName":"tg","boost":2,"tag":{"tagsParameter":"t"}}]}],"defaultScoringProfile":"p","corsOptions":{"allowedOrigins":["*"]},"suggesters":[{"name":"sg","sourceFields":["id"]}],"similarity":{"@odata.type":"#Microsoft.Azure.Search.BM25Similarity","k1":1.2},"semantic":{"configurations":[{"name":"c","prioritizedFields":{"titleField":{"fieldName":"id"},"prioritizedContentFields":[{"fieldName":"id"}]}}]}}`)
	put(Indexes, `{"name":"x2","fields":[{"name":"id","type":"Edm.String","key":true},{"name":"t","type":"Edm.String","analyzer":"every"},{"name":"v","type":"Collection(Edm.Single)","dimensions":4,"vectorSearchProfile":"vp"}],
		`+analysisComponents+`
		"analyzers":[
			{"@odata.type":"#Microsoft.Azure.Search.CustomAnalyzer","name":"every","tokenizer":"whole","tokenFilters":["grams","short","cut","once","mystop","frstop","elide"]},
			{"@odata.type":"#Microsoft.Azure.Search.CustomAnalyzer","name":"plain","tokenizer":"standard_v2"},
			{"@odata.type":"#Microsoft.Azure.Search.StandardAnalyzer","name":"std","stopwords":["the"],"maxTokenLength":255},
			{"@odata.type":"#Microsoft.Azure.Search.StopAnalyzer","name":"stp"}],
		"normalizers":[{"@odata.type":"#Microsoft.Azure.Search.CustomNormalizer","name":"lower","tokenFilters":["lowercase"],"charFilters":["dashes"]}],
		"vectorSearch":{"algorithms":[{"name":"h","kind":"hnsw","hnswParameters":{"m":5,"metric":"euclidean"}},{"name":"e","kind":"exhaustiveKnn"}],"profiles":[{"name":"vp","algorithm":"h","vectorizer":"vz","compression":"cq"}],
			"vectorizers":[{"name":"vz","kind":"azureOpenAI","azureOpenAIParameters":{"resourceUri":"https://x","deploymentId":"d","modelName":"text-embedding-3-small"}}],
			"compressions":[{"name":"cq","kind":"scalarQuantization","rerankWithOriginalVectors":true,"defaultOversampling":10,"scalarQuantizationParameters":{"quantizedDataType":"int8"}}]}}`)
	put(SynonymMaps, `{"name":"syn","format":"solr","synonyms":"a, b => c"}`)
	put(DataSources, `{"name":"ds","type":"azureblob","description":"d","credentials":{"connectionString":"UseDevelopmentStorage=true"},"container":{"name":"c","query":"q"},"dataChangeDetectionPolicy":{"@odata.type":"#Microsoft.Azure.Search.HighWaterMarkChangeDetectionPolicy","highWaterMarkColumnName":"_ts"},"dataDeletionDetectionPolicy":{"@odata.type":"#Microsoft.Azure.Search.SoftDeleteColumnDeletionDetectionPolicy","softDeleteColumnName":"del","softDeleteMarkerValue":"true"}}`)
	put(DataSources, `{"name":"ds2","type":"azureblob","credentials":{"connectionString":"UseDevelopmentStorage=true"},"container":{"name":"c"},"identity":{"@odata.type":"#Microsoft.Azure.Search.DataNoneIdentity"}}`)
	put(Skillsets, `{"name":"sk","skills":[{"@odata.type":"#Microsoft.Skills.Util.ShaperSkill","inputs":[{"name":"a","source":"/document/a"}],"outputs":[{"name":"b","targetName":"bb"}]},{"@odata.type":"#Microsoft.Skills.Text.SplitSkill","textSplitMode":"pages","maximumPageLength":100},{"@odata.type":"#Microsoft.Skills.Text.MergeSkill","insertPreTag":"<","description":"m"},{"@odata.type":"#Microsoft.Skills.Text.V3.EntityRecognitionSkill","categories":["Person"],"defaultLanguageCode":"en","minimumPrecision":0.5}],"cognitiveServices":{"@odata.type":"#Microsoft.Azure.Search.DefaultCognitiveServices"}}`)
	put(Indexers, `{"name":"ixr","dataSourceName":"ds","targetIndexName":"hotels","skillsetName":"sk","disabled":true,"schedule":{"interval":"PT5M"},"parameters":{"batchSize":5,"configuration":{"parsingMode":"json"}},"fieldMappings":[{"sourceFieldName":"a","mappingFunction":{"name":"base64Encode"}},{"sourceFieldName":"b","targetFieldName":"id","mappingFunction":{"name":"extractTokenAtPosition","parameters":{"delimiter":" ","position":1}}}],"outputFieldMappings":[{"sourceFieldName":"/document/x","targetFieldName":"title"}]}`)
	put(Indexers, `{"name":"ixr2","dataSourceName":"ds","targetIndexName":"hotels"}`)
	put(Aliases, `{"name":"al","indexes":["hotels"]}`)
	putRefused(put)
}

// putRefused puts definitions the service refuses, each for a reason of
// its own.
func putRefused(put func(kind Kind, body string)) {
	for _, bad := range []string{
		`{"name":"b1","fields":[{"name":"id","type":"Edm.String","key":"yes"}]}`,
		`{"name":"b1","fields":[{"name":"id","type":"Edm.String","key":true},{"name":"v","type":"Collection(Edm.Single)","dimensions":1.5}]}`,
		`{"name":"b1","fields":[{"name":"id","type":"Edm.String","key":true}],"analyzers":[{"@odata.type":"#Microsoft.Azure.Search.PatternAnalyzer","name":"p","flags":"COMMENTS"}]}`,
		`{"name":"b1","fields":[{"name":"id","type":"Edm.String","key":true}],"tokenFilters":[{"@odata.type":"#Microsoft.Azure.Search.LengthTokenFilter","name":"p","min":"x"}]}`,
		`{"name":"b1","fields":[{"name":"id","type":"Edm.String","key":true}],"suggesters":[{"name":"s","sourceFields":[null]}]}`,
		`{"name":"b1","fields":[{"name":"id","type":"Edm.String","key":true}],"scoringProfiles":[{"name":"s","text":{"weights":{"id":"x"}}}]}`,
		`{"name":"b1","fields":[{"name":"id","type":"Edm.String","key":true,"foo":1}]}`,
		`{"name":"b1","foo":1,"fields":[{"name":"id","type":"Edm.String","key":true}]}`,
		`{"name":"b1","fields":[{"name":"id","type":"Edm.String","key":true},{"name":"c","type":"Edm.ComplexType","searchable":true,"fields":[{"name":"a","type":"Edm.String"}]}]}`,
		`{"name":"b1","fields":[{"name":"id","type":"Edm.String","key":true}],"vectorSearch":{"algorithms":[{"name":"h","kind":"hnsw","hnswParameters":{"m":50}}]}}`,
	} {
		put(Indexes, bad)
	}
	for _, bad := range []string{
		`{"name":"b6","fields":[{"name":"id","type":"Edm.String","key":true}],"analyzers":[{"@odata.type":"#Microsoft.Azure.Search.CustomAnalyzer","name":"a","tokenizer":"standard_v2","tokenFilters":"lowercase"}]}`,
		`{"name":"b6","fields":[{"name":"id","type":"Edm.String","key":true}],"analyzers":[{"@odata.type":"#Microsoft.Azure.Search.CustomAnalyzer","name":"a","tokenizer":"nope"}]}`,
		`{"name":"b6","fields":[{"name":"id","type":"Edm.String","key":true}],"analyzers":[{"@odata.type":"#Microsoft.Azure.Search.CustomAnalyzer","name":"a","tokenizer":"standard_v2","charFilters":[7]}]}`,
		`{"name":"b6","fields":[{"name":"id","type":"Edm.String","key":true}],"tokenFilters":[{"@odata.type":"#Microsoft.Azure.Search.EdgeNGramTokenFilterV2","name":"e","minGram":3,"maxGram":2}]}`,
		`{"name":"b6","fields":[{"name":"id","type":"Edm.String","key":true}],"tokenFilters":[{"@odata.type":"#Microsoft.Azure.Search.StopwordsTokenFilter","name":"s","stopwordsLanguage":"klingon"}]}`,
		`{"name":"b6","fields":[{"name":"id","type":"Edm.String","key":true}],"analyzers":[{"@odata.type":"#Microsoft.Azure.Search.StandardAnalyzer","name":"en.lucene"}]}`,
		`{"name":"b6","fields":[{"name":"id","type":"Edm.String","key":true}],"charFilters":[{"@odata.type":"#Microsoft.Azure.Search.PatternReplaceCharFilter","name":"p","pattern":"("}]}`,
		`{"name":"b6","fields":[{"name":"id","type":"Edm.String","key":true}],"normalizers":[{"@odata.type":"#Microsoft.Azure.Search.CustomNormalizer","name":"n","tokenFilters":["elision"]}]}`,
		`{"name":"b6","fields":[{"name":"id","type":"Edm.String","key":true}],"charFilters":[null]}`,
		`{"name":"b6","fields":[{"name":"id","type":"Edm.String","key":true}],"vectorSearch":{"algorithms":[{"name":"h","kind":"flat"}]}}`,
		`{"name":"b6","fields":[{"name":"id","type":"Edm.String","key":true}],"vectorSearch":{"profiles":[{"name":"p","algorithm":"x"}]}}`,
		`{"name":"b6","fields":[{"name":"id","type":"Edm.String","key":true}],"vectorSearch":"x"}`,
		`{"name":"b6","fields":[{"name":"id","type":"Edm.String","key":true},{"name":"n","type":"Edm.Int32"}],"scoringProfiles":[{"name":"p","functions":[{"type":"magnitude","fieldName":"n","boost":2}]}]}`,
		`{"name":"b6","fields":[{"name":"id","type":"Edm.String","key":true},{"name":"n","type":"Edm.Int32"}],"scoringProfiles":[{"name":"p","functions":[{"type":"freshness","fieldName":"n","boost":2,"freshness":{"boostingDuration":"P1D"}}]}]}`,
		`{"name":"b6","fields":[{"name":"id","type":"Edm.String","key":true}],"defaultScoringProfile":"none"}`,
		`{"name":"b6","fields":[{"name":"id","type":"Edm.String","key":true}],"corsOptions":{"allowedOrigins":[]}}`,
		`{"name":"b6","fields":[{"name":"id","type":"Edm.String","key":true}],"similarity":{"@odata.type":"#Microsoft.Azure.Search.ClassicSimilarity"}}`,
		`{"name":"b6","fields":[{"name":"id","type":"Edm.String","key":true}],"encryptionKey":{"keyVaultKeyName":"k"}}`,
		`{"name":"b6","fields":[{"name":"id","type":"Edm.String","key":true},{"name":"v","type":"Collection(Edm.Single)","dimensions":3}]}`,
		`{"name":"b6","fields":[{"name":"id","type":"Edm.String","key":true},{"name":"s","type":"Edm.Int32","analyzer":"en.lucene"}]}`,
		`{"name":"b6","fields":[{"name":"id","type":"Edm.String","key":true},{"name":"s","type":"Edm.String","analyzer":"en.microsoft"}]}`,
		`{"name":"b6","fields":[{"name":"id","type":"Edm.String","key":true},{"name":"s","type":"Edm.String","normalizer":"none"}]}`,
		`{"name":"b6","fields":[{"name":"id","type":"Edm.String","key":true},{"name":"c","type":"Edm.ComplexType","fields":[]}]}`,
		`{"name":"b6","fields":[{"name":"id","type":"Edm.String","key":true},{"name":"c","type":"Edm.ComplexType","fields":[{"name":"k","type":"Edm.String","key":true}]}]}`,
		`{"name":"b6","fields":[{"name":"id","type":"Edm.Strin","key":true}]}`,
		`{"name":"b6","fields":[]}`,
		`{"name":"b6","fields":[{"name":"id","type":"Edm.String"}]}`,
	} {
		put(Indexes, bad)
	}
	put(SynonymMaps, `{"name":"b7","format":"wordnet","synonyms":"a"}`)
	put(SynonymMaps, `{"name":"b7","format":"solr","synonyms":"a => b => c"}`)
	put(SynonymMaps, `{"name":"b7","format":"solr","synonyms":7}`)
	put(Aliases, `{"name":"b8","indexes":"hotels"}`)
	put(Aliases, `{"name":"b8","indexes":["nope"]}`)
	put(DataSources, `{"name":"b9","type":"azuresql","credentials":{"connectionString":"x"},"container":{"name":"c"}}`)
	put(DataSources, `{"name":"b9","type":"azureblob","credentials":{"connectionString":"x"},"container":{"name":""}}`)
	put(DataSources, `{"name":"b9","type":"azureblob","credentials":{"connectionString":"x"},"container":{"name":"c"},"dataDeletionDetectionPolicy":{"@odata.type":"#Microsoft.Azure.Search.NativeBlobSoftDeleteDeletionDetectionPolicy"}}`)
	put(Indexers, `{"name":"b10","dataSourceName":"ds","targetIndexName":"hotels","schedule":{"interval":"PT1M"}}`)
	put(Indexers, `{"name":"b10","dataSourceName":"nope","targetIndexName":"hotels"}`)
	put(Indexers, `{"name":"b10","targetIndexName":"hotels"}`)
	put(Indexers, `{"name":"b10","dataSourceName":"ds","targetIndexName":"hotels","fieldMappings":"x"}`)
	put(Skillsets, `{"name":"b11","skills":[{"@odata.type":"#Microsoft.Skills.Util.ShaperSkill","inputs":"x"}]}`)
	put(Skillsets, `{"name":"b11","skills":[{"@odata.type":"Shaper"}]}`)
	put(Skillsets, `{"name":"b11","skills":[]}`)
	put(Skillsets, `{"name":"b11","skills":[{"@odata.type":"#Microsoft.Skills.Util.ShaperSkill","name":"x"},{"@odata.type":"#Microsoft.Skills.Util.ShaperSkill","name":"x"}]}`)
	put(Indexers, `{"name":"b2","dataSourceName":"ds","targetIndexName":"hotels","parameters":{"batchSize":"x"}}`)
	put(Indexers, `{"name":"b3","dataSourceName":"ds","targetIndexName":"hotels","fieldMappings":[{"sourceFieldName":"a","mappingFunction":{"name":"nope"}}]}`)
	put(Skillsets, `{"name":"b4","skills":[{"@odata.type":"#Microsoft.Skills.Util.ShaperSkill","inputs":[{"source":"x"}]}]}`)
	put(DataSources, `{"name":"b5","type":"azureblob","credentials":{"connectionString":"x"},"container":{"name":"c"},"identity":"x"}`)
}

// TestEarlierStoredDefinitions: definitions as earlier releases stored
// them (the normalised JSON object with its properties in sorted order)
// read back unchanged and are answered exactly as
// testdata/definitions.golden records, in the service's property order.
func TestEarlierStoredDefinitions(t *testing.T) {
	golden, err := os.ReadFile("testdata/definitions.golden")
	if err != nil {
		t.Fatal(err)
	}
	s := newService(t)
	ctx := context.Background()
	n := 0
	for _, line := range bytes.Split(bytes.TrimSpace(golden), []byte("\n")) {
		kindText, body, _ := bytes.Cut(line, []byte(" "))
		kind, ok := ParseKind(string(kindText))
		if !ok || bytes.HasPrefix(body, []byte("ERR ")) {
			continue
		}
		def, err := decodeObject(body)
		if err != nil {
			t.Fatal(err)
		}
		etag, _ := def["@odata.etag"].(string)
		var version uint64
		if _, err := fmt.Sscanf(etag, `"0x8D%X"`, &version); err != nil {
			t.Fatalf("etag %s: %v", etag, err)
		}
		delete(def, "@odata.etag")
		if kind == DataSources {
			def["credentials"] = map[string]any{"connectionString": "UseDevelopmentStorage=true"}
		}
		old, err := json.Marshal(def) // as earlier releases encoded the definition
		if err != nil {
			t.Fatal(err)
		}
		name, _ := def["name"].(string)
		if err := s.store.Update(ctx, func(tx kv.Txn) error {
			return storeDefinition(tx, kind, name, version, old)
		}); err != nil {
			t.Fatal(err)
		}
		res, err := s.Get(ctx, kind, name)
		if err != nil {
			t.Fatalf("%s %s: %v", kind, name, err)
		}
		want := body
		if kind == Skillsets {
			// A skill created without a name or context is answered so,
			// and read back with the ones the service keeps for it.
			want = filledSkills(t, body)
		}
		if got := testkit.JSON(t, res.Body()); !bytes.Equal(got, want) {
			t.Fatalf("%s %s reads back as\n%s\nwant\n%s", kind, name, got, want)
		}
		if kind == Indexes {
			if _, err := ParseIndex(res.Definition); err != nil {
				t.Fatalf("stored index %s does not parse: %v", name, err)
			}
		}
		n++
	}
	if n < 10 {
		t.Fatalf("only %d definitions in the golden file", n)
	}
}

// filledSkills is a skillset's answer with what the service keeps for
// each skill as reads answer it: a missing name and context as
// "#<position>" and "/document", a split skill's language as "en" and its
// paging as 0.
func filledSkills(t *testing.T, body []byte) []byte {
	t.Helper()
	def, err := orderedJSON(json.RawMessage(body))
	if err != nil {
		t.Fatal(err)
	}
	for i, skill := range objects(def.get("skills")) {
		if skill.get("name") == nil {
			skill.set("name", fmt.Sprintf("#%d", i+1))
		}
		if skill.get("context") == nil {
			skill.set("context", "/document")
		}
		if skill.get("@odata.type") == "#Microsoft.Skills.Text.SplitSkill" {
			if skill.get("defaultLanguageCode") == nil {
				skill.set("defaultLanguageCode", "en")
			}
			for _, k := range []string{"pageOverlapLength", "maximumPagesToTake"} {
				if skill.get(k) == nil {
					skill.del(k)
					skill.setDefaultBefore(k, json.Number("0"), "inputs")
				}
			}
		}
	}
	return testkit.JSON(t, def)
}
