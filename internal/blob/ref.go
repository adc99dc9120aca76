package blob

import "github.com/cerulean-db/cerulean/internal/azhttp"

// Ref names one blob. Snapshot selects an earlier state for the
// operations that read one (a snapshot's time or a version id; both are
// kept the same way); "" is the blob itself, and writes ignore it.
type Ref struct {
	Account, Container, Name string
	Snapshot                 string
}

// ContainerRef names one container.
type ContainerRef struct {
	Account, Container string
}

// ContainerRef names the container the blob is in.
func (r Ref) ContainerRef() ContainerRef {
	return ContainerRef{Account: r.Account, Container: r.Container}
}

// PutBlobOptions are what Put Blob and Put Block List set besides the
// content: the blob's headers, metadata and tags, under Conditions.
type PutBlobOptions struct {
	Headers    ContentHeaders
	Metadata   azhttp.Metadata
	Tags       Tags
	Conditions Preconditions
}

// PutBlobFromURLOptions are PutBlobOptions plus whether the source's
// properties and tags are copied instead of the request's.
type PutBlobFromURLOptions struct {
	Headers ContentHeaders
	// CopyProperties takes the source's content headers and metadata.
	CopyProperties bool
	Metadata       azhttp.Metadata
	Tags           Tags
	// CopyTags takes the source's tags (x-ms-copy-source-tag-option: COPY).
	CopyTags   bool
	Conditions Preconditions
}

// CreateEmptyOptions describe an empty page or append blob.
type CreateEmptyOptions struct {
	Type     string // BlockBlob, PageBlob or AppendBlob
	Size     int64  // a page blob's length
	Sequence int64  // a page blob's sequence number
	Headers  ContentHeaders
	Metadata azhttp.Metadata
	Tags     Tags

	Conditions Preconditions
}

// GetBlobOptions are the range read (nil for the whole blob) and its
// conditions.
type GetBlobOptions struct {
	Range      *ByteRange
	Conditions Preconditions
}

// GetBlockListOptions say which blocks Get Block List lists, and the
// lease ID the request carries.
type GetBlockListOptions struct {
	Committed, Uncommitted bool
	// LeaseID, when sent, must be the committed blob's active lease
	// (Java's recording BlockBlobApiTests.getBlockListLeaseFail: 412
	// LeaseIdMismatchWithBlobOperation).
	LeaseID string
}

// GetPageRangesOptions are Get Page Ranges' range, conditions and, for
// a diff, the earlier snapshot to compare with.
type GetPageRangesOptions struct {
	PrevSnapshot string // "" lists the valid ranges, not a diff
	Range        *ByteRange
	Conditions   Preconditions
}

// PageWriteOptions are the conditions of a page write.
type PageWriteOptions struct {
	Sequence   SequenceConditions
	Conditions Preconditions
}

// SetBlobTierOptions are Set Blob Tier's rehydrate priority and lease.
type SetBlobTierOptions struct {
	Priority string
	LeaseID  string
}

// CreateContainerOptions are a new container's metadata and public
// access level.
type CreateContainerOptions struct {
	Metadata azhttp.Metadata
	Access   string
}
