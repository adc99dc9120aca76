// Package chunk keeps payload bytes in the kv store as fixed-size values
// under a data object's key prefix: chunk i of an object holds bytes
// [i*Size, (i+1)*Size). Blob content and file ranges are both stored
// this way; data objects are immutable once written, so a reader that
// finds a chunk missing knows the object was freed under it.
package chunk

import (
	"encoding/binary"
	"errors"
	"io"

	"github.com/cerulean-db/cerulean/internal/kv"
	"github.com/cerulean-db/cerulean/internal/kv/tuple"
)

// Size is the payload bytes per kv value (well under kv.MaxValueSize).
const Size = 64 << 10

// ErrGone means a data object lost chunks under a reader: it was freed
// (its blob or file overwritten) between two snapshots of one long read.
var ErrGone = errors.New("chunk: data object changed during the read")

// Key is the key of chunk idx of the object under prefix.
func Key(object tuple.Key, idx int64) tuple.Key { return object.Uint(uint64(idx)) }

// Write stores b as the object's bytes from offset, which must be a
// multiple of Size (so each chunk is written whole). The chunks it
// writes must hold nothing yet as tx sees them (a new object, or one
// whose chunks tx has deleted): they are written with kv.Insert.
func Write(tx kv.Txn, object tuple.Key, offset int64, b []byte) error {
	return write(tx, object, offset, b, kv.Insert)
}

// WriteOwned is Write of bytes the caller hands over (kv.InsertOwned):
// nothing changes b once it is called, so the transaction may keep its
// chunks as slices of b instead of copies.
func WriteOwned(tx kv.Txn, object tuple.Key, offset int64, b []byte) error {
	return write(tx, object, offset, b, kv.InsertOwned)
}

func write(tx kv.Txn, object tuple.Key, offset int64, b []byte, insert func(kv.Txn, []byte, []byte) error) error {
	for len(b) > 0 {
		n := min(len(b), Size)
		if err := insert(tx, Key(object, offset/Size), b[:n]); err != nil {
			return err
		}
		offset += int64(n)
		b = b[n:]
	}
	return nil
}

// Read writes the object's bytes [from, from+n) to w.
func Read(r kv.Reader, object tuple.Key, from, n int64, w io.Writer) error {
	if n <= 0 {
		return nil
	}
	first, last := from/Size, (from+n-1)/Size
	want := first
	err := r.Scan(Key(object, first), Key(object, last+1), func(k, v []byte) error {
		idx := int64(binary.BigEndian.Uint64(k[len(k)-8:]))
		if idx != want {
			return ErrGone
		}
		lo, hi := int64(0), int64(len(v))
		if idx == first {
			lo = from - first*Size
		}
		if idx == last {
			hi = from + n - last*Size
		}
		if lo > hi || hi > int64(len(v)) {
			return ErrGone
		}
		want++
		_, err := w.Write(v[lo:hi])
		return err
	})
	if err != nil {
		return err
	}
	if want != last+1 {
		return ErrGone
	}
	return nil
}

var zeros = make([]byte, Size)

// Zeros writes n zero bytes to w: what unwritten ranges of sparse
// content read as.
func Zeros(w io.Writer, n int64) error {
	for n > 0 {
		k := min(n, int64(len(zeros)))
		if _, err := w.Write(zeros[:k]); err != nil {
			return err
		}
		n -= k
	}
	return nil
}
