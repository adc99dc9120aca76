package console

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"time"
)

// sasVersion is the signed version (sv) of the links the console makes:
// the first whose string-to-sign covers the encryption scope, which the
// SDKs sign today.
const sasVersion = "2020-12-06"

// maxLinkHours bounds a link's life: a link is handed to people, and one
// that never expires cannot be taken back short of changing the key.
const maxLinkHours = 7 * 24

// blobLinks makes shareable read-only links to blobs: a service SAS (sr=b,
// or bs/bv for a snapshot or version) signed with the key the Blob proxy
// of the request's account (AccountHeader) signs with, which never
// leaves the server. It answers POST
// /console/sas/blob?container=&blob=[&snapshot=|&versionid=][&hours=]
// with {"url", "expiry"}.
type blobLinks struct {
	proxies map[string]*serviceProxy
	now     func() time.Time
}

func (l blobLinks) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	p, ok := proxyFor(l.proxies, "blob", r)
	var key sharedKey
	if ok {
		key, ok = p.signer.(sharedKey)
	}
	if !ok {
		writeJSONError(w, http.StatusNotFound, "AccountNotConfigured",
			fmt.Sprintf("%q is not a Storage account this console reaches.", r.Header.Get(AccountHeader)))
		return
	}
	q := r.URL.Query()
	container, blob := q.Get("container"), q.Get("blob")
	if container == "" || blob == "" {
		writeJSONError(w, http.StatusBadRequest, "MissingParameter", "A link names a container and a blob.")
		return
	}
	hours := 24
	if h := q.Get("hours"); h != "" {
		n, err := strconv.Atoi(h)
		if err != nil || n < 1 || n > maxLinkHours {
			writeJSONError(w, http.StatusBadRequest, "InvalidParameter", "hours is a whole number from 1 to "+strconv.Itoa(maxLinkHours)+".")
			return
		}
		hours = n
	}
	resource, snap, snapParam := "b", "", ""
	switch {
	case q.Get("snapshot") != "":
		resource, snap, snapParam = "bs", q.Get("snapshot"), "snapshot"
	case q.Get("versionid") != "":
		resource, snap, snapParam = "bv", q.Get("versionid"), "versionid"
	}
	now := l.now().UTC()
	// The start is a little in the past, so that a clock behind the
	// server's does not find the link not yet valid.
	start := now.Add(-5 * time.Minute).Format(time.RFC3339)
	expiry := now.Add(time.Duration(hours) * time.Hour).Format(time.RFC3339)
	// The string-to-sign of a Blob service SAS at sv 2020-12-06: sp st se
	// cr si sip spr sv sr snapshot ses rscc rscd rsce rscl rsct.
	toSign := strings.Join([]string{"r", start, expiry, "/blob/" + key.acct + "/" + container + "/" + blob,
		"", "", "", sasVersion, resource, snap, "", "", "", "", "", ""}, "\n")
	mac := hmac.New(sha256.New, key.key)
	mac.Write([]byte(toSign))
	sas := url.Values{
		"sp": {"r"}, "st": {start}, "se": {expiry}, "sv": {sasVersion}, "sr": {resource},
		"sig": {base64.StdEncoding.EncodeToString(mac.Sum(nil))},
	}
	if snapParam != "" {
		sas.Set(snapParam, snap)
	}
	link := *p.base
	link.Path = p.base.Path + container + "/" + blob
	link.RawPath = p.base.EscapedPath() + url.PathEscape(container) + "/" + escapeBlobName(blob)
	link.RawQuery = sas.Encode()
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	_ = json.NewEncoder(w).Encode(map[string]string{"url": link.String(), "expiry": expiry})
}

// escapeBlobName escapes each of a blob name's segments, keeping the
// slashes that make its virtual folders.
func escapeBlobName(name string) string {
	parts := strings.Split(name, "/")
	for i, p := range parts {
		parts[i] = url.PathEscape(p)
	}
	return strings.Join(parts, "/")
}
