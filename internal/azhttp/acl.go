package azhttp

import (
	"bytes"
	"encoding/xml"
	"fmt"
	"net/http"
	"slices"
	"strconv"
	"time"
	"unicode/utf8"

	"github.com/cerulean-db/cerulean/internal/azauth"
	"github.com/cerulean-db/cerulean/internal/azerr"
)

// xmlTime is the ISO 8601 form Azure uses inside XML bodies.
const xmlTime = "2006-01-02T15:04:05.0000000Z"

type signedIdentifiersXML struct {
	XMLName     xml.Name              `xml:"SignedIdentifiers"`
	Identifiers []signedIdentifierXML `xml:"SignedIdentifier"`
}

type accessPolicyXML struct {
	Start      string `xml:"Start,omitempty"`
	Expiry     string `xml:"Expiry,omitempty"`
	Permission string `xml:"Permission,omitempty"`
}

type signedIdentifierXML struct {
	ID           string           `xml:"Id"`
	AccessPolicy *accessPolicyXML `xml:"AccessPolicy"`
}

// ParseISOTime accepts the ISO 8601 forms the SDKs send.
func ParseISOTime(s string) (time.Time, error) {
	for _, layout := range []string{time.RFC3339Nano, "2006-01-02T15:04:05.9999999", "2006-01-02T15:04Z", "2006-01-02"} {
		if t, err := time.Parse(layout, s); err == nil {
			return t.UTC(), nil
		}
	}
	return time.Time{}, fmt.Errorf("time %q is not ISO 8601", s)
}

// maxSignedIdentifierID is the longest stored access policy id Azure takes.
const maxSignedIdentifierID = 64

// ParseSignedIdentifiers reads a Set ACL body; an empty body clears them.
// Azure refuses a body it cannot take as InvalidXmlDocument with the
// document position it stopped at: an id that is empty or too long stops
// it at the node after that SignedIdentifier; too many identifiers are
// found after reading the whole document, at line and position 0.
func ParseSignedIdentifiers(r *http.Request) ([]azauth.SignedIdentifier, error) {
	var doc signedIdentifiersXML
	var body []byte
	if r.ContentLength != 0 {
		var err error
		if body, err = readXML(r, &doc); err != nil {
			return nil, err
		}
	}
	for i, x := range doc.Identifiers {
		if x.ID == "" || len(x.ID) > maxSignedIdentifierID {
			line, pos := nodeAfterChild(body, "SignedIdentifier", i)
			return nil, InvalidXMLAt(line, pos, "Signed identifier ID cannot be empty or over 64 characters in length")
		}
	}
	if len(doc.Identifiers) > azauth.MaxSignedIdentifiers {
		return nil, InvalidXMLAt(0, 0, "")
	}
	out := make([]azauth.SignedIdentifier, 0, len(doc.Identifiers))
	for _, x := range doc.Identifiers {
		si := azauth.SignedIdentifier{ID: x.ID}
		if p := x.AccessPolicy; p != nil {
			si.Permissions = p.Permission
			var err error
			if p.Start != "" {
				if si.Start, err = ParseISOTime(p.Start); err != nil {
					return nil, azerr.ErrInvalidXmlNodeValue.WithMessage("The value for one of the XML nodes is not in the correct format: Start %q.", p.Start)
				}
			}
			if p.Expiry != "" {
				if si.Expiry, err = ParseISOTime(p.Expiry); err != nil {
					return nil, azerr.ErrInvalidXmlNodeValue.WithMessage("The value for one of the XML nodes is not in the correct format: Expiry %q.", p.Expiry)
				}
			}
		}
		out = append(out, si)
	}
	return out, nil
}

// InvalidXMLAt is InvalidXmlDocument with the detail elements Azure adds
// when it refuses a document's content: where its reader stood (line and
// position, from 1) and why.
func InvalidXMLAt(line, pos int, reason string) *azerr.Error {
	return azerr.ErrInvalidXmlDocument.WithMessage("XML specified is not syntactically valid.").WithDetails(
		azerr.Detail{Name: "LineNumber", Value: strconv.Itoa(line)},
		azerr.Detail{Name: "LinePosition", Value: strconv.Itoa(pos)},
		azerr.Detail{Name: "Reason", Value: reason},
	)
}

// nodeAfterChild returns the line and position (both from 1) of the name
// of the first tag after the end of the root's child number n named name:
// where a reader that checks each child once it has read it stands.
// It returns 0, 0 when body has no such child.
func nodeAfterChild(body []byte, name string, n int) (line, pos int) {
	seen := -1
	return tagPosition(body, func(end bool, path []string) bool {
		if seen == n {
			return true
		}
		if end && len(path) == 2 && path[1] == name {
			seen++
		}
		return false
	})
}

// EndTagPosition returns the line and position (both from 1) of the name
// in the end tag of the element at path (element names from the root
// down): where a reader that checks an element once it has read it
// stands. It returns 0, 0 when body has no such element.
func EndTagPosition(body []byte, path ...string) (line, pos int) {
	return tagPosition(body, func(end bool, open []string) bool {
		return end && slices.Equal(open, path)
	})
}

// tagPosition walks the tags of body and returns the line and position
// (both from 1) of the name in the first tag stop accepts, or 0, 0 when
// it accepts none or the document ends in a syntax error first. stop sees
// each tag with the names of the open elements from the root down: a
// start tag once its element is open (the path ends with it), an end tag
// while its element is still open.
func tagPosition(body []byte, stop func(end bool, path []string) bool) (line, pos int) {
	d := xml.NewDecoder(bytes.NewReader(body))
	var path []string
	for {
		at := int(d.InputOffset())
		tok, err := d.Token()
		if err != nil {
			return 0, 0
		}
		switch t := tok.(type) {
		case xml.StartElement:
			path = append(path, t.Name.Local)
			if stop(false, path) {
				return LinePosition(body, at+len("<"))
			}
		case xml.EndElement:
			if stop(true, path) {
				return LinePosition(body, at+len("</"))
			}
			path = path[:len(path)-1]
		}
	}
}

// LinePosition turns a byte offset into body into the line and the
// character position on it, both counted from 1, as Azure reports where
// its XML reader stood (LineNumber, LinePosition).
func LinePosition(body []byte, offset int) (line, pos int) {
	before := body[:min(offset, len(body))]
	last := bytes.LastIndexByte(before, '\n')
	return bytes.Count(before, []byte("\n")) + 1, utf8.RuneCount(before[last+1:]) + 1
}

// WriteSignedIdentifiers sends a Get ACL body (containers, queues,
// tables, shares).
func WriteSignedIdentifiers(w http.ResponseWriter, ids []azauth.SignedIdentifier) error {
	doc := signedIdentifiersXML{Identifiers: make([]signedIdentifierXML, 0, len(ids))}
	for _, si := range ids {
		x := signedIdentifierXML{ID: si.ID}
		// An identifier stored without a policy comes back as its Id
		// alone (go-azqueue and go-aztables recordings:
		// TestSetNullAccessPolicy, TestSetMultipleAccessPolicies).
		if si.Permissions != "" || !si.Start.IsZero() || !si.Expiry.IsZero() {
			x.AccessPolicy = &accessPolicyXML{Permission: si.Permissions}
			if !si.Start.IsZero() {
				x.AccessPolicy.Start = si.Start.Format(xmlTime)
			}
			if !si.Expiry.IsZero() {
				x.AccessPolicy.Expiry = si.Expiry.Format(xmlTime)
			}
		}
		doc.Identifiers = append(doc.Identifiers, x)
	}
	return WriteXML(w, http.StatusOK, doc)
}
