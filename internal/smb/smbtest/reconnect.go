package smbtest

// SessionID is the session the client logged on with: what a later
// client names as its previous session (Options.PreviousSession).
func (c *Client) SessionID() uint64 {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.sessionID
}

// LockSeq is Lock with a lock sequence (MS-SMB2 2.2.26): index 1 to 64
// picks the open's sequence slot, seq (0 to 15) the number in it.
func (c *Client) LockSeq(id FileID, off, n uint64, flags uint32, index uint32, seq uint8) (uint32, error) {
	b := lockBody(id, off, n, flags)
	le.PutUint32(b[4:], index<<4|uint32(seq&0xF))
	st, _, err := c.call(0x0A, b)
	return st, err
}

// StatusUserSessionDeleted answers a request on a session that ended.
const StatusUserSessionDeleted uint32 = 0xC0000203

// appInstanceContext names SMB2_CREATE_APP_INSTANCE_ID.
const appInstanceContext = "\x45\xBC\xA6\x6A\xEF\xA7\xF7\x4A\x90\x08\xFA\x46\x2E\x14\x4D\x74"
