package blob

import (
	"context"

	"github.com/cerulean-db/cerulean/internal/azerr"
	"github.com/cerulean-db/cerulean/internal/conditions"
	"github.com/cerulean-db/cerulean/internal/kv/record"
)

// maxAppendBlock is the largest Append Block body (current service versions).
const maxAppendBlock = 100 << 20

// CreateEmpty creates (or replaces) an append blob, or a page blob of the
// given size, with no content.
func (s *Service) CreateEmpty(ctx context.Context, ref Ref, o CreateEmptyOptions) (*Blob, error) {
	acct, container, name, typ, size, seq, h, meta, tags, pre := ref.Account, ref.Container, ref.Name, o.Type, o.Size, o.Sequence, o.Headers, o.Metadata, o.Tags, o.Conditions
	var out *Blob
	err := s.Update(ctx, func(t *Tx) error {
		old, err := t.blobForWrite(acct, container, name, conditions.Create, pre)
		if err != nil {
			return err
		}
		out = t.newRecord(old, size, h, meta)
		out.Type, out.SequenceNumber, out.Tags = typ, seq, tags
		if err := t.keepPrevious(acct, container, name, old, out); err != nil {
			return err
		}
		if err := pre.Encryption.apply(t, acct, container, out); err != nil {
			return err
		}
		return commitContent(t.tx, acct, container, name, old, out, nil)
	})
	return out, err
}

// AppendConditions are Append Block's own preconditions.
type AppendConditions struct {
	MaxSize   *int64 // x-ms-blob-condition-maxsize
	AppendPos *int64 // x-ms-blob-condition-appendpos
}

// AppendBlock adds c's content as a new block at the end of an append
// blob, verifying c.MD5 when given, and reports the offset it was written
// at.
func (s *Service) AppendBlock(ctx context.Context, ref Ref, c Content, ac AppendConditions, pre Preconditions) (*Written, error) {
	acct, container, name := ref.Account, ref.Container, ref.Name
	var out *Blob
	var offset int64
	w, err := s.upload(ctx, acct, container, name, c, func(t *Tx, p *payload) error {
		tx := t.tx
		b, err := t.existingBlob(p.Owner.acct, p.Owner.container, p.Owner.name, "", conditions.Write, pre)
		if err != nil {
			return err
		}
		switch {
		case b.Type != appendBlob:
			return azerr.ErrInvalidBlobType
		case b.Sealed:
			return azerr.ErrBlobIsSealed
		case ac.MaxSize != nil && b.Size+p.Size > *ac.MaxSize:
			return azerr.ErrMaxBlobSizeConditionNotMet
		case ac.AppendPos != nil && b.Size != *ac.AppendPos:
			return azerr.ErrAppendPositionConditionNotMet
		case b.Extents >= maxCommittedBlocks:
			return azerr.ErrBlockCountExceedsLimit
		}
		if err := p.Place(tx, tx.Version()); err != nil {
			return err
		}
		offset = b.Size
		if err := appendExtent(tx, p.Owner.acct, p.Owner.container, p.Owner.name, b.Extents, extent{Data: p.ID(), Offset: offset, Size: p.Size}); err != nil {
			return err
		}
		b.Size += p.Size
		b.Extents++
		b.Version, b.Modified = tx.Version(), t.now
		out = b
		return record.Store(tx, blobKey(p.Owner.acct, p.Owner.container, p.Owner.name), b)
	})
	if err != nil {
		return nil, err
	}
	w.Blob, w.AppendOffset = out, offset
	return w, nil
}

// SealBlob makes an append blob read-only; appendPos, when given, is
// x-ms-blob-condition-appendpos, the size the blob must have. Sealing is
// idempotent and, as Azure documents, leaves the ETag and Last-Modified
// as they were.
func (s *Service) SealBlob(ctx context.Context, ref Ref, appendPos *int64, pre Preconditions) (*Blob, error) {
	acct, container, name := ref.Account, ref.Container, ref.Name
	var out *Blob
	err := s.Update(ctx, func(t *Tx) error {
		b, err := t.existingBlob(acct, container, name, "", conditions.Write, pre)
		if err != nil {
			return err
		}
		switch {
		case b.Type != appendBlob:
			return azerr.ErrInvalidBlobType
		case appendPos != nil && b.Size != *appendPos:
			return azerr.ErrAppendPositionConditionNotMet
		case b.Sealed:
			out = b
			return nil
		}
		// Sealing is a write: the blob gets a new ETag
		// (go-azblob-TestSealAppendBlob).
		b.Sealed, out = true, b
		b.Version, b.Modified = t.tx.Version(), t.now
		return record.Store(t.tx, blobKey(acct, container, name), b)
	})
	return out, err
}
