package parity

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/cerulean-db/cerulean/internal/azauth"
)

// A Target is the server a recording is replayed against: the base URL of
// each service (path style, ending in "/") and its credentials.
type Target struct {
	Blob, Queue, Table, File, Search string
	// Account and Key (base64) sign Storage requests; SearchKey is the
	// Search admin api-key.
	Account, Key, SearchKey string
	Client                  *http.Client
	// Clock, when set, is the server's test clock: the replay moves it
	// forward as the recording's own clock moved between requests, so
	// that a message's time to live or a lease's duration runs out where
	// it ran out for Azure, without waiting.
	Clock Clock
	// Settle, when set, is called after each answer and returns once the
	// work the server started in the background for it has ended
	// (a Search indexer's run on create), so that the next request finds
	// the same state however fast that work went.
	Settle func()
}

// A Clock is a server clock the replay can move forward.
type Clock interface {
	Now() time.Time
	Advance(d time.Duration) (time.Time, error)
}

// now is the target's time: its clock's, or the real time.
func (t *Target) now() time.Time {
	if t.Clock != nil {
		return t.Clock.Now()
	}
	return time.Now()
}

// serviceOf names the service a recorded host belongs to.
func serviceOf(host string) string {
	h := strings.ToLower(host)
	for _, s := range []string{"blob", "queue", "table", "file"} {
		if strings.Contains(h, "."+s+".core.") {
			return s
		}
	}
	if strings.Contains(h, ".search.windows.net") {
		return "search"
	}
	return ""
}

func (t *Target) base(service string) string {
	switch service {
	case "blob":
		return t.Blob
	case "queue":
		return t.Queue
	case "table":
		return t.Table
	case "file":
		return t.File
	case "search":
		return strings.TrimSuffix(t.Search, "/") + "/"
	}
	return ""
}

// azureHost matches an Azure Storage or Search endpoint in a URL, in
// whatever form the recording's sanitizers left its account name
// (Sanitized, fakeaccount, or a real name inside a batch body).
var azureHost = regexp.MustCompile(`(?i)https?://[a-z0-9_-]+\.(blob|queue|table|file)\.core\.windows\.net/|https?://[a-z0-9_-]+\.search\.windows\.net/`)

// rewriteHosts replaces every Azure endpoint s names with the local base
// URL of its service.
func (t *Target) rewriteHosts(s string) string {
	return azureHost.ReplaceAllStringFunc(s, func(m string) string {
		u, err := url.Parse(m)
		if err != nil {
			return m
		}
		if base := t.base(serviceOf(u.Host)); base != "" {
			return base
		}
		return m
	})
}

// headersNotSent are recorded request headers the replay sets itself (or
// that describe the recording client's connection).
var headersNotSent = map[string]bool{
	"authorization": true, "content-length": true, "connection": true, "user-agent": true,
	"accept-encoding": true, "x-ms-date": true, "date": true, "api-key": true, "host": true,
	"x-ms-client-request-id": true, "x-ms-return-client-request-id": true,
	"traceparent": true, "transfer-encoding": true,
}

// resignCopySource signs again a SAS in a copy source (whose signature
// the recording sanitized), its times moved like a request URL's; a
// source without a SAS is left as it is. recorded is the source as
// recorded, whose host names its service (else the recording's).
func (t *Target) resignCopySource(recorded, v, service string, shift time.Duration) string {
	cu, err := url.Parse(shiftSAS(v, shift))
	if err != nil || cu.Query().Get("sig") == "" {
		return v
	}
	if ru, err := url.Parse(recorded); err == nil && serviceOf(ru.Host) != "" {
		service = serviceOf(ru.Host)
	}
	if t.resignSAS(cu, service) != nil {
		return v
	}
	return cu.String()
}

// timeHeaders carry dates a test computed from a recorded one (an hour
// before the Last-Modified it read); they move with the replay's clock.
var timeHeaders = []string{"If-Modified-Since", "If-Unmodified-Since", "x-ms-source-if-modified-since", "x-ms-source-if-unmodified-since", "x-ms-blob-if-modified-since", "x-ms-blob-if-unmodified-since",
	"x-ms-access-tier-if-modified-since", "x-ms-access-tier-if-unmodified-since"}

// request builds the live request for entry e: addressed to the target,
// every bound value replaced, dates moved by shift, and signed.
func (t *Target) request(e *Entry, recService string, b *binder, shift time.Duration, now time.Time) (*http.Request, error) {
	uri, err := rebuildQuery(e)
	if err != nil {
		return nil, err
	}
	u, err := url.Parse(uri)
	if err != nil {
		return nil, fmt.Errorf("request URI: %w", err)
	}
	service := serviceOf(u.Host)
	target := t.rewriteHosts(uri)
	if service == "" && placeholderHost(u.Host) {
		// A sanitizer replaced the whole host ("https://REDACTED/"):
		// the recording's folder says which service it spoke to.
		service = recService
		target = t.localPlaceholderURL(uri, service)
	}
	if t.base(service) == "" {
		return nil, fmt.Errorf("no local service for host %s", u.Host)
	}
	target = b.rewrite(target)
	version, _ := e.RequestHeaders.Get("x-ms-version")
	target = shiftSAS(sasVersion(target, version), shift)
	ct, _ := e.RequestHeaders.Get("Content-Type")
	body, err := decodeBody(e.RequestBody, ct)
	if err != nil {
		return nil, fmt.Errorf("request body: %w", err)
	}
	if isText(ct) || looksLikeMarkup(body) {
		body = []byte(shiftPolicyTimes(b.rewrite(t.rewriteHosts(string(body))), shift))
	}
	if service == "search" {
		body = t.localConnectionStrings(body)
	}
	req, err := http.NewRequest(e.RequestMethod, target, bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	if service == "queue" {
		b.useReceipt(req.URL, u.Query().Get("popreceipt"))
	}
	req.ContentLength = int64(len(body))
	if len(body) == 0 {
		req.Body = http.NoBody
	}
	for _, name := range e.RequestHeaders.Names() {
		if headersNotSent[strings.ToLower(name)] || strings.HasPrefix(name, ":") {
			// ":method" and the other HTTP/2 pseudo-headers some
			// recorders kept are not headers.
			continue
		}
		key := http.CanonicalHeaderKey(name)
		if strings.HasPrefix(strings.ToLower(name), "x-ms-meta-") {
			// Metadata names keep their case on the wire, as the
			// recording client sent them.
			key = name
		}
		v := b.rewrite(t.rewriteHosts(e.RequestHeaders[name]))
		if strings.EqualFold(name, "x-ms-copy-source") {
			v = b.rewrite(t.localPlaceholderURL(t.rewriteHosts(e.RequestHeaders[name]), recService))
			v = t.resignCopySource(e.RequestHeaders[name], v, recService, shift)
		}
		req.Header[key] = []string{v}
	}
	customerKeys(req.Header)
	if boundary, ok := multipartBoundary(body); ok && strings.HasPrefix(strings.ToLower(ct), "multipart/") {
		// The sanitizers rewrite the boundary in the header, not in the
		// body; the body's own first line is the one that holds.
		req.Header.Set("Content-Type", "multipart/mixed; boundary="+boundary)
	}
	for _, name := range timeHeaders {
		if v := req.Header.Get(name); v != "" {
			if tm, err := http.ParseTime(v); err == nil {
				req.Header.Set(name, tm.Add(shift).UTC().Format(http.TimeFormat))
			}
		}
	}
	if service == "search" {
		req.Header.Set("Api-Key", t.SearchKey)
		return req, nil
	}
	if q := u.Query(); q.Get("sig") != "" {
		if q.Get("sv") != "" || q.Get("sig") != "fakesigval" {
			return req, t.resignSAS(req.URL, service)
		}
		// The JavaScript recorder keeps only st, spr and sig=fakesigval
		// of the SAS the test used (an account SAS from the connection
		// string): nothing is left to sign again, so the request is
		// signed with Shared Key instead and the SAS fields dropped.
		for _, f := range []string{"st", "spr", "sig"} {
			q.Del(f)
		}
		req.URL.RawQuery = q.Encode()
	}
	if anonymous(e) {
		return req, nil
	}
	key, err := t.key()
	if err != nil {
		return nil, err
	}
	if refusedSignature(e) {
		key = wrongKey(key)
	}
	azauth.SignSharedKey(req, service, t.Account, key, now)
	return req, nil
}

// anonymous reports a request Azure refused for carrying no credentials
// at all (401 NoAuthenticationInformation): the test's client had none.
// The recorder drops the Authorization header either way, so this answer
// is the only sign; such a request is sent unsigned.
func anonymous(e *Entry) bool {
	if e.StatusCode != http.StatusUnauthorized {
		return false
	}
	code, _ := e.ResponseHeaders.Get("x-ms-error-code")
	return code == "NoAuthenticationInformation"
}

// refusedSignature reports a Shared Key request whose signature Azure
// refused (403 AuthenticationFailed): a test that signs with a key other
// than the account's. The recorder drops the Authorization header, and
// the replay signs with the account's key, so such a request is signed
// with a wrong key to ask what the test asked.
func refusedSignature(e *Entry) bool {
	code, _ := e.ResponseHeaders.Get("x-ms-error-code")
	return e.StatusCode == http.StatusForbidden && code == "AuthenticationFailed"
}

// wrongKey is a key of the same length that is not key.
func wrongKey(key []byte) []byte {
	w := make([]byte, len(key))
	for i, b := range key {
		w[i] = ^b
	}
	return w
}

// shiftSAS moves a SAS token's start and expiry by shift, so that a token
// valid for an hour from the recording is valid for an hour from now.
func shiftSAS(target string, shift time.Duration) string {
	u, err := url.Parse(target)
	if err != nil || u.RawQuery == "" {
		return target
	}
	q := u.Query()
	if q.Get("sig") == "" {
		return target
	}
	// A sanitized start or expiry ("st=start&se=end") becomes a window
	// around now.
	now := time.Now().UTC()
	for f, fallback := range map[string]time.Time{"st": now.Add(-15 * time.Minute), "se": now.Add(time.Hour)} {
		v := q.Get(f)
		if v == "" {
			continue
		}
		tm, err := time.Parse(time.RFC3339, v)
		if err != nil {
			tm = fallback
		} else {
			tm = tm.Add(shift)
		}
		q.Set(f, tm.UTC().Format("2006-01-02T15:04:05Z"))
	}
	u.RawQuery = q.Encode()
	return u.String()
}

// policyTime is a stored access policy's start or expiry in a Set ACL
// body.
var policyTime = regexp.MustCompile(`<(Start|Expiry)>([^<]+)</(Start|Expiry)>`)

// shiftPolicyTimes moves the start and expiry of stored access policies
// by shift, as shiftSAS moves a token's: a policy valid for an hour from
// the recording is valid for an hour from now.
func shiftPolicyTimes(body string, shift time.Duration) string {
	return policyTime.ReplaceAllStringFunc(body, func(m string) string {
		parts := policyTime.FindStringSubmatch(m)
		t, err := time.Parse(time.RFC3339Nano, parts[2])
		if err != nil {
			return m
		}
		return "<" + parts[1] + ">" + t.Add(shift).UTC().Format("2006-01-02T15:04:05Z") + "</" + parts[3] + ">"
	})
}

// looksLikeMarkup reports whether a body sent without a content type is
// an XML or JSON document (older SDKs set no Content-Type on Set ACL).
func looksLikeMarkup(body []byte) bool {
	b := bytes.TrimSpace(bytes.TrimPrefix(body, []byte("\xef\xbb\xbf")))
	return len(b) > 0 && (b[0] == '<' || b[0] == '{') && utf8.Valid(b)
}

// placeholderHost reports a host a sanitizer wrote in place of the real
// one.
func placeholderHost(host string) bool {
	switch strings.ToLower(host) {
	case "redacted", "sanitized", "endpoint":
		return true
	}
	return false
}

// sanitizedConnectionString is a Search data source's connection string
// that a sanitizer replaced; Azure saw the real one.
var sanitizedConnectionString = regexp.MustCompile(`("connectionString"\s*:\s*)"(Sanitized|REDACTED)"`)

// localConnectionStrings gives a data source whose connection string was
// sanitized one for this server's Blob service, the only data source a
// local server can offer, so the definition is checked as Azure checked
// the real one.
func (t *Target) localConnectionStrings(body []byte) []byte {
	if !sanitizedConnectionString.Match(body) {
		return body
	}
	conn := "DefaultEndpointsProtocol=http;AccountName=" + t.Account + ";AccountKey=" + t.Key +
		";BlobEndpoint=" + strings.TrimSuffix(t.Blob, "/")
	quoted, _ := json.Marshal(conn)
	return sanitizedConnectionString.ReplaceAll(body, append([]byte("${1}"), quoted...))
}

// multipartBoundary is the boundary a multipart body opens with.
func multipartBoundary(body []byte) (string, bool) {
	line, _, _ := strings.Cut(string(body), "\n")
	line = strings.TrimSpace(line)
	if !strings.HasPrefix(line, "--") || len(line) < 3 {
		return "", false
	}
	return line[2:], true
}

// SetBlobSoftDelete turns blob soft delete on for days, as the recording
// account had it, with Set Blob Service Properties (which leaves the
// properties it does not name as they are).
func (t *Target) SetBlobSoftDelete(days int) error {
	body := fmt.Sprintf("<StorageServiceProperties><DeleteRetentionPolicy><Enabled>true</Enabled><Days>%d</Days></DeleteRetentionPolicy></StorageServiceProperties>", days)
	if err := t.setServiceProperties("blob", "2021-12-02", []byte(body)); err != nil {
		return fmt.Errorf("blob soft delete: %w", err)
	}
	return nil
}

// setServiceProperties sends Set Service Properties with body to service,
// signed with Shared Key at x-ms-version version, and wants it accepted.
func (t *Target) setServiceProperties(service, version string, body []byte) error {
	req, err := http.NewRequest(http.MethodPut, t.base(service)+"?restype=service&comp=properties", bytes.NewReader(body))
	if err != nil {
		return err
	}
	req.Header.Set("X-Ms-Version", version)
	req.Header.Set("Content-Type", "application/xml")
	key, err := t.key()
	if err != nil {
		return err
	}
	azauth.SignSharedKey(req, service, t.Account, key, t.now())
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
	if resp.StatusCode != http.StatusAccepted {
		return fmt.Errorf("set %s service properties: status %d: %s", service, resp.StatusCode, answer)
	}
	return nil
}
