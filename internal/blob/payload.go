package blob

import (
	"bytes"
	"context"
	"crypto/md5"
	"encoding/binary"
	"errors"
	"fmt"
	"github.com/cerulean-db/cerulean/internal/background"
	"github.com/cerulean-db/cerulean/internal/kv/chunk"
	"io"
	"log/slog"
	"time"

	"github.com/cerulean-db/cerulean/internal/azhttp"
	"github.com/cerulean-db/cerulean/internal/kv"
	"github.com/cerulean-db/cerulean/internal/kv/record"
)

const (
	// inlineLimit: content up to this size is written inside the commit
	// transaction itself (one fsync); larger content is staged first.
	inlineLimit = 4 << 20
	// stageTxnBytes is the payload one staging transaction carries.
	stageTxnBytes = 8 << 20
)

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
	Structured *azhttp.StructuredReader
}

// Written is what a write that carried content reports.
type Written struct {
	// Blob is the blob's record after the write; nil after Put Block,
	// which leaves the record alone.
	Blob *Blob
	// ContentCRC64 is the CRC64 of the bytes received, computed only when
	// the client sent one to verify (Azure then echoes it back).
	ContentCRC64 []byte
	// ContentMD5 is the MD5 of the bytes received; Azure echoes it back.
	ContentMD5 []byte
	// AppendOffset is where Append Block wrote its block.
	AppendOffset int64
	// Structured says the content came as a verified structured message.
	Structured bool
}

// errMD5Mismatch: the bytes received do not have the MD5 the client sent.
var errMD5Mismatch = azhttp.ErrMd5Mismatch.WithMessage("The MD5 value specified in the request did not match with the MD5 value calculated by the server.")

// payload is upload content on its way into the store.
type payload struct {
	acct, container, blob string
	size                  int64
	md5                   []byte
	crc64                 []byte // computed only when the client sent one
	inline                []byte // content written by the commit transaction
	data                  uint64 // the data object id once placed
	staged                bool   // written by earlier transactions, registered under Bs
}

// inlinePayload is content already in memory, written by the commit.
func inlinePayload(acct, container, blob string, data []byte) *payload {
	sum := md5.Sum(data)
	return &payload{acct: acct, container: container, blob: blob, size: int64(len(data)), inline: data, md5: sum[:]}
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
		s.discard(ctx, p)
		return nil, err
	}
	return &Written{ContentMD5: p.md5, ContentCRC64: p.crc64, Structured: c.Structured != nil}, nil
}

// receive reads exactly c.Length bytes of c.Body and verifies c.MD5. Small
// content stays in memory; larger content is staged into the store in
// transactions of its own, and removed again when it fails verification.
func (s *Service) receive(ctx context.Context, acct, container, blob string, c Content) (*payload, error) {
	if c.Length < 0 {
		return nil, azhttp.ErrMissingContentLengthHeader
	}
	// The memory is reserved before a byte is read, so bodies announced
	// but trickled in count from the start.
	reserve := c.Length
	if c.Length > inlineLimit {
		reserve = stageTxnBytes // the staging buffer
	}
	if !s.bodies.acquire(reserve) {
		s.log.Warn("upload refused: the memory for request bodies is in use by other uploads",
			"account", acct, "container", container, "blob", blob, "content_length", c.Length, "limit_bytes", maxBodyMemory)
		return nil, errUploadsBusy
	}
	defer s.bodies.release(reserve)
	var p *payload
	if c.Length > inlineLimit {
		var err error
		if p, err = s.stageAll(ctx, acct, container, blob, c.Body, c.Length, c.CRC64 != nil); err != nil {
			return nil, err
		}
	} else {
		data := make([]byte, c.Length)
		if _, err := io.ReadFull(c.Body, data); err != nil {
			return nil, fmt.Errorf("read body: %w", errBodyShort(err))
		}
		p = inlinePayload(acct, container, blob, data)
		if c.CRC64 != nil {
			p.crc64 = azhttp.CRC64(data)
		}
	}
	if err := c.finish(); err != nil {
		s.discard(ctx, p)
		return nil, err
	}
	if c.MD5 != nil && !bytes.Equal(c.MD5, p.md5) {
		s.discard(ctx, p)
		return nil, errMD5Mismatch
	}
	if c.CRC64 != nil && !bytes.Equal(c.CRC64, p.crc64) {
		s.discard(ctx, p)
		return nil, azhttp.ErrCrc64Mismatch
	}
	return p, nil
}

// stageAll stages the whole content in transactions of its own, whatever
// its size (a copy stages each extent so that many commit together).
func (s *Service) stageAll(ctx context.Context, acct, container, blob string, body io.Reader, length int64, withCRC64 bool) (*payload, error) {
	p := &payload{acct: acct, container: container, blob: blob, size: length}
	h := md5.New()
	var sink io.Writer = h
	crc := azhttp.NewCRC64()
	if withCRC64 {
		sink = io.MultiWriter(h, crc)
	}
	if err := s.stage(ctx, p, io.TeeReader(body, sink)); err != nil {
		s.discard(ctx, p)
		return nil, err
	}
	p.md5 = h.Sum(nil)
	if withCRC64 {
		p.crc64 = azhttp.CRC64Bytes(crc.Sum64())
	}
	return p, nil
}

// stage writes the content in transactions of stageTxnBytes, registering the
// data object first so that a crash part-way leaves it to the sweeper.
func (s *Service) stage(ctx context.Context, p *payload, body io.Reader) error {
	buf := make([]byte, stageTxnBytes)
	var written int64
	for written < p.size {
		n := min(int64(len(buf)), p.size-written)
		if _, err := io.ReadFull(body, buf[:n]); err != nil {
			return fmt.Errorf("read body: %w", errBodyShort(err))
		}
		err := s.store.Update(ctx, func(tx kv.Txn) error {
			if !p.staged {
				p.data = tx.Version()
				reg := staged{Account: p.acct, Container: p.container, Blob: p.blob, Created: s.now()}
				if s.processes != nil {
					reg.Owner = s.processes.ID()
				}
				if err := record.Store(tx, stagedKey(p.data), reg); err != nil {
					return err
				}
			}
			return p.writeChunks(tx, written, buf[:n])
		})
		if err != nil {
			return fmt.Errorf("stage data: %w", err)
		}
		p.staged = true
		written += n
	}
	return nil
}

// place makes the payload part of tx: inline content is written under this
// transaction's version, staged content is claimed from the registry.
func (p *payload) place(tx kv.Txn) error {
	if p.staged {
		// A front end that took this process for gone may have reclaimed
		// the upload; committing would then reference missing data.
		if _, err := tx.Get(stagedKey(p.data)); errors.Is(err, kv.ErrNotFound) {
			return azhttp.ErrServerBusy.WithMessage("The upload's staged data was reclaimed while it was in progress. Please retry your request.")
		} else if err != nil {
			return err
		}
		return tx.Delete(stagedKey(p.data))
	}
	p.data = tx.Version()
	return p.writeChunks(tx, 0, p.inline)
}

func (p *payload) writeChunks(tx kv.Txn, offset int64, b []byte) error {
	return chunk.Write(tx, dataPrefix(p.acct, p.container, p.blob, p.data), offset, b)
}

// discard deletes staged content that will not be committed. It runs even
// when the request's context is done: a client that went away must not
// leave bytes behind.
func (s *Service) discard(ctx context.Context, p *payload) {
	if p == nil || !p.staged {
		return
	}
	err := s.store.Update(context.WithoutCancel(ctx), func(tx kv.Txn) error {
		if err := deleteData(tx, p.acct, p.container, p.blob, p.data); err != nil {
			return err
		}
		return tx.Delete(stagedKey(p.data))
	})
	if err != nil {
		s.log.Error("discard staged data; the sweeper will retry at start-up", "data", p.data, "err", err)
	}
}

func deleteData(tx kv.Txn, acct, container, blob string, data uint64) error {
	prefix := dataPrefix(acct, container, blob, data)
	return tx.DeleteRange(prefix, kv.PrefixEnd(prefix))
}

// SweepStaged deletes the staged data objects of uploads whose process is
// gone (see UseProcesses; without it, every staged object: run at start-up,
// a crash interrupted those uploads) and every data object registered as
// garbage that a crash or a failure left uncollected. It returns how many
// staged objects it deleted. Front ends sharing a store run it
// periodically (StartSweeper).
func (s *Service) SweepStaged(ctx context.Context) (int, error) {
	collected, err := s.CollectGarbage(ctx)
	if err != nil {
		return 0, fmt.Errorf("sweep garbage: %w", err)
	}
	if collected > 0 {
		s.log.Info("deleted blob data left registered as garbage by an interrupted run", slog.Int("count", collected))
	}
	type entry struct {
		key  []byte
		data uint64
		reg  staged
	}
	var doomed []entry
	err = s.store.View(ctx, func(r kv.Reader) error {
		p := stagedPrefix()
		return r.Scan(p, kv.PrefixEnd(p), func(k, v []byte) error {
			e := entry{key: append([]byte(nil), k...), data: lastUint(k)}
			if err := record.Decode(v, &e.reg); err != nil {
				return err
			}
			if s.processes != nil {
				alive, err := s.processes.Alive(r, e.reg.Owner)
				if err != nil || alive {
					return err
				}
			}
			doomed = append(doomed, e)
			return nil
		})
	})
	if err != nil {
		return 0, fmt.Errorf("sweep staged: %w", err)
	}
	for _, e := range doomed {
		err := s.store.Update(ctx, func(tx kv.Txn) error {
			// The upload may have committed since the scan.
			if _, err := tx.Get(e.key); errors.Is(err, kv.ErrNotFound) {
				return nil
			} else if err != nil {
				return err
			}
			if err := deleteData(tx, e.reg.Account, e.reg.Container, e.reg.Blob, e.data); err != nil {
				return err
			}
			return tx.Delete(e.key)
		})
		if err != nil {
			return 0, fmt.Errorf("sweep staged %d: %w", e.data, err)
		}
	}
	if len(doomed) > 0 {
		s.log.Info("swept staged uploads left by an interrupted run", slog.Int("count", len(doomed)))
	}
	return len(doomed), nil
}

// StartSweeper runs SweepStaged every interval until the returned stop is
// called.
func (s *Service) StartSweeper(interval time.Duration) (stop func()) {
	return background.Every(interval, s.log, "blob staged-upload sweep", s.SweepStaged)
}

// lastUint decodes the integer element that ends key.
func lastUint(key []byte) uint64 { return binary.BigEndian.Uint64(key[len(key)-8:]) }

// errBodyShort maps a body that ended before Content-Length to Azure's error.
func errBodyShort(err error) error {
	if errors.Is(err, io.ErrUnexpectedEOF) || errors.Is(err, io.EOF) {
		return azhttp.ErrInvalidInput.WithMessage("The request body is shorter than its Content-Length.")
	}
	return err
}

// readContent writes bytes [off, off+n) of the content made of extents
// (sorted by offset) to w, reading chunks from r. Bytes no extent covers
// (unwritten pages) read as zeros.
func readContent(r kv.Reader, acct, container, name string, extents []extent, off, n int64, w io.Writer) error {
	end := off + n
	for _, e := range extents {
		if off >= end {
			return nil
		}
		eEnd := e.Offset + e.Size
		if eEnd <= off {
			continue
		}
		if e.Offset >= end {
			break
		}
		if e.Offset > off {
			if err := chunk.Zeros(w, e.Offset-off); err != nil {
				return err
			}
			off = e.Offset
		}
		take := min(eEnd, end) - off
		if err := readData(r, acct, container, name, e.Data, e.DataOff+off-e.Offset, take, w); err != nil {
			return err
		}
		off += take
	}
	if off < end {
		return chunk.Zeros(w, end-off)
	}
	return nil
}

// readData writes n bytes of a data object from offset from to w.
func readData(r kv.Reader, acct, container, name string, data uint64, from, n int64, w io.Writer) error {
	return chunk.Read(r, dataPrefix(acct, container, name, data), from, n, w)
}
