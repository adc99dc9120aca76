package smb

// The CREATE fields Windows checks bit by bit before it opens anything
// (smbtorture smb2.create.gentest records its answers): reserved create
// options, attributes no file may have, and access bits no right names.

const (
	// optsReserved are the create options above FILE_VALID_OPTION_FLAGS.
	optsReserved uint32 = 0xFF000000
	// optsNotSupported are FILE_CREATE_TREE_CONNECTION, FILE_OPEN_BY_FILE_ID
	// and FILE_RESERVE_OPFILTER, which Windows' SMB2 server refuses.
	optsNotSupported uint32 = 0x00000080 | optOpenByFileID | 0x00100000

	// attrsInvalid are FILE_ATTRIBUTE_VOLUME, FILE_ATTRIBUTE_DEVICE,
	// FILE_ATTRIBUTE_INTEGRITY_STREAM and the bits above 0xFFFF.
	attrsInvalid uint32 = 0x00000008 | 0x00000040 | 0x00008000 | 0xFFFF0000

	// accReserved are the access bits no right names: those between the
	// file rights and DELETE, above SYNCHRONIZE, and 0x0C000000.
	accReserved uint32 = 0x0000FE00 | 0x00E00000 | 0x0C000000
	// accSystemSecurity asks for the SACL, which needs a privilege.
	accSystemSecurity uint32 = 0x01000000

	attrEncrypted uint32 = 0x00004000

	statusPrivilegeNotHeld uint32 = 0xC0000061
)

// checkCreateFields answers the status Windows gives a CREATE for its
// desired access, options and attributes (of a file it may create, for
// disposition disp) before it looks at the name, statusSuccess when they
// pass.
func checkCreateFields(desired, attrs, opts, disp uint32) uint32 {
	// The access comes first: an access no right names is denied
	// whatever the attributes.
	switch {
	case desired&accSystemSecurity != 0:
		return statusPrivilegeNotHeld
	case desired&accReserved != 0, desired == 0:
		return statusAccessDenied
	case opts&optsReserved != 0, attrs&attrsInvalid != 0:
		return statusInvalidParameter
	case opts&optsNotSupported != 0:
		return statusNotSupported
	case attrs&attrEncrypted != 0 && disp != 1: // FILE_OPEN creates nothing
		// Azure Files keeps no Encrypted attribute (x-ms-file-attributes
		// names none); Windows without EFS refuses to create one so.
		return statusAccessDenied
	}
	return statusSuccess
}
