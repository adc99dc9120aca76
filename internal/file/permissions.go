package file

import (
	"context"
	"errors"
	"strings"

	"github.com/cerulean-db/cerulean/internal/azerr"
	"github.com/cerulean-db/cerulean/internal/kv/record"
)

// A permission is an SDDL security descriptor. Create Permission stores
// one per share under the key x-ms-file-permission-key names it by, the
// same key for the same SDDL, so files and directories can share it; a
// create that sets a permission inline stores it the same way, so that the
// key every directory and file reports can be read back with Get
// Permission. Stored permissions live as long as their share.

// MaxPermissionSize is the largest SDDL a Create Permission body carries
// (a header carries at most 8 KiB).
const MaxPermissionSize = 64 << 10

// defaultPermission is the descriptor of a directory or file created
// without one: full control for SYSTEM and Administrators, modify for
// authenticated users.
const defaultPermission = "O:SYG:SYD:(A;OICI;FA;;;SY)(A;OICI;FA;;;BA)(A;OICI;0x1301bf;;;AU)"

// defaultDirPermission is the descriptor of a directory created without
// one, as Azure reads it back under the key such a directory reports
// (@azure/storage-file-share's recording "create and get permission"):
// Administrators and SYSTEM full control, Users read and execute,
// authenticated users modify, the creator owner full control of what it
// creates. A file's default differs (Azure gives it another key).
const defaultDirPermission = "O:SYG:SYD:(A;OICI;FA;;;BA)(A;OICI;FA;;;SY)(A;;0x1200a9;;;BU)(A;OICIIO;GXGR;;;BU)(A;OICI;0x1301bf;;;AU)(A;;FA;;;SY)(A;OICIIO;GA;;;CO)"

// PermissionSDDL is the descriptor the node has: the one set on it, or
// the default for a directory or a file.
func (n *Node) PermissionSDDL() string {
	switch {
	case n.SMB.Permission != "":
		return n.SMB.Permission
	case n.Dir:
		return defaultDirPermission
	}
	return defaultPermission
}

// storedPermission is the record of one permission key.
type storedPermission struct {
	SDDL string
}

var errInvalidPermission = azerr.ErrFileInvalidPermission

// CreatePermission stores an SDDL in a share and returns its key.
func (s *Service) CreatePermission(ctx context.Context, ref ShareRef, sddl string) (string, error) {
	acct, share := ref.Account, ref.Share
	var key string
	err := s.Update(ctx, func(t *Tx) error {
		if _, err := loadShare(t.r, acct, share); err != nil {
			return err
		}
		var err error
		key, err = t.storePermission(acct, share, withNullSACL(sddl))
		return err
	})
	return key, err
}

// GetPermission returns the SDDL a permission key names in a share.
func (s *Service) GetPermission(ctx context.Context, ref ShareRef, key string) (string, error) {
	acct, share := ref.Account, ref.Share
	var out string
	err := s.view(ctx, func(t *Tx) error {
		if _, err := loadShare(t.r, acct, share); err != nil {
			return err
		}
		var err error
		out, err = t.permission(acct, share, key)
		return err
	})
	return out, err
}

// permission resolves a permission key; the default permission's key
// resolves without a record.
func (t *Tx) permission(acct, share, key string) (string, error) {
	if !validPermissionKey(key) {
		return "", azerr.ErrFileInvalidPermissionKey
	}
	var p storedPermission
	found, err := record.Load(t.r, permissionKeyKey(acct, share, key), &p)
	switch {
	case err != nil:
		return "", err
	case found:
		return p.SDDL, nil
	case key == permissionKey(""):
		return defaultPermission, nil
	case key == permissionKey(defaultDirPermission):
		return defaultDirPermission, nil
	}
	return "", azerr.ErrFileInvalidPermissionKey
}

// withNullSACL gives a permission without a SACL Azure's explicit null
// one: Create Permission of an SDDL ending in its DACL is read back with
// S:NO_ACCESS_CONTROL appended, under the key the same SDDL with it gets
// (azure-storage-file-share's recording test_create_permission_for_share).
// Permissions set inline are stored the same way, so one SDDL has one key.
// An SDDL that does not parse is left for the store to refuse.
func withNullSACL(sddl string) string {
	if !validSDDL(sddl) || strings.Contains(sddl, "S:") {
		return sddl
	}
	return sddl + "S:NO_ACCESS_CONTROL"
}

// storePermission validates an SDDL and stores it under its key, unless
// it is there already (so that concurrent creates of files sharing one
// permission do not conflict on a write).
func (t *Tx) storePermission(acct, share, sddl string) (string, error) {
	if !validSDDL(sddl) {
		return "", errInvalidPermission
	}
	key := permissionKey(sddl)
	k := permissionKeyKey(acct, share, key)
	var p storedPermission
	found, err := record.Load(t.r, k, &p)
	if err != nil || found {
		return key, err
	}
	return key, record.Store(t.tx, k, storedPermission{SDDL: sddl})
}

// resolvePermission settles the permission a create or property change
// asks for: a key becomes the SDDL it names, an inline SDDL is validated
// and stored so that its key resolves. Every operation that sets a
// directory's or file's SMB.Permission must call it first:
// CheckInvariants verifies every explicit permission is stored.
func (t *Tx) resolvePermission(acct, share string, c *SMBChange) error {
	switch {
	case c.PermissionKey != "" && c.Permission != "":
		return azerr.InvalidHeaderValue("x-ms-file-permission-key", c.PermissionKey).WithMessage("Only one of x-ms-file-permission and x-ms-file-permission-key may be set.")
	case c.PermissionKey != "":
		sddl, err := t.permission(acct, share, c.PermissionKey)
		if err != nil {
			return err
		}
		c.Permission, c.PermissionKey = sddl, ""
		switch sddl {
		case defaultPermission:
			c.Permission = ""
		case defaultDirPermission:
			// Set on a file, or kept, the directory default needs the
			// record every set permission has.
			_, err := t.storePermission(acct, share, sddl)
			return err
		}
		return nil
	case c.Permission != "":
		c.Permission = withNullSACL(c.Permission)
		_, err := t.storePermission(acct, share, c.Permission)
		return err
	}
	return nil
}

// validSDDL checks the shape of a security descriptor string: the owner
// (O:), group (G:) and DACL (D:) parts Azure requires and an optional SACL
// (S:), each once and in that order, SIDs as aliases or S-1-... and ACLs
// as flags followed by parenthesised ACEs of at least six ';'-separated
// fields.
func validSDDL(s string) bool {
	if !strings.HasPrefix(s, "O:") || !strings.Contains(s, "G:") || !strings.Contains(s, "D:") ||
		len(s) > MaxPermissionSize || strings.ContainsFunc(s, func(r rune) bool { return r < 0x21 || r > 0x7e }) {
		return false
	}
	order, seen := "OGDS", ""
	for s != "" {
		if len(s) < 2 || s[1] != ':' {
			return false
		}
		at := strings.IndexByte(order, s[0])
		if at < 0 {
			return false
		}
		part := s[0]
		seen += string(part)
		order = order[at+1:]
		s = s[2:]
		var err error
		switch part {
		case 'O', 'G':
			s, err = sddlSID(s)
		default:
			s, err = sddlACL(s)
		}
		if err != nil {
			return false
		}
	}
	return strings.HasPrefix(seen, "OGD")
}

var errSDDL = errors.New("malformed SDDL")

// sddlSID consumes an owner or group SID.
func sddlSID(s string) (string, error) {
	end := len(s)
	for i := 0; i+1 < len(s); i++ {
		if s[i+1] == ':' && strings.IndexByte("OGDS", s[i]) >= 0 {
			end = i
			break
		}
	}
	sid := s[:end]
	switch {
	case len(sid) == 2 && isUpperAlpha(sid):
	case strings.HasPrefix(sid, "S-1-") && strings.Trim(sid[4:], "0123456789-") == "" && !strings.HasSuffix(sid, "-"):
	default:
		return "", errSDDL
	}
	return s[end:], nil
}

// sddlACL consumes ACL flags and ACEs.
func sddlACL(s string) (string, error) {
	n := 0
	for n < len(s) && s[n] != '(' && !strings.HasPrefix(s[n:], "S:") {
		n++
	}
	flags := s[:n]
	// P, AI, AR and NO_ACCESS_CONTROL, in any order.
	if strings.Trim(flags, "PAIRNO_CESTL") != "" {
		return "", errSDDL
	}
	s = s[len(flags):]
	for strings.HasPrefix(s, "(") {
		depth, end := 0, -1
		for i := 0; i < len(s) && end < 0; i++ {
			switch s[i] {
			case '(':
				depth++
			case ')':
				if depth--; depth == 0 {
					end = i
				}
			}
		}
		if end < 0 || strings.Count(s[1:end], ";") < 5 {
			return "", errSDDL
		}
		s = s[end+1:]
	}
	// What follows must be the next part (e.g. "S:"), checked by the caller.
	if s != "" && (len(s) < 2 || s[1] != ':') {
		return "", errSDDL
	}
	return s, nil
}

func isUpperAlpha(s string) bool {
	for _, c := range s {
		if c < 'A' || c > 'Z' {
			return false
		}
	}
	return true
}

// validPermissionKey reports whether key has the shape permission keys
// have ("<digits>*<digits>"), so that nothing else reaches the store.
func validPermissionKey(key string) bool {
	a, b, ok := strings.Cut(key, "*")
	digits := func(s string) bool { return s != "" && len(s) <= 20 && strings.Trim(s, "0123456789") == "" }
	return ok && digits(a) && digits(b)
}
