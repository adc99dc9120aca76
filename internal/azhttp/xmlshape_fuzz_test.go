package azhttp

import (
	"bytes"
	"encoding/xml"
	"errors"
	"testing"

	"github.com/cerulean-db/cerulean/internal/azerr"
)

// FuzzCheckXML: CheckXML never panics, and refuses a document exactly
// when a full token walk meets a directive or a 65th level of nesting
// before any syntax error (its fast path may skip the walk only when
// neither can occur).
func FuzzCheckXML(f *testing.F) {
	f.Add([]byte(`<Tags><TagSet><Tag><Key>k</Key><Value>v</Value></Tag></TagSet></Tags>`))
	f.Add([]byte(`<!DOCTYPE r [<!ENTITY x SYSTEM "file:///etc/passwd">]><r>&x;</r>`))
	f.Add([]byte(`<r><![CDATA[<!DOCTYPE x>]]><!-- c --></r>`))
	f.Add(bytes.Repeat([]byte("<a>"), 70))
	f.Fuzz(func(t *testing.T, body []byte) {
		err := CheckXML(body)
		if err != nil && !errors.Is(err, azerr.ErrInvalidXmlDocument) {
			t.Fatalf("CheckXML(%q) = %v, not InvalidXmlDocument", body, err)
		}
		want := false
		d := xml.NewDecoder(bytes.NewReader(body))
		depth := 0
	walk:
		for {
			tok, terr := d.RawToken()
			if terr != nil {
				break
			}
			switch tok.(type) {
			case xml.Directive:
				want = true
				break walk
			case xml.StartElement:
				if depth++; depth > MaxXMLDepth {
					want = true
					break walk
				}
			case xml.EndElement:
				depth--
			}
		}
		if (err != nil) != want {
			t.Fatalf("CheckXML(%q) = %v, want refused %v", body, err, want)
		}
	})
}
