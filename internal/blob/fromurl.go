package blob

import (
	"context"
	"errors"
	"io"

	"github.com/cerulean-db/cerulean/internal/azerr"
	"github.com/cerulean-db/cerulean/internal/conditions"
)

// SourceRead is how a *From URL operation (Put Blob, Put Block, Append
// Block and Put Page From URL) reads its source, a blob of this server.
// Azure reads the source as a GET carrying the source conditions, and
// reports what that GET would have answered as CannotVerifyCopySource
// with the same status: 404 for a missing blob, 304 for a source that
// If-None-Match or If-Modified-Since rule out, 412 for a failed If-Match
// or If-Unmodified-Since (azure-storage-blob's recordings
// test_upload_blob_from_url_if_match_condition and
// test_upload_pages_from_url_with_source_if_match).
type SourceRead struct {
	Source CopySource
	Range  *ByteRange // nil reads the whole blob
	Cond   conditions.Conditions
	IfTags *TagCondition // x-ms-source-if-tags, nil when none
	// MD5 and CRC64 are x-ms-source-content-md5/-crc64: the bytes read
	// must have them (Md5Mismatch / Crc64Mismatch otherwise).
	MD5, CRC64 []byte
	// MaxLength is the most the operation takes from one source read.
	MaxLength int64
}

// sourceError is the answer for a source that a GET would have refused
// with err.
func sourceError(err error) error {
	var e *azerr.Error
	if errors.As(err, &e) {
		return azerr.CannotVerifyCopySource(e)
	}
	return err
}

// readSource opens req's source range on one snapshot and hands fn the
// source's record and a Content streaming the range, checked against
// req's digests by whatever upload consumes it.
func (s *Service) readSource(ctx context.Context, req SourceRead, fn func(src *Blob, c Content) error) error {
	src := req.Source
	return s.view(ctx, func(t *Tx) error {
		b, err := t.existingBlob(src.Acct, src.Container, src.Blob, src.Snapshot, conditions.Read, Preconditions{Conditions: req.Cond})
		if err == nil && req.IfTags != nil {
			if cerr := checkTags(req.IfTags, b); errors.Is(cerr, azerr.ErrConditionNotMet) {
				err = azerr.ErrConditionNotMet
			} else if cerr != nil {
				return cerr // a malformed x-ms-source-if-tags is the request's fault
			}
		}
		if err == nil && b.Tier == tierArchive {
			err = azerr.ErrBlobArchived
		}
		if err != nil {
			return sourceError(err)
		}
		d := &Download{Record: b, Length: b.Size, r: t.r, acct: src.Acct, container: src.Container, name: src.Blob}
		if rng := req.Range; rng != nil {
			if rng.Start >= b.Size || rng.End >= b.Size {
				return azerr.CannotVerifyCopySource(azerr.ErrInvalidRange)
			}
			end := b.Size - 1
			if rng.End >= 0 {
				end = rng.End
			}
			d.Offset, d.Length, d.Ranged = rng.Start, end-rng.Start+1, true
		}
		if req.MaxLength > 0 && d.Length > req.MaxLength {
			return azerr.ErrRequestBodyTooLarge.WithMessage("The source range of %d bytes exceeds the %d bytes this operation takes.", d.Length, req.MaxLength)
		}
		if d.extents, err = loadExtentsAt(t.r, src.Acct, src.Container, src.Blob, src.Snapshot); err != nil {
			return err
		}
		pr, pw := io.Pipe()
		done := make(chan struct{})
		go func() {
			defer close(done)
			pw.CloseWithError(d.Stream(pw))
		}()
		err = fn(b, Content{Body: pr, Length: d.Length, MD5: req.MD5, CRC64: req.CRC64})
		pr.CloseWithError(errors.New("source read ended"))
		<-done // the snapshot must outlive the stream
		return err
	})
}

// PutBlobFromURL creates or replaces a block blob with the content of a
// source blob, as Put Blob would with that content as its body. With
// o.CopyProperties the source's content headers fill in those o.Headers
// leaves empty; o.CopyTags takes the source's tags instead of o.Tags.
func (s *Service) PutBlobFromURL(ctx context.Context, ref Ref, req SourceRead, o PutBlobFromURLOptions) (*Written, error) {
	h, tags := o.Headers, o.Tags
	var w *Written
	err := s.readSource(ctx, req, func(src *Blob, c Content) error {
		if o.CopyProperties {
			h = inheritHeaders(h, src.Headers)
		}
		if o.CopyTags {
			tags = src.Tags
		}
		var err error
		w, err = s.PutBlob(ctx, ref, c, PutBlobOptions{Headers: h, Metadata: o.Metadata, Tags: tags, Conditions: o.Conditions})
		return err
	})
	return w, err
}

// inheritHeaders fills the content headers own leaves empty from the
// source's. The MD5 is not inherited: Put Blob computes the content's.
func inheritHeaders(own, src ContentHeaders) ContentHeaders {
	fill := func(v *string, from string) {
		if *v == "" {
			*v = from
		}
	}
	fill(&own.ContentType, src.ContentType)
	fill(&own.ContentEncoding, src.ContentEncoding)
	fill(&own.ContentLanguage, src.ContentLanguage)
	fill(&own.ContentDisposition, src.ContentDisposition)
	fill(&own.CacheControl, src.CacheControl)
	fill(&own.ContentType, "application/octet-stream")
	return own
}

// PutBlockFromURL stages a range of a source blob as an uncommitted block.
func (s *Service) PutBlockFromURL(ctx context.Context, ref Ref, req SourceRead, id []byte, leaseID string) (*Written, error) {
	var w *Written
	err := s.readSource(ctx, req, func(_ *Blob, c Content) error {
		var err error
		w, err = s.PutBlock(ctx, ref, id, c, leaseID)
		return err
	})
	return w, err
}

// AppendBlockFromURL appends a range of a source blob to an append blob.
func (s *Service) AppendBlockFromURL(ctx context.Context, ref Ref, req SourceRead, ac AppendConditions, pre Preconditions) (*Written, error) {
	var w *Written
	err := s.readSource(ctx, req, func(_ *Blob, c Content) error {
		var err error
		w, err = s.AppendBlock(ctx, ref, c, ac, pre)
		return err
	})
	return w, err
}

// PutPageFromURL writes a range of a source blob into a page blob at
// start; the range's length must be the destination range's.
func (s *Service) PutPageFromURL(ctx context.Context, ref Ref, req SourceRead, start int64, o PageWriteOptions) (*Written, error) {
	var w *Written
	err := s.readSource(ctx, req, func(_ *Blob, c Content) error {
		var err error
		w, err = s.PutPages(ctx, ref, start, c, o)
		return err
	})
	return w, err
}
