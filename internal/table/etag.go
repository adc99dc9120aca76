package table

import (
	"net/url"
	"strings"
	"time"

	"github.com/cerulean-db/cerulean/internal/azerr"
)

// etagLayout is the datetime inside an ETag: up to seven fractional
// digits, trailing zeros dropped, as Azure writes it
// (W/"datetime'2021-04-13T15%3A57%3A40.96242Z'" in a recorded answer).
const etagLayout = "2006-01-02T15:04:05.9999999Z"

// etag renders a commit version as a Table ETag, W/"datetime'…'" with the
// colons escaped as Azure sends them. The datetime is the version read as
// 100 ns ticks after 1970-01-01 (see doc.go): two versions never share an
// ETag, whatever the clock does.
func etag(version uint64) string {
	var buf [64]byte
	return string(appendETag(buf[:0], version))
}

// appendETag appends etag(version) to b, escaping the datetime's colons
// as it goes (every entity write and listed entity renders one).
func appendETag(b []byte, version uint64) []byte {
	t := time.Unix(int64(version/1e7), int64(version%1e7)*100).UTC()
	b = append(b, `W/"datetime'`...)
	var dt [40]byte
	for _, c := range t.AppendFormat(dt[:0], etagLayout) {
		if c == ':' {
			b = append(b, "%3A"...)
		} else {
			b = append(b, c)
		}
	}
	return append(b, `'"`...)
}

// parseETag recovers the version an ETag was rendered from. It accepts
// the ETag with or without W/ and with the datetime escaped or not, since
// clients differ in how faithfully they echo it.
func parseETag(s string) (uint64, bool) {
	s = strings.TrimSpace(s)
	s = strings.TrimPrefix(s, "W/")
	inner, ok := strings.CutPrefix(s, `"datetime'`)
	if !ok {
		return 0, false
	}
	inner, ok = strings.CutSuffix(inner, `'"`)
	if !ok {
		return 0, false
	}
	text, err := url.PathUnescape(inner)
	if err != nil {
		return 0, false
	}
	t, err := time.Parse(time.RFC3339Nano, text)
	if err != nil || t.Before(time.Unix(0, 0)) || t.Nanosecond()%100 != 0 {
		return 0, false
	}
	return uint64(t.Unix())*1e7 + uint64(t.Nanosecond()/100), true
}

// IfMatch is the condition of Update, Merge and Delete Entity: the entity
// must exist and, unless Any, be at one of Versions (an Entity's Version,
// which its ETag renders). The zero IfMatch matches nothing.
type IfMatch struct {
	Any      bool // "*": any version
	Versions []uint64
	// Unreadable: a weak ETag with no datetime in it (W/"wrong"), which
	// matches nothing and fails as 412 ConditionNotMet where a readable
	// one that matches nothing fails as UpdateConditionNotSatisfied
	// (recorded in go-storage StorageEntitySuite TestMerge and TestUpdate,
	// which send W/"datetime''2017-04-01T01%3A07%3A23.8881885Z''").
	Unreadable bool
}

// parseIfMatch reads an If-Match header; sent reports whether there was
// one, which decides between Update and Insert Or Replace (Merge and
// Insert Or Merge). Azure takes "*" or one weak ETag, W/"…": anything
// else, a strong ETag or a list among them, is 400 InvalidInput. A weak
// ETag this server never issued (an edited date, say) is well formed and
// matches nothing, so the write fails its condition (412).
func parseIfMatch(h string) (cond IfMatch, sent bool, err error) {
	h = strings.TrimSpace(h)
	if h == "" {
		return IfMatch{}, false, nil
	}
	if h == "*" {
		return IfMatch{Any: true}, true, nil
	}
	if !weakETag(h) {
		return IfMatch{}, true, azerr.ErrInvalidInput.WithMessage("%s\nThe If-Match value %q is not a weak ETag (W/\"...\") or *.", azerr.ErrInvalidInput.Message, h)
	}
	if v, ok := parseETag(h); ok {
		cond.Versions = []uint64{v}
	}
	cond.Unreadable = !datetimeETag(h)
	return cond, true, nil
}

// datetimeETag reports whether a weak ETag holds a datetime, as every
// ETag Azure issues does, whether or not this server issued it.
func datetimeETag(s string) bool {
	inner, ok := strings.CutPrefix(s[2:], `"datetime'`)
	if !ok {
		return false
	}
	inner, ok = strings.CutSuffix(inner, `'"`)
	if !ok {
		return false
	}
	text, err := url.PathUnescape(inner)
	if err != nil {
		return false
	}
	_, err = time.Parse(time.RFC3339Nano, text)
	return err == nil
}

// weakETag reports whether s is one weak entity tag, W/"…" (or w/"…"),
// whose quoted text holds no quote but an escaped one.
func weakETag(s string) bool {
	if len(s) < 4 || s[0] != 'W' && s[0] != 'w' || s[1] != '/' || s[2] != '"' || s[len(s)-1] != '"' {
		return false
	}
	inner := s[3 : len(s)-1]
	for i := 0; i < len(inner); i++ {
		if inner[i] == '"' && (i == 0 || inner[i-1] != '\\') {
			return false
		}
	}
	return true
}

// matches reports whether the condition holds for an existing entity at
// version.
func (m IfMatch) matches(version uint64) bool {
	if m.Any {
		return true
	}
	for _, v := range m.Versions {
		if v == version {
			return true
		}
	}
	return false
}
