package smb

import (
	"strings"
)

// Application instance IDs (MS-SMB2 3.3.5.9.13): a clustered application
// that fails over to another node opens its files again from there with
// the SMB2_CREATE_APP_INSTANCE_ID context it used before; the server then
// closes the opens the instance left, on the same file of the same share
// from another client, so the new open neither waits for their durable
// timeout nor breaks their caching.

// appInstanceContext is the context's name, a GUID.
const appInstanceContext = "\x45\xBC\xA6\x6A\xEF\xA7\xF7\x4A\x90\x08\xFA\x46\x2E\x14\x4D\x74"

// parseAppInstance reads the SMB2_CREATE_APP_INSTANCE_ID context
// (StructureSize 20, Reserved, AppInstanceId) of an SMB 3.x CREATE; nil
// when there is none.
func parseAppInstance(ctxs map[string][]byte, smb3 bool) (*[16]byte, uint32) {
	data, ok := ctxs[appInstanceContext]
	if !ok || !smb3 {
		return nil, statusSuccess
	}
	if len(data) < 20 || le.Uint16(data) != 20 {
		return nil, statusInvalidParameter
	}
	var id [16]byte
	copy(id[:], data[4:20])
	return &id, statusSuccess
}

// closeAppInstance closes the opens an earlier instance of the
// application left on ref's path: those with the same application
// instance ID, on the same share of the same account, made by a client
// with another client GUID (MS-SMB2 3.3.4.17: the client later finds
// them STATUS_FILE_CLOSED).
func (c *conn) closeAppInstance(id *[16]byte, account, share, path string) {
	if id == nil {
		return
	}
	dt := c.srv.durables
	dt.mu.Lock()
	var found []*open
	for o := range dt.apps[*id] {
		found = append(found, o)
	}
	dt.mu.Unlock()
	same := func(o *open) bool { return o.tree.share == share && strings.EqualFold(o.path, path) }
	for _, o := range found {
		c.srv.leases.mu.Lock()
		oc, s := o.conn, o.sess
		c.srv.leases.mu.Unlock()
		if oc == nil {
			// Disconnected: only a durable open lives on so, and nothing
			// renames it meanwhile.
			dt.mu.Lock()
			other := o.durable != nil && o.durable.client != c.clientGUID && o.durable.account == account
			dt.mu.Unlock()
			if other && same(o) {
				c.srv.expireDurable(o)
			}
			continue
		}
		if oc.clientGUID == c.clientGUID || s.account != account {
			continue
		}
		s.mu.Lock() // a rename changes the open's path under it
		mine := s.opens[o.id.Volatile] == o && same(o)
		if mine {
			delete(s.opens, o.id.Volatile)
		}
		s.mu.Unlock()
		if mine {
			oc.release(s, o)
		}
	}
}

// noteAppInstance records the application instance an open was made
// for; forget drops it.
func (s *Server) noteAppInstance(o *open, id *[16]byte) {
	if id == nil {
		return
	}
	dt := s.durables
	dt.mu.Lock()
	defer dt.mu.Unlock()
	o.appInstance = id
	set := dt.apps[*id]
	if set == nil {
		set = map[*open]struct{}{}
		dt.apps[*id] = set
	}
	set[o] = struct{}{}
}

// forgetAppInstance drops a closing open from the application instance
// table.
func (dt *durableTable) forgetAppInstance(o *open) {
	dt.mu.Lock()
	defer dt.mu.Unlock()
	if o.appInstance == nil {
		return
	}
	set := dt.apps[*o.appInstance]
	delete(set, o)
	if len(set) == 0 {
		delete(dt.apps, *o.appInstance)
	}
}
