package smb

import (
	"encoding/base64"
	"errors"
	"math"

	"github.com/cerulean-db/cerulean/internal/azerr"
	"github.com/cerulean-db/cerulean/internal/file"
)

// Info types and classes (MS-FSCC 2.4, 2.5).
const (
	infoFile       = 1
	infoFilesystem = 2
	infoSecurity   = 3

	fileBasicInformation          = 4
	fileStandardInformation       = 5
	fileInternalInformation       = 6
	fileEaInformation             = 7
	fileAccessInformation         = 8
	fileRenameInformation         = 10
	fileDispositionInformation    = 13
	filePositionInformation       = 14
	fileModeInformation           = 16
	fileAlignmentInformation      = 17
	fileAllInformation            = 18
	fileAllocationInformation     = 19
	fileEndOfFileInformation      = 20
	fileAlternateNameInformation  = 21
	fileStreamInformation         = 22
	fileNetworkOpenInformation    = 34
	fileAttributeTagInformation   = 35
	fileDispositionInformationEx  = 64
	fileNormalizedNameInformation = 48
	fsVolumeInformation           = 1
	fsSizeInformation             = 3
	fsDeviceInformation           = 4
	fsAttributeInformation        = 5
	fsControlInformation          = 6
	fsFullSizeInformation         = 7
	fsObjectIDInformation         = 8
	fsSectorSizeInformation       = 11
	bytesPerSector                = 512
	sectorsPerUnit                = 8 // 4 KiB clusters
	bytesPerUnit                  = bytesPerSector * sectorsPerUnit
	// fileSystemAttributes: case-sensitive search, case-preserved names,
	// Unicode names, persistent ACLs (security descriptors are kept) and
	// named streams.
	fileSystemAttributes uint32 = 0x00000001 | 0x00000002 | 0x00000004 | 0x00000008 | 0x00040000
)

// queryInfo answers QUERY_INFO for the file and file-system classes
// clients use and for security descriptors; the rest is
// STATUS_NOT_SUPPORTED (quotas are not served).
func (c *conn) queryInfo(r *request) response {
	b := r.b
	typ, class := b.u8(2), b.u8(3)
	outLen := b.u32(4)
	id := b.fileID(24)
	o, st := c.openOf(r, id)
	if o == nil {
		return errResp(st)
	}
	var data []byte
	var minLen int
	switch typ {
	case infoFile:
		if class == fileAlternateNameInformation {
			// No 8.3 short names, as on a volume that does not make them.
			return errResp(statusObjectNameNotFound)
		}
		n, err := c.node(r, o)
		if err != nil {
			return c.gone(r, o, err)
		}
		var ok bool
		data, minLen, ok = fileInfo(class, o, n)
		if !ok {
			return errResp(statusNotSupported)
		}
	case infoFilesystem:
		ctx, cancel := c.opCtx()
		sh, err := c.srv.files.GetShare(ctx, file.ShareRef{Account: r.sess.account, Share: o.tree.share}, "")
		cancel()
		if err != nil {
			return c.gone(r, o, err)
		}
		var ok bool
		data, minLen, ok = fsInfo(class, o.tree.share, sh)
		if !ok {
			return errResp(statusNotSupported)
		}
	case infoSecurity:
		return c.querySecurity(r, o, b.u32(16), outLen)
	default:
		return errResp(statusNotSupported)
	}
	// A buffer smaller than the class's structure (its fixed part and
	// the first, padded, character of a variable name) is
	// STATUS_INFO_LENGTH_MISMATCH; one that holds the structure but not
	// all of a variable part gets what fits and STATUS_BUFFER_OVERFLOW,
	// as Windows answers (smbtorture smb2.getinfo.q*_buffercheck).
	status := statusSuccess
	if outLen < uint32(minLen) {
		return errResp(statusInfoLengthMismatch)
	}
	if uint32(len(data)) > outLen {
		data, status = data[:outLen], statusBufferOverflow
	}
	var w buf
	w.u16(9)
	w.u16(headerSize + 8)
	w.u32(uint32(len(data)))
	if len(data) == 0 {
		w.u8(0)
	}
	w.raw(data)
	return response{status: status, body: w.b}
}

// Security information parts a query asks for (MS-DTYP 2.4.7).
const (
	ownerSecurityInformation = 0x1
	groupSecurityInformation = 0x2
	daclSecurityInformation  = 0x4
)

// querySecurity answers a security descriptor query from the permission
// kept with the directory or file (the one Files REST reads and sets as
// x-ms-file-permission): the owner, group and DACL asked for, in a
// self-relative descriptor. A SACL is not kept, so none is returned. A
// buffer too small for it answers STATUS_BUFFER_TOO_SMALL with the size
// needed, as Windows does (smbtorture smb2.getinfo.qsec_buffercheck).
func (c *conn) querySecurity(r *request, o *open, parts, outLen uint32) response {
	if o.granted&accReadControl == 0 {
		return errResp(statusAccessDenied)
	}
	n, err := c.node(r, o)
	if err != nil {
		return c.gone(r, o, err)
	}
	full, err := file.Descriptor(n.PermissionSDDL())
	if err != nil {
		return errResp(statusInternalError)
	}
	sd := selectDescriptor(full, parts)
	if uint32(len(sd)) > outLen {
		var w buf
		w.u16(9)
		w.u16(0)
		w.u32(4)
		w.u32(uint32(len(sd)))
		return response{status: statusBufferTooSmall, body: w.b}
	}
	var w buf
	w.u16(9)
	w.u16(headerSize + 8)
	w.u32(uint32(len(sd)))
	w.raw(sd)
	return response{body: w.b}
}

// descriptor is a security descriptor's parts: each nil when absent.
type descriptor struct {
	owner, group, dacl []byte
	daclControl        uint16 // the DACL's control bits: present, protected, auto-inherited
	// nullDACL is a DACL present with no ACL: no access control.
	nullDACL bool
}

const daclControlBits = 0x0004 | 0x0008 | 0x0100 | 0x0400 | 0x1000

// parseDescriptor splits a self-relative security descriptor into its
// owner, group and DACL; ok is false when it is malformed.
func parseDescriptor(sd []byte) (d descriptor, ok bool) {
	if len(sd) < 20 || sd[0] != 1 {
		return d, false
	}
	ok = true
	part := func(at int, sid bool) []byte {
		off := int(le.Uint32(sd[at:]))
		if off == 0 {
			return nil
		}
		if off < 20 || off+8 > len(sd) {
			ok = false
			return nil
		}
		size := int(le.Uint16(sd[off+2:])) // an ACL's size
		if sid {
			size = 8 + 4*int(sd[off+1])
		}
		if size < 8 || off+size > len(sd) {
			ok = false
			return nil
		}
		return sd[off : off+size]
	}
	d.owner, d.group = part(4, true), part(8, true)
	control := le.Uint16(sd[2:])
	if control&0x0004 != 0 {
		// Present with no ACL is a null DACL: dacl stays nil.
		d.dacl = part(16, false)
		d.nullDACL = d.dacl == nil
		d.daclControl = control & daclControlBits
	}
	return d, ok
}

// encode builds the self-relative descriptor of d's parts that parts
// (security information bits) asks for.
func (d descriptor) encode(parts uint32) []byte {
	out := make([]byte, 20)
	out[0] = 1
	control := uint16(0x8000) // self-relative
	add := func(at int, data []byte) {
		if data != nil {
			le.PutUint32(out[at:], uint32(len(out)))
			out = append(out, data...)
		}
	}
	if parts&ownerSecurityInformation != 0 {
		add(4, d.owner)
	}
	if parts&groupSecurityInformation != 0 {
		add(8, d.group)
	}
	if parts&daclSecurityInformation != 0 && (d.dacl != nil || d.nullDACL) {
		control |= d.daclControl
		add(16, d.dacl)
	}
	le.PutUint16(out[2:], control)
	return out
}

// selectDescriptor rebuilds a self-relative security descriptor with
// only the parts asked for.
func selectDescriptor(sd []byte, parts uint32) []byte {
	d, _ := parseDescriptor(sd)
	return d.encode(parts)
}

// setSecurity answers a security descriptor SET_INFO: the owner, group
// or DACL it carries (as its security information bits say) replace
// those of the permission kept with the directory or file, which Files
// REST then reads as x-ms-file-permission. The owner and group need
// WRITE_OWNER access, the DACL WRITE_DAC. A SACL is not kept.
func (c *conn) setSecurity(r *request, o *open, parts uint32, in []byte) response {
	parts &= ownerSecurityInformation | groupSecurityInformation | daclSecurityInformation
	if parts&(ownerSecurityInformation|groupSecurityInformation) != 0 && o.granted&accWriteOwner == 0 ||
		parts&daclSecurityInformation != 0 && o.granted&accWriteDAC == 0 {
		return errResp(statusAccessDenied)
	}
	set, ok := parseDescriptor(in)
	if !ok {
		return errResp(statusInvalidSecurityDescr)
	}
	n, err := c.node(r, o)
	if err != nil {
		return c.gone(r, o, err)
	}
	cur, err := file.Descriptor(n.SMB.Permission)
	if err != nil {
		return errResp(statusInternalError)
	}
	d, _ := parseDescriptor(cur)
	if parts&ownerSecurityInformation != 0 && set.owner != nil {
		d.owner = set.owner
	}
	if parts&groupSecurityInformation != 0 && set.group != nil {
		d.group = set.group
	}
	if parts&daclSecurityInformation != 0 {
		// A descriptor without a DACL sets a null one (no access
		// control), as on Windows; SDDL writes it NO_ACCESS_CONTROL.
		d.dacl, d.daclControl, d.nullDACL = set.dacl, set.daclControl|0x0004, set.dacl == nil
	}
	sddl, err := file.BinaryToSDDL(base64.StdEncoding.EncodeToString(d.encode(ownerSecurityInformation | groupSecurityInformation | daclSecurityInformation)))
	if err != nil {
		return errResp(statusInvalidSecurityDescr)
	}
	ctx, cancel := c.opCtx()
	defer cancel()
	if _, err := c.srv.files.SetHandleProperties(ctx, o.handle(r.sess.account), file.SMBUpdate{Permission: &sddl}); err != nil {
		if errors.Is(err, azerr.ErrFileInvalidPermission) {
			return errResp(statusInvalidSecurityDescr)
		}
		return c.gone(r, o, err)
	}
	return response{body: []byte{2, 0}}
}

// fileInfo encodes one file information class; minLen is the size of
// its structure in MS-FSCC (for a variable-length one, with one name
// character, padded to 8), the least output buffer a query may give.
func fileInfo(class uint8, o *open, n *file.Node) (data []byte, minLen int, ok bool) {
	var w buf
	switch class {
	case fileBasicInformation:
		basic(&w, n)
	case fileStandardInformation:
		standard(&w, n, allocation(n))
	case fileInternalInformation:
		w.u64(n.ID)
	case fileEaInformation, fileAlignmentInformation:
		w.u32(0)
	case fileModeInformation:
		w.u32(o.mode.Load())
	case fileAccessInformation:
		w.u32(o.granted)
	case filePositionInformation:
		w.u64(o.position.Load())
	case fileAllInformation:
		basic(&w, n)
		standard(&w, n, allocation(n))
		w.u64(n.ID)
		w.u32(0) // EA size
		w.u32(o.granted)
		w.u64(o.position.Load())
		w.u32(o.mode.Load())
		w.u32(0) // alignment
		name := utf16le("\\" + winPath(o.path))
		w.u32(uint32(len(name)))
		w.raw(name)
		return w.b, 104, true
	case fileNormalizedNameInformation:
		name := utf16le(winPath(o.stored))
		w.u32(uint32(len(name)))
		w.raw(name)
		return w.b, 8, true
	case fileNetworkOpenInformation:
		w.openInfo(n)
		w.u32(0)
	case fileAttributeTagInformation:
		w.u32(attrBits(n))
		w.u32(0)
	case fileStreamInformation:
		if !n.Dir {
			name := utf16le("::$DATA")
			w.u32(0)
			w.u32(uint32(len(name)))
			w.u64(endOfFile(n))
			w.u64(allocation(n))
			w.raw(name)
		}
		return w.b, 32, true
	default:
		return nil, 0, false
	}
	return w.b, len(w.b), true
}

// times writes a node's four FILETIMEs: creation, last access (as a
// client set it, else the last write time: reads do not advance it),
// last write and change.
func (w *buf) times(n *file.Node) {
	w.u64(filetime(n.SMB.CreationTime))
	w.u64(filetime(n.SMB.AccessTime()))
	w.u64(filetime(n.SMB.LastWriteTime))
	w.u64(filetime(n.SMB.ChangeTime))
}

// openInfo writes what CREATE, CLOSE and FileNetworkOpenInformation
// answer of a node, in their order: its times, allocation, end of file
// and attributes.
func (w *buf) openInfo(n *file.Node) {
	w.times(n)
	w.u64(allocation(n))
	w.u64(endOfFile(n))
	w.u32(attrBits(n))
}

func basic(w *buf, n *file.Node) {
	w.times(n)
	w.u32(attrBits(n))
	w.u32(0)
}

// standard writes FileStandardInformation with the allocation the open
// sees; a delete-pending name no longer counts among the links (MS-FSA
// 2.1.5.12.27).
func standard(w *buf, n *file.Node, alloc uint64) {
	w.u64(alloc)
	w.u64(endOfFile(n))
	links := uint32(max(n.Links, 1))
	if n.DeletePending {
		links--
	}
	w.u32(links)
	if n.DeletePending {
		w.u8(1)
	} else {
		w.u8(0)
	}
	if n.Dir {
		w.u8(1)
	} else {
		w.u8(0)
	}
	w.u16(0)
}

func winPath(p string) string {
	out := []byte(p)
	for i, ch := range out {
		if ch == '/' {
			out[i] = '\\'
		}
	}
	return string(out)
}

// fsInfo encodes one file-system information class for share name. The
// size is the share's quota; free space is the quota too, as usage is
// not tracked.
func fsInfo(class uint8, name string, sh *file.Share) (data []byte, minLen int, ok bool) {
	var w buf
	units := uint64(sh.Quota) << 30 / bytesPerUnit
	switch class {
	case fsVolumeInformation:
		label := utf16le(name) // the share's name labels its volume
		w.u64(filetime(sh.Created))
		w.u32(uint32(sh.Created.Unix()))
		w.u32(uint32(len(label)))
		w.u8(0)
		w.u8(0)
		w.raw(label)
		return w.b, 24, true
	case fsSizeInformation:
		w.u64(units)
		w.u64(units)
		w.u32(sectorsPerUnit)
		w.u32(bytesPerSector)
	case fsFullSizeInformation:
		w.u64(units)
		w.u64(units)
		w.u64(units)
		w.u32(sectorsPerUnit)
		w.u32(bytesPerSector)
	case fsDeviceInformation:
		w.u32(7)    // FILE_DEVICE_DISK
		w.u32(0x10) // FILE_REMOTE_DEVICE
	case fsAttributeInformation:
		name := utf16le("NTFS")
		w.u32(fileSystemAttributes)
		w.u32(255)
		w.u32(uint32(len(name)))
		w.raw(name)
		return w.b, 16, true
	case fsControlInformation:
		// Quotas are not kept over SMB (Azure Files has none): the
		// volume answers as one with quotas off, no free-space
		// filtering and no default quota threshold or limit.
		w.zero(24)
		w.u64(math.MaxUint64)
		w.u64(math.MaxUint64)
		w.u32(0)
		w.u32(0)
	case fsObjectIDInformation:
		w.zero(64)
	case fsSectorSizeInformation:
		for range 4 {
			w.u32(bytesPerSector)
		}
		w.u32(0x3) // aligned device, partition aligned on device
		w.u32(0)
		w.u32(0)
	default:
		return nil, 0, false
	}
	return w.b, len(w.b), true
}

// setInfo answers SET_INFO for basic information (times and
// attributes), end of file, allocation, rename and disposition.
func (c *conn) setInfo(r *request) response {
	b := r.b
	typ, class := b.u8(2), b.u8(3)
	bufLen, bufOff := b.u32(4), b.u16(8)
	id := b.fileID(16)
	in := b.buffer(uint32(bufOff), bufLen)
	o, st := c.openOf(r, id)
	if o == nil {
		return errResp(st)
	}
	if typ == infoSecurity {
		return c.setSecurity(r, o, b.u32(12), in)
	}
	if typ != infoFile {
		return errResp(statusNotSupported)
	}
	acct := r.sess.account
	ctx, cancel := c.opCtx()
	defer cancel()
	var err error
	switch class {
	case fileBasicInformation:
		if len(in) < 36 {
			return errResp(statusInfoLengthMismatch)
		}
		if o.granted&accWriteAttributes == 0 {
			return errResp(statusAccessDenied)
		}
		u := file.SMBUpdate{CreationTime: timeChange(le.Uint64(in)), LastAccessTime: timeChange(le.Uint64(in[8:])),
			LastWriteTime: timeChange(le.Uint64(in[16:])), ChangeTime: timeChange(le.Uint64(in[24:])),
			HoldChangeTime: holdChange(le.Uint64(in[24:]))}
		if attrs := le.Uint32(in[32:]); attrs != 0 {
			if !o.dir && attrs&0x10 != 0 || o.dir && attrs&attrTemporary != 0 {
				return errResp(statusInvalidParameter)
			}
			u.Attributes = attrNames(attrs, o.dir, false)
		}
		_, err = c.srv.files.SetHandleProperties(ctx, o.handle(acct), u)
	case fileEndOfFileInformation, fileAllocationInformation:
		if len(in) < 8 {
			return errResp(statusInfoLengthMismatch)
		}
		if o.granted&(accWriteData|accAppendData) == 0 {
			return errResp(statusAccessDenied)
		}
		if o.dir {
			return errResp(statusInvalidParameter)
		}
		size := le.Uint64(in)
		if size > file.MaxFileSize {
			return errResp(statusDiskFull)
		}
		c.breakOthers(acct, o) // a size change ends read caching, as a write does
		if class == fileAllocationInformation {
			// Allocation cuts a file it is smaller than, and reserves
			// space beyond it until the file's last handle closes.
			_, err = c.srv.files.SetHandleAllocation(ctx, o.handle(acct), int64(size))
			break
		}
		_, err = c.srv.files.TruncateHandle(ctx, o.handle(acct), int64(size))
	case fileDispositionInformation, fileDispositionInformationEx:
		if len(in) < 1 {
			return errResp(statusInfoLengthMismatch)
		}
		if o.granted&accDelete == 0 {
			return errResp(statusAccessDenied)
		}
		err = c.srv.files.SetDeleteOnClose(ctx, o.handle(acct), file.DeleteOnCloseOptions{DeleteOnClose: in[0]&1 != 0})
		if err != nil {
			if st, ok := statusOf(err); ok && st == statusAccessDenied {
				return errResp(statusCannotDelete) // ReadOnly
			}
		}
	case fileRenameInformation:
		return c.rename(r, o, in)
	case filePositionInformation, fileModeInformation:
		if class == filePositionInformation && len(in) < 8 || len(in) < 4 {
			return errResp(statusInfoLengthMismatch)
		}
		var st uint32
		if class == filePositionInformation {
			st = o.setPosition(le.Uint64(in))
		} else {
			st = o.setMode(le.Uint32(in))
		}
		if st != statusSuccess {
			return errResp(st)
		}
		return response{body: []byte{2, 0}}
	default:
		return errResp(statusNotSupported)
	}
	if err != nil {
		return c.gone(r, o, err)
	}
	return response{body: []byte{2, 0}}
}

// timeChange reads a FILE_BASIC_INFORMATION time: 0 leaves it, -1 and
// -2 (stop or resume automatic updates) leave it too.
func timeChange(v uint64) file.TimeChange {
	if v == 0 || v >= math.MaxUint64-1 {
		return file.TimeChange{}
	}
	t := fromFiletime(v)
	return file.TimeChange{At: &t}
}

// holdChange reads what a FILE_BASIC_INFORMATION change time asks of the
// handle's later changes (MS-FSA 2.1.5.15.2, Open.UserSetChangeTime): a
// time or -1 stops them advancing it, -2 lets them again, 0 leaves that.
func holdChange(v uint64) *bool {
	if v == 0 {
		return nil
	}
	hold := v != math.MaxUint64-1
	return &hold
}

// rename answers FileRenameInformation: the SMB2 form names the target
// from the share's root. Other leases' handle caching on the file is
// broken first (lease_rename.go).
func (c *conn) rename(r *request, o *open, in []byte) response {
	if len(in) < 20 {
		return errResp(statusInfoLengthMismatch)
	}
	replace := in[0] != 0
	n := le.Uint32(in[16:])
	if uint64(20)+uint64(n) > uint64(len(in)) {
		return errResp(statusInvalidParameter)
	}
	if o.granted&accDelete == 0 {
		return errResp(statusAccessDenied)
	}
	dest, ok := sharePath(fromUTF16LE(in[20 : 20+n]))
	if !ok || dest == "" {
		return errResp(statusObjectNameInvalid)
	}
	return c.renameAfterBreaks(r, o, func() response {
		ctx, cancel := c.opCtx()
		defer cancel()
		renamed, err := c.srv.files.RenameHandle(ctx, o.handle(r.sess.account), dest, file.RenameHandleOptions{ReplaceIfExists: replace})
		if err != nil {
			return c.gone(r, o, err)
		}
		r.sess.mu.Lock()
		o.path, o.stored = dest, renamed.Path
		r.sess.mu.Unlock()
		return response{body: []byte{2, 0}}
	})
}
