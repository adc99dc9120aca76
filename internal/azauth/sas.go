package azauth

import (
	"cmp"
	"encoding/base64"
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/cerulean-db/cerulean/internal/azerr"
)

// sasLayout is one documented SAS string-to-sign: the fields it joins with
// "\n", and the first signed version (sv) that uses it. Field names are the
// query parameters, plus "account", "cr" (canonicalized resource), "snap"
// (the snapshot or version the SAS is for) and "-" (an empty field, which
// gives the account SAS its trailing newline).
type sasLayout struct {
	since  string
	fields []string
}

func layout(since, fields string) sasLayout { return sasLayout{since, strings.Fields(fields)} }

// Newest first: the newest layout signs every field, so it is tried for
// any sv (the Go SDK signs it whatever version it is asked to put in sv).
// An older layout is tried only when sv allows it and every field it does
// not sign is empty, so nothing in the query escapes the signature.
var (
	accountLayouts = []sasLayout{
		layout("2020-12-06", "account sp ss srt st se sip spr sv ses -"),
		layout("2015-04-05", "account sp ss srt st se sip spr sv -"),
	}
	blobLayouts = []sasLayout{ // Azure Files uses the 2015-04-05 one
		layout("2020-12-06", "sp st se cr si sip spr sv sr snap ses rscc rscd rsce rscl rsct"),
		layout("2018-11-09", "sp st se cr si sip spr sv sr snap rscc rscd rsce rscl rsct"),
		layout("2015-04-05", "sp st se cr si sip spr sv rscc rscd rsce rscl rsct"),
		layout("2013-08-15", "sp st se cr si sv rscc rscd rsce rscl rsct"),
		layout("2012-02-12", "sp st se cr si sv"),
	}
	queueLayouts = []sasLayout{
		layout("2015-04-05", "sp st se cr si sip spr sv"),
		layout("2012-02-12", "sp st se cr si sv"),
	}
	tableLayouts = []sasLayout{
		layout("2015-04-05", "sp st se cr si sip spr sv spk srk epk erk"),
		layout("2012-02-12", "sp st se cr si sv spk srk epk erk"),
	}
)

// sasScope is what a service SAS is for, worked out from the request.
type sasScope struct {
	layouts []sasLayout
	crs     []string // canonicalized resource candidates
	snap    string
}

// sas verifies a shared access signature in the query string.
func (a *Authenticator) sas(r *http.Request, q url.Values, account, container, blob string) (Access, error) {
	acct, err := a.account(account)
	if err != nil {
		return Access{}, err
	}
	if name, dup := duplicatedSASField(q); dup {
		return Access{}, authFailed("Signature fields not well formed. (%s appears more than once)", name)
	}
	sv := q.Get("sv")
	if !ValidVersion(sv) {
		return Access{}, authFailed("sv is mandatory and must be a storage service version, got %q.", sv)
	}
	if q.Has("skoid") {
		return Access{}, authFailed("User delegation SAS is not supported.")
	}

	var acc Access
	var scope sasScope
	if q.Has("ss") || q.Has("srt") {
		if q.Get("ss") == "" || q.Get("srt") == "" || q.Get("sp") == "" || q.Get("se") == "" || q.Has("si") {
			return Access{}, authFailed("Signature fields not well formed.")
		}
		acc = Access{Kind: AccessAccountSAS, ResourceTypes: q.Get("srt"), Services: q.Get("ss")}
		scope = sasScope{layouts: accountLayouts, crs: []string{""}}
	} else {
		acc, scope, err = a.serviceScope(q, account, container, blob)
		if err != nil {
			return Access{}, err
		}
	}
	acc.Account = account

	candidates := sasStrings(scope, q, account, sv)
	sig, err := base64.StdEncoding.DecodeString(strings.ReplaceAll(q.Get("sig"), " ", "+")) // a raw '+' decodes as a space
	if err != nil || !signedBy(acct, sig, slices.Values(candidates)) {
		shown := ""
		if len(candidates) > 0 {
			shown = candidates[0]
		}
		return Access{}, authFailed("Signature did not match. String to sign used was %s", shown)
	}

	if q.Get("spr") == "https" && r.TLS == nil {
		return Access{}, azerr.ErrAuthorizationProtocolMismatch
	}
	if err := checkSourceIP(r, q.Get("sip")); err != nil {
		return Access{}, err
	}

	start, okStart := parseSASTime(q.Get("st"))
	expiry, okExpiry := parseSASTime(q.Get("se"))
	if !okStart || !okExpiry {
		return Access{}, authFailed("Signature fields not well formed. (st, se)")
	}
	perms := q.Get("sp")
	if si := q.Get("si"); si != "" {
		p, err := a.policy(r, account, container, si)
		if err != nil {
			return Access{}, err
		}
		if (!start.IsZero() && !p.Start.IsZero()) || (!expiry.IsZero() && !p.Expiry.IsZero()) || (perms != "" && p.Permissions != "") {
			return Access{}, authFailed("Access policy fields can be associated with signature or SAS identifier but not both.")
		}
		if start.IsZero() {
			start = p.Start
		}
		if expiry.IsZero() {
			expiry = p.Expiry
		}
		perms = cmp.Or(perms, p.Permissions)
	}
	if expiry.IsZero() || perms == "" {
		return Access{}, authFailed("Signature fields not well formed. (se, sp)")
	}
	if !start.IsZero() && !expiry.After(start) {
		return Access{}, authFailed("Signed expiry time [%s] must be after signed start time [%s]", httpTime(expiry), httpTime(start))
	}
	if now := a.now(); (!start.IsZero() && now.Before(start)) || now.After(expiry) {
		return Access{}, authFailed("Signature not valid in the specified time frame: Start [%s] - Expiry [%s] - Current [%s]", httpTime(start), httpTime(expiry), httpTime(now))
	}
	acc.Permissions = perms
	return acc, nil
}

// sasFields are the query parameters a SAS consists of.
var sasFields = strings.Fields("sv ss srt sp st se sip spr sig sr si sdd ses tn spk srk epk erk rscc rscd rsce rscl rsct skoid sktid skt ske sks skv saoid suoid scid")

// duplicatedSASField reports a SAS parameter given more than once: Azure
// refuses such a SAS rather than pick one of the values.
func duplicatedSASField(q url.Values) (string, bool) {
	for _, f := range sasFields {
		if len(q[f]) > 1 {
			return f, true
		}
	}
	return "", false
}

// serviceScope works out which resource a service SAS must have been signed
// for. The canonicalized resource comes from the request URL, so a SAS for
// one container or blob does not verify against another.
func (a *Authenticator) serviceScope(q url.Values, account, container, blob string) (Access, sasScope, error) {
	acc := Access{Kind: AccessServiceSAS}
	var scope sasScope
	var cr string
	notSigned := authFailed("Signature did not match: the SAS does not cover the addressed resource.")
	switch a.Service {
	case "blob":
		acc.service, acc.Resource, scope.layouts = 'b', q.Get("sr"), blobLayouts
		cr = "/" + account + "/" + container
		switch acc.Resource {
		case "c":
		case "b", "bs", "bv":
			if blob == "" {
				return acc, scope, notSigned
			}
			cr += "/" + blob
			switch acc.Resource {
			case "bs":
				scope.snap = q.Get("snapshot")
			case "bv":
				scope.snap = q.Get("versionid")
			}
		case "d":
			// A directory SAS covers the blobs under the directory its
			// sdd leading name segments make, and the directory's own
			// blob (the marker of a hierarchical account).
			depth, err := strconv.Atoi(q.Get("sdd"))
			parts := strings.Split(blob, "/")
			if err != nil || depth < 1 || depth > len(parts) || blob == "" {
				return acc, scope, notSigned
			}
			cr += "/" + strings.Join(parts[:depth], "/")
		default:
			return acc, scope, authFailed("Signature fields not well formed. (sr)")
		}
	case "file":
		acc.service, acc.Resource, scope.layouts = 'f', q.Get("sr"), blobLayouts
		cr = "/" + account + "/" + container
		switch acc.Resource {
		case "s":
		case "f":
			if blob == "" {
				return acc, scope, notSigned
			}
			cr += "/" + blob
		default:
			return acc, scope, authFailed("Signature fields not well formed. (sr)")
		}
	case "queue":
		acc.service, acc.Resource, scope.layouts = 'q', "q", queueLayouts
		cr = "/" + account + "/" + container
	case "table":
		acc.service, acc.Resource, scope.layouts = 't', "t", tableLayouts
		tn := q.Get("tn")
		if tn == "" {
			return acc, scope, authFailed("Signature fields not well formed. (tn)")
		}
		if !strings.EqualFold(tn, container) {
			return acc, scope, azerr.ErrAuthorizationFailure
		}
		cr = "/" + account + "/" + strings.ToLower(tn)
		acc.startPK, acc.startRK, acc.endPK, acc.endRK = q.Get("spk"), q.Get("srk"), q.Get("epk"), q.Get("erk")
	default:
		return acc, scope, fmt.Errorf("sas: unknown service %q", a.Service)
	}
	if container == "" {
		return acc, scope, notSigned
	}
	// Since 2015-02-21 the resource names its service; before, it did not.
	scope.crs = []string{"/" + a.Service + cr}
	if acc.Resource == "d" && acc.service == 'b' {
		// The SDKs sign the directory as the caller named it, with or
		// without a trailing slash; sdd counts its segments either way.
		scope.crs = append(scope.crs, "/"+a.Service+cr+"/")
	}
	if q.Get("sv") < "2015-02-21" {
		scope.crs = append(scope.crs, cr)
	}
	return acc, scope, nil
}

// sasStrings returns the strings-to-sign the SAS may have been signed with.
func sasStrings(scope sasScope, q url.Values, account, sv string) []string {
	var out []string
	for _, cr := range scope.crs {
		value := func(field string) string {
			switch field {
			case "account":
				return account
			case "cr":
				return cr
			case "snap":
				return scope.snap
			case "-":
				return ""
			}
			return q.Get(field)
		}
		for i, l := range scope.layouts {
			if i > 0 && (sv < l.since || !coversSetFields(l, scope.layouts[0], value)) {
				continue
			}
			parts := make([]string, len(l.fields))
			for j, f := range l.fields {
				parts[j] = value(f)
			}
			out = append(out, strings.Join(parts, "\n"))
		}
	}
	return uniq(out)
}

// coversSetFields reports whether l signs every field of the newest layout
// that is set. An unsigned sr is fine only with its original meanings, which
// the canonicalized resource already pins down.
func coversSetFields(l, newest sasLayout, value func(string) string) bool {
	for _, f := range newest.fields {
		if slices.Contains(l.fields, f) {
			continue
		}
		v := value(f)
		if v != "" && (f != "sr" || v != "c" && v != "b" && v != "s" && v != "f") {
			return false
		}
	}
	return true
}

// policy resolves a signed identifier to its stored access policy.
func (a *Authenticator) policy(r *http.Request, account, container, id string) (StoredPolicy, error) {
	if a.Policy == nil {
		return StoredPolicy{}, authFailed("The signed identifier %q does not match any stored access policy.", id)
	}
	p, ok, err := a.Policy(r.Context(), account, container, id)
	if err != nil {
		return StoredPolicy{}, fmt.Errorf("sas: stored access policy %q: %w", id, err)
	}
	if !ok {
		return StoredPolicy{}, authFailed("The signed identifier %q does not match any stored access policy.", id)
	}
	return p, nil
}

// checkSourceIP enforces sip: one address or an inclusive range.
func checkSourceIP(r *http.Request, sip string) error {
	if sip == "" {
		return nil
	}
	loText, hiText, isRange := strings.Cut(sip, "-")
	lo, err1 := netip.ParseAddr(loText)
	hi, err2 := lo, error(nil)
	if isRange {
		hi, err2 = netip.ParseAddr(hiText)
	}
	if err1 != nil || err2 != nil || lo.Is4() != hi.Is4() {
		return authFailed("Signature fields not well formed. (sip)")
	}
	host, _, err := net.SplitHostPort(r.RemoteAddr)
	if err != nil {
		host = r.RemoteAddr
	}
	ip, err := netip.ParseAddr(host)
	if err == nil {
		ip = ip.Unmap().WithZone("")
	}
	if err != nil || ip.Is4() != lo.Is4() || ip.Less(lo) || hi.Less(ip) {
		return azerr.ErrAuthorizationSourceIPMismatch.WithMessage("This request is not authorized to perform this operation using this source IP %s.", host)
	}
	return nil
}

// parseSASTime parses st/se in the ISO 8601 forms Azure accepts; "" is a
// valid zero time (the field is optional).
func parseSASTime(s string) (time.Time, bool) {
	if s == "" {
		return time.Time{}, true
	}
	for _, f := range []string{time.RFC3339Nano, "2006-01-02T15:04Z07:00", time.DateOnly} {
		if t, err := time.Parse(f, s); err == nil {
			return t, true
		}
	}
	return time.Time{}, false
}

func httpTime(t time.Time) string {
	if t.IsZero() {
		return ""
	}
	return t.UTC().Format(http.TimeFormat)
}
