package azauth

import (
	"cmp"
	"encoding/base64"
	"iter"
	"net/http"
	"net/url"
	"slices"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"

	"github.com/cerulean-db/cerulean/internal/azerr"
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
		return Access{}, azerr.ErrInvalidAuthenticationInfo.WithMessage("%s\nAuthentication scheme %q is not supported.", azerr.ErrInvalidAuthenticationInfo.Message, scheme)
	}
	name, sigText, ok := strings.Cut(strings.TrimSpace(cred), ":")
	if !ok || name == "" || sigText == "" {
		return Access{}, azerr.ErrInvalidAuthenticationInfo
	}
	if name != account {
		return Access{}, authFailed("The account %q in the Authorization header does not match the account %q the request addresses.", name, account)
	}
	acct, err := a.account(name)
	if err != nil {
		return Access{}, err
	}
	var candidates iter.Seq[string]
	if a.Service == "table" {
		candidates = tableStringsToSign(r, account, lite)
	} else {
		candidates = stringsToSign(r, account, lite)
	}
	sig, err := base64.StdEncoding.DecodeString(sigText)
	if err != nil || !signedBy(acct, sig, candidates) {
		var first string
		for first = range candidates {
			break
		}
		return Access{}, authFailed("The MAC signature found in the HTTP request '%s' is not the same as any computed signature. Server used following string to sign: '%s'.", sigText, first)
	}
	if err := a.checkRequestDate(r); err != nil {
		return Access{}, err
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
	// The fields around Content-Length and Date, joined once.
	var head, mid, tail string
	if lite {
		mid = h.Get("Content-Md5") + "\n" + h.Get("Content-Type") + "\n"
	} else {
		head = r.Method + "\n" + h.Get("Content-Encoding") + "\n" + h.Get("Content-Language") + "\n"
		mid = h.Get("Content-Md5") + "\n" + h.Get("Content-Type") + "\n"
		tail = h.Get("If-Modified-Since") + "\n" + h.Get("If-Match") + "\n" + h.Get("If-None-Match") + "\n" +
			h.Get("If-Unmodified-Since") + "\n" + h.Get("Range") + "\n"
	}
	return uniqSeq(func(yield func(string) bool) {
		for _, path := range paths {
			for _, date := range dates {
				for _, hdrs := range headers {
					if lite {
						if !yield(r.Method + "\n" + mid + date + "\n" + hdrs + "/" + account + path + suffix) {
							return
						}
						continue
					}
					for _, length := range lengths {
						if !yield(head + length + "\n" + mid + date + "\n" + tail + hdrs + "/" + account + path + query) {
							return
						}
					}
				}
			}
		}
	})
}

// uniqSeq drops repeated strings from seq, keeping order. The usual
// caller stops at the first string, so the set starts with the second.
func uniqSeq(seq iter.Seq[string]) iter.Seq[string] {
	return func(yield func(string) bool) {
		var first string
		var seen map[string]bool
		n := 0
		for s := range seq {
			n++
			switch {
			case n == 1:
				first = s
			case s == first || seen[s]:
				continue
			case seen == nil:
				seen = map[string]bool{s: true}
			default:
				seen[s] = true
			}
			if !yield(s) {
				return
			}
		}
	}
}

// tableStringsToSign returns the Table service's Shared Key and Shared Key
// Lite forms, which sign no x-ms-* headers and only the comp parameter.
// Like stringsToSign, it produces them lazily, most likely first.
func tableStringsToSign(r *http.Request, account string, lite bool) iter.Seq[string] {
	h := r.Header
	paths, dates, suffix := resourcePaths(r, account), dateFields(h, true), compSuffix(r)
	var head string // Shared Key Lite signs only the date and the resource
	if !lite {
		head = r.Method + "\n" + h.Get("Content-Md5") + "\n" + h.Get("Content-Type") + "\n"
	}
	return uniqSeq(func(yield func(string) bool) {
		for _, path := range paths {
			resource := "/" + account + path + suffix
			for _, date := range dates {
				if !yield(head + date + "\n" + resource) {
					return
				}
			}
		}
	})
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
	date, msDate := h.Get("Date"), h.Get("X-Ms-Date")
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
// are signed both collapsed (document) and as sent (SDKs). Forms that
// come out the same (the usual case: the orders agree and no value has a
// run of spaces) are built once.
func canonicalHeaders(h http.Header) []string {
	type field struct{ name, value string }
	var fields []field
	for k, v := range h {
		name := strings.TrimSpace(k)
		if len(name) < len("x-ms-") || !strings.EqualFold(name[:len("x-ms-")], "x-ms-") {
			continue
		}
		fields = append(fields, field{strings.ToLower(name), strings.Join(v, ",")})
	}
	if len(fields) == 0 {
		// The SDKs join an empty block with its own separator.
		return []string{"", "\n"}
	}
	slices.SortStableFunc(fields, func(a, b field) int { return strings.Compare(a.name, b.name) })
	// Keys that differ only in case are one header: their values join.
	merged := fields[:1]
	for _, f := range fields[1:] {
		if last := &merged[len(merged)-1]; last.name == f.name {
			last.value += "," + f.value
			continue
		}
		merged = append(merged, f)
	}
	fields = merged
	collapsedValues := make([]string, len(fields))
	anyCollapsed := false
	for i, f := range fields {
		collapsedValues[i] = collapseSpaces(f.value)
		anyCollapsed = anyCollapsed || collapsedValues[i] != f.value
	}
	ordinal := make([]int, len(fields))
	for i := range ordinal {
		ordinal[i] = i
	}
	orders := [][]int{ordinal}
	if !slices.IsSortedFunc(fields, func(a, b field) int { return sdkHeaderCompare(a.name, b.name) }) {
		sdk := slices.Clone(ordinal)
		slices.SortFunc(sdk, func(a, b int) int { return sdkHeaderCompare(fields[a].name, fields[b].name) })
		orders = append(orders, sdk)
	}
	block := func(order []int, values func(int) string) string {
		n := 0
		for _, i := range order {
			n += len(fields[i].name) + len(values(i)) + 2
		}
		var b strings.Builder
		b.Grow(n)
		for _, i := range order {
			b.WriteString(fields[i].name)
			b.WriteByte(':')
			b.WriteString(values(i))
			b.WriteByte('\n')
		}
		return b.String()
	}
	collapsed := func(i int) string { return collapsedValues[i] }
	raw := func(i int) string { return fields[i].value }
	var out []string
	for _, order := range orders {
		out = append(out, block(order, collapsed))
		if anyCollapsed {
			out = append(out, block(order, raw))
		}
	}
	return out
}

// collapseSpaces is v with leading and trailing white space dropped and
// inner runs of it replaced by one space; v itself when that changes
// nothing, found without allocating.
func collapseSpaces(v string) string {
	for i := 0; i < len(v); i++ {
		c := v[i]
		if c > ' ' && c < utf8.RuneSelf {
			continue
		}
		if c == ' ' && i > 0 && i+1 < len(v) && v[i+1] != ' ' {
			continue
		}
		return strings.Join(strings.Fields(v), " ")
	}
	return v
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
func sdkHeaderLess(a, b string) bool { return sdkHeaderCompare(a, b) < 0 }

// sdkHeaderCompare is sdkHeaderLess as a three-way comparison.
func sdkHeaderCompare(a, b string) int {
	i, j := 0, 0
	for {
		var ka, kb int
		ka, i = nextCollationWeight(a, i)
		kb, j = nextCollationWeight(b, j)
		if ka != kb || ka < 0 {
			if c := cmp.Compare(ka, kb); c != 0 {
				return c
			}
			return strings.Compare(a, b)
		}
	}
}

// nextCollationWeight returns the weight of the first character of s at
// or after i that the SDK order does not ignore, and the index after it;
// -1 at the end of s.
func nextCollationWeight(s string, i int) (int, int) {
	for ; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '-' || c == '\'':
			continue
		case c >= 'a' && c <= 'z':
			return 0x300 + int(c-'a'), i + 1
		case c >= 'A' && c <= 'Z':
			return 0x300 + int(c-'A'), i + 1
		case c >= '0' && c <= '9':
			return 0x200 + int(c-'0'), i + 1
		case c == '+':
			return 0x1ff, i + 1
		default:
			return 0x100 + int(c), i + 1
		}
	}
	return -1, i
}
