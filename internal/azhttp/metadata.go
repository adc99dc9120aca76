package azhttp

import (
	"encoding/xml"
	"net/http"
	"slices"
	"strings"

	"github.com/cerulean-db/cerulean/internal/azerr"
)

const (
	metaPrefix = "x-ms-meta-"
	// MaxMetadataSize bounds the names and values of one resource's metadata.
	MaxMetadataSize = 8 << 10
)

// Metadata is a resource's user metadata, names lower-cased (HTTP does not
// preserve header case) and kept in the order they were given.
type Metadata [][2]string

// Get returns the value of name.
func (m Metadata) Get(name string) (string, bool) {
	for _, kv := range m {
		if strings.EqualFold(kv[0], name) {
			return kv[1], true
		}
	}
	return "", false
}

// Equal reports whether m and o hold the same names and values, in any order.
func (m Metadata) Equal(o Metadata) bool {
	if len(m) != len(o) {
		return false
	}
	for _, kv := range m {
		if v, ok := o.Get(kv[0]); !ok || v != kv[1] {
			return false
		}
	}
	return true
}

// ParseMetadata reads x-ms-meta-* headers. Names must be C# identifiers.
func ParseMetadata(h http.Header) (Metadata, error) {
	var out Metadata
	size := 0
	for k, vs := range h {
		lk := strings.ToLower(k)
		if !strings.HasPrefix(lk, metaPrefix) {
			continue
		}
		name := lk[len(metaPrefix):]
		if name == "" {
			// Azure names the value that had no key (Java's recording
			// FileApiTests.setMetadataError).
			return nil, azerr.ErrEmptyMetadataKey.WithDetails(azerr.Detail{Name: "MetadataValue", Value: strings.Join(vs, ",")})
		}
		if !validIdentifier(name) {
			return nil, azerr.ErrInvalidMetadata
		}
		v := strings.Join(vs, ",")
		size += len(name) + len(v)
		out = append(out, [2]string{name, v})
	}
	if size > MaxMetadataSize {
		return nil, azerr.ErrMetadataTooLarge
	}
	// Header maps have no order; a stored order must not depend on the
	// map's, or two identical requests would list differently.
	slices.SortFunc(out, func(a, b [2]string) int { return strings.Compare(a[0], b[0]) })
	return out, nil
}

func validIdentifier(s string) bool {
	for i, c := range s {
		letter := c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c > 127
		if !letter && (i == 0 || c < '0' || c > '9') {
			return false
		}
	}
	return true
}

// WriteMetadata sets x-ms-meta-* headers, bypassing Go's canonical header
// case so that names go out as stored.
func WriteMetadata(h http.Header, m Metadata) {
	for _, kv := range m {
		h[metaPrefix+kv[0]] = []string{kv[1]}
	}
}

// MetadataXML renders metadata as <Metadata><name>value</name>...</Metadata>.
type MetadataXML Metadata

// MarshalXML implements xml.Marshaler.
func (m MetadataXML) MarshalXML(e *xml.Encoder, start xml.StartElement) error {
	if err := e.EncodeToken(start); err != nil {
		return err
	}
	for _, kv := range m {
		if err := e.EncodeElement(kv[1], xml.StartElement{Name: xml.Name{Local: kv[0]}}); err != nil {
			return err
		}
	}
	return e.EncodeToken(start.End())
}
