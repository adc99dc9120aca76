package table

import (
	"net/url"
	"strings"
	"time"
)

// etagLayout is the datetime inside an ETag: seven fractional digits.
const etagLayout = "2006-01-02T15:04:05.0000000Z"

// etag renders a commit version as a Table ETag, W/"datetime'…'" with the
// colons escaped as Azure sends them. The datetime is the version read as
// 100 ns ticks after 1970-01-01 (see doc.go): two versions never share an
// ETag, whatever the clock does.
func etag(version uint64) string {
	t := time.Unix(int64(version/1e7), int64(version%1e7)*100).UTC()
	return `W/"datetime'` + strings.ReplaceAll(t.Format(etagLayout), ":", "%3A") + `'"`
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
}

// parseIfMatch reads an If-Match header; sent reports whether there was
// one, which decides between Update and Insert Or Replace (Merge and
// Insert Or Merge). Malformed ETags match nothing.
func parseIfMatch(h string) (cond IfMatch, sent bool) {
	h = strings.TrimSpace(h)
	if h == "" {
		return IfMatch{}, false
	}
	for _, part := range strings.Split(h, ",") {
		part = strings.TrimSpace(part)
		if part == "*" {
			cond.Any = true
			continue
		}
		if v, ok := parseETag(part); ok {
			cond.Versions = append(cond.Versions, v)
		}
	}
	return cond, true
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
