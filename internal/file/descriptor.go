package file

import (
	"encoding/base64"
	"encoding/binary"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/cerulean-db/cerulean/internal/azerr"
)

// The binary permission format (x-ms-file-permission-format: binary) is a
// base64 self-relative SECURITY_DESCRIPTOR ([MS-DTYP] 2.4.6). Permissions
// are stored as SDDL; these convert the common subset both ways: SIDs as
// S-1-... or well-known aliases, and DACL/SACL entries of the allow (A),
// deny (D) and audit (AU) types with their flags and rights. A descriptor
// outside the subset (conditional or object ACEs, domain-relative
// aliases) answers 501 rather than being converted wrongly.

var errDescriptorUnsupported = azerr.ErrNotImplemented.WithMessage("This permission uses security descriptor features the binary format conversion of this server does not support yet.")

// errBadDescriptor marks malformed input, answered FileInvalidPermission.
var errBadDescriptor = errors.New("malformed security descriptor")

// sidAliases are the well-known SID strings of [MS-DTYP] 2.4.2.4 that do
// not depend on a domain.
var sidAliases = map[string]string{
	"AN": "S-1-5-7", "AO": "S-1-5-32-548", "AU": "S-1-5-11", "BA": "S-1-5-32-544", "BG": "S-1-5-32-546",
	"BO": "S-1-5-32-551", "BU": "S-1-5-32-545", "CG": "S-1-3-1", "CO": "S-1-3-0", "ED": "S-1-5-9",
	"IU": "S-1-5-4", "LS": "S-1-5-19", "NO": "S-1-5-32-556", "NS": "S-1-5-20", "NU": "S-1-5-2",
	"OW": "S-1-3-4", "PS": "S-1-5-10", "PU": "S-1-5-32-547", "RC": "S-1-5-12", "RD": "S-1-5-32-555",
	"RU": "S-1-5-32-554", "SO": "S-1-5-32-549", "SU": "S-1-5-6", "SY": "S-1-5-18", "WD": "S-1-1-0",
	"AC": "S-1-15-2-1",
}

// rightAliases are the access right strings of [MS-DTYP] 2.5.1.1; the
// composite file rights come first, as Windows prefers them on output.
var rightAliases = []struct {
	name string
	mask uint32
}{
	{"FA", 0x1f01ff}, {"FR", 0x120089}, {"FW", 0x120116}, {"FX", 0x1200a0},
	{"KA", 0xf003f}, {"KR", 0x20019}, {"KW", 0x20006}, {"KX", 0x20019},
	{"GA", 0x10000000}, {"GR", 0x80000000}, {"GW", 0x40000000}, {"GX", 0x20000000},
	{"RC", 0x20000}, {"SD", 0x10000}, {"WD", 0x40000}, {"WO", 0x80000},
	{"RP", 0x10}, {"WP", 0x20}, {"CC", 0x1}, {"DC", 0x2}, {"LC", 0x4}, {"SW", 0x8},
	{"LO", 0x80}, {"DT", 0x40}, {"CR", 0x100},
}

var aceTypes = []struct {
	name string
	code byte
}{{"A", 0}, {"D", 1}, {"AU", 2}}

var aceFlags = []struct {
	name string
	bit  byte
}{{"OI", 0x1}, {"CI", 0x2}, {"NP", 0x4}, {"IO", 0x8}, {"ID", 0x10}, {"SA", 0x40}, {"FA", 0x80}}

// Security descriptor control bits.
const (
	seDACLPresent       = 0x0004
	seSACLPresent       = 0x0010
	seDACLAutoInheritRq = 0x0100
	seSACLAutoInheritRq = 0x0200
	seDACLAutoInherited = 0x0400
	seSACLAutoInherited = 0x0800
	seDACLProtected     = 0x1000
	seSACLProtected     = 0x2000
	seSelfRelative      = 0x8000
)

// aclFlags maps SDDL ACL flags to the DACL's control bits; a SACL's are
// the DACL's shifted left by one.
var aclFlags = []struct {
	name string
	bit  uint16
}{{"P", seDACLProtected}, {"AR", seDACLAutoInheritRq}, {"AI", seDACLAutoInherited}}

// noAccessControl is SDDL's null ACL.
const noAccessControl = "NO_ACCESS_CONTROL"

// SDDLToBinary converts an SDDL to the base64 binary format.
func SDDLToBinary(sddl string) (string, error) {
	if !validSDDL(sddl) {
		return "", errInvalidPermission
	}
	var control uint16 = seSelfRelative
	var owner, group, dacl, sacl []byte
	s := sddl
	for s != "" {
		part := s[0]
		s = s[2:]
		var err error
		switch part {
		case 'O', 'G':
			var sid string
			rest, _ := sddlSID(s)
			sid, s = s[:len(s)-len(rest)], rest
			var b []byte
			if b, err = encodeSID(sid); part == 'O' {
				owner = b
			} else {
				group = b
			}
		case 'D', 'S':
			rest, _ := sddlACL(s)
			acl := s[:len(s)-len(rest)]
			s = rest
			var bits uint16
			var b []byte
			bits, b, err = encodeACL(acl)
			if part == 'D' {
				control |= seDACLPresent | bits
				dacl = b
			} else {
				control |= seSACLPresent | bits<<1
				sacl = b
			}
		}
		if err != nil {
			return "", err
		}
	}
	out := make([]byte, 20)
	out[0] = 1
	binary.LittleEndian.PutUint16(out[2:], control)
	// Laid out as Windows makes a self-relative descriptor and as Azure
	// answers one: SACL, DACL, owner, group (the binary Get Permission in
	// azure-storage-file-share's recording test_get_permission_format).
	for _, p := range []struct {
		at   int
		data []byte
	}{{12, sacl}, {16, dacl}, {4, owner}, {8, group}} {
		if p.data != nil {
			binary.LittleEndian.PutUint32(out[p.at:], uint32(len(out)))
			out = append(out, p.data...)
		}
	}
	return base64.StdEncoding.EncodeToString(out), nil
}

func encodeSID(s string) ([]byte, error) {
	if full, ok := sidAliases[s]; ok {
		s = full
	} else if len(s) == 2 {
		return nil, errDescriptorUnsupported
	}
	parts := strings.Split(s, "-")
	if len(parts) < 3 || parts[0] != "S" || parts[1] != "1" || len(parts)-3 > 15 {
		return nil, errDescriptorUnsupported
	}
	auth, err := strconv.ParseUint(parts[2], 10, 48)
	if err != nil {
		return nil, errDescriptorUnsupported
	}
	b := []byte{1, byte(len(parts) - 3), 0, 0, 0, 0, 0, 0}
	for i := range 6 {
		b[2+i] = byte(auth >> (8 * (5 - i)))
	}
	for _, p := range parts[3:] {
		n, err := strconv.ParseUint(p, 10, 32)
		if err != nil {
			return nil, errDescriptorUnsupported
		}
		b = binary.LittleEndian.AppendUint32(b, uint32(n))
	}
	return b, nil
}

// encodeACL converts flags and ACEs; it returns the DACL control bits of
// the flags, and a nil ACL for NO_ACCESS_CONTROL (a null ACL: present,
// with no ACL at all).
func encodeACL(s string) (uint16, []byte, error) {
	flags, aces, _ := strings.Cut(s, "(")
	if aces != "" {
		aces = "(" + aces
	}
	var bits uint16
	null := false
	for flags != "" {
		if rest, ok := strings.CutPrefix(flags, noAccessControl); ok {
			flags, null = rest, true
			continue
		}
		found := false
		for _, f := range aclFlags {
			if strings.HasPrefix(flags, f.name) {
				bits |= f.bit
				flags, found = flags[len(f.name):], true
				break
			}
		}
		if !found {
			return 0, nil, errDescriptorUnsupported
		}
	}
	if null {
		if aces != "" {
			return 0, nil, errInvalidPermission // a null ACL has no entries
		}
		return bits, nil, nil
	}
	body := []byte{}
	count := 0
	for aces != "" {
		end := strings.IndexByte(aces, ')')
		ace, err := encodeACE(aces[1:end])
		if err != nil {
			return 0, nil, err
		}
		body = append(body, ace...)
		aces = aces[end+1:]
		count++
	}
	out := []byte{2, 0, 0, 0, 0, 0, 0, 0}
	binary.LittleEndian.PutUint16(out[2:], uint16(8+len(body)))
	binary.LittleEndian.PutUint16(out[4:], uint16(count))
	return bits, append(out, body...), nil
}

func encodeACE(s string) ([]byte, error) {
	f := strings.Split(s, ";")
	if len(f) != 6 || f[3] != "" || f[4] != "" {
		return nil, errDescriptorUnsupported // object, conditional or resource ACEs
	}
	var typ byte = 0xff
	for _, t := range aceTypes {
		if f[0] == t.name {
			typ = t.code
		}
	}
	if typ == 0xff {
		return nil, errDescriptorUnsupported
	}
	var flags byte
	for rest := f[1]; rest != ""; {
		found := false
		for _, fl := range aceFlags {
			if strings.HasPrefix(rest, fl.name) {
				flags |= fl.bit
				rest, found = rest[len(fl.name):], true
				break
			}
		}
		if !found {
			return nil, errDescriptorUnsupported
		}
	}
	mask, err := parseRights(f[2])
	if err != nil {
		return nil, err
	}
	sid, err := encodeSID(f[5])
	if err != nil {
		return nil, err
	}
	out := []byte{typ, flags, 0, 0}
	binary.LittleEndian.PutUint16(out[2:], uint16(8+len(sid)))
	out = binary.LittleEndian.AppendUint32(out, mask)
	return append(out, sid...), nil
}

func parseRights(s string) (uint32, error) {
	if strings.HasPrefix(s, "0x") || strings.HasPrefix(s, "0X") {
		n, err := strconv.ParseUint(s[2:], 16, 32)
		if err != nil {
			return 0, errDescriptorUnsupported
		}
		return uint32(n), nil
	}
	var mask uint32
	for s != "" {
		found := false
		for _, r := range rightAliases {
			if strings.HasPrefix(s, r.name) {
				mask |= r.mask
				s, found = s[len(r.name):], true
				break
			}
		}
		if !found {
			return 0, errDescriptorUnsupported
		}
	}
	return mask, nil
}

// BinaryToSDDL converts the base64 binary format to an SDDL. Malformed
// input is FileInvalidPermission.
func BinaryToSDDL(b64 string) (string, error) {
	b, err := base64.StdEncoding.DecodeString(b64)
	if err != nil {
		return "", errInvalidPermission
	}
	sddl, err := decodeDescriptor(b)
	switch {
	case errors.Is(err, errBadDescriptor):
		return "", errInvalidPermission
	case err != nil:
		return "", err
	}
	if !validSDDL(sddl) {
		return "", errInvalidPermission
	}
	return sddl, nil
}

func decodeDescriptor(b []byte) (string, error) {
	if len(b) < 20 || b[0] != 1 {
		return "", errBadDescriptor
	}
	control := binary.LittleEndian.Uint16(b[2:])
	if control&seSelfRelative == 0 {
		return "", errBadDescriptor
	}
	at := func(i int) uint32 { return binary.LittleEndian.Uint32(b[i:]) }
	var sb strings.Builder
	for _, p := range []struct {
		prefix string
		off    uint32
	}{{"O:", at(4)}, {"G:", at(8)}} {
		if p.off == 0 {
			return "", errBadDescriptor // Azure requires an owner and a group
		}
		sid, _, err := decodeSID(b, p.off)
		if err != nil {
			return "", err
		}
		sb.WriteString(p.prefix + sid)
	}
	for _, p := range []struct {
		prefix  string
		present uint16
		off     uint32
		shift   uint
	}{{"D:", seDACLPresent, at(16), 0}, {"S:", seSACLPresent, at(12), 1}} {
		if control&p.present == 0 {
			continue
		}
		sb.WriteString(p.prefix)
		for _, f := range aclFlags {
			if control&(f.bit<<p.shift) != 0 {
				sb.WriteString(f.name)
			}
		}
		if p.off == 0 {
			sb.WriteString(noAccessControl) // a null ACL
			continue
		}
		if err := decodeACL(&sb, b, p.off); err != nil {
			return "", err
		}
	}
	return sb.String(), nil
}

func decodeSID(b []byte, off uint32) (string, int, error) {
	if uint64(off)+8 > uint64(len(b)) || b[off] != 1 {
		return "", 0, errBadDescriptor
	}
	n := int(b[off+1])
	size := 8 + 4*n
	if n > 15 || uint64(off)+uint64(size) > uint64(len(b)) {
		return "", 0, errBadDescriptor
	}
	var auth uint64
	for i := range 6 {
		auth = auth<<8 | uint64(b[int(off)+2+i])
	}
	s := fmt.Sprintf("S-1-%d", auth)
	for i := range n {
		s += fmt.Sprintf("-%d", binary.LittleEndian.Uint32(b[int(off)+8+4*i:]))
	}
	for alias, full := range sidAliases {
		if full == s {
			return alias, size, nil
		}
	}
	return s, size, nil
}

func decodeACL(sb *strings.Builder, b []byte, off uint32) error {
	if uint64(off)+8 > uint64(len(b)) || b[off] != 2 && b[off] != 4 {
		return errBadDescriptor
	}
	size := int(binary.LittleEndian.Uint16(b[off+2:]))
	count := int(binary.LittleEndian.Uint16(b[off+4:]))
	if uint64(off)+uint64(size) > uint64(len(b)) {
		return errBadDescriptor
	}
	acl := b[off : int(off)+size]
	pos := 8
	for range count {
		if pos+8 > len(acl) {
			return errBadDescriptor
		}
		typ, flags := acl[pos], acl[pos+1]
		aceSize := int(binary.LittleEndian.Uint16(acl[pos+2:]))
		if aceSize < 8 || pos+aceSize > len(acl) {
			return errBadDescriptor
		}
		name := ""
		for _, t := range aceTypes {
			if t.code == typ {
				name = t.name
			}
		}
		if name == "" {
			return errDescriptorUnsupported
		}
		sid, sidSize, err := decodeSID(acl[:pos+aceSize], uint32(pos+8))
		if err != nil {
			return err
		}
		if 8+sidSize != aceSize {
			return errDescriptorUnsupported // application data after the SID
		}
		fmt.Fprintf(sb, "(%s;", name)
		for _, f := range aceFlags {
			if flags&f.bit != 0 {
				sb.WriteString(f.name)
			}
		}
		sb.WriteString(";" + formatRights(binary.LittleEndian.Uint32(acl[pos+4:])) + ";;;" + sid + ")")
		pos += aceSize
	}
	return nil
}

// formatRights writes a mask as a file right alias when it is exactly
// one, else in hex, as Windows does.
func formatRights(mask uint32) string {
	for _, r := range rightAliases[:4] {
		if r.mask == mask {
			return r.name
		}
	}
	return fmt.Sprintf("0x%x", mask)
}

// Descriptor returns the binary self-relative security descriptor of a
// directory's or file's permission (its SMB.Permission, "" for the
// default one): what an SMB security query answers, the same descriptor
// x-ms-file-permission-format binary gives.
func Descriptor(sddl string) ([]byte, error) {
	if sddl == "" {
		sddl = defaultPermission
	}
	b64, err := SDDLToBinary(sddl)
	if err != nil {
		return nil, err
	}
	return base64.StdEncoding.DecodeString(b64)
}
