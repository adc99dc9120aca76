package parity

import (
	"encoding/json"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cerulean-db/cerulean/internal/azauth"
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
	write := func(name, data string) { writeUnder(t, dir, name, data) }
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

// TestServicePropertiesStep checks that a service-properties step names a
// Storage service, and only its own recordings' one.
func TestServicePropertiesStep(t *testing.T) {
	dir := t.TempDir()
	write := func(name, data string) { writeUnder(t, dir, name, data) }
	write("queue/setup/props.xml", "<StorageServiceProperties/>")
	write("setup.tsv", "queue/go-TestSet*\tservice-properties\tqueue\tqueue/setup/props.xml\tthe recording's first answer\n")
	steps, err := loadSetup(dir)
	if err != nil {
		t.Fatal(err)
	}
	if err := attachSetup(dir, []*Recording{{Name: "queue/go-TestSetX.json", Service: "queue"}}, steps); err != nil {
		t.Fatal(err)
	}
	if err := attachSetup(dir, []*Recording{{Name: "queue/go-TestSetX.json", Service: "file"}}, steps); err == nil {
		t.Error("a step setting the queue service's properties was attached to a Files recording")
	}
	write("setup.tsv", "queue/x\tservice-properties\tsearch\tqueue/setup/props.xml\tsource\n")
	if _, err := loadSetup(dir); err == nil {
		t.Error("a service-properties step naming no Storage service was accepted")
	}
}

// TestServicePropertiesIsolated checks that what a service-properties
// step sets is seen by its own recording's server only: the next
// recording's server answers the defaults.
func TestServicePropertiesIsolated(t *testing.T) {
	body, err := os.ReadFile(filepath.Join("testdata", "queue", "setup", "go-TestSetProperties.xml"))
	if err != nil {
		t.Fatal(err)
	}
	get := func(target *Target) string {
		t.Helper()
		req, err := http.NewRequest(http.MethodGet, target.Queue+"?restype=service&comp=properties", nil)
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("X-Ms-Version", "2018-03-28")
		key, err := target.key()
		if err != nil {
			t.Fatal(err)
		}
		azauth.SignSharedKey(req, "queue", target.Account, key, target.now())
		resp, err := target.Client.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer func() { _ = resp.Body.Close() }()
		answer, err := io.ReadAll(resp.Body)
		if err != nil || resp.StatusCode != http.StatusOK {
			t.Fatalf("Get Service Properties: %d %s %v", resp.StatusCode, answer, err)
		}
		return string(answer)
	}
	withStep := &Recording{Name: "queue/a.json", Service: "queue",
		Entries: []Entry{{RequestHeaders: Headers{"x-ms-version": "2018-03-28"}}},
		setup:   []setupStep{{step: stepServiceProps, index: "queue", file: "queue/setup/go-TestSetProperties.xml"}}, setupDir: "testdata"}
	first := startTarget(t, withStep)
	if err := first.Setup(withStep); err != nil {
		t.Fatal(err)
	}
	const rule = "<AllowedOrigins>www.xyz.com,www.ab.com,www.bc.com</AllowedOrigins>"
	if !strings.Contains(string(body), rule) || !strings.Contains(get(first), rule) {
		t.Fatalf("the step's CORS rule is not in the properties it set")
	}
	second := startTarget(t, &Recording{Name: "queue/b.json", Service: "queue"})
	if got := get(second); strings.Contains(got, rule) {
		t.Errorf("the next recording's server answers the properties set for another: %s", got)
	}
}

// writeUnder writes data to the file name under dir, making its
// directories.
func writeUnder(t *testing.T, dir, name, data string) {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
}
