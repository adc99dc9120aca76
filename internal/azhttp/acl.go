package azhttp

import (
	"encoding/xml"
	"fmt"
	"net/http"
	"time"

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

// ParseSignedIdentifiers reads a Set ACL body; an empty body clears them.
func ParseSignedIdentifiers(r *http.Request) ([]azauth.SignedIdentifier, error) {
	var doc signedIdentifiersXML
	if r.ContentLength != 0 {
		if err := ReadXML(r, &doc); err != nil {
			return nil, err
		}
	}
	if len(doc.Identifiers) > azauth.MaxSignedIdentifiers {
		return nil, azerr.ErrInvalidXmlDocument.WithMessage("XML specified is not syntactically valid. At most %d signed identifiers are allowed.", azauth.MaxSignedIdentifiers)
	}
	out := make([]azauth.SignedIdentifier, 0, len(doc.Identifiers))
	for _, x := range doc.Identifiers {
		if x.ID == "" || len(x.ID) > 64 {
			return nil, azerr.ErrInvalidXmlNodeValue.WithMessage("The value for one of the XML nodes is not in the correct format: signed identifier Id %q.", x.ID)
		}
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

// WriteSignedIdentifiers sends a Get ACL body.
func WriteSignedIdentifiers(w http.ResponseWriter, ids []azauth.SignedIdentifier) error {
	return writeSignedIdentifiers(w, ids, false)
}

// WriteTableSignedIdentifiers sends a Get Table ACL body: the Table
// service leaves out the <AccessPolicy> of an identifier whose policy
// sets nothing (recorded in go-aztables TestSetNullAccessPolicy and
// TestSetMultipleAccessPolicies).
func WriteTableSignedIdentifiers(w http.ResponseWriter, ids []azauth.SignedIdentifier) error {
	return writeSignedIdentifiers(w, ids, true)
}

func writeSignedIdentifiers(w http.ResponseWriter, ids []azauth.SignedIdentifier, omitEmptyPolicy bool) error {
	doc := signedIdentifiersXML{Identifiers: make([]signedIdentifierXML, 0, len(ids))}
	for _, si := range ids {
		if omitEmptyPolicy && si.Start.IsZero() && si.Expiry.IsZero() && si.Permissions == "" {
			doc.Identifiers = append(doc.Identifiers, signedIdentifierXML{ID: si.ID})
			continue
		}
		p := &accessPolicyXML{Permission: si.Permissions}
		if !si.Start.IsZero() {
			p.Start = si.Start.Format(xmlTime)
		}
		if !si.Expiry.IsZero() {
			p.Expiry = si.Expiry.Format(xmlTime)
		}
		doc.Identifiers = append(doc.Identifiers, signedIdentifierXML{ID: si.ID, AccessPolicy: p})
	}
	return WriteXML(w, http.StatusOK, doc)
}
