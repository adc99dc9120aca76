package extentstore

import (
	"bytes"
	"context"
	"crypto/md5"
	"encoding/base64"
	"errors"
	"fmt"
	"io"

	"github.com/cerulean-db/cerulean/internal/azbody"
	"github.com/cerulean-db/cerulean/internal/azerr"
	"github.com/cerulean-db/cerulean/internal/kv"
	"github.com/cerulean-db/cerulean/internal/kv/chunk"
	"github.com/cerulean-db/cerulean/internal/kv/record"
)

const (
	// InlineLimit: content up to this size is held in memory and written
	// inside the commit transaction itself (one fsync); larger content is
	// staged first.
	InlineLimit = 4 << 20
	// StageTxnBytes is the payload one staging transaction carries, and
	// the buffer a staged upload holds in memory.
	StageTxnBytes = 8 << 20
)

// Upload is content as it arrives: Length bytes to be read
// from Body, and the digests the client says they have.
type Upload struct {
	Body   io.Reader
	Length int64
	// MD5 is the Content-MD5 the client sent, nil when it sent none.
	MD5 []byte
	// CRC64 is the x-ms-content-crc64 the client sent (8 bytes, little
	// endian, Azure's polynomial), nil when it sent none.
	CRC64 []byte
	// WithCRC64 asks for the CRC64 of the bytes received even when the
	// client sent none to verify: Blob answers every write with it.
	WithCRC64 bool
	// Done, when set, is called once Length bytes are read: a framing
	// around the content (a structured message) that did not end with it
	// fails the upload.
	Done func() error
}

// ErrMD5Mismatch: the bytes received do not have the MD5 the client sent.
var ErrMD5Mismatch = azerr.ErrMd5Mismatch.WithMessage("The MD5 value specified in the request did not match with the MD5 value calculated by the server.")

// Payload is content on its way into the store: received and verified,
// not yet part of a commit.
type Payload[O comparable] struct {
	Owner O
	Size  int64
	Digests

	layout *Layout[O]
	inline []byte // content the commit transaction writes
	// owned: inline is the payload's own buffer, which nothing changes,
	// so the commit keeps its chunks instead of copying them.
	owned  bool
	id     uint64 // the data object, once staged or placed
	staged bool   // written by earlier transactions, registered as staged
}

// Digests are the digests of the bytes received: their MD5, and their
// CRC64 when the client sent one to verify (Azure then echoes it back)
// or the upload asked for it (Upload.WithCRC64).
type Digests struct {
	MD5, CRC64 []byte
}

// Read reads the whole content into memory (so Length must be small:
// InlineLimit or a service's own bound) and verifies it, for a service
// that writes it inside its own transaction.
func (c Upload) Read() ([]byte, Digests, error) {
	if c.Length < 0 {
		return nil, Digests{}, azerr.ErrMissingContentLengthHeader
	}
	data := make([]byte, c.Length)
	if _, err := io.ReadFull(c.Body, data); err != nil {
		return nil, Digests{}, fmt.Errorf("read body: %w", errBodyShort(err))
	}
	sum := md5.Sum(data)
	d := Digests{MD5: sum[:]}
	if c.wantCRC64() {
		d.CRC64 = azbody.CRC64(data)
	}
	if err := c.verify(d); err != nil {
		return nil, Digests{}, err
	}
	return data, d, nil
}

// Inline is data already in memory, written by the commit that places it.
func (l *Layout[O]) Inline(o O, data []byte) *Payload[O] {
	sum := md5.Sum(data)
	return &Payload[O]{Owner: o, Size: int64(len(data)), Digests: Digests{MD5: sum[:]}, layout: l, inline: data}
}

// Receive reads exactly c.Length bytes of c.Body for o and verifies
// c.MD5 and c.CRC64. Content up to InlineLimit stays in memory; larger
// content is staged into the store in transactions of its own. The bytes
// belong to this call until it returns a Payload: on any error it has
// removed what it staged.
func (s *Store[O]) Receive(ctx context.Context, o O, c Upload) (*Payload[O], error) {
	if c.Length <= InlineLimit {
		data, d, err := c.Read()
		if err != nil {
			return nil, err
		}
		return &Payload[O]{Owner: o, Size: c.Length, Digests: d, layout: s.layout, inline: data, owned: true}, nil
	}
	p, err := s.Stage(ctx, o, c.Body, c.Length, c.wantCRC64())
	if err != nil {
		return nil, err
	}
	if err := c.verify(p.Digests); err != nil {
		s.Discard(ctx, p)
		return nil, err
	}
	return p, nil
}

// wantCRC64 says whether the CRC64 of the bytes is to be computed.
func (c Upload) wantCRC64() bool { return c.CRC64 != nil || c.WithCRC64 }

// verify checks the content, once read, against what the client said.
func (c Upload) verify(d Digests) error {
	if c.Done != nil {
		if err := c.Done(); err != nil {
			return err
		}
	}
	if c.MD5 != nil && !bytes.Equal(c.MD5, d.MD5) {
		// Azure names both digests (Java's recording
		// AppendBlobApiTests.appendBlockTransactionalMD5Fail,
		// azure-storage-blob's test_upload_blob_from_url_with_source_content_md5).
		return ErrMD5Mismatch.WithDetails(
			azerr.Detail{Name: "UserSpecifiedMd5", Value: base64.StdEncoding.EncodeToString(c.MD5)},
			azerr.Detail{Name: "ServerCalculatedMd5", Value: base64.StdEncoding.EncodeToString(d.MD5)})
	}
	if c.CRC64 != nil && !bytes.Equal(c.CRC64, d.CRC64) {
		// So it does for CRC64 (@azure/storage-blob's recordings
		// "stageBlock with invalid CRC64 should fail" and "appendBlock
		// with invalid CRC64 should fail").
		return azerr.ErrCrc64Mismatch.WithDetails(
			azerr.Detail{Name: "UserSpecifiedCrc", Value: base64.StdEncoding.EncodeToString(c.CRC64)},
			azerr.Detail{Name: "ServerCalculatedCrc", Value: base64.StdEncoding.EncodeToString(d.CRC64)})
	}
	return nil
}

// Stage writes length bytes of body as a data object of o, in
// transactions of its own whatever the size (a copy stages each extent so
// that many commit together), computing their MD5 and, when withCRC64,
// their CRC64. On an error it has removed what it staged.
func (s *Store[O]) Stage(ctx context.Context, o O, body io.Reader, length int64, withCRC64 bool) (*Payload[O], error) {
	p := &Payload[O]{Owner: o, Size: length, layout: s.layout}
	h := md5.New()
	var sink io.Writer = h
	crc := azbody.NewCRC64()
	if withCRC64 {
		sink = io.MultiWriter(h, crc)
	}
	if err := s.stage(ctx, p, io.TeeReader(body, sink)); err != nil {
		s.Discard(ctx, p)
		return nil, err
	}
	p.MD5 = h.Sum(nil)
	if withCRC64 {
		p.CRC64 = azbody.CRC64Bytes(crc.Sum64())
	}
	return p, nil
}

// stage writes the content in transactions of StageTxnBytes, registering
// the data object (numbered by the first one's version) first, so that a
// crash part-way leaves it to the sweep. Each piece is read into a buffer
// of its own that its transaction keeps (chunk.WriteOwned): one buffer
// reused for every piece would be copied into each transaction, holding
// the piece twice until it commits.
func (s *Store[O]) stage(ctx context.Context, p *Payload[O], body io.Reader) error {
	var written int64
	for written < p.Size {
		n := min(StageTxnBytes, p.Size-written)
		buf := make([]byte, n)
		if _, err := io.ReadFull(body, buf); err != nil {
			return fmt.Errorf("read body: %w", errBodyShort(err))
		}
		err := s.Store.Update(ctx, func(tx kv.Txn) error {
			if !p.staged {
				p.id = tx.Version()
				reg := Staging{Created: s.now()}
				if s.processes != nil {
					reg.Process = s.processes.ID()
				}
				if err := record.Store(tx, s.layout.Staged.Uint(p.id), s.layout.Registrations.Staged(p.Owner, reg)); err != nil {
					return err
				}
			}
			return chunk.WriteOwned(tx, s.layout.object(p.Owner, p.id), written, buf)
		})
		if err != nil {
			return fmt.Errorf("stage data: %w", err)
		}
		p.staged = true
		written += n
	}
	return nil
}

// errReclaimed: a front end that took this process for gone reclaimed the
// upload's staged data; committing would reference missing data.
var errReclaimed = azerr.ErrServerBusy.WithMessage("The upload's staged data was reclaimed while it was in progress. Please retry your request.")

// Place makes the payload part of tx: inline content is written as data
// object id, staged content keeps the object it was staged as and is
// taken out of the staging registry. Either way the payload's object is
// ID once Place has returned.
func (p *Payload[O]) Place(tx kv.Txn, id uint64) error {
	if p.staged {
		key := p.layout.Staged.Uint(p.id)
		if _, err := tx.Get(key); errors.Is(err, kv.ErrNotFound) {
			return errReclaimed
		} else if err != nil {
			return err
		}
		return tx.Delete(key)
	}
	p.id = id
	if p.owned {
		return p.layout.WriteOwned(tx, p.Owner, id, p.inline)
	}
	return p.layout.Write(tx, p.Owner, id, p.inline)
}

// ID is the payload's data object, once staged or placed.
func (p *Payload[O]) ID() uint64 { return p.id }

// Discard deletes staged content that will not be committed. It runs even
// when ctx is done: a client that went away must not leave bytes behind.
func (s *Store[O]) Discard(ctx context.Context, p *Payload[O]) {
	if p == nil || !p.staged {
		return
	}
	// A piece at a time: staged content may be gigabytes, which a store
	// that counts stored bytes reads to delete.
	var err error
	for gone := false; !gone && err == nil; {
		err = s.Store.Update(context.WithoutCancel(ctx), func(tx kv.Txn) error {
			var err error
			if gone, err = s.layout.deletePiece(tx, p.Owner, p.id); err != nil || !gone {
				return err
			}
			return tx.Delete(s.layout.Staged.Uint(p.id))
		})
	}
	if err != nil {
		s.log.Error("discard staged data; the sweeper will retry at start-up", "data", p.id, "err", err)
	}
}

// errBodyShort maps a body that ended before Content-Length to Azure's error.
func errBodyShort(err error) error {
	if errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF) {
		return azerr.ErrInvalidInput.WithMessage("The request body is shorter than its Content-Length.")
	}
	return err
}
