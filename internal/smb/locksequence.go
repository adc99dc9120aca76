package smb

import "sync"

// Lock sequences (MS-SMB2 3.3.5.14): a client that resends a LOCK after
// a lost connection (a durable handle reclaimed on SMB 3.x, a resilient
// one from SMB 2.1) numbers its LOCK requests in one of 64 slots of the
// open, so a LOCK the server already applied is recognised and answered
// STATUS_SUCCESS without being applied twice. The slots belong to the
// open, so a reclaimed durable or resilient open keeps them.

// lockSequences is an open's 64 lock sequence slots.
type lockSequences struct {
	mu   sync.Mutex
	slot [64]struct {
		seq   uint8
		valid bool
	}
}

// lockSequence is the slot (1 to 64) and number a LOCK request gives;
// index 0 checks nothing.
type lockSequence struct {
	index int
	seq   uint8
}

// lockSequenceOf reads a LOCK's LockSequenceNumber (low 4 bits) and
// LockSequenceIndex (the 28 above) when the open keeps sequences: a
// resilient open on any dialect that has them (2.1 and later), a durable
// one on an SMB 3.x connection (persistent opens and multichannel, the
// other cases Windows checks, are not served). An index outside 1 to 64
// checks nothing.
func (c *conn) lockSequenceOf(o *open, field uint32) lockSequence {
	if c.dialect < dialect210 {
		return lockSequence{}
	}
	dt := c.srv.durables
	dt.mu.Lock()
	checked := o.durable != nil && (o.durable.resilient || c.dialect >= dialect300)
	dt.mu.Unlock()
	index := int(field >> 4)
	if !checked || index < 1 || index > 64 {
		return lockSequence{}
	}
	return lockSequence{index: index, seq: uint8(field & 0xF)}
}

// replayedLock reports whether the LOCK numbered ls was applied already:
// its slot holds the same number. Otherwise the slot is cleared until
// the LOCK succeeds (recordLockSequence).
func (o *open) replayedLock(ls lockSequence) bool {
	if ls.index == 0 {
		return false
	}
	o.lockSeq.mu.Lock()
	defer o.lockSeq.mu.Unlock()
	s := &o.lockSeq.slot[ls.index-1]
	if s.valid && s.seq == ls.seq {
		return true
	}
	s.valid = false
	return false
}

// recordLockSequence notes a LOCK numbered ls as applied.
func (o *open) recordLockSequence(ls lockSequence) {
	if ls.index == 0 {
		return
	}
	o.lockSeq.mu.Lock()
	defer o.lockSeq.mu.Unlock()
	s := &o.lockSeq.slot[ls.index-1]
	s.seq, s.valid = ls.seq, true
}
