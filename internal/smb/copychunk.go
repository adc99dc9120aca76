package smb

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"math"

	"github.com/cerulean-db/cerulean/internal/file"
)

// Server-side copy (MS-SMB2 3.3.5.15.6 and 3.3.5.15.7): a client asks
// for the resume key of a source open, then has the server copy ranges
// of it into a destination open, so the bytes never cross the network
// (Windows Explorer, robocopy and Linux's copy_file_range use it).
const (
	fsctlSrvRequestResumeKey uint32 = 0x00140078
	fsctlSrvCopyChunk        uint32 = 0x001440F2
	fsctlSrvCopyChunkWrite   uint32 = 0x001480F2
)

// The limits a copy request must keep, as Windows sets them
// (ServerSideCopyMaxNumberofChunks, ServerSideCopyMaxChunkSize and
// ServerSideCopyMaxDataSize); a request beyond them is answered with
// them.
const (
	copyMaxChunks    = 256
	copyMaxChunkSize = 1 << 20
	copyMaxTotalSize = 16 << 20
)

const (
	resumeKeySize       = 24
	copyChunkHeaderSize = resumeKeySize + 8 // SourceKey, ChunkCount, Reserved
	copyChunkSize       = 24                // SourceOffset, TargetOffset, Length, Reserved
	copyResponseSize    = 12                // ChunksWritten, ChunkBytesWritten, TotalBytesWritten
	// A target offset of all ones is allowed (MS-SMB2 3.3.5.15.6): it
	// appends, at the destination's end of file.
	copyAtEnd = ^uint64(0)
)

// statusInvalidViewSize answers a chunk that reaches past the source's
// end of file, as Windows does.
const statusInvalidViewSize uint32 = 0xC000001F

// resumeSecret authenticates resume keys, so a key names only an open
// this process handed it out for.
var resumeSecret = func() []byte {
	b := make([]byte, 32)
	_, _ = rand.Read(b) // crypto/rand does not fail
	return b
}()

// resumeKey is an open's resume key: its FileId and a tag over it. It
// needs no state of its own: it names the open while that is open in
// the session, and nothing once the open is closed.
func resumeKey(id fileID) [resumeKeySize]byte {
	var k [resumeKeySize]byte
	le.PutUint64(k[0:], id.Persistent)
	le.PutUint64(k[8:], id.Volatile)
	m := hmac.New(sha256.New, resumeSecret)
	m.Write(k[:16])
	copy(k[16:], m.Sum(nil))
	return k
}

// resumeOpen is the open of the request's session a resume key names,
// on any of its trees, or nil.
func (c *conn) resumeOpen(r *request, key []byte) *open {
	id := fileID{Persistent: le.Uint64(key[0:]), Volatile: le.Uint64(key[8:])}
	want := resumeKey(id)
	if !hmac.Equal(want[:], key) {
		return nil
	}
	s := r.sess
	s.mu.Lock()
	defer s.mu.Unlock()
	if o := s.opens[id.Volatile]; o != nil && o.id == id {
		return o
	}
	return nil
}

// requestResumeKey answers FSCTL_SRV_REQUEST_RESUME_KEY: the key, then
// an empty context (ContextLength 0 and its 4 reserved bytes).
func requestResumeKey(o *open, maxOut uint32) response {
	if maxOut < resumeKeySize+8 {
		return errResp(statusInvalidParameter)
	}
	k := resumeKey(o.id)
	out := make([]byte, resumeKeySize+8)
	copy(out, k[:])
	return ioctlResponse(fsctlSrvRequestResumeKey, o.id, out)
}

// copyChunk is one range of a copy request.
type copyChunk struct {
	source, target uint64
	length         uint32
}

// copyResponse answers a copy request with status and a
// SRV_COPYCHUNK_RESPONSE, which carries either what was copied or, for
// a request beyond the limits, the limits.
func copyResponse(code uint32, dst *open, status uint32, chunks, chunkBytes, total uint32) response {
	out := make([]byte, copyResponseSize)
	le.PutUint32(out[0:], chunks)
	le.PutUint32(out[4:], chunkBytes)
	le.PutUint32(out[8:], total)
	resp := ioctlResponse(code, dst.id, out)
	resp.status = status
	return resp
}

// copyLimits answers a request beyond the limits: STATUS_INVALID_PARAMETER
// with the limits in the response (MS-SMB2 3.3.5.15.6.2).
func copyLimits(code uint32, dst *open) response {
	return copyResponse(code, dst, statusInvalidParameter, copyMaxChunks, copyMaxChunkSize, copyMaxTotalSize)
}

// parseCopyChunks reads a SRV_COPYCHUNK_COPY's chunks; ok is false when
// the request breaks a limit or is malformed.
func parseCopyChunks(in []byte) ([]copyChunk, bool) {
	if len(in) < copyChunkHeaderSize {
		return nil, false
	}
	count := le.Uint32(in[resumeKeySize:])
	if count > copyMaxChunks || uint64(len(in)) < copyChunkHeaderSize+uint64(count)*copyChunkSize {
		return nil, false
	}
	chunks := make([]copyChunk, count)
	var total uint64
	for i := range chunks {
		b := in[copyChunkHeaderSize+i*copyChunkSize:]
		ch := copyChunk{source: le.Uint64(b), target: le.Uint64(b[8:]), length: le.Uint32(b[16:])}
		if ch.length == 0 || ch.length > copyMaxChunkSize ||
			ch.source > math.MaxInt64-uint64(ch.length) ||
			(ch.target > math.MaxInt64 && ch.target != copyAtEnd) {
			return nil, false
		}
		total += uint64(ch.length)
		chunks[i] = ch
	}
	return chunks, total <= copyMaxTotalSize
}

// copyChunks answers FSCTL_SRV_COPYCHUNK and FSCTL_SRV_COPYCHUNK_WRITE
// on the destination open dst. Each chunk is read through the source
// open and written through dst by the path WRITE takes, so byte-range
// locks on either file answer STATUS_FILE_LOCK_CONFLICT, the write
// breaks the destination's caching, and REST sees the bytes. A chunk is
// read whole before it is written, so a source that is the destination
// may overlap itself. A failing chunk stops the copy: the answer is its
// status with what the chunks before it copied.
func (c *conn) copyChunks(r *request, code uint32, dst *open, in []byte, maxOut uint32) response {
	if len(in) < resumeKeySize {
		return errResp(statusInvalidParameter)
	}
	src := c.resumeOpen(r, in[:resumeKeySize])
	if src == nil {
		return errResp(statusObjectNameNotFound)
	}
	if maxOut < copyResponseSize {
		return errResp(statusInvalidParameter)
	}
	chunks, ok := parseCopyChunks(in)
	if !ok {
		return copyLimits(code, dst)
	}
	switch {
	case src.granted&(accReadData|accExecute) == 0,
		dst.granted&(accWriteData|accAppendData) == 0,
		// FSCTL_SRV_COPYCHUNK_WRITE exists for a destination opened
		// without read access; FSCTL_SRV_COPYCHUNK needs it.
		code == fsctlSrvCopyChunk && dst.granted&accReadData == 0:
		return errResp(statusAccessDenied)
	case src.dir || dst.dir:
		return errResp(statusInvalidDeviceRequest)
	}
	var written, total uint32
	for _, ch := range chunks {
		if status := c.copyOne(r, src, dst, ch); status != statusSuccess {
			return copyResponse(code, dst, status, written, 0, total)
		}
		written++
		total += ch.length
	}
	return copyResponse(code, dst, statusSuccess, written, 0, total)
}

// copyOne copies one chunk and answers its status: a handle the file
// model no longer has is forgotten (STATUS_FILE_CLOSED), as for READ and
// WRITE.
func (c *conn) copyOne(r *request, src, dst *open, ch copyChunk) uint32 {
	ctx, cancel := c.opCtx()
	data, _, err := c.srv.files.ReadHandle(ctx, src.handle(r.sess.account), int64(ch.source), int(ch.length))
	cancel()
	if err != nil {
		return c.gone(r, src, err).status
	}
	if len(data) < int(ch.length) {
		return statusInvalidViewSize
	}
	target := ch.target
	if target == copyAtEnd {
		n, err := c.node(r, dst)
		if err != nil {
			return c.gone(r, dst, err).status
		}
		target = uint64(n.Size)
	}
	// The bounds WRITE has: beyond NTFS's largest file is invalid,
	// beyond Azure's 4 TiB a full disk.
	switch end := target + uint64(ch.length); {
	case end > ntfsMaxFileSize:
		return statusInvalidParameter
	case end > file.MaxFileSize:
		return statusDiskFull
	}
	if err := c.writeRange(r, dst, int64(target), data); err != nil {
		return c.gone(r, dst, err).status
	}
	return statusSuccess
}
