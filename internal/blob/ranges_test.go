package blob

import (
	"errors"
	"net/http"
	"net/url"
	"testing"

	"github.com/cerulean-db/cerulean/internal/azerr"
)

func TestReadRange(t *testing.T) {
	tests := []struct {
		xms, std string
		want     *ByteRange // nil: whole blob
		bad      bool       // InvalidHeaderValue naming x-ms-range
	}{
		{"", "", nil, false},
		{"", "bytes=5-", &ByteRange{Start: 5, End: -1}, false},
		{"", "bytes=0-9", &ByteRange{Start: 0, End: 9}, false},
		{"", "bytes=7-7", &ByteRange{Start: 7, End: 7}, false},
		{"", "bytes=-5", nil, false},
		{"", "bytes=abc", nil, false},
		{"", "bytes=0-1,5-6", nil, false},
		{"", "bytes=10-5", nil, false},
		{"", "bytes=+1-2", nil, false},
		{"", "items=0-5", nil, false},
		{"", "bytes=99999999999999999999-", nil, false},
		{"bytes=10-19", "bytes=0-1", &ByteRange{Start: 10, End: 19}, false},
		{"bytes=3-", "", &ByteRange{Start: 3, End: -1}, false},
		{"bytes=-5", "bytes=0-1", nil, true},
		// A negative start is ignored, as Azure ignored it in the Go SDK's
		// recordings go-azblob-TestBlobDownloadDataNegativeOffset and
		// go-azblob-TestBlobGetPageRangesInvalidRange.
		{"bytes=-1-", "", nil, false},
		{"bytes=-2-497", "", nil, false},
		// Its end negative too: what the Go SDK sends for offset -22,
		// count 14, which azblob's live TestBlobDiffPageRangeInvalidRange
		// requires Azure to answer.
		{"bytes=-22--9", "", nil, false},
		{"bytes=-22--", "", nil, true},
		{"bytes=-22---9", "", nil, true},
		{"bytes=-2-4x", "", nil, true},
		{"garbage", "", nil, true},
		{"bytes=10-5", "", nil, true},
	}
	for _, tc := range tests {
		h := http.Header{}
		if tc.xms != "" {
			h.Set("x-ms-range", tc.xms)
		}
		if tc.std != "" {
			h.Set("Range", tc.std)
		}
		got, err := readRange(h)
		if tc.bad {
			var e *azerr.Error
			if !errors.As(err, &e) || !errors.Is(err, azerr.ErrInvalidHeaderValue) || e.Detail("HeaderName") != "x-ms-range" {
				t.Errorf("x-ms-range %q Range %q: error %v, want InvalidHeaderValue naming x-ms-range", tc.xms, tc.std, err)
			}
			continue
		}
		if err != nil || (got == nil) != (tc.want == nil) || got != nil && *got != *tc.want {
			t.Errorf("x-ms-range %q Range %q: %+v %v, want %+v", tc.xms, tc.std, got, err, tc.want)
		}
	}
}

func TestUnsatisfiableRangeIsInvalidRange(t *testing.T) {
	err := error(&unsatisfiableRange{size: 42})
	var e *azerr.Error
	if !errors.Is(err, azerr.ErrInvalidRange) || !errors.As(err, &e) || e.Status != http.StatusRequestedRangeNotSatisfiable {
		t.Fatalf("%v is not InvalidRange", err)
	}
	if got := contentRangeOf(err); got != "bytes */42" {
		t.Errorf("Content-Range %q", got)
	}
	if got := contentRangeOf(azerr.ErrInvalidRange); got != "" {
		t.Errorf("plain InvalidRange gave Content-Range %q", got)
	}
}

func TestListedName(t *testing.T) {
	for _, name := range []string{"plain", "emoji-😀", "e\u0301", "a b+c&d<e>", "\U0010FFFD"} {
		if got := listedName(name); got.Encoded || got.Text != name {
			t.Errorf("%q listed as %+v", name, got)
		}
	}
	for _, name := range []string{"ctrl-\x01", "nul-\x00", "nonchar-\uFFFE", "bad-utf8-\xff", "space \x1f+plus"} {
		got := listedName(name)
		if !got.Encoded {
			t.Errorf("%q not encoded", name)
			continue
		}
		// The SDKs decode with url.QueryUnescape.
		if back, err := url.QueryUnescape(got.Text); err != nil || back != name {
			t.Errorf("%q encoded as %q decodes to %q %v", name, got.Text, back, err)
		}
		if back, err := url.PathUnescape(got.Text); err != nil || back != name {
			t.Errorf("%q encoded as %q path-decodes to %q %v", name, got.Text, back, err)
		}
	}
}
