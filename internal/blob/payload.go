package blob

import (
	"context"
	"crypto/md5"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"log/slog"

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

// payload is upload content on its way into the store.
type payload struct {
	acct, container, blob string
	size                  int64
	md5                   []byte
	inline                []byte // content written by the commit transaction
	data                  uint64 // the data object id once placed
	staged                bool   // written by earlier transactions, registered under Bs
}

// receive reads exactly length bytes of body. Small content stays in memory;
// larger content is staged into the store in transactions of its own.
func (s *Service) receive(ctx context.Context, acct, container, blob string, body io.Reader, length int64) (*payload, error) {
	if length > inlineLimit {
		return s.stageAll(ctx, acct, container, blob, body, length)
	}
	p := &payload{acct: acct, container: container, blob: blob, size: length, inline: make([]byte, length)}
	if _, err := io.ReadFull(body, p.inline); err != nil {
		return nil, fmt.Errorf("read body: %w", errBodyShort(err))
	}
	sum := md5.Sum(p.inline)
	p.md5 = sum[:]
	return p, nil
}

// stageAll stages the whole content in transactions of its own, whatever
// its size (a copy stages each extent so that many commit together).
func (s *Service) stageAll(ctx context.Context, acct, container, blob string, body io.Reader, length int64) (*payload, error) {
	p := &payload{acct: acct, container: container, blob: blob, size: length}
	h := md5.New()
	if err := s.stage(ctx, p, io.TeeReader(body, h)); err != nil {
		s.discard(ctx, p)
		return nil, err
	}
	p.md5 = h.Sum(nil)
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
		return tx.Delete(stagedKey(p.data))
	}
	p.data = tx.Version()
	return p.writeChunks(tx, 0, p.inline)
}

func (p *payload) writeChunks(tx kv.Txn, offset int64, b []byte) error {
	for len(b) > 0 {
		n := min(len(b), chunkSize)
		if err := tx.Set(chunkKey(p.acct, p.container, p.blob, p.data, offset/chunkSize), b[:n]); err != nil {
			return err
		}
		offset += int64(n)
		b = b[n:]
	}
	return nil
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

// SweepStaged deletes every staged data object (run at start-up, a crash
// interrupted those uploads) and every data object registered as garbage
// that a crash or a failure left uncollected. It returns how many staged
// objects it deleted.
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
		var decodeErr error
		err := r.Scan(p, kv.PrefixEnd(p), func(k, v []byte) bool {
			e := entry{key: append([]byte(nil), k...), data: lastUint(k)}
			if decodeErr = record.Decode(v, &e.reg); decodeErr != nil {
				return false
			}
			doomed = append(doomed, e)
			return true
		})
		return errors.Join(err, decodeErr)
	})
	if err != nil {
		return 0, fmt.Errorf("sweep staged: %w", err)
	}
	for _, e := range doomed {
		err := s.store.Update(ctx, func(tx kv.Txn) error {
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
			if err := writeZeros(w, e.Offset-off); err != nil {
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
		return writeZeros(w, end-off)
	}
	return nil
}

var zeroChunk = make([]byte, chunkSize)

func writeZeros(w io.Writer, n int64) error {
	for n > 0 {
		k := min(n, int64(len(zeroChunk)))
		if _, err := w.Write(zeroChunk[:k]); err != nil {
			return err
		}
		n -= k
	}
	return nil
}

// errDataGone: a data object vanished under a reader (the blob was
// overwritten between two snapshots of one long download).
var errDataGone = errors.New("blob data changed during the read")

func readData(r kv.Reader, acct, container, name string, data uint64, from, n int64, w io.Writer) error {
	first := from / chunkSize
	last := (from + n - 1) / chunkSize
	start := chunkKey(acct, container, name, data, first)
	end := chunkKey(acct, container, name, data, last+1)
	want := first
	var werr error
	err := r.Scan(start, end, func(k, v []byte) bool {
		idx := int64(lastUint(k))
		if idx != want {
			werr = errDataGone
			return false
		}
		lo, hi := int64(0), int64(len(v))
		if idx == first {
			lo = from - first*chunkSize
		}
		if idx == last {
			hi = from + n - last*chunkSize
		}
		if lo > hi || hi > int64(len(v)) {
			werr = errDataGone
			return false
		}
		_, werr = w.Write(v[lo:hi])
		want++
		return werr == nil
	})
	if err != nil {
		return err
	}
	if werr != nil {
		return werr
	}
	if want != last+1 {
		return errDataGone
	}
	return nil
}
