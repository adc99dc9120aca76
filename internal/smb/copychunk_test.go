package smb

import (
	"bytes"
	"encoding/binary"
	"testing"
	"time"

	"github.com/cerulean-db/cerulean/internal/azauth"
	"github.com/cerulean-db/cerulean/internal/file"
	"github.com/cerulean-db/cerulean/internal/smb/smbtest"
)

// pattern is n bytes that differ at every offset within 2^32, from seed.
func pattern(n int, seed uint32) []byte {
	b := make([]byte, n)
	for i := 0; i+4 <= n; i += 4 {
		binary.LittleEndian.PutUint32(b[i:], seed+uint32(i))
	}
	return b
}

type chunk struct {
	src, dst uint64
	n        uint32
}

// copyRequest is a SRV_COPYCHUNK_COPY.
func copyRequest(key []byte, chunks ...chunk) []byte {
	b := append([]byte(nil), key...)
	b = binary.LittleEndian.AppendUint32(b, uint32(len(chunks)))
	b = binary.LittleEndian.AppendUint32(b, 0)
	for _, c := range chunks {
		b = binary.LittleEndian.AppendUint64(b, c.src)
		b = binary.LittleEndian.AppendUint64(b, c.dst)
		b = binary.LittleEndian.AppendUint32(b, c.n)
		b = binary.LittleEndian.AppendUint32(b, 0)
	}
	return b
}

// copyResult is a SRV_COPYCHUNK_RESPONSE.
type copyResult struct{ chunks, chunkBytes, total uint32 }

func parseCopyResult(t *testing.T, out []byte) copyResult {
	t.Helper()
	if len(out) != 12 {
		t.Fatalf("copy response is %d bytes, want 12", len(out))
	}
	le := binary.LittleEndian
	return copyResult{le.Uint32(out), le.Uint32(out[4:]), le.Uint32(out[8:])}
}

// openFile opens (creating) path with access, sharing everything.
func openFile(t *testing.T, c *smbtest.Client, path string, access uint32) smbtest.FileID {
	t.Helper()
	id, st, err := c.Create(path, access, smbtest.ShareAll, smbtest.OpenIf, smbtest.OptNonDirectory)
	if err != nil || st != smbtest.StatusSuccess {
		t.Fatalf("open %s: %#x %v", path, st, err)
	}
	return id
}

func resumeKeyOf(t *testing.T, c *smbtest.Client, id smbtest.FileID) []byte {
	t.Helper()
	out, st, err := c.Ioctl(id, smbtest.FsctlSrvRequestResumeKey, nil, 32)
	if err != nil || st != smbtest.StatusSuccess || len(out) != 32 {
		t.Fatalf("FSCTL_SRV_REQUEST_RESUME_KEY: %#x %v, %d bytes", st, err, len(out))
	}
	return out[:24]
}

// restRead is a file's content as Get File returns it.
func restRead(t *testing.T, files *file.Service, share, path string) []byte {
	t.Helper()
	var buf bytes.Buffer
	err := files.GetFile(t.Context(), file.Ref{Account: azauth.DevAccount, Share: share, Path: path}, file.GetFileOptions{},
		func(d *file.Download) error { return d.Stream(&buf) })
	if err != nil {
		t.Fatalf("Get File %s/%s: %v", share, path, err)
	}
	return buf.Bytes()
}

const (
	accAllFile   = 0x001F01FF
	accExecuteFT = 0x20
)

// TestCopyChunkCopiesThroughTheFileModel: FSCTL_SRV_COPYCHUNK copies
// ranges of one open into another, past the destination's end (the gap
// reads as zeros) and over itself when source and destination are the
// same file; the answer counts chunks and bytes, and REST reads the
// copied bytes with a new ETag.
func TestCopyChunkCopiesThroughTheFileModel(t *testing.T) {
	srv, addr := serve(t, Limits{})
	c := dial(t, addr)
	src := openFile(t, c, "src.bin", accAllFile)
	data := pattern(8192, 1)
	if st, err := c.Write(src, 0, data); err != nil || st != 0 {
		t.Fatalf("write: %#x %v", st, err)
	}
	dst := openFile(t, c, "dst.bin", accAllFile)
	before, err := srv.files.GetFileProperties(t.Context(), file.Ref{Account: azauth.DevAccount, Share: "s", Path: "dst.bin"}, file.Preconditions{})
	if err != nil {
		t.Fatal(err)
	}
	key := resumeKeyOf(t, c, src)
	// The second chunk lands past the first's end; the third copies the
	// first 48 bytes again, to the end.
	req := copyRequest(key, chunk{4096, 0, 4096}, chunk{0, 10000, 4096}, chunk{0, ^uint64(0), 48})
	out, st, err := c.Ioctl(dst, smbtest.FsctlSrvCopyChunk, req, 12)
	if err != nil || st != smbtest.StatusSuccess {
		t.Fatalf("FSCTL_SRV_COPYCHUNK: %#x %v", st, err)
	}
	if got := parseCopyResult(t, out); got != (copyResult{3, 0, 4096 + 4096 + 48}) {
		t.Fatalf("copy response %+v, want 3 chunks, 8240 bytes", got)
	}
	want := make([]byte, 14096+48)
	copy(want, data[4096:])
	copy(want[10000:], data[:4096])
	copy(want[14096:], data[:48])
	if got := restRead(t, srv.files, "s", "dst.bin"); !bytes.Equal(got, want) {
		t.Fatalf("REST reads %d bytes that differ from the copy", len(got))
	}
	after, err := srv.files.GetFileProperties(t.Context(), file.Ref{Account: azauth.DevAccount, Share: "s", Path: "dst.bin"}, file.Preconditions{})
	if err != nil {
		t.Fatal(err)
	}
	if after.Version == before.Version {
		t.Fatal("the copy left the destination's version (ETag) as it was")
	}

	// Source is destination, with the target overlapping the source
	// range: the chunk is read whole before it is written.
	req = copyRequest(key, chunk{0, 4000, 4096})
	out, st, err = c.Ioctl(src, smbtest.FsctlSrvCopyChunk, req, 12)
	if err != nil || st != smbtest.StatusSuccess {
		t.Fatalf("overlapping copy: %#x %v", st, err)
	}
	if got := parseCopyResult(t, out); got != (copyResult{1, 0, 4096}) {
		t.Fatalf("overlapping copy response %+v", got)
	}
	want = append(append([]byte(nil), data[:4000]...), data[:4096]...)
	want = append(want, data[8096:]...)
	if got := restRead(t, srv.files, "s", "src.bin"); !bytes.Equal(got, want) {
		t.Fatal("an overlapping copy within one file read bytes it had already overwritten")
	}
}

// TestCopyChunkRequestChecks: a key that names no open (a made-up one,
// or one whose open closed) is STATUS_OBJECT_NAME_NOT_FOUND; an output
// buffer too small for the answer is STATUS_INVALID_PARAMETER; a request
// beyond the limits (more than 256 chunks, a chunk over 1 MiB or empty,
// more than 16 MiB) is STATUS_INVALID_PARAMETER carrying the limits.
func TestCopyChunkRequestChecks(t *testing.T) {
	_, addr := serve(t, Limits{})
	c := dial(t, addr)
	src := openFile(t, c, "src.bin", accAllFile)
	if st, err := c.Write(src, 0, pattern(4096, 7)); err != nil || st != 0 {
		t.Fatalf("write: %#x %v", st, err)
	}
	dst := openFile(t, c, "dst.bin", accAllFile)
	key := resumeKeyOf(t, c, src)
	if again := resumeKeyOf(t, c, src); !bytes.Equal(again, key) {
		t.Fatal("a second resume key request named the open differently")
	}
	if _, st, _ := c.Ioctl(src, smbtest.FsctlSrvRequestResumeKey, nil, 31); st != smbtest.StatusInvalidParameter {
		t.Fatalf("resume key into 31 bytes: %#x, want STATUS_INVALID_PARAMETER", st)
	}

	bogus := bytes.Repeat([]byte("deadbeef"), 3)
	if _, st, _ := c.Ioctl(dst, smbtest.FsctlSrvCopyChunk, copyRequest(bogus, chunk{0, 0, 4096}), 12); st != smbtest.StatusObjectNameNotFound {
		t.Fatalf("made-up key: %#x, want STATUS_OBJECT_NAME_NOT_FOUND", st)
	}
	forged := append([]byte(nil), key...)
	forged[20] ^= 1
	if _, st, _ := c.Ioctl(dst, smbtest.FsctlSrvCopyChunk, copyRequest(forged, chunk{0, 0, 4096}), 12); st != smbtest.StatusObjectNameNotFound {
		t.Fatalf("altered key: %#x, want STATUS_OBJECT_NAME_NOT_FOUND", st)
	}
	if _, st, _ := c.Ioctl(dst, smbtest.FsctlSrvCopyChunk, copyRequest(key, chunk{0, 0, 4096}), 11); st != smbtest.StatusInvalidParameter {
		t.Fatalf("11-byte output: %#x, want STATUS_INVALID_PARAMETER", st)
	}

	many := make([]chunk, 257)
	for i := range many {
		many[i] = chunk{0, uint64(i) * 8, 8}
	}
	limits := copyResult{256, 1 << 20, 16 << 20}
	for name, req := range map[string][]byte{
		"257 chunks":        copyRequest(key, many...),
		"a 1 MiB+1 chunk":   copyRequest(key, chunk{0, 0, 1<<20 + 1}),
		"an empty chunk":    copyRequest(key, chunk{0, 0, 0}),
		"17 MiB":            copyRequest(key, repeatChunk(chunk{0, 0, 1 << 20}, 17)...),
		"a cut request":     copyRequest(key, chunk{0, 0, 4096})[:40],
		"a negative target": copyRequest(key, chunk{0, 1 << 63, 4096}),
	} {
		out, st, err := c.Ioctl(dst, smbtest.FsctlSrvCopyChunk, req, 12)
		if err != nil || st != smbtest.StatusInvalidParameter {
			t.Fatalf("%s: %#x %v, want STATUS_INVALID_PARAMETER", name, st, err)
		}
		if got := parseCopyResult(t, out); got != limits {
			t.Fatalf("%s: the answer carries %+v, want the limits %+v", name, got, limits)
		}
	}
	if data, _, _ := c.Read(dst, 0, 16); len(data) != 0 {
		t.Fatalf("a refused copy wrote %d bytes", len(data))
	}

	if st, err := c.CloseFile(src); err != nil || st != 0 {
		t.Fatalf("close: %#x %v", st, err)
	}
	if _, st, _ := c.Ioctl(dst, smbtest.FsctlSrvCopyChunk, copyRequest(key, chunk{0, 0, 4096}), 12); st != smbtest.StatusObjectNameNotFound {
		t.Fatalf("key of a closed open: %#x, want STATUS_OBJECT_NAME_NOT_FOUND", st)
	}
}

func repeatChunk(c chunk, n int) []chunk {
	out := make([]chunk, n)
	for i := range out {
		out[i] = c
	}
	return out
}

// TestCopyChunkAccessLocksAndEnd: the source needs read (or execute)
// access, the destination write access, and read access too for
// FSCTL_SRV_COPYCHUNK but not FSCTL_SRV_COPYCHUNK_WRITE; another open's
// byte-range lock on either range is STATUS_FILE_LOCK_CONFLICT; a chunk
// reaching past the source's end is STATUS_INVALID_VIEW_SIZE, and the
// answer counts the chunks copied before it.
func TestCopyChunkAccessLocksAndEnd(t *testing.T) {
	srv, addr := serve(t, Limits{})
	c := dial(t, addr)
	w := openFile(t, c, "src.bin", accAllFile)
	data := pattern(8192, 3)
	if st, err := c.Write(w, 0, data); err != nil || st != 0 {
		t.Fatalf("write: %#x %v", st, err)
	}
	full := openFile(t, c, "dst.bin", accAllFile)
	copyWith := func(src, dst smbtest.FileID, code uint32, chunks ...chunk) ([]byte, uint32) {
		t.Helper()
		out, st, err := c.Ioctl(dst, code, copyRequest(resumeKeyOf(t, c, src), chunks...), 12)
		if err != nil {
			t.Fatal(err)
		}
		return out, st
	}
	one := chunk{0, 0, 4096}

	attrsOnly := openFile(t, c, "src.bin", smbtest.ReadAttrs)
	if _, st := copyWith(attrsOnly, full, smbtest.FsctlSrvCopyChunk, one); st != smbtest.StatusAccessDenied {
		t.Fatalf("source without read access: %#x, want STATUS_ACCESS_DENIED", st)
	}
	execOnly := openFile(t, c, "src.bin", accExecuteFT|smbtest.ReadAttrs)
	if _, st := copyWith(execOnly, full, smbtest.FsctlSrvCopyChunk, one); st != smbtest.StatusSuccess {
		t.Fatalf("source with execute access: %#x, want success", st)
	}
	readOnly := openFile(t, c, "dst.bin", smbtest.ReadData)
	if _, st := copyWith(w, readOnly, smbtest.FsctlSrvCopyChunk, one); st != smbtest.StatusAccessDenied {
		t.Fatalf("destination without write access: %#x, want STATUS_ACCESS_DENIED", st)
	}
	writeOnly := openFile(t, c, "dst.bin", smbtest.WriteData|smbtest.ReadAttrs)
	if _, st := copyWith(w, writeOnly, smbtest.FsctlSrvCopyChunk, one); st != smbtest.StatusAccessDenied {
		t.Fatalf("FSCTL_SRV_COPYCHUNK to a destination without read access: %#x, want STATUS_ACCESS_DENIED", st)
	}
	if _, st := copyWith(w, writeOnly, smbtest.FsctlSrvCopyChunkWrite, chunk{4096, 0, 4096}); st != smbtest.StatusSuccess {
		t.Fatalf("FSCTL_SRV_COPYCHUNK_WRITE to a destination without read access: %#x, want success", st)
	}
	if got := restRead(t, srv.files, "s", "dst.bin"); !bytes.Equal(got, data[4096:]) {
		t.Fatal("REST does not read what FSCTL_SRV_COPYCHUNK_WRITE copied")
	}

	// Another open's lock on the source range, then on the target range.
	for _, tc := range []struct{ name, path string }{{"source", "src.bin"}, {"destination", "dst.bin"}} {
		locker := openFile(t, c, tc.path, accAllFile)
		if st, err := c.Lock(locker, 0, 4096, smbtest.LockExclusive|smbtest.FailNow); err != nil || st != 0 {
			t.Fatalf("lock: %#x %v", st, err)
		}
		out, st := copyWith(w, full, smbtest.FsctlSrvCopyChunk, one)
		if st != smbtest.StatusFileLockConflict {
			t.Fatalf("copy over a locked %s range: %#x, want STATUS_FILE_LOCK_CONFLICT", tc.name, st)
		}
		if got := parseCopyResult(t, out); got != (copyResult{}) {
			t.Fatalf("copy over a locked %s range answered %+v, want nothing copied", tc.name, got)
		}
		if st, err := c.CloseFile(locker); err != nil || st != 0 {
			t.Fatalf("close: %#x %v", st, err)
		}
	}

	out, st := copyWith(w, full, smbtest.FsctlSrvCopyChunk, chunk{0, 0, 4096}, chunk{4096, 4096, 8192})
	if st != statusInvalidViewSize {
		t.Fatalf("a chunk past the source's end: %#x, want STATUS_INVALID_VIEW_SIZE", st)
	}
	if got := parseCopyResult(t, out); got != (copyResult{1, 0, 4096}) {
		t.Fatalf("a chunk past the source's end answered %+v, want the first chunk counted", got)
	}
	if got := restRead(t, srv.files, "s", "dst.bin"); !bytes.Equal(got[:4096], data[:4096]) {
		t.Fatal("the chunk before the failing one was not copied")
	}
}

// TestCopyChunkAcrossShares: a resume key from an open on one share
// names it for a copy into an open on another share of the session.
func TestCopyChunkAcrossShares(t *testing.T) {
	srv, addr := serve(t, Limits{})
	if _, err := srv.files.CreateShare(t.Context(), file.ShareRef{Account: azauth.DevAccount, Share: "t"}, file.ShareSpec{}); err != nil {
		t.Fatal(err)
	}
	c := dial(t, addr)
	treeS := c.Tree()
	src := openFile(t, c, "src.bin", accAllFile)
	data := pattern(4096, 9)
	if st, err := c.Write(src, 0, data); err != nil || st != 0 {
		t.Fatalf("write: %#x %v", st, err)
	}
	key := resumeKeyOf(t, c, src)
	if err := c.ConnectTree("t"); err != nil {
		t.Fatal(err)
	}
	dst := openFile(t, c, "copy.bin", accAllFile)
	out, st, err := c.Ioctl(dst, smbtest.FsctlSrvCopyChunk, copyRequest(key, chunk{0, 0, 4096}, chunk{0, 4096, 4096}), 12)
	if err != nil || st != smbtest.StatusSuccess {
		t.Fatalf("copy across shares: %#x %v", st, err)
	}
	if got := parseCopyResult(t, out); got != (copyResult{2, 0, 8192}) {
		t.Fatalf("copy across shares answered %+v", got)
	}
	if got := restRead(t, srv.files, "t", "copy.bin"); !bytes.Equal(got, append(append([]byte(nil), data...), data...)) {
		t.Fatal("REST on the other share does not read the copy")
	}
	c.UseTree(treeS)
	if st, err := c.CloseFile(src); err != nil || st != 0 {
		t.Fatalf("close: %#x %v", st, err)
	}
}

// TestCopyChunkBreaksReadCaching: a copy into a file is a write to it:
// another client's read lease on the destination is broken.
func TestCopyChunkBreaksReadCaching(t *testing.T) {
	_, addr := serve(t, Limits{})
	a := dialWith(t, addr, smbtest.Options{Dialect: 0x0300, ClientGUID: [16]byte{1}})
	b := dialWith(t, addr, smbtest.Options{Dialect: 0x0300, ClientGUID: [16]byte{2}})
	src := openFile(t, a, "src.bin", accAllFile)
	if st, err := a.Write(src, 0, pattern(4096, 5)); err != nil || st != 0 {
		t.Fatalf("write: %#x %v", st, err)
	}
	dst := openFile(t, a, "dst.bin", accAllFile)
	key := [16]byte{0xC0}
	held, st, err := b.CreateWith("dst.bin", smbtest.OpenSpec{Access: smbtest.ReadData, Share: smbtest.ShareAll,
		Disposition: smbtest.Open, Oplock: smbtest.OplockLease, Lease: &smbtest.Lease{Key: key, State: smbtest.LeaseRead, V2: true}})
	if err != nil || st != 0 || held.LeaseState != smbtest.LeaseRead {
		t.Fatalf("read lease: %#x %v %+v", st, err, held)
	}
	if _, st, err := a.Ioctl(dst, smbtest.FsctlSrvCopyChunk, copyRequest(resumeKeyOf(t, a, src), chunk{0, 0, 4096}), 12); err != nil || st != 0 {
		t.Fatalf("copy: %#x %v", st, err)
	}
	br, ok := b.NextBreak(5 * time.Second)
	if !ok || !br.Lease || br.Key != key || br.Current != smbtest.LeaseRead || br.New != 0 {
		t.Fatalf("break: %+v %v, want the read lease broken to none", br, ok)
	}
}
