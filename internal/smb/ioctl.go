package smb

// IOCTL codes.
const (
	fsctlValidateNegotiateInfo uint32 = 0x00140204
	fsctlDFSGetReferrals       uint32 = 0x00060194
	fsctlDFSGetReferralsEx     uint32 = 0x000601B0
	fsctlGetCompression        uint32 = 0x0009003C
	fsctlSetCompression        uint32 = 0x0009C040
	ioctlIsFSCTL               uint32 = 0x00000001
)

// ioctl answers IOCTL: FSCTL_VALIDATE_NEGOTIATE_INFO, which SMB 3.0
// clients send to detect a downgraded NEGOTIATE; no DFS (STATUS_NOT_FOUND,
// as a server without DFS answers); the compression queries; server-side
// copy (copychunk.go); resiliency (resilient.go); everything else STATUS_NOT_SUPPORTED.
func (c *conn) ioctl(r *request) response {
	b := r.b
	code := b.u32(4)
	inOff, inLen := b.u32(24), b.u32(28)
	maxOut := b.u32(44)
	in := b.buffer(inOff, inLen)
	if b.bad {
		return errResp(statusInvalidParameter)
	}
	switch code {
	case fsctlValidateNegotiateInfo:
		return c.validateNegotiate(r, in, maxOut)
	case fsctlDFSGetReferrals, fsctlDFSGetReferralsEx:
		return errResp(statusNotFound)
	}
	// Every other control acts on a file: a FileId that names no open
	// answers STATUS_FILE_CLOSED before the control itself is looked
	// at, as Windows does (smbtorture smb2.compound.related5).
	o, status := c.lookup(r, b.fileID(8))
	if status != statusSuccess {
		return errResp(status)
	}
	switch code {
	case fsctlGetCompression:
		// Azure Files compresses nothing: every file answers
		// COMPRESSION_FORMAT_NONE, as Windows does on a file system
		// without compression (smbtorture smb2.ioctl.compress_notsup_get).
		if maxOut < 2 {
			return errResp(statusInvalidParameter)
		}
		return ioctlResponse(code, o.id, []byte{0, 0})
	case fsctlSetCompression:
		// Setting "none" is accepted and changes nothing; any other
		// format is STATUS_NOT_SUPPORTED (compress_notsup_set).
		if len(in) < 2 {
			return errResp(statusInvalidParameter)
		}
		if le.Uint16(in) != 0 {
			return errResp(statusNotSupported)
		}
		return ioctlResponse(code, o.id, nil)
	case fsctlSrvRequestResumeKey:
		return requestResumeKey(o, maxOut)
	case fsctlSrvCopyChunk, fsctlSrvCopyChunkWrite:
		return c.copyChunks(r, code, o, in, maxOut)
	case fsctlLMRRequestResiliency:
		return c.requestResiliency(r, o, in)
	}
	return errResp(statusNotSupported)
}

// ioctlResponse is an IOCTL answer carrying out.
func ioctlResponse(code uint32, id fileID, out []byte) response {
	var w buf
	w.u16(49)
	w.u16(0)
	w.u32(code)
	w.fileID(id)
	w.u32(headerSize + 48) // input offset
	w.u32(0)
	w.u32(headerSize + 48) // output offset
	w.u32(uint32(len(out)))
	w.u32(0)
	w.u32(0)
	w.raw(out)
	return response{body: w.b}
}

// validateNegotiate compares what the client says it negotiated with
// what this connection saw. A mismatch means the NEGOTIATE was tampered
// with: the answer is an error, on which the client drops the
// connection. The answer is signed, which is what makes it trustworthy.
func (c *conn) validateNegotiate(r *request, in []byte, maxOut uint32) response {
	if len(in) < 24 || maxOut < 24 {
		return errResp(statusInvalidParameter)
	}
	caps, secMode, count := le.Uint32(in), le.Uint16(in[20:]), int(le.Uint16(in[22:]))
	if 24+2*count > len(in) || c.dialect == dialect311 {
		return errResp(statusInvalidParameter)
	}
	best := uint16(0)
	for i := range count {
		d := le.Uint16(in[24+2*i:])
		for _, s := range served {
			if d == s && d > best && s != dialect311 {
				best = d
			}
		}
	}
	if caps != c.clientCaps || secMode != c.clientSecMode || [16]byte(in[4:20]) != c.clientGUID || best != c.dialect {
		return errResp(statusAccessDenied)
	}
	var out buf
	out.u32(c.serverCaps(c.dialect))
	out.raw(c.srv.guid[:])
	out.u16(secSigningEnabled)
	out.u16(c.dialect)
	var w buf
	w.u16(49)
	w.u16(0)
	w.u32(fsctlValidateNegotiateInfo)
	w.fileID(relatedFileID)
	w.u32(headerSize + 48) // input offset
	w.u32(0)
	w.u32(headerSize + 48) // output offset
	w.u32(uint32(len(out.b)))
	w.u32(0)
	w.u32(0)
	w.raw(out.b)
	return response{body: w.b, signWith: r.sess}
}
