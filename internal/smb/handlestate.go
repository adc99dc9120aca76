package smb

// What an open keeps of its own, as an NTFS open does (MS-FSA 2.1.5.15):
// its current byte offset (FilePositionInformation) and its mode flags
// (FileModeInformation, from the create options on). The space an
// allocation reserves is the file's (file.Node.Allocated).

// File mode flags (MS-FSCC 2.4.26), the create options an open keeps.
const (
	modeWriteThrough       uint32 = 0x00000002
	modeSequentialOnly     uint32 = 0x00000004
	modeNoBuffering        uint32 = 0x00000008
	modeSynchronousAlert   uint32 = 0x00000010
	modeSynchronousNoAlert uint32 = 0x00000020
	modeDeleteOnClose      uint32 = 0x00001000

	modeFlags = modeWriteThrough | modeSequentialOnly | modeNoBuffering | modeSynchronousAlert | modeSynchronousNoAlert | modeDeleteOnClose
)

// setMode applies FileModeInformation: only write-through and
// sequential-only change; a flag outside the mode flags, a synchronous
// flag unlike the open's, or no-buffering the open was not created with
// is STATUS_INVALID_PARAMETER (MS-FSA 2.1.5.15.9).
func (o *open) setMode(mode uint32) uint32 {
	cur := o.mode.Load()
	sync := modeSynchronousAlert | modeSynchronousNoAlert
	if mode&^modeFlags != 0 || mode&sync != cur&sync || mode&modeNoBuffering != 0 && cur&modeNoBuffering == 0 {
		return statusInvalidParameter
	}
	changes := modeWriteThrough | modeSequentialOnly
	o.mode.Store(cur&^changes | mode&changes)
	return statusSuccess
}

// setPosition applies FilePositionInformation: an open without
// buffering moves by whole sectors only.
func (o *open) setPosition(pos uint64) uint32 {
	if o.mode.Load()&modeNoBuffering != 0 && pos%bytesPerSector != 0 {
		return statusInvalidParameter
	}
	o.position.Store(pos)
	return statusSuccess
}
