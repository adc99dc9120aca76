package smb

import "time"

// Resilient handles (MS-SMB2 3.3.5.15.9): FSCTL_LMR_REQUEST_RESILIENCY
// asks that an open, whatever its caching, be kept for a timeout after
// its connection drops. A resilient open is kept and reclaimed as a
// durable one is (durable.go: disconnectSession, reconnect with DHnC),
// for its own timeout, and checks lock sequences on every dialect from
// 2.1 (3.3.5.14, locksequence.go). It stops being durable: a v2 create
// GUID no longer names it.

// fsctlLMRRequestResiliency is FSCTL_LMR_REQUEST_RESILIENCY.
const fsctlLMRRequestResiliency uint32 = 0x001401D4

// Resiliency timeouts: what a request of 0 gets, and the most a request
// may ask (more is STATUS_INVALID_PARAMETER). They are the durable ones.
const (
	resiliencyDefault = durableDefault
	resiliencyMax     = durableMax
)

// requestResiliency answers FSCTL_LMR_REQUEST_RESILIENCY on o: the input
// is a NETWORK_RESILIENCY_REQUEST (Timeout in milliseconds, Reserved).
// SMB 2.0.2 does not have it (STATUS_INVALID_DEVICE_REQUEST, as
// Windows answers).
func (c *conn) requestResiliency(r *request, o *open, in []byte) response {
	if c.dialect == dialect202 {
		return errResp(statusInvalidDeviceRequest)
	}
	if len(in) < 8 {
		return errResp(statusInvalidParameter)
	}
	timeout := time.Duration(le.Uint32(in)) * time.Millisecond
	switch {
	case timeout > resiliencyMax:
		return errResp(statusInvalidParameter)
	case timeout == 0:
		timeout = resiliencyDefault
	}
	du := &durable{resilient: true, client: c.clientGUID, account: r.sess.account, timeout: timeout}
	dt := c.srv.durables
	dt.mu.Lock()
	if old := o.durable; old != nil && old.v2 {
		if k := createKey(old.client, old.createGUID); dt.byCreateGUID[k] == o {
			delete(dt.byCreateGUID, k)
		}
	}
	o.durable = du
	dt.mu.Unlock()
	return ioctlResponse(fsctlLMRRequestResiliency, o.id, nil)
}
