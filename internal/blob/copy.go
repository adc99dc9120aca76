package blob

import (
	"bytes"
	"context"
	"crypto/md5"
	"errors"
	"fmt"
	"hash"
	"io"
	"net/url"
	"time"

	"github.com/cerulean-db/cerulean/internal/azbody"
	"github.com/cerulean-db/cerulean/internal/azerr"
	"github.com/cerulean-db/cerulean/internal/azhttp"
	"github.com/cerulean-db/cerulean/internal/conditions"
	"github.com/cerulean-db/cerulean/internal/kv"
	"github.com/cerulean-db/cerulean/internal/lease"
)

// CopyInfo is the copy status a blob keeps after being a copy destination.
// Copies within the server complete before the response, so the status
// kept is always "success" and there is never a pending copy to abort
// (Incremental Copy Blob answers "pending" all the same, as Azure does:
// http_incrementalcopy.go).
type CopyInfo struct {
	ID        string
	Source    string
	Status    string
	Progress  string
	Completed time.Time
	// Incremental copies only (incrementalcopy.go): the source blob
	// (account/container/name), the snapshot of it last copied, and the
	// snapshot of the destination that copy made.
	IncrementalSource   string `json:",omitempty"`
	SourceSnapshot      string `json:",omitempty"`
	DestinationSnapshot string `json:",omitempty"`
}

// CopySource is a parsed x-ms-copy-source addressing a blob of this server.
type CopySource struct {
	URL                   *url.URL
	Acct, Container, Blob string
	Snapshot              string
}

// CopyRequest is one Copy Blob / Copy Blob From URL.
type CopyRequest struct {
	// Seal (x-ms-seal-blob), when set, says whether a copied append blob
	// is sealed; unset, the copy is sealed when its source is
	// (go-azblob-TestCopySealedBlob, go-azblob-TestCopyUnsealedBlob).
	Seal          *bool
	Source        CopySource
	SourceCond    conditions.Conditions
	SourceLeaseID string
	SourceIfTags  *TagCondition // x-ms-source-if-tags, nil when none
	// SourceMD5 is Copy Blob From URL's x-ms-source-content-md5: the
	// bytes copied must have it (Md5Mismatch otherwise).
	SourceMD5 []byte
	// Sync is Copy Blob From URL, which reads its source as a GET: what
	// that GET would refuse is CannotVerifyCopySource (sourceError).
	Sync bool
	// Incremental is Incremental Copy Blob: the source is a page blob
	// snapshot, the destination an incremental copy blob (incrementalcopy.go).
	Incremental bool
	Acct        string
	Container   string
	Blob        string
	Metadata    azhttp.Metadata // nil copies the source's metadata
	Tier        string          // x-ms-access-tier; "" leaves the copy's tier inferred
	Tags        Tags            // x-ms-tags
	CopyTags    bool            // x-ms-copy-source-tag-option: COPY takes the source's tags instead
	Dest        Preconditions
}

// Copied is what a copy made: the destination's record and, for Copy
// Blob From URL, the CRC64 of the bytes it copied, which Azure answers
// (x-ms-content-crc64 in azure-storage-blob's recordings
// test_start_copy_from_url_with_tags_replace_tags and
// test_copy_blob_from_url_with_ecryption_scope).
type Copied struct {
	Blob  *Blob
	CRC64 []byte
}

// CopyBlob copies a blob (or snapshot) of this server to the destination,
// keeping its block list, content headers and metadata. The source is read
// from one snapshot; its bytes are staged under the destination and made
// visible by one commit, so a failed copy leaves the destination untouched.
func (s *Service) CopyBlob(ctx context.Context, req CopyRequest) (Copied, error) {
	src := req.Source
	var srcRec *Blob
	var srcExtents []extent
	var payloads []*payload
	var sum hash.Hash
	var crc hash.Hash64
	discardAll := func() {
		for _, p := range payloads {
			s.store.Discard(ctx, p)
		}
	}
	err := s.store.View(ctx, func(r kv.Reader) error {
		b, err := findBlob(r, src.Acct, src.Container, src.Blob, src.Snapshot)
		if err != nil {
			if req.Sync {
				return sourceError(err)
			}
			return err
		}
		// Azure rehydrates an archived source into a pending copy; copies
		// here are synchronous, so an archived source is refused.
		if b.settleTier(s.clock()); b.Tier == tierArchive {
			return azerr.ErrBlobArchived
		}
		if req.Incremental && b.Type != pageBlob {
			return azerr.ErrInvalidBlobType
		}
		if req.Tier != "" && b.Type != blockBlob {
			return azerr.ErrInvalidBlobTier
		}
		if b.KeySHA256 != nil {
			// Its key would be needed to read it; Copy Blob takes none.
			return azerr.ErrBlobUsesCustomerSpecifiedEncryption
		}
		if src.Snapshot == "" {
			if err := b.Lease.CheckUse(s.clock(), req.SourceLeaseID, false); err != nil {
				return azerr.LeaseError(err, azerr.BlobLeaseCodes)
			}
		}
		if err := check(req.SourceCond, conditions.Read, b.state(), azerr.ErrSourceConditionNotMet); err != nil {
			if req.Sync {
				return sourceError(err)
			}
			return azerr.ErrSourceConditionNotMet
		}
		if err := checkTags(req.SourceIfTags, b); err != nil {
			if errors.Is(err, azerr.ErrConditionNotMet) && req.Sync {
				return sourceError(err)
			}
			// Copy Blob answers a failed x-ms-source-if-tags with
			// ConditionNotMet, unlike its other source conditions
			// (azure-storage-blob's recording
			// test_async_copy_blob_with_if_tags).
			return err
		}
		srcRec = b
		if srcExtents, err = loadExtentsAt(r, src.Acct, src.Container, src.Blob, src.Snapshot); err != nil {
			return err
		}
		var sums []io.Writer
		if req.SourceMD5 != nil {
			sum = md5.New()
			sums = append(sums, sum)
		}
		if req.Sync {
			crc = azbody.NewCRC64()
			sums = append(sums, crc)
		}
		var tee io.Writer
		if len(sums) > 0 {
			tee = io.MultiWriter(sums...)
		}
		for _, e := range srcExtents {
			p, err := s.stageExtent(ctx, r, src, e, req, tee)
			if err != nil {
				return err
			}
			payloads = append(payloads, p)
		}
		if sum != nil && !bytes.Equal(sum.Sum(nil), req.SourceMD5) {
			return azerr.ErrMd5Mismatch
		}
		return nil
	})
	if err != nil {
		discardAll()
		return Copied{}, err
	}
	var out *Blob
	err = s.Update(ctx, func(t *Tx) error {
		old, err := t.blobForWrite(req.Acct, req.Container, req.Blob, conditions.Create, req.Dest)
		if errors.Is(err, azerr.ErrConditionNotMet) && !req.Sync &&
			check(req.Dest.Conditions, conditions.Create, old.state(), azerr.ErrBlobAlreadyExists) != nil {
			// Copy Blob names the side whose condition failed
			// (go-azblob-TestBlobStartCopyDestIfMatchFalse); a failed
			// x-ms-if-tags stays ConditionNotMet (azure-storage-blob's
			// recording test_async_copy_blob_with_if_tags).
			return azerr.ErrTargetConditionNotMet
		}
		if err != nil {
			return err
		}
		if req.Incremental {
			if err := checkIncrementalDest(old, src); err != nil {
				return err
			}
		}
		extents := make([]extent, len(payloads))
		for i, p := range payloads {
			if err := p.Place(t.tx, t.tx.Version()); err != nil {
				return err
			}
			extents[i] = extent{BlockID: srcExtents[i].BlockID, Data: p.ID(), Offset: srcExtents[i].Offset, Size: p.Size}
		}
		meta := req.Metadata
		if meta == nil {
			meta = srcRec.Metadata
		}
		headers := srcRec.Headers
		headers.Tier = req.Tier
		out = t.newRecord(old, srcRec.Size, headers, meta)
		out.Type, out.Tags = srcRec.Type, req.Tags
		if out.Type == appendBlob {
			out.Sealed = srcRec.Sealed
			if req.Seal != nil {
				out.Sealed = *req.Seal
			}
		}
		if req.CopyTags {
			out.Tags = srcRec.Tags
		}
		if err := req.Dest.Encryption.apply(t, req.Acct, req.Container, out); err != nil {
			return err
		}
		size := fmt.Sprint(srcRec.Size)
		out.Copy = &CopyInfo{ID: lease.NewID(), Source: src.URL.String(), Status: "success", Progress: size + "/" + size, Completed: out.Modified}
		if err := t.keepPrevious(req.Acct, req.Container, req.Blob, old, out); err != nil {
			return err
		}
		if !req.Incremental {
			return commitContent(t.tx, req.Acct, req.Container, req.Blob, old, out, extents)
		}
		return s.commitIncremental(t, req, old, out, extents)
	})
	if err != nil {
		discardAll()
		return Copied{}, err
	}
	res := Copied{Blob: out}
	if crc != nil {
		res.CRC64 = azbody.CRC64Bytes(crc.Sum64())
	}
	return res, nil
}

// stageExtent copies one source extent's bytes into a staged data object of
// the destination, reading from the source snapshot r; sum, when not nil,
// is fed the bytes as they pass.
func (s *Service) stageExtent(ctx context.Context, r kv.Reader, src CopySource, e extent, req CopyRequest, sum io.Writer) (*payload, error) {
	pr, pw := io.Pipe()
	go func() {
		pw.CloseWithError(objects.Read(r, blobID{src.Acct, src.Container, src.Blob}, e.Data, e.DataOff, e.Size, pw))
	}()
	var body io.Reader = pr
	if sum != nil {
		body = io.TeeReader(pr, sum)
	}
	p, err := s.store.Stage(ctx, blobID{req.Acct, req.Container, req.Blob}, body, e.Size, false)
	pr.CloseWithError(errors.New("copy ended"))
	return p, err
}

// AbortCopy answers Abort Copy Blob: copies here never stay pending.
func (s *Service) AbortCopy(ctx context.Context, ref Ref, copyID string, pre Preconditions) error {
	acct, container, name := ref.Account, ref.Container, ref.Name
	return s.view(ctx, func(t *Tx) error {
		b, err := t.existingBlob(acct, container, name, "", conditions.Read, pre)
		if err != nil {
			return err
		}
		// An infinite lease on the destination makes the lease ID mandatory.
		if err := b.Lease.CheckUse(t.now, pre.LeaseID, b.Lease.DurationType(t.now) == "infinite"); err != nil {
			return azerr.LeaseError(err, azerr.BlobLeaseCodes)
		}
		if b.Copy != nil && b.Copy.ID != copyID {
			return azerr.ErrCopyIdMismatch
		}
		return azerr.ErrNoPendingCopyOperation
	})
}
