package azhttp

import (
	"errors"
	"fmt"
	"math"
	"net/http/httptest"
	"net/url"
	"testing"

	"github.com/cerulean-db/cerulean/internal/azerr"
)

func TestETagRendersVersionInUpperHex(t *testing.T) {
	for _, v := range []uint64{0, 1, 0xabcdef, 0x1C2D3E4F5A6B7C8D, math.MaxUint64} {
		if got, want := ETag(v), fmt.Sprintf("\"0x%X\"", v); got != want {
			t.Errorf("ETag(%d) = %s, want %s", v, got, want)
		}
	}
}

// TestWriteXMLReusesNothingVisible: responses written one after another
// (through the pooled encoders) are each exactly their own document.
func TestWriteXMLReusesNothingVisible(t *testing.T) {
	type item struct {
		XMLName struct{} `xml:"Item"`
		Name    string   `xml:"Name"`
	}
	for _, c := range []struct{ name, escaped string }{{"first-a-longer-name", "first-a-longer-name"}, {"b", "b"}, {"c&<", "c&amp;&lt;"}} {
		rec := httptest.NewRecorder()
		if err := WriteXML(rec, 201, item{Name: c.name}); err != nil {
			t.Fatal(err)
		}
		want := `<?xml version="1.0" encoding="UTF-8"?>` + "\n" + `<Item><Name>` + c.escaped + `</Name></Item>`
		if rec.Code != 201 || rec.Body.String() != want || rec.Header().Get("Content-Length") != fmt.Sprint(len(want)) {
			t.Errorf("WriteXML(%q): %d %q (Content-Length %s), want 201 %q", c.name, rec.Code, rec.Body.String(), rec.Header().Get("Content-Length"), want)
		}
	}
}

func TestMaxResults(t *testing.T) {
	for _, tc := range []struct {
		v    string
		want int
		err  *azerr.Error
	}{
		{"", 5000, nil}, {"1", 1, nil}, {"5000", 5000, nil}, {"6000", 5000, nil},
		{"0", 0, azerr.ErrOutOfRangeQueryParameterValue}, {"-3", 0, azerr.ErrOutOfRangeQueryParameterValue},
		{"abc", 0, azerr.ErrInvalidQueryParameterValue}, {"1.5", 0, azerr.ErrInvalidQueryParameterValue},
	} {
		q := url.Values{}
		if tc.v != "" {
			q.Set("maxresults", tc.v)
		}
		n, err := MaxResults(q)
		if tc.err != nil {
			var e *azerr.Error
			if !errors.Is(err, tc.err) || !errors.As(err, &e) || e.Detail("QueryParameterName") != "maxresults" || e.Detail("QueryParameterValue") != tc.v {
				t.Errorf("maxresults=%q: %v, want %s naming it", tc.v, err, tc.err.Code)
			}
			continue
		}
		if err != nil || n != tc.want {
			t.Errorf("maxresults=%q: %d %v, want %d", tc.v, n, err, tc.want)
		}
	}
}
