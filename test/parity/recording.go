package parity

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"sort"
	"strconv"
	"strings"
)

// A Recording is one recorded test: its requests and Azure's answers, in
// the order they were sent.
type Recording struct {
	// Name is the recording's path under testdata ("blob/x.json"), and
	// Service the first element of that path.
	Name, Service string
	Entries       []Entry `json:"Entries"`

	// setup is what the test made before the recording began (setup.tsv),
	// with its files under setupDir.
	setup    []setupStep
	setupDir string
}

// An Entry is one request and Azure's answer, as the test proxy stores
// them: bodies are JSON values when the content type is JSON, text
// (a string, or a list of lines) when it is text, and base64 otherwise.
type Entry struct {
	RequestURI      string          `json:"RequestUri"`
	RequestMethod   string          `json:"RequestMethod"`
	RequestHeaders  Headers         `json:"RequestHeaders"`
	RequestBody     json.RawMessage `json:"RequestBody"`
	StatusCode      int             `json:"StatusCode"`
	ResponseHeaders Headers         `json:"ResponseHeaders"`
	ResponseBody    json.RawMessage `json:"ResponseBody"`
}

// Headers are recorded headers; a value is a string or a list of strings.
type Headers map[string]string

// UnmarshalJSON joins a header recorded as a list with ", ", as it went
// over the wire.
func (h *Headers) UnmarshalJSON(b []byte) error {
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(b, &raw); err != nil {
		return err
	}
	*h = make(Headers, len(raw))
	for k, v := range raw {
		var s string
		if err := json.Unmarshal(v, &s); err == nil {
			(*h)[k] = s
			continue
		}
		var list []string
		if err := json.Unmarshal(v, &list); err != nil {
			return fmt.Errorf("header %s: %w", k, err)
		}
		(*h)[k] = strings.Join(list, ", ")
	}
	return nil
}

// Get returns the header named name, case-insensitively.
func (h Headers) Get(name string) (string, bool) {
	for k, v := range h {
		if strings.EqualFold(k, name) {
			return v, true
		}
	}
	return "", false
}

// Names returns the header names, sorted, so that reports are stable.
func (h Headers) Names() []string {
	names := make([]string, 0, len(h))
	for k := range h {
		names = append(names, k)
	}
	sort.Strings(names)
	return names
}

// LoadRecordings reads every recording under dir (dir/<service>/*.json
// from the test proxy, dir/<service>/*.yaml from go-vcr), sorted by name.
func LoadRecordings(dir string) ([]*Recording, error) {
	var paths []string
	for _, pattern := range []string{"*.json", "*.yaml"} {
		found, err := filepath.Glob(filepath.Join(dir, "*", pattern))
		if err != nil {
			return nil, err
		}
		paths = append(paths, found...)
	}
	sort.Strings(paths)
	recs := make([]*Recording, 0, len(paths))
	for _, p := range paths {
		rec, err := LoadRecording(dir, p)
		if err != nil {
			return nil, err
		}
		recs = append(recs, rec)
	}
	rs, err := loadRestorations(restoredPath(dir))
	if err != nil {
		return nil, err
	}
	if err := restore(recs, rs); err != nil {
		return nil, err
	}
	steps, err := loadSetup(dir)
	if err != nil {
		return nil, err
	}
	if err := attachSetup(dir, recs, steps); err != nil {
		return nil, err
	}
	return recs, nil
}

// LoadRecording reads the recording at path, named relative to dir.
func LoadRecording(dir, path string) (*Recording, error) {
	rel, err := filepath.Rel(dir, path)
	if err != nil {
		return nil, err
	}
	rec := &Recording{Name: filepath.ToSlash(rel)}
	rec.Service, _, _ = strings.Cut(rec.Name, "/")
	data, err := os.ReadFile(path)
	if err == nil {
		if strings.HasSuffix(path, ".yaml") {
			rec.Entries, err = parseCassette(data)
		} else {
			err = json.Unmarshal(data, rec)
		}
	}
	if err != nil {
		return nil, fmt.Errorf("recording %s: %w", rec.Name, err)
	}
	return rec, nil
}

// decodeBody turns a recorded body back into the bytes that were sent:
// null is empty, a list of strings is the lines joined (a line
// "b64:..." being the bytes its base64 holds), a string is text
// for a textual content type and base64 for any other, and any other JSON
// value is that JSON.
func decodeBody(raw json.RawMessage, contentType string) ([]byte, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || bytes.Equal(raw, []byte("null")) {
		return nil, nil
	}
	switch raw[0] {
	case '"':
		var s string
		if err := json.Unmarshal(raw, &s); err != nil {
			return nil, err
		}
		if strings.HasPrefix(strings.ToLower(contentType), "multipart/") {
			// Some recorders store batch bodies as base64 despite their
			// textual type; a batch body always opens with "--".
			if b, err := base64.StdEncoding.DecodeString(s); err == nil && bytes.HasPrefix(b, []byte("--")) {
				return b, nil
			}
		}
		if isText(contentType) {
			return []byte(s), nil
		}
		if b, err := base64.StdEncoding.DecodeString(s); err == nil {
			return b, nil
		}
		return []byte(s), nil
	case '[':
		var lines []string
		if err := json.Unmarshal(raw, &lines); err == nil {
			for i, l := range lines {
				lines[i] = decodeLine(l)
			}
			return []byte(strings.Join(lines, "")), nil
		}
	}
	// A JSON body is sent as recorded (compacted): decoding it would
	// reorder keys and round large numbers.
	var out bytes.Buffer
	if err := json.Compact(&out, raw); err != nil {
		return nil, err
	}
	return out.Bytes(), nil
}

// isText reports whether the test proxy stores a body of this content
// type as text rather than base64.
func isText(contentType string) bool {
	ct := strings.ToLower(contentType)
	for _, t := range []string{"text/", "xml", "json", "multipart/mixed", "x-www-form-urlencoded"} {
		if strings.Contains(ct, t) {
			return true
		}
	}
	return false
}

// header returns the header's value from a live response's http.Header.
func header(h http.Header, name string) (string, bool) {
	v, ok := h[http.CanonicalHeaderKey(name)]
	if !ok {
		return "", false
	}
	return strings.Join(v, ", "), true
}

// Versioned reports whether the recording ran on an account with blob
// versioning on: its answers carry version ids. The replay turns
// versioning on for it.
func (r *Recording) Versioned() bool {
	for _, e := range r.Entries {
		if _, ok := e.ResponseHeaders.Get("x-ms-version-id"); ok {
			return true
		}
	}
	return false
}

// LastAccessTracked reports whether the recording's account tracked blobs'
// last access times (a management-plane setting): its answers carry
// x-ms-last-access-time or list LastAccessTime.
func (r *Recording) LastAccessTracked() bool {
	for _, e := range r.Entries {
		if _, ok := e.ResponseHeaders.Get("x-ms-last-access-time"); ok {
			return true
		}
		if bytes.Contains(e.ResponseBody, []byte("<LastAccessTime>")) {
			return true
		}
	}
	return false
}

// BlobSoftDeleteDays is the blob soft delete of the account a Blob
// recording ran on: Azure answered a Delete Blob with
// x-ms-delete-type-permanent: false where only soft delete explains it (a
// snapshot's delete, or any delete on an account without versioning).
// The days are the most a listing of blobs shows left, else 7 (the
// portal's default); 0 when nothing shows soft delete. Azure's
// accounts have it turned on outside the recording; the replay turns it
// on before the first request.
func (r *Recording) BlobSoftDeleteDays() int {
	if r.Service != "blob" {
		return 0
	}
	versioned := r.Versioned()
	soft := false
	for _, e := range r.Entries {
		if e.RequestMethod != http.MethodDelete {
			continue
		}
		if v, _ := e.ResponseHeaders.Get("x-ms-delete-type-permanent"); v == "false" && (!versioned || strings.Contains(e.RequestURI, "snapshot=")) {
			soft = true
		}
	}
	if !soft {
		return 0
	}
	if days := r.listedRetention("<Blob>"); days > 0 {
		return days
	}
	return 7
}

// remainingDays finds a listed soft-deleted share's or blob's retention.
var remainingDays = regexp.MustCompile(`<RemainingRetentionDays>(\d+)</RemainingRetentionDays>`)

// ShareRetentionDays is the share soft delete of the account a Files
// recording ran on: the most retention days left that a listing of
// deleted shares in its answers shows (a share deleted a moment before
// has all of them), 0 when none is listed. Azure turns share soft delete
// on through the management plane, not in the recording; the replay
// turns it on for the server with that many days.
func (r *Recording) ShareRetentionDays() int {
	if r.Service != "file" {
		return 0
	}
	return r.listedRetention("")
}

// LargeFileShares reports whether a Files recording ran on an account
// with large file shares (a management-plane setting): a share reports
// the 100 TiB quota (102400) that no request of the recording set, the
// quota such an account gives a share created without one. The replay
// turns the setting on.
func (r *Recording) LargeFileShares() bool {
	if r.Service != "file" {
		return false
	}
	reported := false
	for _, e := range r.Entries {
		if v, _ := e.RequestHeaders.Get("x-ms-share-quota"); v == "102400" {
			return false
		}
		if v, _ := e.ResponseHeaders.Get("x-ms-share-quota"); v == "102400" {
			reported = true
		}
	}
	return reported
}

// ContainerRetentionDays is, in the same way, the container soft delete
// of the account a Blob recording ran on, from a listing of deleted
// containers.
func (r *Recording) ContainerRetentionDays() int {
	if r.Service != "blob" {
		return 0
	}
	return r.listedRetention("<Container>")
}

// listedRetention is the most retention days left that a listing in the
// recording's answers shows, counting only answers that contain within
// ("" for any).
func (r *Recording) listedRetention(within string) int {
	most := 0
	for _, e := range r.Entries {
		var body string
		if json.Unmarshal(e.ResponseBody, &body) != nil {
			var lines []string
			if json.Unmarshal(e.ResponseBody, &lines) != nil {
				continue
			}
			body = strings.Join(lines, "")
		}
		if !strings.Contains(body, within) {
			continue
		}
		for _, m := range remainingDays.FindAllStringSubmatch(body, -1) {
			if n, err := strconv.Atoi(m[1]); err == nil && n > most {
				most = n
			}
		}
	}
	return most
}

// HTTPSOnlySAS reports whether one of the recording's requests carries a
// SAS that allows HTTPS only (spr=https): the replay then serves Storage
// over HTTPS, as Azure did, rather than have the token refused.
func (r *Recording) HTTPSOnlySAS() bool {
	for _, e := range r.Entries {
		u, err := url.Parse(e.RequestURI)
		if err == nil && u.Query().Get("sig") != "" && u.Query().Get("spr") == "https" {
			return true
		}
	}
	return false
}
