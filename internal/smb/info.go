package smb

import (
	"math"

	"github.com/cerulean-db/cerulean/internal/file"
)

// Info types and classes (MS-FSCC 2.4, 2.5).
const (
	infoFile       = 1
	infoFilesystem = 2
	infoSecurity   = 3

	fileBasicInformation                 = 4
	fileStandardInformation              = 5
	fileInternalInformation              = 6
	fileEaInformation                    = 7
	fileAccessInformation                = 8
	fileRenameInformation                = 10
	fileDispositionInformation           = 13
	filePositionInformation              = 14
	fileModeInformation                  = 16
	fileAlignmentInformation             = 17
	fileAllInformation                   = 18
	fileAllocationInformation            = 19
	fileEndOfFileInformation             = 20
	fileAlternateNameInformation         = 21
	fileStreamInformation                = 22
	fileNetworkOpenInformation           = 34
	fileAttributeTagInformation          = 35
	fileDispositionInformationEx         = 64
	fileNormalizedNameInformation        = 48
	fsVolumeInformation                  = 1
	fsSizeInformation                    = 3
	fsDeviceInformation                  = 4
	fsAttributeInformation               = 5
	fsFullSizeInformation                = 7
	fsObjectIDInformation                = 8
	fsSectorSizeInformation              = 11
	bytesPerSector                       = 512
	sectorsPerUnit                       = 8 // 4 KiB clusters
	bytesPerUnit                         = bytesPerSector * sectorsPerUnit
	fileSystemAttributes          uint32 = 0x00000003 | 0x00000004 | 0x00000002 | 0x00040000 // case-sensitive search, case-preserved names, unicode names, persistent ACLs
)

// queryInfo answers QUERY_INFO for the file and file-system classes
// clients use; the rest is STATUS_NOT_SUPPORTED (security descriptors
// and quotas are not served).
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
	var fixed bool
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
		data, fixed, ok = fileInfo(class, o, n)
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
		data, fixed, ok = fsInfo(class, o.tree.share, sh)
		if !ok {
			return errResp(statusNotSupported)
		}
	default:
		return errResp(statusNotSupported)
	}
	status := statusSuccess
	if uint32(len(data)) > outLen {
		if fixed {
			return errResp(statusInfoLengthMismatch)
		}
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

// fileInfo encodes one file information class; fixed says whether a
// short buffer is an error or a truncation.
func fileInfo(class uint8, o *open, n *file.Node) (data []byte, fixed, ok bool) {
	var w buf
	switch class {
	case fileBasicInformation:
		basic(&w, n)
	case fileStandardInformation:
		standard(&w, n)
	case fileInternalInformation:
		w.u64(n.ID)
	case fileEaInformation, fileAlignmentInformation, fileModeInformation:
		w.u32(0)
	case fileAccessInformation:
		w.u32(o.granted)
	case filePositionInformation:
		w.u64(0)
	case fileAllInformation:
		basic(&w, n)
		standard(&w, n)
		w.u64(n.ID)
		w.u32(0) // EA size
		w.u32(o.granted)
		w.u64(0) // position
		w.u32(0) // mode
		w.u32(0) // alignment
		name := utf16le("\\" + winPath(o.path))
		w.u32(uint32(len(name)))
		w.raw(name)
		return w.b, false, true
	case fileNormalizedNameInformation:
		name := utf16le(winPath(o.path))
		w.u32(uint32(len(name)))
		w.raw(name)
		return w.b, false, true
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
		return w.b, false, true
	default:
		return nil, false, false
	}
	return w.b, true, true
}

// times writes a node's four FILETIMEs: creation, last access (not
// tracked: the last write stands in), last write and change.
func (w *buf) times(n *file.Node) {
	w.u64(filetime(n.SMB.CreationTime))
	w.u64(filetime(n.SMB.LastWriteTime))
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

func standard(w *buf, n *file.Node) {
	w.u64(allocation(n))
	w.u64(endOfFile(n))
	w.u32(1)
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
func fsInfo(class uint8, name string, sh *file.Share) (data []byte, fixed, ok bool) {
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
		return w.b, false, true
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
		return w.b, false, true
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
		return nil, false, false
	}
	return w.b, true, true
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
		u := file.SMBUpdate{CreationTime: timeChange(le.Uint64(in)), LastWriteTime: timeChange(le.Uint64(in[16:])), ChangeTime: timeChange(le.Uint64(in[24:]))}
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
		if class == fileAllocationInformation {
			// Allocation only cuts a file it is smaller than.
			_, n, herr := c.srv.files.HandleInfo(ctx, o.handle(acct))
			if herr != nil {
				return c.gone(r, o, herr)
			}
			if int64(size) >= n.Size {
				return response{body: []byte{2, 0}}
			}
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

// rename answers FileRenameInformation: the SMB2 form names the target
// from the share's root.
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
	ctx, cancel := c.opCtx()
	defer cancel()
	if _, err := c.srv.files.RenameHandle(ctx, o.handle(r.sess.account), dest, file.RenameHandleOptions{ReplaceIfExists: replace}); err != nil {
		return c.gone(r, o, err)
	}
	r.sess.mu.Lock()
	o.path = dest
	r.sess.mu.Unlock()
	return response{body: []byte{2, 0}}
}
