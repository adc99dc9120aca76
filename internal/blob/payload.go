package blob

import (
	"context"
	"io"
	"time"

	"github.com/cerulean-db/cerulean/internal/azbody"
	"github.com/cerulean-db/cerulean/internal/azerr"
	"github.com/cerulean-db/cerulean/internal/background"
	"github.com/cerulean-db/cerulean/internal/extentstore"
	"github.com/cerulean-db/cerulean/internal/kv"
)

// errMD5Mismatch: the bytes received do not have the MD5 the client sent.
var errMD5Mismatch = extentstore.ErrMD5Mismatch

// inlineLimit: content up to this size is written inside the commit
// transaction itself (one fsync); larger content is staged first.
const inlineLimit = extentstore.InlineLimit

// Content is an upload's body as it arrives: Length bytes to be read from
// Body, and the digest the client says they have.
type Content struct {
	Body   io.Reader
	Length int64
	// MD5 is the Content-MD5 the client sent, nil when it sent none.
	MD5 []byte
	// CRC64 is the x-ms-content-crc64 the client sent (8 bytes, little
	// endian, Azure's polynomial), nil when it sent none.
	CRC64 []byte
	// Structured, when the body came as a structured message, decodes
	// it: Body reads the content through it, and it must end where the
	// content does (structured.go).
	Structured *azbody.StructuredReader
}

// Written is what a write that carried content reports.
type Written struct {
	// Blob is the blob's record after the write; nil after Put Block,
	// which leaves the record alone.
	Blob *Blob
	// ContentCRC64 is the CRC64 of the bytes received: Azure answers
	// every write of content with it (from x-ms-version 2019-02-02).
	ContentCRC64 []byte
	// ContentMD5 is the MD5 of the bytes received; Azure echoes it back.
	ContentMD5 []byte
	// AppendOffset is where Append Block wrote its block.
	AppendOffset int64
	// Structured says the content came as a verified structured message.
	Structured bool
}

// upload receives c for a blob and commits it with fn in one transaction,
// returning the MD5 of the bytes received. The bytes belong to this call:
// what it staged is removed when the digest does not match, fn fails or
// the commit does, so no caller has anything left to clean up.
func (s *Service) upload(ctx context.Context, acct, container, blob string, c Content, fn func(*Tx, *payload) error) (*Written, error) {
	p, err := s.receive(ctx, acct, container, blob, c)
	if err != nil {
		return nil, err
	}
	if err := s.Update(ctx, func(t *Tx) error { return fn(t, p) }); err != nil {
		s.store.Discard(ctx, p)
		return nil, err
	}
	return &Written{ContentMD5: p.MD5, ContentCRC64: p.CRC64, Structured: c.Structured != nil}, nil
}

// receive reads exactly c.Length bytes of c.Body into the content store,
// which verifies c.MD5 and c.CRC64 and removes what it staged when they
// do not match. The memory is reserved before a byte is read, so bodies
// announced but trickled in count from the start.
func (s *Service) receive(ctx context.Context, acct, container, blob string, c Content) (*payload, error) {
	if c.Length < 0 {
		return nil, azerr.ErrMissingContentLengthHeader
	}
	reserve := c.Length
	if c.Length > inlineLimit {
		reserve = extentstore.StageTxnBytes // the staging buffer
	}
	if !s.bodies.acquire(reserve) {
		s.log.Warn("upload refused: the memory for request bodies is in use by other uploads",
			"account", acct, "container", container, "blob", blob, "content_length", c.Length, "limit_bytes", maxBodyMemory)
		return nil, errUploadsBusy
	}
	defer s.bodies.release(reserve)
	return s.store.Receive(ctx, blobID{acct, container, blob}, extentstore.Upload{Body: c.Body, Length: c.Length, MD5: c.MD5, CRC64: c.CRC64, WithCRC64: true, Done: c.finish})
}

// SweepStaged deletes the staged data objects of uploads whose process is
// gone (see UseProcesses; without it, every staged object: run at start-up,
// a crash interrupted those uploads) and every data object registered as
// garbage that a crash or a failure left uncollected. It returns how many
// staged objects it deleted. Front ends sharing a store run it
// periodically (StartSweeper).
func (s *Service) SweepStaged(ctx context.Context) (int, error) { return s.store.SweepStaged(ctx) }

// CollectGarbage deletes every data object registered as garbage: what
// crashed or failed collections left. Start-up runs it through
// SweepStaged.
func (s *Service) CollectGarbage(ctx context.Context) (int, error) {
	return s.store.CollectGarbage(ctx)
}

// StartSweeper runs SweepStaged every interval until the returned stop is
// called.
func (s *Service) StartSweeper(interval time.Duration) (stop func()) {
	return background.Every(interval, s.log, "blob staged-upload sweep", s.SweepStaged)
}

// readContent writes bytes [off, off+n) of the content made of extents
// (sorted by offset) to w, reading chunks from r. Bytes no extent covers
// (unwritten pages) read as zeros.
func readContent(r kv.Reader, acct, container, name string, extents []extent, off, n int64, w io.Writer) error {
	return extentstore.Stream(objects, r, blobID{acct, container, name}, extents, off, n, w)
}
