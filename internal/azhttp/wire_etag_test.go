package azhttp

import (
	"fmt"
	"math"
	"net/http/httptest"
	"testing"
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
