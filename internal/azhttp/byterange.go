package azhttp

import (
	"net/http"
	"strconv"
	"strings"

	"github.com/cerulean-db/cerulean/internal/azerr"
)

// ByteRange is a requested byte range, both ends inclusive; End < 0 means
// "to the end".
type ByteRange struct{ Start, End int64 }

// ParseRange reads x-ms-range (preferred) or Range: "bytes=start-[end]",
// nil when neither is sent. closed demands an end (Put Range, whose
// range is the body's). A malformed value is InvalidHeaderValue naming the
// header that carried it.
func ParseRange(h http.Header, closed bool) (*ByteRange, error) {
	name := "x-ms-range"
	v := h.Get(name)
	if v == "" {
		name, v = "Range", h.Get("Range")
	}
	if v == "" {
		return nil, nil
	}
	bad := azerr.InvalidHeaderValue(name, v)
	spec, ok := strings.CutPrefix(v, "bytes=")
	if !ok {
		return nil, bad
	}
	from, to, ok := strings.Cut(spec, "-")
	if !ok {
		return nil, bad
	}
	start, err := strconv.ParseInt(from, 10, 64)
	if err != nil || start < 0 {
		return nil, bad
	}
	r := &ByteRange{Start: start, End: -1}
	if to != "" {
		end, err := strconv.ParseInt(to, 10, 64)
		if err != nil || end < start {
			return nil, bad
		}
		r.End = end
	} else if closed {
		return nil, bad
	}
	return r, nil
}
