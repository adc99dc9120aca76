package cosmos

import (
	"crypto/hmac"
	"encoding/base64"
	"encoding/json"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"
)

// Resource tokens. A permission's _token is
//
//	type=resource&ver=1.0&sig=<base64 HMAC-SHA256>;<base64url payload>
//
// where the payload names the permission (database, user, id and _rid)
// and when the token expires, and the signature is the payload's HMAC
// under the first master key. A request carrying one is served when the
// signature verifies under any master key, the token has not expired, the
// permission still exists with that _rid (deleting or recreating it
// revokes its tokens) and the request is within its grant; otherwise it
// is refused: 401 for a token that is not (or no longer) valid, 403 for a
// request beyond the grant.

const (
	// defaultTokenExpiry and maxTokenExpiry bound
	// x-ms-documentdb-expiry-seconds as Cosmos DB does: an hour unless the
	// reader asks otherwise, at most five.
	defaultTokenExpiry = time.Hour
	minTokenExpiry     = 10 * time.Second
	maxTokenExpiry     = 5 * time.Hour
)

type tokenPayload struct {
	DB      string `json:"d"`
	User    string `json:"u"`
	Perm    string `json:"p"`
	RID     string `json:"r"`
	Expires int64  `json:"e"`
}

// mintToken returns a resource token for p valid until expires.
func mintToken(key []byte, p *Permission, expires time.Time) string {
	b, _ := json.Marshal(tokenPayload{DB: p.DB, User: p.User, Perm: p.ID, RID: p.RID, Expires: expires.Unix()})
	payload := base64.RawURLEncoding.EncodeToString(b)
	return "type=resource&ver=1.0&sig=" + base64.StdEncoding.EncodeToString(sign(key, payload)) + ";" + payload
}

// tokenExpiry reads x-ms-documentdb-expiry-seconds.
func tokenExpiry(r *http.Request) (time.Duration, error) {
	v := r.Header.Get("X-Ms-Documentdb-Expiry-Seconds")
	if v == "" {
		return defaultTokenExpiry, nil
	}
	n, err := strconv.Atoi(v)
	d := time.Duration(n) * time.Second
	if err != nil || d < minTokenExpiry || d > maxTokenExpiry {
		return 0, badRequest("Invalid value %q for x-ms-documentdb-expiry-seconds: it must be between %d and %d.", v, int(minTokenExpiry.Seconds()), int(maxTokenExpiry.Seconds()))
	}
	return d, nil
}

// isResourceToken reports whether an Authorization header carries a
// resource token.
func isResourceToken(h string) bool {
	if d, err := url.QueryUnescape(h); err == nil && strings.Contains(h, "%") {
		h = d
	}
	return strings.HasPrefix(strings.ToLower(h), "type=resource")
}

// parseResourceToken verifies a resource token's signature and expiry.
func (h *handler) parseResourceToken(raw string) (tokenPayload, error) {
	var t tokenPayload
	if strings.Contains(raw, "%") {
		d, err := url.PathUnescape(raw)
		if err != nil {
			return t, unauthorized("The authorization token is not URL-encoded correctly.")
		}
		raw = d
	}
	var sig, payload string
	for _, part := range strings.Split(raw, "&") {
		k, v, _ := strings.Cut(part, "=")
		if strings.EqualFold(k, "sig") {
			sig, payload, _ = strings.Cut(v, ";")
		}
	}
	mac, err := base64.StdEncoding.DecodeString(sig)
	if err != nil || payload == "" {
		return t, unauthorized("The resource token is malformed.")
	}
	ok := false
	for _, k := range h.keys {
		if hmac.Equal(sign(k, payload), mac) {
			ok = true
			break
		}
	}
	b, err := base64.RawURLEncoding.DecodeString(payload)
	if !ok || err != nil || json.Unmarshal(b, &t) != nil {
		return t, unauthorized("The input authorization token can't serve the request. The resource token is not valid.")
	}
	if h.now().Unix() >= t.Expires {
		return t, unauthorized("The resource token has expired (expiry: %s).", time.Unix(t.Expires, 0).UTC().Format(http.TimeFormat))
	}
	return t, nil
}

func forbidden() *Error {
	return newError(http.StatusForbidden, "Forbidden", "Insufficient permissions provided in the authorization header for the corresponding request. Please retry with another authorization header.")
}

// authorizeResourceToken serves a request that carries a resource token:
// segs is its path by names.
func (h *handler) authorizeResourceToken(r *http.Request, segs []string) error {
	t, err := h.parseResourceToken(r.Header.Get("Authorization"))
	if err != nil {
		return err
	}
	p, err := h.svc.permissionByToken(r.Context(), t.DB, t.User, t.Perm, t.RID)
	if err != nil {
		return err
	}
	if p == nil {
		return unauthorized("The input authorization token can't serve the request. The permission it was issued for no longer exists.")
	}
	// Any token may read the database account: the SDKs do so first.
	if len(segs) == 0 && (r.Method == http.MethodGet || r.Method == http.MethodHead) {
		return nil
	}
	// Users and permissions are managed with the master key only, even
	// under a database-wide grant.
	if !withinGrant(segs, p.Grant) || len(segs) >= 3 && segs[2] == "users" {
		return forbidden()
	}
	if p.Mode == PermissionRead && !readOnly(r) {
		return forbidden()
	}
	if p.PartitionKey != "" && len(segs) > 4 {
		comps, ok, err := parsePartitionKeyHeader(r.Header.Get("X-Ms-Documentdb-Partitionkey"))
		if err != nil || !ok || strings.Join(comps, "\x00") != p.PartitionKey {
			return forbidden()
		}
	}
	return nil
}

// withinGrant reports whether a request path is the granted resource or
// lies under it.
func withinGrant(segs, grant []string) bool {
	if len(grant) == 0 || len(segs) < len(grant) {
		return false
	}
	for i, g := range grant {
		if segs[i] != g {
			return false
		}
	}
	return true
}

// readOnly reports whether a request only reads: a GET or HEAD, or a
// query (a POST that changes nothing). Running a stored procedure writes.
func readOnly(r *http.Request) bool {
	switch r.Method {
	case http.MethodGet, http.MethodHead:
		return true
	case http.MethodPost:
		return isQuery(r)
	}
	return false
}
