package file

import (
	"context"
	"errors"
	"math"
	"sync"

	"github.com/cerulean-db/cerulean/internal/azerr"
	"github.com/cerulean-db/cerulean/internal/kv"
	"github.com/cerulean-db/cerulean/internal/kv/record"
	"github.com/cerulean-db/cerulean/internal/kv/tuple"
)

// Byte-range locks follow MS-FSA: 2.1.5.8 (lock), 2.1.5.9 (unlock) and
// 2.1.4.10 (does a range access conflict with the locks held).
var (
	// ErrLockConflict: a lock held through another handle (or a shared
	// lock, for a write or an exclusive lock) covers the range. It is
	// FileREST's 409 FileLockConflict; SMB answers STATUS_LOCK_NOT_GRANTED
	// to a lock request and STATUS_FILE_LOCK_CONFLICT to a read or write.
	ErrLockConflict = azerr.ErrFileLockConflict
	// ErrRangeNotLocked: an unlock names no range this handle holds
	// exactly (SMB: STATUS_RANGE_NOT_LOCKED).
	ErrRangeNotLocked = errors.New("file: range is not locked by this handle")
	// ErrInvalidLockRange: the range runs past the largest 64-bit offset
	// (SMB: STATUS_INVALID_LOCK_RANGE).
	ErrInvalidLockRange = errors.New("file: lock range runs past the largest offset")
	// ErrLockOnDirectory: byte-range locks are for files only (SMB:
	// STATUS_INVALID_PARAMETER).
	ErrLockOnDirectory = errors.New("file: byte-range locks are not permitted on directories")
	// ErrTooManyLocks: the file holds MaxLocksPerFile locks already (SMB:
	// STATUS_INSUFFICIENT_RESOURCES).
	ErrTooManyLocks = errors.New("file: too many byte-range locks on one file")
)

// MaxLocksPerFile bounds the lock records of one file, so that the scan
// every read and write of the file makes stays small.
const MaxLocksPerFile = 4096

// LockRange is one byte-range lock request. Length may be zero: Windows
// grants zero-length locks, and they conflict by the rule of 2.1.4.10
// (the {0, 0} range with nothing at all).
type LockRange struct {
	Offset, Length uint64
	Exclusive      bool
}

// lockRecord is one stored lock: Count stacked locks of one mode on one
// exact range through one handle.
type lockRecord struct {
	Handle         uint64
	Offset, Length uint64
	Exclusive      bool `json:",omitempty"`
	Count          int
}

// validLockRange reports whether [offset, offset+length) stays within
// the 64-bit offsets.
func validLockRange(offset, length uint64) bool {
	return length == 0 || offset+length-1 >= offset
}

// lastByte is the last offset of a range as 2.1.4.10 computes it (one
// before offset for a zero-length range), saturating where an I/O range
// runs past the largest offset.
func lastByte(offset, length uint64) uint64 {
	if length > 0 && offset+length-1 < offset {
		return math.MaxUint64
	}
	return offset + length - 1
}

// blocks reports whether lock l is in the way of an access to [offset,
// offset+length) through handle (0: a REST request, which holds no
// locks): exclusive intent for a write or an exclusive lock, lockIntent
// for a lock request (MS-FSA 2.1.4.10).
func (l *lockRecord) blocks(offset, length uint64, exclusive, lockIntent bool, handle uint64) bool {
	if (offset == 0 && length == 0) || (l.Offset == 0 && l.Length == 0) {
		return false
	}
	if offset > lastByte(l.Offset, l.Length) || lastByte(offset, length) < l.Offset {
		return false
	}
	if l.Exclusive {
		// Another open's exclusive lock blocks everything; one's own
		// blocks only a further exclusive lock.
		return l.Handle != handle || (exclusive && lockIntent)
	}
	// A shared lock blocks every write and exclusive lock, its owner's
	// too, and no read.
	return exclusive
}

// lockRanges returns every lock held on a file, read from the keys alone
// (Count unset): the scan every read and write of the file makes, so it
// decodes no values. The scan is in the transaction's read set, so a
// concurrent Lock or Unlock conflicts.
func (t *Tx) lockRanges(acct, share string, file uint64) ([]lockRecord, error) {
	p := locksPrefix(acct, share, file)
	var out []lockRecord
	err := t.r.Scan(p, kv.PrefixEnd(p), func(k, _ []byte) error {
		var f [4]uint64 // handle, offset, length, mode
		rd, err := tuple.NewReader(k, len(p))
		for i := 0; err == nil && i < len(f); i++ {
			f[i], err = rd.Uint()
		}
		if err != nil {
			return err
		}
		out = append(out, lockRecord{Handle: f[0], Offset: f[1], Length: f[2], Exclusive: f[3] == 1})
		return nil
	})
	return out, err
}

// locksOf returns every lock held on a file with its count.
func (t *Tx) locksOf(acct, share string, file uint64) ([]*lockRecord, error) {
	return record.LoadAll[lockRecord](t.r, locksPrefix(acct, share, file))
}

// lockHandle loads the open file handle a lock or unlock goes through.
func (t *Tx) lockHandle(acct, share string, fileID, handleID uint64, offset, length uint64) error {
	if !validLockRange(offset, length) {
		return ErrInvalidLockRange
	}
	h, _, err := t.handleNode(acct, share, fileID, handleID)
	if err != nil {
		return err
	}
	if h.Dir {
		return ErrLockOnDirectory
	}
	return nil
}

// Lock takes a byte-range lock on the file through the handle ref
// names, or fails at once with ErrLockConflict (an SMB request that
// may wait retries when LockReleased fires). A handle may stack shared
// locks on one range, and take a shared lock within its own exclusive
// one, but never overlap an exclusive lock with any other of its locks.
func (s *Service) Lock(ctx context.Context, ref HandleRef, r LockRange) error {
	return s.Update(ctx, func(t *Tx) error { return t.Lock(ref, r) })
}

// Lock takes a byte-range lock inside t's transaction.
func (t *Tx) Lock(ref HandleRef, r LockRange) error {
	acct, share, fileID, handleID := ref.Account, ref.Share, ref.FileID, ref.HandleID
	if err := t.lockHandle(acct, share, fileID, handleID, r.Offset, r.Length); err != nil {
		return err
	}
	locks, err := t.lockRanges(acct, share, fileID)
	if err != nil {
		return err
	}
	for _, l := range locks {
		if l.blocks(r.Offset, r.Length, r.Exclusive, true, handleID) {
			return ErrLockConflict
		}
	}
	key := lockKey(acct, share, fileID, handleID, r.Offset, r.Length, r.Exclusive)
	same := &lockRecord{Handle: handleID, Offset: r.Offset, Length: r.Length, Exclusive: r.Exclusive}
	found, err := record.Load(t.r, key, same)
	if err != nil {
		return err
	}
	if !found && len(locks) >= MaxLocksPerFile {
		return ErrTooManyLocks
	}
	same.Count++
	return record.Store(t.tx, key, same)
}

// Unlock releases one lock the handle ref names holds on exactly [offset,
// offset+length): an exclusive one when it holds both kinds there, else
// one of its stacked shared ones. ErrRangeNotLocked when it holds none.
func (s *Service) Unlock(ctx context.Context, ref HandleRef, offset, length uint64) error {
	return s.Update(ctx, func(t *Tx) error { return t.Unlock(ref, offset, length) })
}

// Unlock releases a lock inside t's transaction.
func (t *Tx) Unlock(ref HandleRef, offset, length uint64) error {
	acct, share, fileID, handleID := ref.Account, ref.Share, ref.FileID, ref.HandleID
	if err := t.lockHandle(acct, share, fileID, handleID, offset, length); err != nil {
		return err
	}
	for _, exclusive := range []bool{true, false} {
		key := lockKey(acct, share, fileID, handleID, offset, length, exclusive)
		l := new(lockRecord)
		found, err := record.Load(t.r, key, l)
		if err != nil {
			return err
		}
		if !found {
			continue
		}
		t.releasedLocks(acct, share, fileID)
		if l.Count--; l.Count > 0 {
			return record.Store(t.tx, key, l)
		}
		return t.tx.Delete(key)
	}
	return ErrRangeNotLocked
}

// CheckRange reports ErrLockConflict when reading (a.Write false) or
// writing [a.Offset, a.Offset+a.Length) of a file through the handle ref
// names (HandleID 0: a REST request, which holds no locks) conflicts with the locks
// held: exclusive locks of other handles block reads and writes, shared
// locks block every write, their holder's too (MS-FSA 2.1.4.10 with
// exclusive intent for writes). A range past the largest offset is taken
// to end there. The scan of the file's locks is in the read set, so a
// lock taken concurrently conflicts with the transaction.
func (t *Tx) CheckRange(ref HandleRef, a RangeAccess) error {
	acct, share, fileID, handleID, offset, length, write := ref.Account, ref.Share, ref.FileID, ref.HandleID, a.Offset, a.Length, a.Write
	if offset == 0 && length == 0 {
		return nil
	}
	locks, err := t.lockRanges(acct, share, fileID)
	if err != nil {
		return err
	}
	for _, l := range locks {
		if l.blocks(offset, length, write, false, handleID) {
			return ErrLockConflict
		}
	}
	return nil
}

// Locks lists the locks held on a file through one handle (every handle
// when ref.HandleID is 0), each stacked lock once.
func (s *Service) Locks(ctx context.Context, ref HandleRef) ([]LockRange, error) {
	acct, share, fileID, handleID := ref.Account, ref.Share, ref.FileID, ref.HandleID
	var out []LockRange
	err := s.view(ctx, func(t *Tx) error {
		locks, err := t.locksOf(acct, share, fileID)
		if err != nil {
			return err
		}
		for _, l := range locks {
			if handleID != 0 && l.Handle != handleID {
				continue
			}
			for range l.Count {
				out = append(out, LockRange{Offset: l.Offset, Length: l.Length, Exclusive: l.Exclusive})
			}
		}
		return nil
	})
	return out, err
}

// The FileREST side. The Put Range page says Put Range "requires write
// access to the entire file" and so fails while an SMB client holds a
// lock on any range of it; other reads and writes meet the locks on the
// range they touch, as a handle that holds none would.

// restRead refuses a REST read of [from, to) that an exclusive lock
// covers.
func (t *Tx) restRead(acct, share string, file uint64, from, to int64) error {
	if to <= from {
		return nil
	}
	return t.CheckRange(HandleRef{Account: acct, Share: share, FileID: file}, RangeAccess{Offset: uint64(from), Length: uint64(to - from)})
}

// restWrite refuses a REST write of [from, to) that any lock covers.
func (t *Tx) restWrite(acct, share string, file uint64, from, to int64) error {
	if to <= from {
		return nil
	}
	return t.CheckRange(HandleRef{Account: acct, Share: share, FileID: file}, RangeAccess{Offset: uint64(from), Length: uint64(to - from), Write: true})
}

// restWriteWhole refuses a REST operation that needs write access to the
// entire file (Put Range, replacing the file) while any lock is held on
// it.
func (t *Tx) restWriteWhole(acct, share string, file uint64) error {
	locks, err := t.lockRanges(acct, share, file)
	if err != nil {
		return err
	}
	for _, l := range locks {
		if l.blocks(0, math.MaxUint64, true, false, 0) || l.blocks(math.MaxUint64, 1, true, false, 0) {
			return ErrLockConflict
		}
	}
	return nil
}

// dropHandleLocks releases every lock handle h holds: its handle is
// closing.
func (t *Tx) dropHandleLocks(acct, share string, h *Handle) error {
	p := handleLocksPrefix(acct, share, h.FileID, h.ID)
	held := false
	err := t.r.Scan(p, kv.PrefixEnd(p), func(_, _ []byte) error { held = true; return kv.ErrStopScan })
	if err != nil || !held {
		return err
	}
	t.releasedLocks(acct, share, h.FileID)
	return t.tx.DeleteRange(p, kv.PrefixEnd(p))
}

// moveLocks re-keys the locks held on file from to file to, with the
// handles that hold them (moveHandles).
func (t *Tx) moveLocks(acct, share string, from, to uint64) error {
	if from == to {
		return nil
	}
	locks, err := t.locksOf(acct, share, from)
	if err != nil || len(locks) == 0 {
		return err
	}
	p := locksPrefix(acct, share, from)
	if err := t.tx.DeleteRange(p, kv.PrefixEnd(p)); err != nil {
		return err
	}
	for _, l := range locks {
		if err := record.Store(t.tx, lockKey(acct, share, to, l.Handle, l.Offset, l.Length, l.Exclusive), l); err != nil {
			return err
		}
	}
	return nil
}

// releasedLocks notes that this transaction releases locks on a file,
// to signal LockReleased once it commits.
func (t *Tx) releasedLocks(acct, share string, file uint64) {
	ref := fileRef{acct, share, file}
	t.tx.OnCommit(func() { t.waiters.signal(ref) })
}

// lockWaiters are the channels LockReleased handed out, by file.
type lockWaiters struct {
	mu    sync.Mutex
	files map[fileRef]chan struct{}
}

// LockReleased returns a channel closed the next time a transaction run
// by this Service (its methods, Update or In) commits releasing a lock on
// the file: an Unlock, or the close of a handle that held locks. It is a
// hint for SMB lock requests that wait, which then retry Lock; a release
// another Service (another process) commits signals nothing here, so a
// waiter should also retry on a timer. Correctness never depends on it.
func (s *Service) LockReleased(acct, share string, fileID uint64) <-chan struct{} {
	w := s.waiters
	w.mu.Lock()
	defer w.mu.Unlock()
	ref := fileRef{acct, share, fileID}
	ch, ok := w.files[ref]
	if !ok {
		ch = make(chan struct{})
		w.files[ref] = ch
	}
	return ch
}

// signal wakes the waiters of the file ref.
func (w *lockWaiters) signal(ref fileRef) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if ch, ok := w.files[ref]; ok {
		close(ch)
		delete(w.files, ref)
	}
}
