package file

import (
	"context"

	"github.com/cerulean-db/cerulean/internal/azerr"
	"github.com/cerulean-db/cerulean/internal/kv/record"
)

// Allocation: an SMB client may reserve space for a file beyond its size
// (the allocation size create context, FileAllocationInformation). As
// on NTFS, the reservation, in whole clusters, is what the file reports
// as allocated while it is open, and what is beyond the end of the file
// is given back when its last handle closes (MS-FSCC 2.4.4). Nothing is
// really reserved: the stored bytes and the share's usage stay the
// file's size.

// ClusterSize is the allocation unit SMB reports sizes in.
const ClusterSize = 4096

// clusters rounds n up to whole clusters.
func clusters(n int64) int64 { return (n + ClusterSize - 1) / ClusterSize * ClusterSize }

// Allocated is the space the node reports as allocated: its size in
// whole clusters, or the reservation an open made when that is more.
func (n *Node) Allocated() int64 {
	if n.Dir {
		return 0
	}
	return max(clusters(n.Size), n.Allocation)
}

// reserve records size as reserved for the file n stored at key, when
// it is more than the file's size fills.
func (t *Tx) reserve(key []byte, n *Node, size int64) error {
	if n.Dir || size <= 0 {
		return nil
	}
	a := clusters(size)
	if a <= clusters(n.Size) {
		a = 0
	}
	if a == n.Allocation {
		return nil
	}
	n.Allocation = a
	return record.Store(t.tx, key, n)
}

// giveBackAllocation ends the reservation of the node l locates once no
// handle is open on it.
func (t *Tx) giveBackAllocation(acct, share string, l *located) error {
	rest, err := t.handlesOf(acct, share, l.node.ID)
	if err != nil || len(rest) > 0 {
		return err
	}
	l.node.Allocation = 0
	return record.Store(t.tx, l.key, l.node)
}

// SetHandleAllocation sets the allocation of the file a handle is open
// on (FileAllocationInformation): less than its size cuts the file
// there, as a new end of file does, leaving no reservation; more
// reserves the space until the last handle closes.
func (s *Service) SetHandleAllocation(ctx context.Context, ref HandleRef, size int64) (*Node, error) {
	if size < 0 || size > MaxFileSize {
		return nil, azerr.ErrOutOfRangeInput.WithMessage("A file holds 0 to 4 TiB.")
	}
	var out *Node
	err := s.Update(ctx, func(t *Tx) error {
		_, l, err := t.handleNode(ref.Account, ref.Share, ref.FileID, ref.HandleID)
		if err != nil {
			return err
		}
		out = l.node
		if l.node.Dir {
			return ErrIsDirectory
		}
		return t.reserve(l.key, l.node, size)
	})
	if err != nil || size >= out.Size {
		return out, err
	}
	return s.updateHandle(ctx, ref.Account, ref.Share, ref.FileID, ref.HandleID, func(t *Tx, _ *Handle, n *Node) error {
		n.Allocation = 0
		return t.resize(ref.Account, ref.Share, n, size)
	})
}
