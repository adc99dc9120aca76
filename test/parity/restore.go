package parity

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// A restoration puts back a value a recording's sanitizer replaced, where
// the original is known from elsewhere: the test's own source (a lease id
// it wrote as a constant) or an earlier recording of the same test that
// kept it. restored.tsv lists them, one a line, tab-separated:
//
//	recording	sanitized value	original value	where the original comes from
//
// Every line must change its recording: a restoration that no longer
// applies is an error, so the list cannot go stale.
type restoration struct {
	recording, from, to, source string
}

func loadRestorations(path string) ([]restoration, error) {
	var out []restoration
	err := readTSV(path, func(at string, parts []string) error {
		if len(parts) != 4 || parts[1] == "" || parts[3] == "" {
			return fmt.Errorf("%s: want recording, sanitized value, original value and source, tab-separated", at)
		}
		out = append(out, restoration{parts[0], parts[1], parts[2], parts[3]})
		return nil
	})
	return out, err
}

// readTSV calls each with the tab-separated fields of every line of the
// file at path but blank lines and # comments, and at ("path:line") for
// messages. A missing file has no lines.
func readTSV(path string, each func(at string, parts []string) error) error {
	f, err := os.Open(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return err
	}
	defer func() { _ = f.Close() }()
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		line := sc.Text()
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		if err := each(fmt.Sprintf("%s:%d", path, n), strings.Split(line, "\t")); err != nil {
			return err
		}
	}
	return sc.Err()
}

// restore applies the restorations to the recordings they name.
func restore(recs []*Recording, rs []restoration) error {
	byName := make(map[string]*Recording, len(recs))
	for _, r := range recs {
		byName[r.Name] = r
	}
	for _, x := range rs {
		rec, ok := byName[x.recording]
		if !ok {
			return fmt.Errorf("restored.tsv names %s, which is not a recording", x.recording)
		}
		if !rec.replace(x.from, x.to) {
			return fmt.Errorf("restored.tsv: %q does not occur in %s", x.from, x.recording)
		}
	}
	return nil
}

// replace replaces from with to everywhere in the recording: URIs, header
// values and bodies. It reports whether anything changed.
func (r *Recording) replace(from, to string) bool {
	changed := false
	str := func(s string) string {
		if strings.Contains(s, from) {
			changed = true
			return strings.ReplaceAll(s, from, to)
		}
		return s
	}
	raw := func(b json.RawMessage) json.RawMessage {
		f, _ := json.Marshal(from)
		t, _ := json.Marshal(to)
		f, t = f[1:len(f)-1], t[1:len(t)-1]
		if bytes.Contains(b, f) {
			changed = true
			return bytes.ReplaceAll(b, f, t)
		}
		return b
	}
	for i := range r.Entries {
		e := &r.Entries[i]
		e.RequestURI = str(e.RequestURI)
		for _, h := range []Headers{e.RequestHeaders, e.ResponseHeaders} {
			for k, v := range h {
				h[k] = str(v)
			}
		}
		e.RequestBody, e.ResponseBody = raw(e.RequestBody), raw(e.ResponseBody)
	}
	return changed
}

// restoredPath is where LoadRecordings looks for restorations.
func restoredPath(dir string) string { return filepath.Join(dir, "restored.tsv") }
