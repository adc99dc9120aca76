package cosmos

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"net/http"
	"net/url"
	"strings"

	"github.com/cerulean-db/cerulean/internal/azauth"
)

// EmulatorKey is the Cosmos DB emulator's well-known master key, which
// cerulean accepts by default.
const EmulatorKey = "C2y6yDjf5/R+ob0N8A7Cgv30VRDJIWEHLM+4QDU5DE2nQ9nDuVTqobD4b8mGGyPMbIZnqyMsEcaGQy67XIw/Jw=="

// authToken is a parsed Authorization header: the URL-encoded
// "type=master&ver=1.0&sig=<base64 HMAC-SHA256>".
type authToken struct {
	Type, Version string
	Signature     []byte
}

// parseAuthToken parses an Authorization header value. SDKs URL-encode the
// whole token; a raw one is accepted too.
func parseAuthToken(h string) (authToken, error) {
	var t authToken
	if h == "" {
		return t, unauthorized("Required Header authorization is missing. Ensure a valid Authorization token is passed.")
	}
	if strings.Contains(h, "%") {
		d, err := url.QueryUnescape(h)
		if err != nil {
			return t, unauthorized("The authorization token is not URL-encoded correctly.")
		}
		h = d
	}
	var sig string
	for _, part := range strings.Split(h, "&") {
		k, v, ok := strings.Cut(part, "=")
		if !ok {
			return t, unauthorized("The authorization token is malformed: %q has no value.", part)
		}
		switch strings.ToLower(k) {
		case "type":
			t.Type = v
		case "ver":
			t.Version = v
		case "sig":
			sig = v
		}
	}
	if t.Type == "" || t.Version == "" || sig == "" {
		return t, unauthorized("The authorization token must name type, ver and sig.")
	}
	if t.Type != "master" {
		return t, unauthorized("Only master-key authorization (type=master) is supported; resource tokens and AAD are not.")
	}
	if t.Version != "1.0" {
		return t, unauthorized("Authorization token version %q is not supported; use 1.0.", t.Version)
	}
	b, err := base64.StdEncoding.DecodeString(sig)
	if err != nil || len(b) != sha256.Size {
		return t, unauthorized("The authorization token signature is not a base64 HMAC-SHA256.")
	}
	t.Signature = b
	return t, nil
}

// resourceOf returns the resource type and resource link a request is
// signed over: for a path naming a feed (odd number of segments) the type
// is its last segment and the link its parent; for a path naming a
// resource, the type is the segment before the id and the link the path.
// The database account ("/") has both empty.
func resourceOf(segs []string) (resourceType, link string) {
	n := len(segs)
	switch {
	case n == 0:
		return "", ""
	case n%2 == 1:
		return segs[n-1], strings.Join(segs[:n-1], "/")
	default:
		return segs[n-2], strings.Join(segs, "/")
	}
}

// ridLink is the link the SDKs sign when they address a resource by
// _rid (dbs/{rid}/colls/{rid}/docs/{rid}, offers/{rid}): the _rid of the
// resource, or of the feed's owner, as written (the SDKs lower-case it).
func ridLink(segs []string) string {
	n := len(segs)
	switch {
	case n < 2:
		return ""
	case n%2 == 1:
		return segs[n-2]
	default:
		return segs[n-1]
	}
}

// stringToSign is the master-key canonical string: verb, resource type and
// x-ms-date lowercased, the resource link as is, and an empty line.
func stringToSign(verb, resourceType, link, date string) string {
	return strings.ToLower(verb) + "\n" + strings.ToLower(resourceType) + "\n" + link + "\n" + strings.ToLower(date) + "\n\n"
}

func sign(key []byte, s string) []byte {
	m := hmac.New(sha256.New, key)
	m.Write([]byte(s))
	return m.Sum(nil)
}

// authenticate verifies a request's master-key signature and its date.
func (h *handler) authenticate(r *http.Request, segs []string) error {
	tok, err := parseAuthToken(r.Header.Get("Authorization"))
	if err != nil {
		return err
	}
	date := azauth.RequestDate(r)
	if date == "" {
		return unauthorized("The request must carry x-ms-date or Date.")
	}
	when, err := http.ParseTime(date)
	if err != nil {
		return unauthorized("The date %q is not a valid RFC 1123 date.", date)
	}
	if !azauth.WithinDateSkew(when, h.clientNow()) {
		return unauthorized("The authorization token is not valid at the current time. Please create another token and retry (token start time: %s, current time: %s).",
			when.UTC().Format(http.TimeFormat), h.clientNow().UTC().Format(http.TimeFormat))
	}
	rt, link := resourceOf(segs)
	payload := stringToSign(r.Method, rt, link, date)
	payloads := []string{payload}
	if rid := ridLink(segs); rid != "" {
		for _, l := range []string{rid, strings.ToLower(rid)} {
			if l != link {
				payloads = append(payloads, stringToSign(r.Method, rt, l, date))
			}
		}
	}
	for _, k := range h.keys {
		for _, p := range payloads {
			if hmac.Equal(sign(k, p), tok.Signature) {
				return nil
			}
		}
	}
	return unauthorized("The input authorization token can't serve the request. The wrong key is being used or the expected payload is not built as per the protocol. For more info: https://aka.ms/cosmosdb-tsg-mac-signature. Server used the following payload to sign: '%s'",
		strings.ReplaceAll(payload, "\n", "\\n"))
}
