package security

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"net/http"
	"net/url"
	"sort"
	"strconv"
	"strings"
	"time"
)

// sasVersion is the signed version the matrix signs with: the newest
// layout of every string-to-sign.
const sasVersion = "2021-12-02"

// sasTime is the ISO 8601 form SAS times are signed and sent in.
const sasTime = "2006-01-02T15:04:05Z"

// sasValues are the fields of one shared access signature. The matrix
// needs SAS tokens no SDK builds (an account SAS for several services at
// once, any subset of letters, tampered fields), so they are signed here,
// by the strings-to-sign of Azure's "Create an account SAS" and "Create a
// service SAS"; TestSignerAgreesWithSDKs checks this signer against the
// SDKs' own.
type sasValues struct {
	// account SAS: ss and srt set.
	services, resourceTypes string
	// service SAS: service ("blob", "queue", "table", "file") and the
	// canonical resource path after it (/account/container[/blob]).
	service, resource string
	sr                string // blob and file service SAS
	permissions       string
	start, expiry     time.Time
	identifier        string // si
	ip                string // sip
	protocol          string // spr
	version           string // sv; sasVersion when empty
	snapshot          string
	tableName         string // tn
	// Table SAS key bounds (spk, srk, epk, erk).
	startPK, startRK, endPK, endRK string
	extra                          url.Values
}

// sign returns the SAS query parameters for v under key.
func (v sasValues) sign(account, key string) url.Values {
	sv := v.version
	if sv == "" {
		sv = sasVersion
	}
	st, se := timeField(v.start), timeField(v.expiry)
	var fields []string
	q := url.Values{}
	if v.services != "" || v.resourceTypes != "" {
		fields = []string{account, v.permissions, v.services, v.resourceTypes, st, se, v.ip, v.protocol, sv, "", ""}
		q.Set("ss", v.services)
		q.Set("srt", v.resourceTypes)
	} else {
		cr := "/" + v.service + v.resource
		switch v.service {
		case "blob":
			fields = []string{v.permissions, st, se, cr, v.identifier, v.ip, v.protocol, sv, v.sr, v.snapshot, "", "", "", "", "", ""}
		case "file":
			fields = []string{v.permissions, st, se, cr, v.identifier, v.ip, v.protocol, sv, "", "", "", "", ""}
		case "queue":
			fields = []string{v.permissions, st, se, cr, v.identifier, v.ip, v.protocol, sv}
		case "table":
			fields = []string{v.permissions, st, se, cr, v.identifier, v.ip, v.protocol, sv, v.startPK, v.startRK, v.endPK, v.endRK}
			q.Set("tn", v.tableName)
			for k, f := range map[string]string{"spk": v.startPK, "srk": v.startRK, "epk": v.endPK, "erk": v.endRK} {
				if f != "" {
					q.Set(k, f)
				}
			}
		}
		if v.sr != "" {
			q.Set("sr", v.sr)
		}
	}
	for k, f := range map[string]string{"sp": v.permissions, "st": st, "se": se, "si": v.identifier, "sip": v.ip, "spr": v.protocol} {
		if f != "" {
			q.Set(k, f)
		}
	}
	q.Set("sv", sv)
	q.Set("sig", hmacBase64(key, strings.Join(fields, "\n")))
	for k, vs := range v.extra {
		q[k] = vs
	}
	return q
}

func timeField(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return t.UTC().Format(sasTime)
}

func hmacBase64(key, s string) string {
	k, err := base64.StdEncoding.DecodeString(key)
	if err != nil {
		panic("account key is not base64: " + err.Error())
	}
	m := hmac.New(sha256.New, k)
	m.Write([]byte(s))
	return base64.StdEncoding.EncodeToString(m.Sum(nil))
}

// keyScheme is how a raw request is signed with the account key.
type keyScheme int

const (
	sharedKey keyScheme = iota
	sharedKeyLite
)

// signSharedKey signs r for account as "Authorize with Shared Key"
// documents it, for the Table service's forms when table is set. r's
// x-ms-date is set to date unless it already has one.
func signSharedKey(r *http.Request, account, key string, scheme keyScheme, table bool, date time.Time) {
	if r.Header.Get("x-ms-date") == "" && r.Header.Get("Date") == "" {
		r.Header.Set("x-ms-date", date.UTC().Format(http.TimeFormat))
	}
	h := r.Header
	// The Date field: empty when x-ms-date is sent (it is signed among
	// the x-ms- headers); the Table forms carry the date either way.
	dateField, tableDate := h.Get("Date"), h.Get("Date")
	if d := h.Get("x-ms-date"); d != "" {
		dateField, tableDate = "", d
	}
	resource := "/" + account + r.URL.EscapedPath()
	comp := ""
	if c := r.URL.Query().Get("comp"); r.URL.Query().Has("comp") {
		comp = "?comp=" + c
	}
	var s string
	switch {
	case table && scheme == sharedKeyLite:
		s = tableDate + "\n" + resource + comp
	case table:
		s = strings.Join([]string{r.Method, h.Get("Content-MD5"), h.Get("Content-Type"), tableDate, resource + comp}, "\n")
	case scheme == sharedKeyLite:
		s = strings.Join([]string{r.Method, h.Get("Content-MD5"), h.Get("Content-Type"), dateField}, "\n") + "\n" + canonicalHeaders(h) + resource + comp
	default:
		length := ""
		if r.ContentLength > 0 {
			length = strconv.FormatInt(r.ContentLength, 10)
		}
		s = strings.Join([]string{r.Method, h.Get("Content-Encoding"), h.Get("Content-Language"), length,
			h.Get("Content-MD5"), h.Get("Content-Type"), dateField, h.Get("If-Modified-Since"), h.Get("If-Match"),
			h.Get("If-None-Match"), h.Get("If-Unmodified-Since"), h.Get("Range")}, "\n") + "\n" +
			canonicalHeaders(h) + resource + canonicalQuery(r.URL.Query())
	}
	name := "SharedKey"
	if scheme == sharedKeyLite {
		name = "SharedKeyLite"
	}
	r.Header.Set("Authorization", name+" "+account+":"+hmacBase64(key, s))
}

func canonicalHeaders(h http.Header) string {
	var names []string
	for k := range h {
		if strings.HasPrefix(strings.ToLower(k), "x-ms-") {
			names = append(names, strings.ToLower(k))
		}
	}
	sort.Strings(names)
	var b strings.Builder
	for _, n := range names {
		b.WriteString(n + ":" + strings.TrimSpace(h.Get(n)) + "\n")
	}
	return b.String()
}

func canonicalQuery(q url.Values) string {
	names := make([]string, 0, len(q))
	for k := range q {
		names = append(names, k)
	}
	sort.Strings(names)
	var b strings.Builder
	for _, n := range names {
		vs := append([]string(nil), q[n]...)
		sort.Strings(vs)
		b.WriteString("\n" + strings.ToLower(n) + ":" + strings.Join(vs, ","))
	}
	return b.String()
}
