package parity

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestUploadBatch(t *testing.T) {
	for _, in := range []string{`[{"id":"1"},{"id":"2"}]`, `{"value":[{"id":"1"},{"id":"2"}]}`} {
		out, err := uploadBatch([]byte(in))
		if err != nil {
			t.Fatal(err)
		}
		var got struct {
			Value []map[string]string `json:"value"`
		}
		if err := json.Unmarshal(out, &got); err != nil {
			t.Fatal(err)
		}
		if len(got.Value) != 2 || got.Value[1]["id"] != "2" || got.Value[0]["@search.action"] != "upload" {
			t.Errorf("uploadBatch(%s) = %s", in, out)
		}
	}
	if _, err := uploadBatch([]byte(`{"id":"1"}`)); err == nil {
		t.Error("a lone document is not a list of them")
	}
}

func TestRenamed(t *testing.T) {
	out, err := renamed([]byte(`{"name":"hotels","fields":[{"name":"HotelId","type":"Edm.String","key":true}]}`), "shared")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(out), `"name":"shared"`) || !strings.Contains(string(out), `"name":"HotelId"`) {
		t.Errorf("renamed = %s", out)
	}
}

// TestSetupSteps checks that a step names the recordings it is for, and
// that one matching none is refused.
func TestSetupSteps(t *testing.T) {
	dir := t.TempDir()
	write := func(name, data string) {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("search/setup/index.json", `{"name":"x","fields":[]}`)
	write("setup.tsv", "# comment\nsearch/java-LookupTests.*\tsearch-index\tshared\tsearch/setup/index.json\tthe test's @BeforeAll\n")
	steps, err := loadSetup(dir)
	if err != nil {
		t.Fatal(err)
	}
	recs := []*Recording{{Name: "search/java-LookupTests.aSync.json"}, {Name: "search/java-Other.json"}}
	if err := attachSetup(dir, recs, steps); err != nil {
		t.Fatal(err)
	}
	if len(recs[0].setup) != 1 || len(recs[1].setup) != 0 {
		t.Errorf("setup attached to %d and %d recordings' steps, want 1 and 0", len(recs[0].setup), len(recs[1].setup))
	}
	if err := attachSetup(dir, recs[1:], steps); err == nil {
		t.Error("a step matching no recording was accepted")
	}
	write("setup.tsv", "search/x\tsearch-drop\tshared\tsearch/setup/index.json\tsource\n")
	if _, err := loadSetup(dir); err == nil {
		t.Error("an unknown step was accepted")
	}
	write("setup.tsv", "search/x\tsearch-index\tshared\tsearch/setup/missing.json\tsource\n")
	if _, err := loadSetup(dir); err == nil {
		t.Error("a missing file was accepted")
	}
}
