package file

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/cerulean-db/cerulean/internal/azerr"
	"github.com/cerulean-db/cerulean/internal/azhttp"
	"github.com/cerulean-db/cerulean/internal/kv"
	"github.com/cerulean-db/cerulean/internal/kv/record"
	"github.com/cerulean-db/cerulean/internal/lease"
)

// copyBatch is how many bytes of content one copy transaction writes:
// well under kv.MaxTxnSize, so a copy of any size commits in bounded
// transactions. Data objects belong to one file in this layout, so a copy
// writes the bytes again rather than sharing them.
const copyBatch = 4 << 20

// copyBatchPieces bounds the extents one copy transaction writes, so that
// a fragmented source stays within the IDs (1<<idBits) and the record
// bytes one transaction may hold.
const copyBatchPieces = 1024

// Copy statuses, as x-ms-copy-status reports them.
const (
	CopyPending = "pending"
	CopySuccess = "success"
	CopyAborted = "aborted"
	CopyFailed  = "failed"
)

// CopySMB is what a Copy File asks of the destination's SMB properties:
// each comes from the source, is given, or takes the default of a new
// file (Archive, the request's time, the inherited permission).
type CopySMB struct {
	SMBChange // given values; "" and nil take the defaults
	// AttributesFromSource and the like copy the source's value ("source").
	AttributesFromSource    bool
	CreationTimeFromSource  bool
	LastWriteTimeFromSource bool
	ChangeTimeFromSource    bool
	PermissionFromSource    bool
	// SetArchive adds the Archive attribute whatever the others say.
	SetArchive bool
	// ModeFromSource and OwnerFromSource copy an NFS source's mode, and
	// owner and group (x-ms-file-mode-copy-mode, x-ms-file-owner-copy-mode:
	// source); otherwise the request's x-ms-mode and the like apply (nfs.go).
	ModeFromSource, OwnerFromSource bool
}

func (c CopySMB) resolve(src *Node, t *Tx) SMB {
	s := c.smb(t.now, "Archive")
	if c.AttributesFromSource {
		s.Attributes = src.SMB.Attributes
	}
	if c.CreationTimeFromSource {
		s.CreationTime = src.SMB.CreationTime
	}
	if c.LastWriteTimeFromSource {
		s.LastWriteTime = src.SMB.LastWriteTime
	}
	if c.ChangeTimeFromSource {
		s.ChangeTime = src.SMB.ChangeTime
	}
	if c.PermissionFromSource {
		s.Permission = src.SMB.Permission
	}
	if c.SetArchive && !hasAttribute(s.Attributes, "Archive") {
		s.Attributes = addAttribute(s.Attributes, "Archive")
	}
	return s
}

// addAttribute adds name to attrs, keeping Azure's order.
func addAttribute(attrs, name string) string {
	var out []string
	for _, a := range ntfsAttributes {
		if a == name || hasAttribute(attrs, a) {
			out = append(out, a)
		}
	}
	return strings.Join(out, " | ")
}

// CopyRequest is one Copy File from a file of this server.
type CopyRequest struct {
	SourceURL                  string // reported as x-ms-copy-source
	SrcAcct, SrcShare, SrcPath string
	Acct, Share, Path          string
	SMB                        CopySMB
	Metadata                   azhttp.Metadata // nil copies the source's
	// IgnoreReadOnly lets the copy replace a read-only destination.
	IgnoreReadOnly bool
	Dest           Preconditions
}

// CopyFile copies a file of this server to the destination path, with
// its content headers and (unless the request gives others) metadata. The
// source is read from one snapshot. The destination is created, pending,
// by the transaction that writes the first batch of at most copyBatch
// bytes, so a small copy is one transaction; further batches follow in
// transactions of their own and the last marks the copy a success. A copy
// that fails on the way is marked failed and its partial content dropped;
// one a crash cuts short stays pending until Abort Copy File. The answer
// is the destination as the copy left it.
func (s *Service) CopyFile(ctx context.Context, req CopyRequest) (*Node, error) {
	var out *Node
	err := s.view(ctx, func(v *Tx) error {
		src, err := v.GetFileProperties(Ref{Account: req.SrcAcct, Share: req.SrcShare, Path: req.SrcPath}, Preconditions{})
		if err != nil {
			return err
		}
		// Reading the source is a read its open handles must share.
		if err := v.checkUse(req.SrcAcct, req.SrcShare, src, useRead); err != nil {
			return err
		}
		if err := v.restRead(req.SrcAcct, req.SrcShare, src.ID, 0, src.Size); err != nil {
			return err
		}
		exts, err := overlapping(v.r, req.SrcAcct, req.SrcShare, src.ID, 0, src.Size)
		if err != nil {
			return err
		}
		batches := copyBatches(exts)
		copyID := lease.NewID()
		// The first batch commits with the destination's creation, so a
		// copy of up to copyBatch bytes is one transaction.
		if err := s.Update(ctx, func(t *Tx) error {
			n, err := t.startCopy(req, src, copyID, len(batches) == 0)
			if err == nil && len(batches) > 0 {
				n, err = t.copyBatch(req, v.r, src, copyID, batches[0], len(batches) == 1)
			}
			out = n
			return err
		}); err != nil {
			return err
		}
		for i := 1; i < len(batches); i++ {
			b := batches[i]
			err := s.Update(ctx, func(t *Tx) error {
				n, err := t.copyBatch(req, v.r, src, copyID, b, i == len(batches)-1)
				if err == nil {
					out = n
				}
				return err
			})
			if errors.Is(err, errCopyEnded) {
				return nil // aborted or overwritten meanwhile: report what is there
			}
			if err != nil {
				s.failCopy(ctx, req, copyID, err)
				return err
			}
		}
		return nil
	})
	return out, err
}

// copyBatches splits a source's extents into pieces, grouped into
// batches of at most copyBatch bytes and copyBatchPieces pieces.
func copyBatches(exts []extent) [][]extent {
	var out [][]extent
	var cur []extent
	size := int64(0)
	for _, e := range exts {
		for off := int64(0); off < e.Size; {
			n := min(e.Size-off, copyBatch-size)
			p := e
			p.Offset, p.DataOff, p.Size = e.Offset+off, e.DataOff+off, n
			cur = append(cur, p)
			off, size = off+n, size+n
			if size == copyBatch || len(cur) == copyBatchPieces {
				out, cur, size = append(out, cur), nil, 0
			}
		}
	}
	if len(cur) > 0 {
		out = append(out, cur)
	}
	return out
}

// startCopy creates the destination of a copy, pending unless done
// (the source has no content to copy).
func (t *Tx) startCopy(req CopyRequest, src *Node, copyID string, done bool) (*Node, error) {
	if req.Path == "" {
		return nil, azerr.ErrResourceAlreadyExists.WithMessage("The share's root is a directory.")
	}
	l, err := t.locate(req.Acct, req.Share, req.Path)
	if err != nil {
		return nil, err
	}
	meta := req.Metadata
	if meta == nil {
		meta = src.Metadata
	}
	if err := t.resolvePermission(req.Acct, req.Share, &req.SMB.SMBChange); err != nil {
		return nil, err
	}
	replace := useReplace
	replace.modifies = !req.IgnoreReadOnly
	n, err := t.createFile(req.Acct, req.Share, req.Path, src.Size, src.Headers, req.SMB.SMBChange, meta, req.Dest, replace)
	if err != nil {
		return nil, err
	}
	n.SMB = req.SMB.resolve(src, t)
	req.SMB.resolveNFS(n, src)
	// A permission copied from the source, or named by key, is stored
	// in this share as one set inline is.
	if n.SMB.Permission != "" {
		if _, err := t.storePermission(req.Acct, req.Share, n.SMB.Permission); err != nil {
			return nil, err
		}
	}
	n.Copy = &CopyInfo{ID: copyID, Source: req.SourceURL, Status: CopyPending, Total: src.Size}
	if done {
		n.Copy.Status, n.Copy.Copied, n.Copy.Completed = CopySuccess, src.Size, t.now
	}
	return n, record.Store(t.tx, l.key, n)
}

// errCopyEnded: the destination no longer waits for this copy.
var errCopyEnded = errors.New("file: copy ended")

// pendingCopy returns the destination while it still waits for copyID.
func (t *Tx) pendingCopy(acct, share, path, copyID string, pre Preconditions) (*located, error) {
	l, err := t.existingFor(acct, share, path, false, Preconditions{LeaseID: pre.LeaseID}, useAttributes)
	if errors.Is(err, azerr.ErrResourceNotFound) {
		return nil, errCopyEnded
	}
	if err != nil {
		return nil, err
	}
	if c := l.node.Copy; c == nil || c.ID != copyID || c.Status != CopyPending {
		return nil, errCopyEnded
	}
	return l, nil
}

// copyBatch writes one batch of a copy's pieces, read from the source
// snapshot r, into the destination.
func (t *Tx) copyBatch(req CopyRequest, r kv.Reader, src *Node, copyID string, pieces []extent, last bool) (*Node, error) {
	l, err := t.pendingCopy(req.Acct, req.Share, req.Path, copyID, req.Dest)
	if err != nil {
		return nil, err
	}
	n := l.node
	for _, p := range pieces {
		var buf bytes.Buffer
		if err := objects.Read(r, dataOwner(req.SrcAcct, req.SrcShare, src.ID), p.Data, p.DataOff, p.Size, &buf); err != nil {
			return nil, err
		}
		id, err := t.newID()
		if err != nil {
			return nil, err
		}
		if err := objects.Write(t.tx, dataOwner(req.Acct, req.Share, n.ID), id, buf.Bytes()); err != nil {
			return nil, err
		}
		e := extent{Data: id, Offset: p.Offset, Size: p.Size, DataSize: p.Size}
		if err := record.Store(t.tx, extentKey(req.Acct, req.Share, n.ID, p.Offset+p.Size), e); err != nil {
			return nil, err
		}
		n.Copy.Copied += p.Size
	}
	if last {
		n.Copy.Status, n.Copy.Copied, n.Copy.Completed = CopySuccess, n.Copy.Total, t.now
	}
	n.Version, n.Modified = t.tx.Version(), t.now
	return n, record.Store(t.tx, l.key, n)
}

// failCopy marks a copy that could not finish as failed and drops what
// it wrote, on a context of its own: the request's may be what ended.
func (s *Service) failCopy(ctx context.Context, req CopyRequest, copyID string, cause error) {
	err := s.Update(context.WithoutCancel(ctx), func(t *Tx) error {
		l, err := t.pendingCopy(req.Acct, req.Share, req.Path, copyID, req.Dest)
		if err != nil {
			return err
		}
		return t.endCopy(req.Acct, req.Share, l, CopyFailed, fmt.Sprintf("The copy failed: %v", cause))
	})
	if err != nil && !errors.Is(err, errCopyEnded) {
		s.log.Error("copy file: mark failed", "share", req.Share, "path", req.Path, "err", err)
	}
}

// endCopy ends a pending copy with status: the destination is left with
// zero length and its metadata.
func (t *Tx) endCopy(acct, share string, l *located, status, description string) error {
	n := l.node
	if err := t.dropContent(acct, share, n.ID); err != nil {
		return err
	}
	if err := t.ChargeUsage(acct, share, l.key, -n.Size); err != nil {
		return err
	}
	n.Size = 0
	n.Copy.Status, n.Copy.Description, n.Copy.Completed = status, description, t.now
	n.Version, n.Modified = t.tx.Version(), t.now
	return record.Store(t.tx, l.key, n)
}

// AbortCopy aborts a pending Copy File, leaving the destination with zero
// length and its metadata. Copies here finish before they answer, so a
// copy is pending only when a crash cut it short.
func (s *Service) AbortCopy(ctx context.Context, ref Ref, copyID string, pre Preconditions) error {
	acct, share, path := ref.Account, ref.Share, ref.Path
	return s.Update(ctx, func(t *Tx) error {
		l, err := t.existingFor(acct, share, path, false, pre, useAttributes)
		if err != nil {
			return err
		}
		c := l.node.Copy
		switch {
		case c == nil || c.Status != CopyPending:
			return azerr.ErrNoPendingCopyOperation
		case c.ID != copyID:
			return azerr.ErrCopyIdMismatch
		}
		return t.endCopy(acct, share, l, CopyAborted, "The copy was aborted.")
	})
}
