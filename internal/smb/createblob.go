package smb

import (
	"encoding/binary"
	"errors"

	"github.com/cerulean-db/cerulean/internal/azerr"
	"github.com/cerulean-db/cerulean/internal/file"
)

// The create contexts a CREATE may carry besides leases, durability and
// a security descriptor (MS-SMB2 2.2.13.2): an allocation size
// ("AlSi"), a maximal access query ("MxAc"), an on-disk ID query
// ("QFid") and a timewarp token ("TWrp", a share snapshot's time).

// blobRequest is what those contexts ask of an open.
type blobRequest struct {
	alloc     uint64 // the allocation asked for, 0 for none
	maxAccess bool
	diskID    bool
}

// parseBlobs reads the allocation, maximal access and on-disk ID
// contexts; a malformed one is STATUS_INVALID_PARAMETER.
func parseBlobs(ctxs map[string][]byte) (blobRequest, uint32) {
	var b blobRequest
	if data, ok := ctxs["AlSi"]; ok {
		if len(data) < 8 {
			return b, statusInvalidParameter
		}
		b.alloc = binary.LittleEndian.Uint64(data)
	}
	if data, ok := ctxs["MxAc"]; ok {
		if len(data) != 0 && len(data) < 8 { // an optional timestamp
			return b, statusInvalidParameter
		}
		b.maxAccess = true
	}
	_, b.diskID = ctxs["QFid"]
	return b, statusSuccess
}

// timewarp answers a CREATE's timewarp token: the share snapshot taken
// at that time must exist (else STATUS_OBJECT_NAME_NOT_FOUND, as Windows
// answers a time no previous version has); opening one is not served
// here, so an existing snapshot answers STATUS_NOT_SUPPORTED.
func (c *conn) timewarp(r *request, data []byte) uint32 {
	if len(data) < 8 {
		return statusInvalidParameter
	}
	at := fromFiletime(binary.LittleEndian.Uint64(data))
	ns := file.SnapshotNamespace(r.tree.share, at.UTC().Format(file.SnapshotLayout))
	ctx, cancel := c.opCtx()
	defer cancel()
	_, err := c.srv.files.GetShare(ctx, file.ShareRef{Account: r.sess.account, Share: ns}, "")
	switch {
	case err == nil:
		return statusNotSupported
	case errors.Is(err, azerr.ErrShareNotFound):
		return statusObjectNameNotFound
	}
	return statusInternalError
}

// contexts are the response contexts b asks for of the open o made on
// n; first it records with the open the allocation asked for, when the
// open made the file's content (created, overwritten or superseded it).
func (b blobRequest) contexts(o *open, n *file.Node, action file.OpenAction) []createContext {
	if b.alloc != 0 && !n.Dir && action != file.Opened {
		o.allocate(b.alloc)
	}
	var cs []createContext
	if b.maxAccess {
		// With the storage account key a client is the superuser (ACLs
		// are not enforced, as on Azure Files): every right.
		cs = append(cs, createContext{"MxAc", binary.LittleEndian.AppendUint32(make([]byte, 4), accAll)})
	}
	if b.diskID {
		id := binary.LittleEndian.AppendUint64(nil, n.ID)
		cs = append(cs, createContext{"QFid", append(id, make([]byte, 24)...)})
	}
	return cs
}

// withAllocation writes the allocation the open sees into a CREATE
// response's AllocationSize.
func withAllocation(body []byte, o *open, n *file.Node) []byte {
	if len(body) >= 48 {
		binary.LittleEndian.PutUint64(body[40:], o.allocation(n))
	}
	return body
}
