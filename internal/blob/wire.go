package blob

import (
	"encoding/base64"
	"encoding/xml"
	"fmt"
	"time"
)

// xmlTime is the ISO 8601 form Azure uses inside XML bodies (ACL times).
const xmlTime = "2006-01-02T15:04:05.0000000Z"

// parseISOTime accepts the ISO 8601 forms the SDKs send.
func parseISOTime(s string) (time.Time, error) {
	for _, layout := range []string{time.RFC3339Nano, "2006-01-02T15:04:05.9999999", "2006-01-02T15:04Z", "2006-01-02"} {
		if t, err := time.Parse(layout, s); err == nil {
			return t.UTC(), nil
		}
	}
	return time.Time{}, fmt.Errorf("time %q is not ISO 8601", s)
}

// metadataXML renders metadata as <Metadata><name>value</name>...</Metadata>.
type metadataXML Metadata

func (m metadataXML) MarshalXML(e *xml.Encoder, start xml.StartElement) error {
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

type containerListXML struct {
	XMLName         xml.Name `xml:"EnumerationResults"`
	ServiceEndpoint string   `xml:"ServiceEndpoint,attr"`
	Prefix          string   `xml:"Prefix,omitempty"`
	Marker          string   `xml:"Marker,omitempty"`
	MaxResults      int      `xml:"MaxResults,omitempty"`
	Containers      struct {
		Items []containerXML `xml:"Container"`
	} `xml:"Containers"`
	NextMarker string `xml:"NextMarker"`
}

type containerXML struct {
	Name       string `xml:"Name"`
	Properties struct {
		LastModified          string `xml:"Last-Modified"`
		Etag                  string `xml:"Etag"`
		LeaseStatus           string `xml:"LeaseStatus"`
		LeaseState            string `xml:"LeaseState"`
		PublicAccess          string `xml:"PublicAccess,omitempty"`
		HasImmutabilityPolicy bool   `xml:"HasImmutabilityPolicy"`
		HasLegalHold          bool   `xml:"HasLegalHold"`
	} `xml:"Properties"`
	Metadata *metadataXML `xml:"Metadata,omitempty"`
}

type blobListXML struct {
	XMLName         xml.Name `xml:"EnumerationResults"`
	ServiceEndpoint string   `xml:"ServiceEndpoint,attr"`
	ContainerName   string   `xml:"ContainerName,attr"`
	Prefix          string   `xml:"Prefix,omitempty"`
	Marker          string   `xml:"Marker,omitempty"`
	MaxResults      int      `xml:"MaxResults,omitempty"`
	Delimiter       string   `xml:"Delimiter,omitempty"`
	Blobs           struct {
		Items []any `xml:",any"`
	} `xml:"Blobs"`
	NextMarker string `xml:"NextMarker"`
}

type blobPrefixXML struct {
	XMLName xml.Name `xml:"BlobPrefix"`
	Name    string   `xml:"Name"`
}

type blobXML struct {
	XMLName    xml.Name          `xml:"Blob"`
	Name       string            `xml:"Name"`
	Properties blobPropertiesXML `xml:"Properties"`
	Metadata   *metadataXML      `xml:"Metadata,omitempty"`
}

type blobPropertiesXML struct {
	CreationTime       string `xml:"Creation-Time"`
	LastModified       string `xml:"Last-Modified"`
	Etag               string `xml:"Etag"`
	ContentLength      int64  `xml:"Content-Length"`
	ContentType        string `xml:"Content-Type"`
	ContentEncoding    string `xml:"Content-Encoding"`
	ContentLanguage    string `xml:"Content-Language"`
	ContentMD5         string `xml:"Content-MD5"`
	CacheControl       string `xml:"Cache-Control"`
	ContentDisposition string `xml:"Content-Disposition"`
	BlobType           string `xml:"BlobType"`
	AccessTier         string `xml:"AccessTier,omitempty"`
	AccessTierInferred bool   `xml:"AccessTierInferred,omitempty"`
	LeaseStatus        string `xml:"LeaseStatus"`
	LeaseState         string `xml:"LeaseState"`
	ServerEncrypted    bool   `xml:"ServerEncrypted"`
}

type blockListXML struct {
	XMLName     xml.Name  `xml:"BlockList"`
	Committed   blocksXML `xml:"CommittedBlocks"`
	Uncommitted blocksXML `xml:"UncommittedBlocks"`
}

type blocksXML struct {
	Blocks []blockXML `xml:"Block"`
}

type blockXML struct {
	Name string `xml:"Name"`
	Size int64  `xml:"Size"`
}

func blocksToXML(blocks []namedBlock) blocksXML {
	out := blocksXML{Blocks: make([]blockXML, 0, len(blocks))}
	for _, b := range blocks {
		out.Blocks = append(out.Blocks, blockXML{Name: base64.StdEncoding.EncodeToString(b.ID), Size: b.Size})
	}
	return out
}

type signedIdentifiersXML struct {
	XMLName     xml.Name              `xml:"SignedIdentifiers"`
	Identifiers []signedIdentifierXML `xml:"SignedIdentifier"`
}

type signedIdentifierXML struct {
	ID           string `xml:"Id"`
	AccessPolicy *struct {
		Start      string `xml:"Start,omitempty"`
		Expiry     string `xml:"Expiry,omitempty"`
		Permission string `xml:"Permission,omitempty"`
	} `xml:"AccessPolicy"`
}

// ServiceProperties is Get/Set Blob Service Properties' document. Absent
// elements of a Set leave the stored ones as they are.
type ServiceProperties struct {
	XMLName               xml.Name          `xml:"StorageServiceProperties"`
	Logging               *loggingXML       `xml:"Logging,omitempty"`
	HourMetrics           *metricsXML       `xml:"HourMetrics,omitempty"`
	MinuteMetrics         *metricsXML       `xml:"MinuteMetrics,omitempty"`
	Cors                  *corsXML          `xml:"Cors,omitempty"`
	DefaultServiceVersion string            `xml:"DefaultServiceVersion,omitempty"`
	DeleteRetentionPolicy *retentionXML     `xml:"DeleteRetentionPolicy,omitempty"`
	StaticWebsite         *staticWebsiteXML `xml:"StaticWebsite,omitempty"`
}

type retentionXML struct {
	Enabled              bool  `xml:"Enabled"`
	Days                 *int  `xml:"Days,omitempty"`
	AllowPermanentDelete *bool `xml:"AllowPermanentDelete,omitempty"`
}

type loggingXML struct {
	Version         string       `xml:"Version"`
	Delete          bool         `xml:"Delete"`
	Read            bool         `xml:"Read"`
	Write           bool         `xml:"Write"`
	RetentionPolicy retentionXML `xml:"RetentionPolicy"`
}

type metricsXML struct {
	Version         string       `xml:"Version"`
	Enabled         bool         `xml:"Enabled"`
	IncludeAPIs     *bool        `xml:"IncludeAPIs,omitempty"`
	RetentionPolicy retentionXML `xml:"RetentionPolicy"`
}

type corsXML struct {
	Rules []corsRuleXML `xml:"CorsRule"`
}

type corsRuleXML struct {
	AllowedOrigins  string `xml:"AllowedOrigins"`
	AllowedMethods  string `xml:"AllowedMethods"`
	MaxAgeInSeconds int    `xml:"MaxAgeInSeconds"`
	ExposedHeaders  string `xml:"ExposedHeaders"`
	AllowedHeaders  string `xml:"AllowedHeaders"`
}

type staticWebsiteXML struct {
	Enabled                  bool   `xml:"Enabled"`
	IndexDocument            string `xml:"IndexDocument,omitempty"`
	ErrorDocument404Path     string `xml:"ErrorDocument404Path,omitempty"`
	DefaultIndexDocumentPath string `xml:"DefaultIndexDocumentPath,omitempty"`
}

// defaultServiceProperties is what an account has before any Set.
func defaultServiceProperties() ServiceProperties {
	return ServiceProperties{
		Logging:               &loggingXML{Version: "1.0"},
		HourMetrics:           &metricsXML{Version: "1.0"},
		MinuteMetrics:         &metricsXML{Version: "1.0"},
		Cors:                  &corsXML{},
		DeleteRetentionPolicy: &retentionXML{},
		StaticWebsite:         &staticWebsiteXML{},
	}
}

// merge overlays the elements present in set onto p.
func (p *ServiceProperties) merge(set ServiceProperties) {
	if set.Logging != nil {
		p.Logging = set.Logging
	}
	if set.HourMetrics != nil {
		p.HourMetrics = set.HourMetrics
	}
	if set.MinuteMetrics != nil {
		p.MinuteMetrics = set.MinuteMetrics
	}
	if set.Cors != nil {
		p.Cors = set.Cors
	}
	if set.DefaultServiceVersion != "" {
		p.DefaultServiceVersion = set.DefaultServiceVersion
	}
	if set.DeleteRetentionPolicy != nil {
		p.DeleteRetentionPolicy = set.DeleteRetentionPolicy
	}
	if set.StaticWebsite != nil {
		p.StaticWebsite = set.StaticWebsite
	}
}
