package parity

import (
	"bytes"
	"encoding/json"
	"encoding/xml"
	"errors"
	"fmt"
	"io"
	"maps"
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/cerulean-db/cerulean/internal/testkit"
)

// headersNotCompared are response headers whose presence says nothing
// about the service: transport framing and connection handling, and
// headers Azure's front ends add to every answer (documented in
// docs/parity.md).
var headersNotCompared = map[string]bool{
	"server": true, "date": true, "transfer-encoding": true, "connection": true, "keep-alive": true,
	"content-length": true, "vary": true, "strict-transport-security": true,
	"x-content-type-options": true, "pragma": true, "expires": true,
	"elapsed-time": true, "x-ms-client-request-id": true, "client-request-id": true,
	"x-ms-error-code": true, // compared as the error code
	// A 401's challenge names Azure's Entra ID tenant and the token
	// audience; a local server has no Entra ID to name (docs/parity.md).
	"www-authenticate": true,
}

// frontEndHeader reports a header Azure's front end set rather than the
// service: Cache-Control on Queue, Table and Search answers (Blob and
// Files return the one stored with the object), and a Content-Encoding
// negotiated for the transfer (the client decodes it away).
func frontEndHeader(service, name, value string) bool {
	switch name {
	case "cache-control":
		return service != "blob" && service != "file"
	case "content-encoding":
		v := strings.ToLower(value)
		return v == "gzip" || v == "deflate" || v == "br"
	}
	return false
}

// headerKinds are the response headers whose value the server chooses,
// and how each is bound.
var headerKinds = map[string]kind{
	"etag": "ETag", "x-ms-version-id": "version id", "x-ms-snapshot": "snapshot",
	"x-ms-copy-id": "copy id", "x-ms-lease-id": "lease id", "x-ms-popreceipt": kindReceipt,
	"x-ms-file-id": "file id", "x-ms-continuation-nextpartitionkey": "continuation marker",
	"x-ms-continuation-nextrowkey": "continuation marker", "x-ms-continuation-nexttablename": "continuation marker",
	"last-modified": kindLoose, "x-ms-request-id": kindLoose, "request-id": kindLoose,
	"x-ms-file-parent-id": "file id", "x-ms-file-permission-key": kindLoose, "x-ms-lease-time": kindLoose,
	"x-ms-copy-progress": kindLoose,
}

// xmlKinds are the XML elements whose text the server chooses.
var xmlKinds = map[string]kind{
	"Etag": "ETag", "NextMarker": "continuation marker", "MessageId": "message id", "PopReceipt": kindReceipt,
	"Snapshot": "snapshot", "VersionId": "version id", "CopyId": "copy id", "FileId": "file id",
	"Last-Modified": kindLoose, "Creation-Time": kindLoose, "InsertionTime": kindLoose,
	"ExpirationTime": kindLoose, "TimeNextVisible": kindLoose, "CopyCompletionTime": kindLoose,
	"LastAccessTime": kindLoose, "DeletedTime": kindLoose, "ChangeTime": kindLoose,
	"LastWriteTime": kindLoose, "CreationTime": kindLoose, "AccessTierChangeTime": kindLoose,
	"ParentId": "file id", "DirectoryId": "file id", "PermissionKey": kindLoose, "CopyProgress": kindLoose,
}

// deletedVersion reports whether an XML path is the Version of a listed
// soft-deleted container or share: Azure makes it from the time of the
// deletion (a FILETIME in hex), so the server chooses it, and Restore
// Container or Restore Share names it again. Elsewhere (the Version of
// Service Properties' Logging and Metrics) a Version is compared.
func deletedVersion(path string) bool {
	entry, name := path, ""
	if i := strings.LastIndex(path, "/"); i >= 0 {
		entry, name = path[:i], path[i+1:]
	}
	if name != "Version" {
		return false
	}
	if i := strings.LastIndex(entry, "["); i > strings.LastIndex(entry, "/") {
		entry = entry[:i] // a repeated entry: ".../Share[2]"
	}
	return strings.HasSuffix(entry, "/Share") || strings.HasSuffix(entry, "/Container")
}

// jsonKinds are the JSON keys whose value the server chooses.
var jsonKinds = map[string]kind{
	"odata.etag": "ETag", "@odata.etag": "ETag", "Timestamp": kindLoose,
}

// presenceOnly are JSON keys and XML elements and attributes whose value
// names the server's own address, is prose for a person (an error's
// message, which in Azure carries its request id and time; a refused
// signature's AuthenticationErrorDetail, which carries Azure's MAC and
// its string to sign), or is a score only the service's ranking decides.
var presenceOnly = map[string]bool{
	"Message": true, "message": true, "AuthenticationErrorDetail": true,
	"odata.metadata": true, "@odata.context": true, "odata.id": true, "odata.editLink": true,
	"@odata.nextLink": true, "odata.nextLink": true, "@search.score": true, "@search.rerankerScore": true,
	"ServiceEndpoint": true,
}

var (
	isoTime  = regexp.MustCompile(`^\d{4}-\d\d-\d\dT\d\d:\d\d(:\d\d(\.\d+)?)?(Z|[+-]\d\d:\d\d)$`)
	httpTime = regexp.MustCompile(`^[A-Z][a-z]{2}, \d\d [A-Z][a-z]{2} \d{4} \d\d:\d\d:\d\d GMT$`)
)

// serverTime reports whether v is a time the server stamped: a date in
// either of Azure's formats, from after the Storage REST API's current
// versions began (so that a test's own dates, like a birthday in 1970,
// are still compared).
func serverTime(v string) bool {
	var t time.Time
	var err error
	switch {
	case httpTime.MatchString(v):
		t, err = http.ParseTime(v)
	case isoTime.MatchString(v):
		t, err = time.Parse(time.RFC3339Nano, v)
	default:
		return false
	}
	return err == nil && t.Year() >= 2015
}

// comparer compares one live answer with Azure's, binding what the
// server chooses.
type comparer struct {
	b *binder
	// shift is how far the replay moved the times a request carried (a
	// stored access policy's start and expiry); they come back moved.
	shift time.Duration
	// account is the recording's account name (its endpoint's first
	// label) and live the target's: a value that names the account, such
	// as a table's odata.type "account.Tables", names the live one here.
	account, live string
	// local maps a URL whose host a sanitizer replaced whole
	// ("https://REDACTED/c/b") to the local service's; nil leaves it.
	local func(string) string
	// keyOrder compares the order of a JSON object's keys too.
	keyOrder bool
}

// keyOrdered are the services whose JSON answers are compared key order
// and all: Table's entities keep the order Azure keeps their properties
// in, and Search writes the keys of its definitions, documents and
// other answers in an order of its own, which cerulean follows.
var keyOrdered = map[string]bool{"table": true, "search": true}

// policyTimes are the elements whose time the client chose and the
// replay moved by shift.
var policyTimes = map[string]bool{"Start": true, "Expiry": true}

// movedTime compares a time the replay moved: the live one must be the
// recorded one plus shift, to the second the request carried.
func (c *comparer) movedTime(what, rec, live string) error {
	r, err1 := time.Parse(time.RFC3339Nano, rec)
	l, err2 := time.Parse(time.RFC3339Nano, live)
	if err1 != nil || err2 != nil {
		return c.value(what, rec, live)
	}
	if d := l.Sub(r.Add(c.shift)); d <= -time.Second || d >= time.Second {
		return fmt.Errorf("%s is %s, Azure %s (moved by the replay to %s)", what, live, rec, r.Add(c.shift).UTC().Format(time.RFC3339))
	}
	return nil
}

// value compares a value the client or the data decides, unless Azure's
// value is one bound earlier, a URL, or a time the server stamped.
func (c *comparer) value(what, rec, live string) error {
	if v, ok := c.b.bound(rec); ok {
		rec = v
	}
	switch {
	case rec == live:
		return nil
	case c.account != "" && strings.ReplaceAll(rec, c.account, c.live) == live:
		return nil
	case strings.HasPrefix(rec, "https://") || strings.HasPrefix(rec, "http://"):
		return nil
	case serverTime(rec):
		return c.b.bind(kindLoose, rec, live)
	case sanitized(rec):
		return nil
	}
	return fmt.Errorf("%s is %q, Azure %q", what, live, rec)
}

// chosen binds a value the server chose; Azure's and cerulean's must both
// be present.
func (c *comparer) chosen(what string, k kind, rec, live string) error {
	if rec != "" && live == "" {
		return fmt.Errorf("%s is empty, Azure %q", what, rec)
	}
	if err := c.b.bind(k, rec, live); err != nil {
		return fmt.Errorf("%s: %w", what, err)
	}
	return nil
}

// compare checks a live answer against the recorded one.
func (c *comparer) compare(e *Entry, resp *http.Response, body []byte) error {
	recCT, _ := e.ResponseHeaders.Get("Content-Type")
	recBody, err := decodeBody(e.ResponseBody, recCT)
	if err != nil {
		return fmt.Errorf("recorded body: %w", err)
	}
	liveCode := errorCode(resp.Header.Get("X-Ms-Error-Code"), body)
	recHeaderCode, _ := e.ResponseHeaders.Get("x-ms-error-code")
	recCode := errorCode(recHeaderCode, recBody)
	if resp.StatusCode != e.StatusCode {
		return fmt.Errorf("status %d %s, Azure %d %s", resp.StatusCode, liveCode, e.StatusCode, recCode)
	}
	if recCode != "" && liveCode != recCode {
		return fmt.Errorf("error code %q, Azure %q", liveCode, recCode)
	}
	service := ""
	if u, err := url.Parse(e.RequestURI); err == nil {
		service = serviceOf(u.Host)
	}
	for _, name := range e.ResponseHeaders.Names() {
		lname := strings.ToLower(name)
		rec := e.ResponseHeaders[name]
		if headersNotCompared[lname] || frontEndHeader(service, lname, rec) {
			continue
		}
		if _, origin := e.RequestHeaders.Get("Origin"); !origin && strings.HasPrefix(lname, "access-control-") {
			// CORS headers answer a request's Origin; a recorder that
			// dropped the Origin it sent left Azure's answer to it.
			continue
		}
		live, ok := header(resp.Header, name)
		if !ok {
			return fmt.Errorf("header %s missing, Azure %q", name, rec)
		}
		what := "header " + name
		if k, ok := headerKinds[lname]; ok {
			if err := c.chosen(what, k, rec, live); err != nil {
				return err
			}
			continue
		}
		if lname == "content-type" {
			rec, live = mediaType(rec), mediaType(live)
		}
		if lname == "x-ms-copy-source" {
			if err := c.copySource(what, rec, live); err != nil {
				return err
			}
			continue
		}
		if err := c.value(what, rec, live); err != nil {
			return err
		}
	}
	if e.RequestMethod == http.MethodHead {
		return nil
	}
	return c.body(recCT, recBody, body)
}

// mediaType normalizes a Content-Type for comparison: parameters in any
// spacing, case-insensitively, without a multipart boundary (which the
// server chooses).
func mediaType(v string) string {
	var parts []string
	for _, p := range strings.Split(strings.ToLower(v), ";") {
		p = strings.TrimSpace(p)
		if !strings.HasPrefix(p, "boundary=") {
			parts = append(parts, p)
		}
	}
	return strings.Join(parts, ";")
}

var utf8BOM = []byte("\uFEFF")

func (c *comparer) body(ct string, rec, live []byte) error {
	rec, live = bytes.TrimPrefix(rec, utf8BOM), bytes.TrimPrefix(live, utf8BOM)
	if len(bytes.TrimSpace(rec)) == 0 {
		return nil
	}
	lct := strings.ToLower(ct)
	switch {
	case strings.Contains(lct, "json"):
		return c.jsonBody(rec, live)
	case strings.Contains(lct, "xml"):
		return c.xmlBody(rec, live)
	case strings.Contains(lct, "multipart/mixed"):
		return multipartStatuses(rec, live)
	}
	if !bytes.Equal(rec, live) {
		return fmt.Errorf("body differs: %d bytes, Azure %d", len(live), len(rec))
	}
	return nil
}

// errorCode is the Azure error code of an answer: the x-ms-error-code
// header, or the code in an XML or JSON error body.
func errorCode(hdr string, body []byte) string {
	if hdr != "" {
		return hdr
	}
	body = bytes.TrimPrefix(bytes.TrimSpace(body), utf8BOM)
	if len(body) == 0 {
		return ""
	}
	if body[0] == '<' {
		var e struct {
			Code string `xml:"Code"`
		}
		if xml.Unmarshal(body, &e) == nil {
			return e.Code
		}
		return ""
	}
	var j struct {
		OData struct {
			Code string `json:"code"`
		} `json:"odata.error"`
		Error struct {
			Code string `json:"code"`
		} `json:"error"`
	}
	if json.Unmarshal(body, &j) == nil {
		if j.OData.Code != "" {
			return j.OData.Code
		}
		return j.Error.Code
	}
	return ""
}

// multipartStatuses compares the status lines of a batch answer's parts,
// in order.
func multipartStatuses(rec, live []byte) error {
	re := regexp.MustCompile(`HTTP/1\.1 (\d{3})`)
	statuses := func(b []byte) []string {
		var out []string
		for _, m := range re.FindAllSubmatch(b, -1) {
			out = append(out, string(m[1]))
		}
		return out
	}
	r, l := statuses(rec), statuses(live)
	if strings.Join(r, ",") != strings.Join(l, ",") {
		return fmt.Errorf("batch statuses %v, Azure %v", l, r)
	}
	return nil
}

func (c *comparer) jsonBody(rec, live []byte) error {
	var r, l any
	if err := decodeJSON(rec, &r); err != nil {
		return fmt.Errorf("recorded JSON body: %w", err)
	}
	if err := decodeJSON(live, &l); err != nil {
		return fmt.Errorf("body is not JSON (%w): %.200q", err, live)
	}
	if err := c.jsonValue("$", "", r, l); err != nil || !c.keyOrder {
		return err
	}
	ro, err := testkit.JSONKeyOrders(rec)
	if err != nil {
		return err
	}
	lo, err := testkit.JSONKeyOrders(live)
	if err != nil {
		return err
	}
	for _, p := range sortedKeys(ro) {
		if !slices.Equal(ro[p], lo[p]) {
			return fmt.Errorf("%s keys %v, Azure %v", p, lo[p], ro[p])
		}
	}
	return nil
}

func decodeJSON(b []byte, v any) error {
	d := json.NewDecoder(bytes.NewReader(b))
	d.UseNumber()
	return d.Decode(v)
}

func (c *comparer) jsonValue(path, key string, rec, live any) error {
	if presenceOnly[key] {
		return nil
	}
	switch r := rec.(type) {
	case map[string]any:
		l, ok := live.(map[string]any)
		if !ok {
			return fmt.Errorf("%s is %s, Azure an object", path, jsonType(live))
		}
		if err := keySets(path, r, l); err != nil {
			return err
		}
		for _, k := range sortedKeys(r) {
			if err := c.jsonValue(path+"."+k, k, r[k], l[k]); err != nil {
				return err
			}
		}
		return nil
	case []any:
		l, ok := live.([]any)
		if !ok {
			return fmt.Errorf("%s is %s, Azure a list", path, jsonType(live))
		}
		if len(l) != len(r) {
			return fmt.Errorf("%s has %d items, Azure %d", path, len(l), len(r))
		}
		for i := range r {
			if err := c.jsonValue(fmt.Sprintf("%s[%d]", path, i), key, r[i], l[i]); err != nil {
				return err
			}
		}
		return nil
	case string:
		l, ok := live.(string)
		if !ok {
			return fmt.Errorf("%s is %s, Azure a string %q", path, jsonType(live), r)
		}
		if k, ok := jsonKinds[key]; ok {
			return c.chosen(path, k, r, l)
		}
		if key == "odata.type" {
			return c.odataType(path, r, l)
		}
		return c.value(path, r, l)
	case json.Number:
		l, ok := live.(json.Number)
		if !ok || l.String() != r.String() {
			return fmt.Errorf("%s is %v, Azure %s", path, live, r)
		}
		return nil
	default: // bool, nil
		if rec != live {
			return fmt.Errorf("%s is %v, Azure %v", path, live, rec)
		}
		return nil
	}
}

func jsonType(v any) string {
	switch v.(type) {
	case map[string]any:
		return "an object"
	case []any:
		return "a list"
	case string:
		return "a string"
	case json.Number:
		return "a number"
	case bool:
		return "a boolean"
	case nil:
		return "null"
	}
	return fmt.Sprintf("%T", v)
}

// keySets reports the first key one object has and the other lacks.
func keySets[V any](path string, rec, live map[string]V) error {
	for _, k := range sortedKeys(rec) {
		if _, ok := live[k]; !ok {
			return fmt.Errorf("%s lacks %q", path, k)
		}
	}
	for _, k := range sortedKeys(live) {
		if _, ok := rec[k]; !ok {
			return fmt.Errorf("%s has %q, Azure does not", path, k)
		}
	}
	return nil
}

func sortedKeys[V any](m map[string]V) []string { return slices.Sorted(maps.Keys(m)) }

// xmlNode is an element: its attributes, its text when it has no child
// elements, and its children grouped by name in document order.
type xmlNode struct {
	name     string
	attrs    map[string]string
	text     string
	children map[string][]*xmlNode
	order    []string // the children's names in document order
}

func parseXML(b []byte) (*xmlNode, error) {
	d := xml.NewDecoder(bytes.NewReader(b))
	root := &xmlNode{children: map[string][]*xmlNode{}}
	stack := []*xmlNode{root}
	var text strings.Builder
	for {
		tok, err := d.Token()
		if err != nil {
			if errors.Is(err, io.EOF) {
				return root, nil
			}
			return nil, err
		}
		top := stack[len(stack)-1]
		switch t := tok.(type) {
		case xml.StartElement:
			n := &xmlNode{name: t.Name.Local, attrs: map[string]string{}, children: map[string][]*xmlNode{}}
			for _, a := range t.Attr {
				n.attrs[a.Name.Local] = a.Value
			}
			top.children[n.name] = append(top.children[n.name], n)
			top.order = append(top.order, n.name)
			stack = append(stack, n)
			text.Reset()
		case xml.CharData:
			text.Write(t)
		case xml.EndElement:
			if len(top.children) == 0 {
				top.text = text.String()
			}
			text.Reset()
			stack = stack[:len(stack)-1]
		}
	}
}

func (c *comparer) xmlBody(rec, live []byte) error {
	r, err := parseXML(rec)
	if err != nil {
		// A body labelled XML that is not (a file's bytes downloaded
		// with the type it was stored with) is compared byte for byte.
		if !bytes.Equal(rec, live) {
			return fmt.Errorf("body differs: %d bytes, Azure %d (not XML: %w)", len(live), len(rec), err)
		}
		return nil
	}
	l, err := parseXML(live)
	if err != nil {
		return fmt.Errorf("body is not XML (%w): %.200q", err, live)
	}
	return c.xmlElem("", r, l)
}

func (c *comparer) xmlElem(path string, rec, live *xmlNode) error {
	for _, a := range sortedKeys(rec.attrs) {
		lv, ok := live.attrs[a]
		if !ok {
			return fmt.Errorf("%s lacks the attribute %s", path, a)
		}
		if presenceOnly[a] {
			continue
		}
		if err := c.value(path+"@"+a, rec.attrs[a], lv); err != nil {
			return err
		}
	}
	if len(rec.children) == 0 {
		if presenceOnly[rec.name] {
			return nil
		}
		if len(live.children) != 0 {
			return fmt.Errorf("%s has child elements, Azure a value %q", path, rec.text)
		}
		if k, ok := xmlKinds[rec.name]; ok {
			return c.chosen(path, k, rec.text, live.text)
		}
		if deletedVersion(path) {
			return c.chosen(path, "deleted version", rec.text, live.text)
		}
		if policyTimes[rec.name] {
			return c.movedTime(path, rec.text, live.text)
		}
		if rec.name == "CopySource" {
			return c.copySource(path, rec.text, live.text)
		}
		if echoedValues[rec.name] {
			return c.value(path, rec.text, c.b.recorded(live.text))
		}
		return c.value(path, rec.text, live.text)
	}
	if err := keySets(path, rec.children, live.children); err != nil {
		return err
	}
	for _, name := range sortedKeys(rec.children) {
		r, l := rec.children[name], live.children[name]
		if len(r) != len(l) {
			return fmt.Errorf("%s has %d <%s>, Azure %d", path, len(l), name, len(r))
		}
	}
	if !slices.Equal(rec.order, live.order) {
		// Child elements come in Azure's order: a listing's entries
		// across their kinds (<Directory> and <File>, <BlobPrefix> and
		// <Blob>), and the properties of each.
		return fmt.Errorf("%s lists %v, Azure %v", path, live.order, rec.order)
	}
	for _, name := range sortedKeys(rec.children) {
		r, l := rec.children[name], live.children[name]
		for i := range r {
			p := path + "/" + name
			if len(r) > 1 {
				p = fmt.Sprintf("%s[%d]", p, i)
			}
			if err := c.xmlElem(p, r[i], l[i]); err != nil {
				return err
			}
		}
	}
	return nil
}
