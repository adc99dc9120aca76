package blob

import (
	"bytes"
	"errors"
	"net/http"
	"strings"
	"testing"

	"github.com/cerulean-db/cerulean/internal/azerr"
	"github.com/cerulean-db/cerulean/internal/azhttp"
)

func TestParseBlockList(t *testing.T) {
	tests := []struct {
		body string
		want []BlockRef
		err  error
	}{
		{`<?xml version="1.0" encoding="utf-8"?><BlockList><Committed>AAAA</Committed><Uncommitted>AAAB</Uncommitted><Latest>AAAC</Latest></BlockList>`,
			[]BlockRef{{[]byte{0, 0, 0}, Committed}, {[]byte{0, 0, 1}, Uncommitted}, {[]byte{0, 0, 2}, Latest}}, nil},
		{`<BlockList>
		   <Latest> AAAA </Latest>
		 </BlockList>`, []BlockRef{{[]byte{0, 0, 0}, Latest}}, nil},
		{`<BlockList></BlockList>`, nil, nil},
		{`<BlockList><Latest>AAAA</Latest>`, nil, azerr.ErrInvalidXmlDocument},
		{`<Blocks><Latest>AAAA</Latest></Blocks>`, nil, azerr.ErrInvalidXmlDocument},
		{`<BlockList><Other>AAAA</Other></BlockList>`, nil, azerr.ErrInvalidXmlDocument},
		{`<BlockList><Latest><X/></Latest></BlockList>`, nil, azerr.ErrInvalidXmlDocument},
		{`<BlockList><Latest>!!!</Latest></BlockList>`, nil, azerr.ErrInvalidBlockList},
		{`not xml`, nil, azerr.ErrInvalidXmlDocument},
		{``, nil, azerr.ErrInvalidXmlDocument},
	}
	for _, tc := range tests {
		r, _ := http.NewRequest(http.MethodPut, "/", strings.NewReader(tc.body))
		got, _, _, err := parseBlockList(r)
		if tc.err != nil {
			if !errors.Is(err, tc.err) {
				t.Errorf("%q: error %v, want %v", tc.body, err, tc.err)
			}
			continue
		}
		if err != nil {
			t.Errorf("%q: %v", tc.body, err)
			continue
		}
		if len(got) != len(tc.want) {
			t.Errorf("%q: got %d refs, want %d", tc.body, len(got), len(tc.want))
			continue
		}
		for i := range got {
			if !bytes.Equal(got[i].ID, tc.want[i].ID) || got[i].From != tc.want[i].From {
				t.Errorf("%q: ref %d = %+v, want %+v", tc.body, i, got[i], tc.want[i])
			}
		}
	}
}

func TestParseRange(t *testing.T) {
	tests := []struct {
		header string
		want   *ByteRange
		bad    bool
	}{
		{"", nil, false},
		{"bytes=0-99", &ByteRange{Start: 0, End: 99}, false},
		{"bytes=10-", &ByteRange{Start: 10, End: -1}, false},
		{"bytes=5-5", &ByteRange{Start: 5, End: 5}, false},
		{"bytes=9-3", nil, true},
		{"bytes=-5", nil, true},
		{"items=0-1", nil, true},
		{"bytes=a-b", nil, true},
		{"bytes=0", nil, true},
	}
	for _, tc := range tests {
		h := http.Header{}
		if tc.header != "" {
			h.Set("x-ms-range", tc.header)
		}
		got, err := azhttp.ParseRange(h, false)
		if tc.bad {
			if !errors.Is(err, azerr.ErrInvalidHeaderValue) {
				t.Errorf("%q: error %v, want InvalidHeaderValue", tc.header, err)
			}
			continue
		}
		if err != nil || (got == nil) != (tc.want == nil) || (got != nil && *got != *tc.want) {
			t.Errorf("%q: got %+v, %v; want %+v", tc.header, got, err, tc.want)
		}
	}
}

func TestContainerNames(t *testing.T) {
	for _, ok := range []string{"abc", "a-b-c", "123", "$root", strings.Repeat("a", 63)} {
		if !validContainerName(ok) {
			t.Errorf("%q rejected", ok)
		}
	}
	for _, bad := range []string{"ab", "ABC", "a--b", "-ab", "ab-", "a_b", strings.Repeat("a", 64), "$other"} {
		if validContainerName(bad) {
			t.Errorf("%q accepted", bad)
		}
	}
}

// FuzzParseBlockList: no body may panic the parser, and every accepted
// list has only decodable ids within the length limit.
func FuzzParseBlockList(f *testing.F) {
	f.Add(`<BlockList><Committed>AAAA</Committed><Uncommitted>AAAB</Uncommitted><Latest>AAAC</Latest></BlockList>`)
	f.Add(`<BlockList><Latest>` + strings.Repeat("QUFB", 30) + `</Latest></BlockList>`)
	f.Add(`<?xml version="1.0"?><BlockList/>`)
	f.Add(`<BlockList><Latest><![CDATA[AAAA]]></Latest></BlockList>`)
	f.Fuzz(func(t *testing.T, body string) {
		r, _ := http.NewRequest(http.MethodPut, "/", strings.NewReader(body))
		refs, _, _, err := parseBlockList(r)
		if err != nil {
			return
		}
		for _, ref := range refs {
			if len(ref.ID) == 0 || len(ref.ID) > maxBlockIDLen {
				t.Fatalf("accepted block id of %d bytes", len(ref.ID))
			}
		}
	})
}

// FuzzParseRange: no header may panic, and accepted ranges are ordered.
func FuzzParseRange(f *testing.F) {
	for _, s := range []string{"bytes=0-99", "bytes=10-", "bytes=-5", "bytes=9223372036854775807-", "bytes=1-0"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, v string) {
		h := http.Header{}
		h.Set("Range", v)
		r, err := azhttp.ParseRange(h, false)
		if err != nil || r == nil {
			return
		}
		if r.Start < 0 || (r.End >= 0 && r.End < r.Start) {
			t.Fatalf("accepted %q as %+v", v, r)
		}
	})
}

// TestLiteralQueryValue: a malformed snapshot is echoed with its '+' as
// sent, as Azure does in go-azblob-TestBlobSnapshotOfSnapshot.
func TestLiteralQueryValue(t *testing.T) {
	for _, tc := range []struct{ raw, want string }{
		{"comp=snapshot&snapshot=2021-01-01+01%3A01%3A01++0000+UTC", "2021-01-01+01:01:01++0000+UTC"},
		{"snapshot=a%20b", "a b"},
		{"comp=snapshot", "default"},
		{"snapshot=%zz", "default"},
	} {
		if got := literalQueryValue(tc.raw, "snapshot", "default"); got != tc.want {
			t.Errorf("literalQueryValue(%q) = %q, want %q", tc.raw, got, tc.want)
		}
	}
}
