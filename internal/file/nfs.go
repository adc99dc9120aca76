package file

import (
	"net/http"
	"strconv"
	"strings"

	"github.com/cerulean-db/cerulean/internal/azerr"
)

// NFS shares. Azure serves them only on premium (FileStorage) accounts;
// this server has no account SKU, so every account takes them. A share
// created with x-ms-enabled-protocols: NFS keeps that in its record
// (Share.NFS): its directories and files carry POSIX properties (mode,
// owner, group, file type, link count) instead of NTFS attributes and
// security descriptors, it holds symbolic and hard links (links.go), and
// SMB clients cannot connect to it (package smb refuses its tree
// connect). The answers follow Microsoft's recordings of the Go SDK's
// live tests against a premium account (go/sdk/storage/azfile, x-ms-version
// 2025-05-05): TestCreateFileNFS, TestDirCreateNfs, TestDirSetPropertiesNfs,
// TestFileSetHTTPHeadersNfs, TestCreateHardLinkNFS*, TestCreateSymbolicLinkNFS*,
// TestGetSymbolicLinkNFS; and an NFS property on an SMB share is refused
// as TestFileCreateFileNFS records it (400 InvalidHeaderValue naming
// x-ms-mode).

// ShareNFS is what an NFS share keeps beyond an SMB share's record.
type ShareNFS struct {
	// RootSquash is NoRootSquash, RootSquash or AllSquash.
	RootSquash string
	// HideSnapshotDirectory is x-ms-enable-snapshot-virtual-directory-access
	// set false: the .snapshot directory is not shown to NFS clients
	// (Azure's default shows it).
	HideSnapshotDirectory bool `json:",omitempty"`
}

// Protocol names for x-ms-enabled-protocols.
const (
	ProtocolSMB = "SMB"
	ProtocolNFS = "NFS"
)

// RootSquashes are the x-ms-root-squash values, in Azure's spelling; the
// first is the default.
var RootSquashes = []string{"NoRootSquash", "RootSquash", "AllSquash"}

// NFSProperties are a directory's or file's POSIX properties on an NFS
// share, as FileREST carries them: Mode is four octal digits, Owner and
// Group are numeric IDs in decimal.
type NFSProperties struct {
	Mode  string
	Owner string
	Group string
}

// Azure's defaults (every recording above): root owns what a request
// makes without naming an owner; directories are 0755, files 0664 and
// symbolic links 0777.
const (
	defaultDirMode     = "0755"
	defaultFileMode    = "0664"
	defaultSymLinkMode = "0777"
)

// NFSChange is what a request asks of the NFS properties: "" keeps the
// current value (or takes the default on a create). FileType is
// x-ms-file-file-type, which a create may name for what it makes.
type NFSChange struct {
	Mode, Owner, Group, FileType string
}

// nfsHeaders are the NFS-only request headers in the order a refusal
// names the first one present (TestFileCreateFileNFS sends all four and
// Azure names x-ms-mode).
var nfsHeaders = []string{"x-ms-mode", "x-ms-owner", "x-ms-group", "x-ms-file-file-type"}

// parseNFS reads the NFS property headers; nil when the request names
// none. A malformed value is InvalidHeaderValue.
func parseNFS(h http.Header) (*NFSChange, error) {
	var c NFSChange
	present := false
	for _, name := range nfsHeaders {
		if _, ok := h[http.CanonicalHeaderKey(name)]; ok {
			present = true
		}
	}
	if !present {
		return nil, nil
	}
	if v := h.Get("X-Ms-Mode"); v != "" {
		if !validMode(v) {
			return nil, azerr.InvalidHeaderValue("x-ms-mode", v).WithMessage("x-ms-mode is four octal digits.")
		}
		c.Mode = v
	}
	for _, id := range []struct {
		name string
		to   *string
	}{{"x-ms-owner", &c.Owner}, {"x-ms-group", &c.Group}} {
		v := h.Get(id.name)
		if v == "" {
			continue
		}
		n, err := strconv.ParseUint(v, 10, 32)
		if err != nil {
			return nil, azerr.InvalidHeaderValue(id.name, v).WithMessage("%s is a numeric ID.", id.name)
		}
		*id.to = strconv.FormatUint(n, 10)
	}
	if v := h.Get("X-Ms-File-File-Type"); v != "" {
		c.FileType = v
	}
	return &c, nil
}

func validMode(v string) bool {
	if len(v) != 4 {
		return false
	}
	for _, r := range v {
		if r < '0' || r > '7' {
			return false
		}
	}
	return true
}

// refusal is the answer to an NFS property on an SMB share: Azure
// names the first NFS header the request sent, with its value.
func (c *NFSChange) refusal() error {
	for _, f := range []struct{ name, v string }{{"x-ms-mode", c.Mode}, {"x-ms-owner", c.Owner}, {"x-ms-group", c.Group}, {"x-ms-file-file-type", c.FileType}} {
		if f.v != "" {
			return azerr.InvalidHeaderValue(f.name, f.v).WithMessage("%s applies to NFS shares only.", f.name)
		}
	}
	return azerr.InvalidHeaderValue("x-ms-mode", "").WithMessage("NFS properties apply to NFS shares only.")
}

// properties are the NFS properties c gives something new of the given
// kind.
func (c *NFSChange) properties(defaultMode string) *NFSProperties {
	p := &NFSProperties{Mode: defaultMode, Owner: "0", Group: "0"}
	c.apply(p)
	return p
}

func (c *NFSChange) apply(p *NFSProperties) {
	if c == nil {
		return
	}
	if c.Mode != "" {
		p.Mode = c.Mode
	}
	if c.Owner != "" {
		p.Owner = c.Owner
	}
	if c.Group != "" {
		p.Group = c.Group
	}
}

// nfsCreate checks a create against the share's protocol and returns the
// properties it gives the new node: nil on an SMB share, which refuses
// NFS properties; on an NFS share, SMB attributes and permissions are
// refused (they are SMB only) and fileType must name what is made.
func (t *Tx) nfsCreate(acct, share string, c *NFSChange, smb SMBChange, fileType, defaultMode string) (*NFSProperties, error) {
	sh, err := loadShare(t.r, acct, share)
	if err != nil {
		return nil, err
	}
	if sh.NFS == nil {
		if c != nil {
			return nil, c.refusal()
		}
		return nil, nil
	}
	if err := smbOnly(smb.Attributes, smb.Permission, smb.PermissionKey); err != nil {
		return nil, err
	}
	if c != nil && c.FileType != "" && !strings.EqualFold(c.FileType, fileType) {
		return nil, azerr.InvalidHeaderValue("x-ms-file-file-type", c.FileType).WithMessage("This operation makes a %s.", fileType)
	}
	return c.properties(defaultMode), nil
}

// nfsUpdate checks a change of an existing node against its share's
// protocol, as nfsCreate does a create's.
func nfsUpdate(n *Node, c *NFSChange, u *SMBUpdate) error {
	if n.NFS == nil {
		if c != nil {
			return c.refusal()
		}
		return nil
	}
	perm := ""
	if u.Permission != nil {
		perm = *u.Permission
	}
	// "None" (a directory's reads as "Directory") clears the attributes,
	// which an NFS node has none of.
	if u.Attributes == "None" || u.Attributes == "Directory" {
		u.Attributes = ""
	}
	if err := smbOnly(u.Attributes, perm, u.PermissionKey); err != nil {
		return err
	}
	if c != nil && c.FileType != "" {
		return azerr.InvalidHeaderValue("x-ms-file-file-type", c.FileType).WithMessage("A file's type is set when it is made.")
	}
	c.apply(n.NFS)
	return nil
}

// smbOnly refuses NTFS attributes and security descriptors on an NFS
// share, as Azure refuses NFS properties on an SMB share. The values an
// SDK sends for "nothing" (None, inherit, preserve) parse to "" and pass.
func smbOnly(attributes, permission, permissionKey string) error {
	switch {
	case attributes != "":
		return azerr.InvalidHeaderValue("x-ms-file-attributes", attributes).WithMessage("File attributes apply to SMB shares only.")
	case permission != "":
		return azerr.InvalidHeaderValue("x-ms-file-permission", "").WithMessage("File permissions apply to SMB shares only.")
	case permissionKey != "":
		return azerr.InvalidHeaderValue("x-ms-file-permission-key", permissionKey).WithMessage("File permissions apply to SMB shares only.")
	}
	return nil
}

// nfsFileType is what x-ms-file-file-type reports for n.
func nfsFileType(n *Node) string {
	switch {
	case n.Dir:
		return "Directory"
	case n.SymLink:
		return "SymLink"
	}
	return "Regular"
}

// writeNFS sets the NFS property headers of an answer about n: the file
// type where the operation reports it, and a file's link count where the
// operation reports that (Get and Set Properties, Create Hard Link: not a
// create, not a directory's).
func writeNFS(h http.Header, n *Node, fileType, linkCount bool) {
	h.Set("X-Ms-Mode", n.NFS.Mode)
	h.Set("X-Ms-Owner", n.NFS.Owner)
	h.Set("X-Ms-Group", n.NFS.Group)
	if fileType {
		h.Set("X-Ms-File-File-Type", nfsFileType(n))
	}
	if linkCount && !n.Dir {
		h.Set("X-Ms-Link-Count", strconv.Itoa(max(n.Links, 1)))
	}
}

// parseRootSquash reads x-ms-root-squash in any case: "" when absent.
func parseRootSquash(h http.Header) (string, error) {
	v := h.Get("X-Ms-Root-Squash")
	if v == "" {
		return "", nil
	}
	for _, s := range RootSquashes {
		if strings.EqualFold(v, s) {
			return s, nil
		}
	}
	return "", azerr.InvalidHeaderValue("x-ms-root-squash", v).WithMessage("x-ms-root-squash is NoRootSquash, RootSquash or AllSquash.")
}

// parseSnapshotDirectoryAccess reads
// x-ms-enable-snapshot-virtual-directory-access: nil when absent.
func parseSnapshotDirectoryAccess(h http.Header) (*bool, error) {
	v := h.Get("X-Ms-Enable-Snapshot-Virtual-Directory-Access")
	if v == "" {
		return nil, nil
	}
	b, err := strconv.ParseBool(v)
	if err != nil {
		return nil, azerr.InvalidHeaderValue("x-ms-enable-snapshot-virtual-directory-access", v)
	}
	return &b, nil
}

// ShareNFSOptions are an NFS share's settings a Create Share or Set Share
// Properties names: "" and nil keep (or default) them.
type ShareNFSOptions struct {
	RootSquash             string
	SnapshotDirectoryShown *bool
}

func (o ShareNFSOptions) empty() bool { return o.RootSquash == "" && o.SnapshotDirectoryShown == nil }

func (o ShareNFSOptions) apply(n *ShareNFS) {
	if o.RootSquash != "" {
		n.RootSquash = o.RootSquash
	}
	if o.SnapshotDirectoryShown != nil {
		n.HideSnapshotDirectory = !*o.SnapshotDirectoryShown
	}
}

// errNFSOnly refuses an NFS share setting on an SMB share, naming the
// header as Azure names an NFS property sent to one (TestFileCreateFileNFS).
func errNFSOnly(o ShareNFSOptions) error {
	if o.RootSquash != "" {
		return azerr.InvalidHeaderValue("x-ms-root-squash", o.RootSquash).WithMessage("Root squash applies to NFS shares only.")
	}
	return azerr.InvalidHeaderValue("x-ms-enable-snapshot-virtual-directory-access", strconv.FormatBool(*o.SnapshotDirectoryShown)).WithMessage("The snapshot directory applies to NFS shares only.")
}

// parseShareProtocol reads a Create Share's x-ms-enabled-protocols and
// the NFS settings that go with it.
func parseShareProtocol(h http.Header) (string, ShareNFSOptions, error) {
	var protocol string
	switch v := h.Get("X-Ms-Enabled-Protocols"); {
	case v == "" || strings.EqualFold(v, ProtocolSMB):
		protocol = ProtocolSMB
	case strings.EqualFold(v, ProtocolNFS):
		protocol = ProtocolNFS
	default:
		return "", ShareNFSOptions{}, azerr.InvalidHeaderValue("x-ms-enabled-protocols", v).WithMessage("x-ms-enabled-protocols is SMB or NFS.")
	}
	o, err := parseShareNFS(h)
	return protocol, o, err
}

// parseShareNFS reads the NFS share settings a request names.
func parseShareNFS(h http.Header) (ShareNFSOptions, error) {
	var o ShareNFSOptions
	var err error
	if o.RootSquash, err = parseRootSquash(h); err != nil {
		return o, err
	}
	o.SnapshotDirectoryShown, err = parseSnapshotDirectoryAccess(h)
	return o, err
}

// writeShareProtocol sets the protocol headers of Get Share Properties:
// an NFS share's root squash and snapshot directory besides its protocol
// (TestShareCreateWithSnapshotVirtualDirectoryAccess).
func writeShareProtocol(h http.Header, sh *Share) {
	protocol, squash, snapshotDir := shareProtocolXML(sh)
	h.Set("X-Ms-Enabled-Protocols", protocol)
	if sh.NFS != nil {
		h.Set("X-Ms-Root-Squash", squash)
		h.Set("X-Ms-Enable-Snapshot-Virtual-Directory-Access", snapshotDir)
	}
}

// shareProtocolXML is a share's protocol, root squash and snapshot
// directory access as List Shares shows them ("" for what an SMB share
// has not).
func shareProtocolXML(sh *Share) (protocol, rootSquash, snapshotDir string) {
	if sh.NFS == nil {
		return ProtocolSMB, "", ""
	}
	return ProtocolNFS, sh.NFS.RootSquash, strconv.FormatBool(!sh.NFS.HideSnapshotDirectory)
}

// nfsDetails adds to an answer about an NFS share's node what the
// operation reports beyond its mode, owner and group: the file type (the
// creates and Get Properties) and a file's link count (Get and Set File
// Properties). An SMB share's node has neither.
func nfsDetails(h http.Header, n *Node, fileType, linkCount bool) {
	if n.NFS != nil {
		writeNFS(h, n, fileType, linkCount)
	}
}

// parseNFSCopyModes reads Copy File's x-ms-file-mode-copy-mode and
// x-ms-file-owner-copy-mode: source or override (the azfile recording
// TestFileStartCopyModeCopyModeNfs sends override with x-ms-mode,
// x-ms-owner and x-ms-group, and the copy has them).
func parseNFSCopyModes(h http.Header) (modeFromSource, ownerFromSource bool, err error) {
	read := func(name string) (bool, error) {
		switch v := h.Get(name); {
		case v == "" || strings.EqualFold(v, "override"):
			return false, nil
		case strings.EqualFold(v, "source"):
			return true, nil
		default:
			return false, azerr.InvalidHeaderValue(name, v).WithMessage("%s is source or override.", name)
		}
	}
	if modeFromSource, err = read("x-ms-file-mode-copy-mode"); err != nil {
		return false, false, err
	}
	ownerFromSource, err = read("x-ms-file-owner-copy-mode")
	return modeFromSource, ownerFromSource, err
}

// resolveNFS settles a copy's NFS properties: an NFS node has no NTFS
// attributes, and takes its source's mode, or owner and group, where the
// request says source.
func (c CopySMB) resolveNFS(n, src *Node) {
	if n.NFS == nil {
		return
	}
	n.SMB.Attributes = ""
	if src.NFS == nil {
		return
	}
	if c.ModeFromSource {
		n.NFS.Mode = src.NFS.Mode
	}
	if c.OwnerFromSource {
		n.NFS.Owner, n.NFS.Group = src.NFS.Owner, src.NFS.Group
	}
}
