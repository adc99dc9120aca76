package queue

import (
	"encoding/binary"
	"errors"
	"math"
	"time"

	"github.com/cerulean-db/cerulean/internal/azauth"
	"github.com/cerulean-db/cerulean/internal/azerr"
	"github.com/cerulean-db/cerulean/internal/azhttp"
	"github.com/cerulean-db/cerulean/internal/kv"
	"github.com/cerulean-db/cerulean/internal/kv/record"
)

// queueRecord is the stored state of a queue. Queues carry no ETag: every
// change to them is last-writer-wins.
type queueRecord struct {
	Created  time.Time
	Metadata azhttp.Metadata
	ACL      []azauth.SignedIdentifier
}

// message is one stored message. Its key holds Visible and Seq as well;
// the record repeats them so that a value read alone is complete.
type message struct {
	ID       [16]byte // a random GUID
	Seq      uint64   // insertion order: the Put's commit version and its place in its transaction (Tx.nextSeq)
	Inserted time.Time
	// Expires is when the message stops existing; zero means never
	// (messagettl=-1, or a TTL beyond what a time can carry).
	Expires      time.Time
	Visible      time.Time // TimeNextVisible
	Receipt      uint64    // version of the Put, Get or Update that issued the current pop receipt
	DequeueCount int64
	Text         string
}

// expired reports whether the message no longer exists at now.
func (m *message) expired(now time.Time) bool {
	return !m.Expires.IsZero() && !m.Expires.After(now)
}

// messageHeaderSize is the fixed part of an encoded message.
const messageHeaderSize = 1 + 6*8 + 16

// messageFormat is the first byte of every encoded message.
const messageFormat = 1

// errCorrupt is a stored value that does not decode; it means a bug or a
// damaged store, never bad client input.
var errCorrupt = errors.New("queue: corrupt stored message")

// encodeMessage renders m in a fixed binary layout: a format byte, six
// big-endian integers, the id, then the text. A message's text is up to
// 64 KiB, so its record stays under kv.MaxValueSize.
func encodeMessage(m *message) []byte {
	b := make([]byte, messageHeaderSize, messageHeaderSize+len(m.Text))
	b[0] = messageFormat
	binary.BigEndian.PutUint64(b[1:], m.Seq)
	binary.BigEndian.PutUint64(b[9:], uint64(m.Inserted.UnixNano()))
	binary.BigEndian.PutUint64(b[17:], expiryNanos(m.Expires))
	binary.BigEndian.PutUint64(b[25:], uint64(m.Visible.UnixNano()))
	binary.BigEndian.PutUint64(b[33:], m.Receipt)
	binary.BigEndian.PutUint64(b[41:], uint64(m.DequeueCount))
	copy(b[49:], m.ID[:])
	return append(b, m.Text...)
}

func decodeMessage(b []byte) (*message, error) {
	if len(b) < messageHeaderSize || b[0] != messageFormat {
		return nil, errCorrupt
	}
	m := &message{
		Seq:          binary.BigEndian.Uint64(b[1:]),
		Inserted:     time.Unix(0, int64(binary.BigEndian.Uint64(b[9:]))).UTC(),
		Visible:      time.Unix(0, int64(binary.BigEndian.Uint64(b[25:]))).UTC(),
		Receipt:      binary.BigEndian.Uint64(b[33:]),
		DequeueCount: int64(binary.BigEndian.Uint64(b[41:])),
		Text:         string(b[messageHeaderSize:]),
	}
	if e := binary.BigEndian.Uint64(b[17:]); e != 0 {
		m.Expires = time.Unix(0, int64(e)).UTC()
	}
	copy(m.ID[:], b[49:65])
	return m, nil
}

// expiresAt reads only the expiry of an encoded message (zero: never), so
// that counting and sweeping need not copy texts.
func expiresAt(b []byte) (time.Time, error) {
	if len(b) < messageHeaderSize || b[0] != messageFormat {
		return time.Time{}, errCorrupt
	}
	if e := binary.BigEndian.Uint64(b[17:]); e != 0 {
		return time.Unix(0, int64(e)), nil
	}
	return time.Time{}, nil
}

func expiryNanos(t time.Time) uint64 {
	if t.IsZero() {
		return 0
	}
	return uint64(t.UnixNano())
}

// maxExpiry is the latest expiry a stored time can carry (UnixNano's range
// ends in 2262); a later one is stored as "never".
var maxExpiry = time.Unix(0, math.MaxInt64).UTC()

// loadQueue returns the queue or ErrQueueNotFound.
func loadQueue(r kv.Reader, acct, name string) (*queueRecord, error) {
	return record.RequireShared[queueRecord](r, queueKey(acct, name), azerr.ErrQueueNotFound)
}
