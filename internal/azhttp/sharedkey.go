package azhttp

import (
	"encoding/base64"
	"iter"
	"net/http"
	"net/url"
	"slices"
	"sort"
	"strconv"
	"strings"
)

// sharedKey verifies an "Authorization: SharedKey[Lite] account:signature"
// header.
func (a *Authenticator) sharedKey(r *http.Request, header, account string) (Access, error) {
	scheme, cred, _ := strings.Cut(strings.TrimSpace(header), " ")
	var lite bool
	switch {
	case strings.EqualFold(scheme, "SharedKey"):
	case strings.EqualFold(scheme, "SharedKeyLite"):
		lite = true
	default:
		return Access{}, ErrInvalidAuthenticationInfo.WithMessage("%s\nAuthentication scheme %q is not supported.", ErrInvalidAuthenticationInfo.Message, scheme)
	}
	name, sigText, ok := strings.Cut(strings.TrimSpace(cred), ":")
	if !ok || name == "" || sigText == "" {
		return Access{}, ErrInvalidAuthenticationInfo
	}
	if name != account {
		return Access{}, authFailed("The account %q in the Authorization header does not match the account %q the request addresses.", name, account)
	}
	acct, err := a.account(name)
	if err != nil {
		return Access{}, err
	}
	candidates := stringsToSign(r, account, lite)
	if a.Service == "table" {
		candidates = slices.Values(tableStringsToSign(r, account, lite))
	}
	sig, err := base64.StdEncoding.DecodeString(sigText)
	if err != nil || !signedBy(acct.Keys, sig, candidates) {
		var first string
		for first = range candidates {
			break
		}
		return Access{}, authFailed("The MAC signature found in the HTTP request '%s' is not the same as any computed signature. Server used following string to sign: '%s'.", sigText, first)
	}
	return Access{Kind: AccessSharedKey, Account: account}, nil
}

// stringsToSign returns the Blob/Queue/File strings-to-sign r may have been
// signed with, the documented form first. Clients differ in details the
// document leaves open (path escaping, header order, whitespace, and what
// stands for an absent Date), so each plausible form is tried; every form
// still covers the same request.
func stringsToSign(r *http.Request, account string, lite bool) iter.Seq[string] {
	h := r.Header
	// Everything that does not vary between the forms is worked out once;
	// the forms themselves are produced lazily, most likely first, so a
	// request signed the documented way costs one HMAC.
	paths, dates, headers := resourcePaths(r, account), dateFields(h, false), canonicalHeaders(h)
	suffix, query, lengths := compSuffix(r), canonicalQuery(r.URL.RawQuery), contentLengths(r)
	return uniqSeq(func(yield func(string) bool) {
		for _, path := range paths {
			for _, date := range dates {
				for _, hdrs := range headers {
					if lite {
						if !yield(r.Method + "\n" + h.Get("Content-MD5") + "\n" + h.Get("Content-Type") + "\n" + date + "\n" + hdrs + "/" + account + path + suffix) {
							return
						}
						continue
					}
					for _, length := range lengths {
						s := strings.Join([]string{
							r.Method,
							h.Get("Content-Encoding"),
							h.Get("Content-Language"),
							length,
							h.Get("Content-MD5"),
							h.Get("Content-Type"),
							date,
							h.Get("If-Modified-Since"),
							h.Get("If-Match"),
							h.Get("If-None-Match"),
							h.Get("If-Unmodified-Since"),
							h.Get("Range"),
							hdrs + "/" + account + path + query,
						}, "\n")
						if !yield(s) {
							return
						}
					}
				}
			}
		}
	})
}

// uniqSeq drops repeated strings from seq, keeping order.
func uniqSeq(seq iter.Seq[string]) iter.Seq[string] {
	return func(yield func(string) bool) {
		seen := map[string]bool{}
		for s := range seq {
			if !seen[s] {
				seen[s] = true
				if !yield(s) {
					return
				}
			}
		}
	}
}

// tableStringsToSign returns the Table service's Shared Key and Shared Key
// Lite forms, which sign no x-ms-* headers and only the comp parameter.
func tableStringsToSign(r *http.Request, account string, lite bool) []string {
	h := r.Header
	var out []string
	for _, path := range resourcePaths(r, account) {
		resource := "/" + account + path + compSuffix(r)
		for _, date := range dateFields(h, true) {
			if lite {
				out = append(out, date+"\n"+resource)
			} else {
				out = append(out, strings.Join([]string{r.Method, h.Get("Content-MD5"), h.Get("Content-Type"), date, resource}, "\n"))
			}
		}
	}
	return uniq(out)
}

// resourcePaths returns the forms of the request path a client may have
// signed: the bytes on the wire (what the Go SDK signs: it escapes "/" in
// blob names as %2F), Go's re-escaping, and the decoded path. Path-style
// URLs put the account in the path, so the canonical resource names it
// twice; forms without the repeat are accepted too. A host-style request
// (see HostStyle) is signed with the path it sent, never the repeat.
func resourcePaths(r *http.Request, account string) []string {
	if paths, ok := signedPaths(r); ok {
		return paths
	}
	paths := []string{rawPath(r), r.URL.EscapedPath()}
	// A decoded newline could pass for the start of the query lines, so the
	// decoded form is only offered when it has no control characters.
	if !strings.ContainsFunc(r.URL.Path, func(c rune) bool { return c < 0x20 || c == 0x7f }) {
		paths = append(paths, r.URL.Path)
	}
	for _, p := range slices.Clone(paths) {
		if rest, ok := strings.CutPrefix(p, "/"+account); ok && (rest == "" || rest[0] == '/') {
			paths = append(paths, rest)
		}
	}
	for i, p := range paths {
		if p == "" {
			paths[i] = "/"
		}
	}
	return uniq(paths)
}

// rawPath is the path exactly as the client sent it.
func rawPath(r *http.Request) string {
	if strings.HasPrefix(r.RequestURI, "/") {
		p, _, _ := strings.Cut(r.RequestURI, "?")
		return p
	}
	if u, err := url.ParseRequestURI(r.RequestURI); err == nil && u.Path != "" {
		return u.EscapedPath()
	}
	return r.URL.EscapedPath()
}

// dateFields returns the Date field candidates. Blob/Queue/File leave it
// empty when x-ms-date is sent; the Table forms carry x-ms-date's value.
func dateFields(h http.Header, table bool) []string {
	date, msDate := h.Get("Date"), h.Get("x-ms-date")
	switch {
	case msDate == "":
		return []string{date}
	case table:
		return []string{msDate, date}
	default:
		return []string{"", date}
	}
}

// contentLengths is the Content-Length field: empty for zero since version
// 2015-02-21, "0" before.
func contentLengths(r *http.Request) []string {
	v := r.Header.Get("Content-Length")
	if v == "" && r.ContentLength > 0 {
		v = strconv.FormatInt(r.ContentLength, 10)
	}
	if v == "0" {
		return []string{"", "0"}
	}
	return []string{v}
}

func compSuffix(r *http.Request) string {
	if q := r.URL.Query(); q.Has("comp") {
		return "?comp=" + q.Get("comp")
	}
	return ""
}

// canonicalHeaders returns the x-ms-* header block, one "name:value\n" line
// per header. The document sorts names by byte order; the SDKs sort them
// culture-aware (see sdkHeaderLess), and values with inner runs of spaces
// are signed both collapsed (document) and as sent (SDKs).
func canonicalHeaders(h http.Header) []string {
	values := map[string][]string{}
	var names []string
	for k, v := range h {
		name := strings.ToLower(strings.TrimSpace(k))
		if strings.HasPrefix(name, "x-ms-") {
			if _, ok := values[name]; !ok {
				names = append(names, name)
			}
			values[name] = append(values[name], v...)
		}
	}
	if len(names) == 0 {
		// The SDKs join an empty block with its own separator.
		return []string{"", "\n"}
	}
	ordinal := slices.Clone(names)
	sort.Strings(ordinal)
	sdk := slices.Clone(names)
	sort.SliceStable(sdk, func(i, j int) bool { return sdkHeaderLess(sdk[i], sdk[j]) })

	var out []string
	for _, order := range [][]string{ordinal, sdk} {
		for _, collapse := range []bool{true, false} {
			var b strings.Builder
			for _, name := range order {
				v := strings.Join(values[name], ",")
				if collapse {
					v = strings.Join(strings.Fields(v), " ")
				}
				b.WriteString(name + ":" + v + "\n")
			}
			out = append(out, b.String())
		}
	}
	return uniq(out)
}

// canonicalQuery is the query part of the Shared Key canonicalized
// resource: decoded, names lowercased and sorted, values sorted and joined.
func canonicalQuery(raw string) string {
	vals, _ := url.ParseQuery(raw) // keeps the valid pairs, as the SDK does
	byName := map[string][]string{}
	for k, v := range vals {
		lk := strings.ToLower(k)
		byName[lk] = append(byName[lk], v...)
	}
	names := make([]string, 0, len(byName))
	for k := range byName {
		names = append(names, k)
	}
	sort.Strings(names)
	var b strings.Builder
	for _, name := range names {
		v := byName[name]
		sort.Strings(v)
		b.WriteString("\n" + name + ":" + strings.Join(v, ","))
	}
	return b.String()
}

// sdkHeaderLess orders header names as the Azure SDKs do (they inherited
// .NET's culture-invariant comparison): hyphens and apostrophes are
// ignored, other punctuation sorts before '+', then digits, then letters.
// Names equal under that rule fall back to byte order.
func sdkHeaderLess(a, b string) bool {
	if c := slices.Compare(collationKey(a), collationKey(b)); c != 0 {
		return c < 0
	}
	return a < b
}

func collationKey(s string) []int {
	key := make([]int, 0, len(s))
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '-' || c == '\'':
			continue
		case c >= 'a' && c <= 'z':
			key = append(key, 0x300+int(c-'a'))
		case c >= 'A' && c <= 'Z':
			key = append(key, 0x300+int(c-'A'))
		case c >= '0' && c <= '9':
			key = append(key, 0x200+int(c-'0'))
		case c == '+':
			key = append(key, 0x1ff)
		default:
			key = append(key, 0x100+int(c))
		}
	}
	return key
}
