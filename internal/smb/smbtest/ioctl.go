package smbtest

import "errors"

// FSCTL codes.
const (
	FsctlSrvRequestResumeKey uint32 = 0x00140078
	FsctlSrvCopyChunk        uint32 = 0x001440F2
	FsctlSrvCopyChunkWrite   uint32 = 0x001480F2
)

// Ioctl sends an FSCTL on an open with input in and a MaxOutputResponse
// of maxOut, and returns the status and the output buffer (which an
// error status may carry too).
func (c *Client) Ioctl(id FileID, code uint32, in []byte, maxOut uint32) ([]byte, uint32, error) {
	var b []byte
	b = le.AppendUint16(b, 57)
	b = le.AppendUint16(b, 0)
	b = le.AppendUint32(b, code)
	b = append(b, id[:]...)
	b = le.AppendUint32(b, 64+56) // input offset
	b = le.AppendUint32(b, uint32(len(in)))
	b = le.AppendUint32(b, 0) // max input response
	b = le.AppendUint32(b, 0) // output offset
	b = le.AppendUint32(b, 0)
	b = le.AppendUint32(b, maxOut)
	b = le.AppendUint32(b, 1) // SMB2_0_IOCTL_IS_FSCTL
	b = le.AppendUint32(b, 0)
	b = append(b, in...)
	st, body, err := c.call(0x0B, b)
	if err != nil || len(body) < 48 {
		return nil, st, err
	}
	oOff, oLen := int(le.Uint32(body[32:]))-64, int(le.Uint32(body[36:]))
	if oLen == 0 {
		return nil, st, nil
	}
	if oOff < 0 || oOff+oLen > len(body) {
		return nil, st, errors.New("smbtest: bad ioctl response")
	}
	return body[oOff : oOff+oLen], st, nil
}

// Tree is the tree ID requests are sent on: the last tree connected,
// or the one UseTree set.
func (c *Client) Tree() uint32 {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.treeID
}

// UseTree sends the requests that follow on tree id.
func (c *Client) UseTree(id uint32) {
	c.mu.Lock()
	c.treeID = id
	c.mu.Unlock()
}
