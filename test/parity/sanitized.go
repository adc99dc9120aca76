package parity

import (
	"bytes"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"regexp"
	"strings"
)

// This file undoes what recorders' sanitizers did to a request or an
// answer where the recording itself says what was there, and only there.

// redactedQuery is a query the Java recorder's sanitizer replaced whole.
const redactedQuery = "REDACTED"

// selectInMetadata is the $select an entity's odata.metadata ends with.
var selectInMetadata = regexp.MustCompile(`&\$select=([^&#]+)$`)

// rebuildQuery returns the recorded request URI with a query the
// sanitizer replaced whole ("?REDACTED") rebuilt from Azure's answer,
// where the answer leaves no doubt what it was:
//
//   - a Get Entity (one entity's path) answered with odata=fullmetadata
//     asked $format=application/json;odata=fullmetadata (the Java client's
//     only query there), and $select=X when the answer's odata.metadata
//     ends in &$select=X;
//   - a request to a table's own path whose request or answer body is a
//     <SignedIdentifiers> list is Set or Get Table ACL: comp=acl.
//
// Any other sanitized query is an error: the recording cannot be
// replayed as Azure saw it.
func rebuildQuery(e *Entry) (string, error) {
	base, query, ok := strings.Cut(e.RequestURI, "?")
	if !ok || query != redactedQuery {
		return e.RequestURI, nil
	}
	u, err := url.Parse(base)
	if err != nil {
		return "", err
	}
	last := u.Path[strings.LastIndex(u.Path, "/")+1:]
	q := url.Values{}
	switch {
	case strings.Contains(last, "(") && strings.Contains(last, "PartitionKey="):
		ct, _ := e.ResponseHeaders.Get("Content-Type")
		if e.RequestMethod != "GET" || !strings.Contains(strings.ReplaceAll(strings.ToLower(ct), " ", ""), "odata=fullmetadata") {
			break
		}
		q.Set("$format", "application/json;odata=fullmetadata")
		var body struct {
			Metadata string `json:"odata.metadata"`
		}
		if json.Unmarshal(e.ResponseBody, &body) == nil {
			if m := selectInMetadata.FindStringSubmatch(body.Metadata); m != nil {
				q.Set("$select", m[1])
			}
		}
	case last != "" && !strings.Contains(last, "(") && strings.Count(strings.Trim(u.Path, "/"), "/") == 0:
		reqCT, _ := e.RequestHeaders.Get("Content-Type")
		respCT, _ := e.ResponseHeaders.Get("Content-Type")
		reqBody, _ := decodeBody(e.RequestBody, reqCT)
		respBody, _ := decodeBody(e.ResponseBody, respCT)
		if bytes.Contains(reqBody, []byte("<SignedIdentifiers")) || bytes.Contains(respBody, []byte("<SignedIdentifiers")) {
			q.Set("comp", "acl")
		}
	}
	if len(q) == 0 {
		return "", fmt.Errorf("the query was sanitized to ?%s and Azure's answer does not say what it was", redactedQuery)
	}
	return base + "?" + q.Encode(), nil
}

// b64Line is the test proxy's form for a part of a multipart body that
// is not valid text: "b64:" and the part's bytes in base64.
const b64Line = "b64:"

// decodeLine returns a line of a body recorded as a list of lines as the
// bytes that were sent.
func decodeLine(line string) string {
	if rest, ok := strings.CutPrefix(line, b64Line); ok {
		if b, err := base64.StdEncoding.DecodeString(rest); err == nil {
			return string(b)
		}
	}
	return line
}

// sasVersion gives a SAS whose version the sanitizer replaced
// ("sv=Sanitized") the version the request was sent with (its
// x-ms-version): the recording client signs with its own version.
func sasVersion(target, version string) string {
	u, err := url.Parse(target)
	if err != nil || version == "" {
		return target
	}
	q := u.Query()
	if q.Get("sig") == "" || !sanitized(q.Get("sv")) {
		return target
	}
	q.Set("sv", version)
	u.RawQuery = q.Encode()
	return u.String()
}

// localPlaceholderURL makes a URL whose host a sanitizer replaced whole
// ("https://REDACTED/container/blob", as the Java recorder leaves a copy
// source) name the local service the recording spoke to.
func (t *Target) localPlaceholderURL(v, service string) string {
	u, err := url.Parse(v)
	if err != nil || (u.Scheme != "https" && u.Scheme != "http") || !placeholderHost(u.Host) {
		return v
	}
	base := t.base(service)
	if base == "" {
		return v
	}
	return strings.TrimSuffix(base, "/") + strings.TrimPrefix(v, u.Scheme+"://"+u.Host)
}

// odataType compares an entity's odata.type, "<account>.<table>": the
// account is the recording's, which its sanitizers may have renamed
// ("faketableaccount") or which another host hides, so the live one must
// name the live account and the same table.
func (c *comparer) odataType(path, rec, live string) error {
	recAccount, recTable, ok := strings.Cut(rec, ".")
	if !ok || recAccount == "Edm" {
		return c.value(path, rec, live)
	}
	liveAccount, liveTable, _ := strings.Cut(live, ".")
	if liveAccount != c.live || liveTable != recTable {
		return fmt.Errorf("%s is %q, Azure %q (the account named %s here)", path, live, rec, c.live)
	}
	return nil
}

// echoedValues are the elements of an error body that repeat a value the
// request carried: a value the replay bound is the live one there, and
// goes back to Azure's before the comparison.
var echoedValues = map[string]bool{"QueryParameterValue": true, "HeaderValue": true}

// copySource compares a copy's source URL. One whose host a sanitizer
// replaced whole ("https://REDACTED/container/blob", as the Java recorder
// leaves it) names the local service here, and is compared whole, bound
// values (a snapshot time) made live; any other URL names Azure's
// endpoint and is not compared.
func (c *comparer) copySource(what, rec, live string) error {
	if c.local == nil {
		return c.value(what, rec, live)
	}
	mapped := c.local(rec)
	if mapped == rec {
		return c.value(what, rec, live)
	}
	if mapped = c.b.rewrite(mapped); mapped != live {
		return fmt.Errorf("%s is %q, Azure %q (%q here)", what, live, rec, mapped)
	}
	return nil
}

// replayKey is the customer-provided key a replay sends where the
// recording's sanitizer replaced the key and its SHA-256 alike (every
// request of one recording used one key, and a key is only ever checked
// against the SHA-256 sent with it and the one the blob was written with).
var replayKey = sha256.Sum256([]byte("cerulean parity replay customer key"))

// customerKeys puts a key and its SHA-256 where the sanitizer left
// "Sanitized" in x-ms-encryption-key or x-ms-source-encryption-key.
func customerKeys(h http.Header) {
	for _, prefix := range []string{"X-Ms-", "X-Ms-Source-"} {
		if !sanitized(h.Get(prefix + "Encryption-Key")) {
			continue
		}
		sum := sha256.Sum256(replayKey[:])
		h.Set(prefix+"Encryption-Key", base64.StdEncoding.EncodeToString(replayKey[:]))
		h.Set(prefix+"Encryption-Key-Sha256", base64.StdEncoding.EncodeToString(sum[:]))
	}
}
