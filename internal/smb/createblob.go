package smb

import (
	"encoding/binary"
	"errors"

	"github.com/cerulean-db/cerulean/internal/azerr"
	"github.com/cerulean-db/cerulean/internal/file"
)

// The create contexts a CREATE may carry besides leases, durability, an
// allocation size and a security descriptor (MS-SMB2 2.2.13.2): a
// maximal access query ("MxAc"), an on-disk ID query ("QFid") and a
// timewarp token ("TWrp", a share snapshot's time).

// blobRequest is what those contexts ask of an open.
type blobRequest struct {
	maxAccess bool
	diskID    bool
}

// parseBlobs reads the maximal access and on-disk ID contexts; a
// malformed one is STATUS_INVALID_PARAMETER.
func parseBlobs(ctxs map[string][]byte) (blobRequest, uint32) {
	var b blobRequest
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

// contexts are the response contexts b asks for of the open made on n.
func (b blobRequest) contexts(n *file.Node) []createContext {
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
