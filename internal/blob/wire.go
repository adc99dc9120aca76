package blob

import (
	"encoding/base64"
	"encoding/xml"
	"strings"

	"github.com/cerulean-db/cerulean/internal/azhttp"
)

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
	Deleted    bool   `xml:"Deleted,omitempty"`
	Version    string `xml:"Version,omitempty"`
	Properties struct {
		LastModified  string `xml:"Last-Modified"`
		Etag          string `xml:"Etag"`
		LeaseStatus   string `xml:"LeaseStatus"`
		LeaseState    string `xml:"LeaseState"`
		LeaseDuration string `xml:"LeaseDuration,omitempty"`
		PublicAccess  string `xml:"PublicAccess,omitempty"`
		// DefaultEncryptionScope and DenyEncryptionScopeOverride:
		// http_encryption.go.
		DefaultEncryptionScope      string `xml:"DefaultEncryptionScope"`
		DenyEncryptionScopeOverride bool   `xml:"DenyEncryptionScopeOverride"`
		HasImmutabilityPolicy       bool   `xml:"HasImmutabilityPolicy"`
		HasLegalHold                bool   `xml:"HasLegalHold"`
		// ImmutableStorageWithVersioning is listed (always false here)
		// from immutableStorageVersion on.
		ImmutableStorageWithVersioning *bool  `xml:"ImmutableStorageWithVersioningEnabled,omitempty"`
		DeletedTime                    string `xml:"DeletedTime,omitempty"`
		RemainingDays                  *int   `xml:"RemainingRetentionDays,omitempty"`
	} `xml:"Properties"`
	Metadata *azhttp.MetadataXML `xml:"Metadata,omitempty"`
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
	XMLName xml.Name      `xml:"BlobPrefix"`
	Name    listedNameXML `xml:"Name"`
}

type blobXML struct {
	XMLName   xml.Name      `xml:"Blob"`
	Name      listedNameXML `xml:"Name"`
	Deleted   bool          `xml:"Deleted,omitempty"`
	Snapshot  string        `xml:"Snapshot,omitempty"`
	VersionID string        `xml:"VersionId,omitempty"`
	IsCurrent *bool         `xml:"IsCurrentVersion,omitempty"`
	// HasVersionsOnly marks a deleted blob listed for its versions.
	HasVersionsOnly *bool               `xml:"HasVersionsOnly,omitempty"`
	Properties      blobPropertiesXML   `xml:"Properties"`
	Metadata        *azhttp.MetadataXML `xml:"Metadata,omitempty"`
	Tags            *tagsXML            `xml:"Tags,omitempty"`
	// OrMetadata (object replication) is listed empty when set.
	OrMetadata *struct{} `xml:"OrMetadata,omitempty"`
}

type blobPropertiesXML struct {
	// Uncommitted marks a blob of uncommitted blocks only, which lists
	// its length, type, tier, lease and encryption and nothing else.
	Uncommitted          bool    `xml:"-"`
	CreationTime         string  `xml:"Creation-Time"`
	DeletedTime          string  `xml:"DeletedTime,omitempty"`
	RemainingDays        *int    `xml:"RemainingRetentionDays,omitempty"`
	LastModified         string  `xml:"Last-Modified"`
	Etag                 string  `xml:"Etag"`
	ContentLength        int64   `xml:"Content-Length"`
	ContentType          string  `xml:"Content-Type"`
	ContentEncoding      string  `xml:"Content-Encoding"`
	ContentLanguage      string  `xml:"Content-Language"`
	ContentCRC64         *string `xml:"Content-CRC64,omitempty"`
	ContentMD5           string  `xml:"Content-MD5"`
	CacheControl         string  `xml:"Cache-Control"`
	ContentDisposition   string  `xml:"Content-Disposition"`
	LastAccessTime       string  `xml:"LastAccessTime,omitempty"`
	SequenceNumber       *int64  `xml:"x-ms-blob-sequence-number,omitempty"`
	BlobType             string  `xml:"BlobType"`
	AccessTier           string  `xml:"AccessTier,omitempty"`
	AccessTierInferred   bool    `xml:"AccessTierInferred,omitempty"`
	ArchiveStatus        string  `xml:"ArchiveStatus,omitempty"`
	RehydratePriority    string  `xml:"RehydratePriority,omitempty"`
	AccessTierChangeTime string  `xml:"AccessTierChangeTime,omitempty"`
	SmartAccessTier      string  `xml:"SmartAccessTier,omitempty"`
	LeaseStatus          string  `xml:"LeaseStatus,omitempty"` // none for snapshots and old versions
	LeaseState           string  `xml:"LeaseState,omitempty"`
	LeaseDuration        string  `xml:"LeaseDuration,omitempty"`
	CopyID               string  `xml:"CopyId,omitempty"`
	CopySource           string  `xml:"CopySource,omitempty"`
	CopyStatus           string  `xml:"CopyStatus,omitempty"`
	CopyProgress         string  `xml:"CopyProgress,omitempty"`
	CopyCompletionTime   string  `xml:"CopyCompletionTime,omitempty"`
	ServerEncrypted      bool    `xml:"ServerEncrypted"`
	IncrementalCopy      bool    `xml:"IncrementalCopy,omitempty"`
	DestinationSnapshot  string  `xml:"DestinationSnapshot,omitempty"`
	// CustomerProvidedKeySha256 and EncryptionScope: http_encryption.go.
	CustomerProvidedKeySha256 string `xml:"CustomerProvidedKeySha256,omitempty"`
	EncryptionScope           string `xml:"EncryptionScope,omitempty"`
	TagCount                  int    `xml:"TagCount,omitempty"`
	Sealed                    *bool  `xml:"Sealed,omitempty"`
}

// blockListXML is Get Block List's answer: only the lists asked for
// (go-azblob-TestBlobSetTierOnCommit lists committed blocks alone).
type blockListXML struct {
	XMLName     xml.Name   `xml:"BlockList"`
	Committed   *blocksXML `xml:"CommittedBlocks,omitempty"`
	Uncommitted *blocksXML `xml:"UncommittedBlocks,omitempty"`
}

type blocksXML struct {
	Blocks []blockXML `xml:"Block"`
}

type blockXML struct {
	Name string `xml:"Name"`
	Size int64  `xml:"Size"`
}

func blocksToXML(blocks []BlockInfo) *blocksXML {
	out := &blocksXML{Blocks: make([]blockXML, 0, len(blocks))}
	for _, b := range blocks {
		out.Blocks = append(out.Blocks, blockXML{Name: base64.StdEncoding.EncodeToString(b.ID), Size: b.Size})
	}
	return out
}

// listedETag is a blob's ETag as List Blobs writes it: bare, without the
// quotes of the ETag header. (List Containers keeps the quotes; Azure
// has always listed the two differently, and SDKs pass both through.)
func listedETag(version uint64) string { return strings.Trim(azhttp.ETag(version), `"`) }

// listedNameXML is a blob name in a listing, percent-encoded with
// Encoded="true" when XML cannot carry it (azhttp.ListedName).
type listedNameXML = azhttp.ListedName

func listedName(name string) listedNameXML { return azhttp.NameForXML(name) }
