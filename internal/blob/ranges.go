package blob

import (
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"

	"github.com/cerulean-db/cerulean/internal/azerr"
)

// readRange reads the range a Get Blob or Get Page Ranges asks for, nil
// for the whole blob. Azure takes x-ms-range before Range and accepts two
// forms, "bytes=start-" and "bytes=start-end". A malformed x-ms-range is
// refused (InvalidHeaderValue), but Range is the standard HTTP header: a
// value in any other form (a suffix "bytes=-n", several ranges, end
// before start, garbage) is ignored and the whole blob served, as an HTTP
// server may ignore a Range it cannot satisfy as asked. An x-ms-range
// with a negative start ("bytes=-1-", "bytes=-2-497", what an SDK writes
// for a negative offset) is ignored too: Azure answers the whole blob or
// page list (go-azblob-TestBlobDownloadDataNegativeOffset,
// go-azblob-TestBlobGetPageRangesInvalidRange), also when its end is
// negative as well ("bytes=-22--9": azblob's live
// TestBlobDiffPageRangeInvalidRange requires success of Azure).
func readRange(h http.Header) (*ByteRange, error) {
	if v := h.Get("X-Ms-Range"); v != "" {
		r, ok := parseByteRange(v)
		if !ok && negativeStart(v) {
			return nil, nil
		}
		if !ok {
			return nil, azerr.InvalidHeaderValue("x-ms-range", v)
		}
		return r, nil
	}
	if v := h.Get("Range"); v != "" {
		if r, ok := parseByteRange(v); ok {
			return r, nil
		}
	}
	return nil, nil
}

// negativeStart reports whether a range is "bytes=-N-", "bytes=-N-M" or
// "bytes=-N--M" (a negative offset and a count that ends before zero).
func negativeStart(v string) bool {
	spec, ok := strings.CutPrefix(strings.TrimSpace(v), "bytes=-")
	if !ok {
		return false
	}
	from, to, ok := strings.Cut(spec, "-")
	return ok && allDigits(from) && (to == "" || allDigits(strings.TrimPrefix(to, "-")))
}

// parseByteRange parses "bytes=start-" or "bytes=start-end" (end >= start).
func parseByteRange(v string) (*ByteRange, bool) {
	spec, ok := strings.CutPrefix(strings.TrimSpace(v), "bytes=")
	if !ok {
		return nil, false
	}
	from, to, ok := strings.Cut(spec, "-")
	if !ok || !allDigits(from) {
		return nil, false
	}
	start, err := strconv.ParseInt(from, 10, 64)
	if err != nil {
		return nil, false
	}
	r := &ByteRange{Start: start, End: -1}
	if to == "" {
		return r, true
	}
	if !allDigits(to) {
		return nil, false
	}
	end, err := strconv.ParseInt(to, 10, 64)
	if err != nil || end < start {
		return nil, false
	}
	r.End = end
	return r, true
}

func allDigits(s string) bool {
	if s == "" {
		return false
	}
	for _, c := range s {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

// unsatisfiableRange is InvalidRange for a read that starts at or past
// the end of a blob of size bytes. Azure answers it with the blob's size
// in Content-Range ("bytes */size") so that a client learns the length.
type unsatisfiableRange struct{ size int64 }

func (e *unsatisfiableRange) Error() string { return azerr.ErrInvalidRange.Error() }
func (e *unsatisfiableRange) Unwrap() error { return azerr.ErrInvalidRange }

// contentRangeOf returns the Content-Range header a 416 answer carries,
// "" when err is not an unsatisfiable range.
func contentRangeOf(err error) string {
	var u *unsatisfiableRange
	if errors.As(err, &u) {
		return fmt.Sprintf("bytes */%d", u.size)
	}
	return ""
}
