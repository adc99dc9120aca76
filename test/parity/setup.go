package parity

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
)

// A setup step makes what a test class made before its recorded requests
// ran, outside the recording: the Java Search tests create their shared
// indexes (and fill some) in a @BeforeAll the recorder never saw. The
// step rebuilds that state from the same files the test read, so that
// the recording's first request finds what Azure's did. setup.tsv lists
// the steps, one a line, tab-separated, run in order:
//
//	recording glob	step	name	file under testdata	where the step comes from
//
// Steps:
//
//   - search-index: Create Index named name, with the definition in file
//     (its "name" replaced by name), at the recording's api-version;
//   - search-docs: upload every document in file (a JSON list, or an
//     object whose "value" is one) to the index named name;
//   - search-synonymmap: create the synonym map named name from the
//     definition in file;
//   - service-properties: Set Service Properties of the Storage service
//     named name (blob, queue, table or file; the recording's own) with
//     the XML body in file, at the x-ms-version of the recording's first
//     request. It is for an account whose properties other tests had
//     set: the body is the state the recording's first Get Service
//     Properties answer shows. A Set Service Properties leaves what its
//     body does not name as it was, so the body names every part that
//     answer shows.
//
// Every recording is replayed against a server of its own, so what a
// step leaves there is seen by that recording alone.
//
// A step that Azure's service would refuse, that no recording uses, or
// that sets the properties of a service other than its recording's, is
// an error: the list cannot go stale.
type setupStep struct {
	glob, step, index, file, source string
}

// The setup steps, by the name setup.tsv gives them.
const (
	stepSearchIndex      = "search-index"
	stepSearchDocs       = "search-docs"
	stepSearchSynonymMap = "search-synonymmap"
	stepServiceProps     = "service-properties"
)

// storageServices are the services a service-properties step may name.
var storageServices = []string{"blob", "queue", "table", "file"}

func loadSetup(dir string) ([]setupStep, error) {
	var out []setupStep
	err := readTSV(filepath.Join(dir, "setup.tsv"), func(at string, parts []string) error {
		if len(parts) != 5 || parts[4] == "" {
			return fmt.Errorf("%s: want recording glob, step, index name, file and source, tab-separated", at)
		}
		s := setupStep{glob: parts[0], step: parts[1], index: parts[2], file: parts[3], source: parts[4]}
		switch s.step {
		case stepSearchIndex, stepSearchDocs, stepSearchSynonymMap:
		case stepServiceProps:
			if !slices.Contains(storageServices, s.index) {
				return fmt.Errorf("%s: %s names %q, not a Storage service (%s)", at, s.step, s.index, strings.Join(storageServices, ", "))
			}
		default:
			return fmt.Errorf("%s: unknown step %q", at, s.step)
		}
		if _, err := path.Match(s.glob, ""); err != nil {
			return fmt.Errorf("%s: %w", at, err)
		}
		if _, err := os.Stat(filepath.Join(dir, s.file)); err != nil {
			return fmt.Errorf("%s: %w", at, err)
		}
		out = append(out, s)
		return nil
	})
	return out, err
}

// attachSetup gives each recording the steps whose glob matches its name.
func attachSetup(dir string, recs []*Recording, steps []setupStep) error {
	for _, s := range steps {
		used := false
		for _, r := range recs {
			if ok, _ := path.Match(s.glob, r.Name); ok {
				if s.step == stepServiceProps && s.index != r.Service {
					return fmt.Errorf("setup.tsv: %s sets the %s service's properties, but matches %s", s.glob, s.index, r.Name)
				}
				r.setup = append(r.setup, s)
				r.setupDir = dir
				used = true
			}
		}
		if !used {
			return fmt.Errorf("setup.tsv: %s matches no recording", s.glob)
		}
	}
	return nil
}

// Setup runs the recording's setup steps against t.
func (t *Target) Setup(rec *Recording) error {
	for _, s := range rec.setup {
		data, err := os.ReadFile(filepath.Join(rec.setupDir, s.file))
		if err != nil {
			return err
		}
		if err := t.setupStep(rec, s, data); err != nil {
			return fmt.Errorf("setup %s %s from %s: %w", s.step, s.index, s.file, err)
		}
	}
	return nil
}

// setupStep runs one step, with its file's content in data.
func (t *Target) setupStep(rec *Recording, s setupStep, data []byte) error {
	if s.step == stepServiceProps {
		version := recordedStorageVersion(rec)
		if version == "" {
			return fmt.Errorf("no x-ms-version in %s's requests", rec.Name)
		}
		return t.setServiceProperties(s.index, version, data)
	}
	version := recordedAPIVersion(rec)
	if version == "" {
		return fmt.Errorf("no api-version in %s's requests", rec.Name)
	}
	var method, p string
	var body []byte
	var err error
	switch s.step {
	case stepSearchIndex:
		method, p = http.MethodPut, "indexes('"+s.index+"')"
		body, err = renamed(data, s.index)
	case stepSearchDocs:
		method, p = http.MethodPost, "indexes('"+s.index+"')/docs/search.index"
		body, err = uploadBatch(data)
	case stepSearchSynonymMap:
		method, p = http.MethodPut, "synonymmaps('"+s.index+"')"
		body, err = renamed(data, s.index)
	}
	if err != nil {
		return err
	}
	return t.searchCall(method, p, version, body)
}

// recordedStorageVersion is the x-ms-version of the recording's first
// request that sends one.
func recordedStorageVersion(rec *Recording) string {
	for _, e := range rec.Entries {
		if v, ok := e.RequestHeaders.Get("x-ms-version"); ok && v != "" {
			return v
		}
	}
	return ""
}

// recordedAPIVersion is the api-version of the recording's first request
// that names one.
func recordedAPIVersion(rec *Recording) string {
	for _, e := range rec.Entries {
		if u, err := url.Parse(e.RequestURI); err == nil {
			if v := u.Query().Get("api-version"); v != "" {
				return v
			}
		}
	}
	return ""
}

// renamed is the definition in data (an index's, or a synonym
// map's) with its name set to name.
func renamed(data []byte, name string) ([]byte, error) {
	var def map[string]json.RawMessage
	if err := json.Unmarshal(data, &def); err != nil {
		return nil, err
	}
	n, err := json.Marshal(name)
	if err != nil {
		return nil, err
	}
	def["name"] = n
	return json.Marshal(def)
}

// uploadBatch is an indexing batch that uploads every document in data.
func uploadBatch(data []byte) ([]byte, error) {
	var docs []map[string]json.RawMessage
	if err := json.Unmarshal(data, &docs); err != nil {
		var wrapped struct {
			Value []map[string]json.RawMessage `json:"value"`
		}
		if err2 := json.Unmarshal(data, &wrapped); err2 != nil || wrapped.Value == nil {
			return nil, err
		}
		docs = wrapped.Value
	}
	for _, d := range docs {
		d["@search.action"] = json.RawMessage(`"upload"`)
	}
	return json.Marshal(map[string]any{"value": docs})
}

// searchCall sends one Search request and wants it done in full: 200 or
// 201 (a 207 is a batch of which some documents failed).
func (t *Target) searchCall(method, p, version string, body []byte) error {
	u := t.base("search") + p + "?api-version=" + url.QueryEscape(version)
	req, err := http.NewRequest(method, u, bytes.NewReader(body))
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Api-Key", t.SearchKey)
	resp, err := t.Client.Do(req)
	if err != nil {
		return err
	}
	answer, err := io.ReadAll(resp.Body)
	if cerr := resp.Body.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return err
	}
	if resp.StatusCode != http.StatusOK && resp.StatusCode != http.StatusCreated {
		return fmt.Errorf("%s %s: %d %s", method, p, resp.StatusCode, answer)
	}
	return nil
}
