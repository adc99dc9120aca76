package queue

import (
	"encoding/base64"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"math"
	"strings"
	"time"

	"github.com/cerulean-db/cerulean/internal/guid"
)

// receipt is a decoded pop receipt: the key the message was left under by
// the operation that issued it, and that operation's commit version.
type receipt struct {
	visible uint64 // Unix nanoseconds
	seq     uint64
	version uint64
}

const receiptSize = 24

// errBadReceipt is a pop receipt that is not Base64, which Azure refuses
// as malformed; errForeignReceipt one that is but that cerulean never
// issued, which names no message.
var (
	errBadReceipt     = errors.New("queue: malformed pop receipt")
	errForeignReceipt = errors.New("queue: pop receipt of no message")
)

func issueReceipt(m *message) string {
	var b [receiptSize]byte
	binary.BigEndian.PutUint64(b[0:], unixNanos(m.Visible))
	binary.BigEndian.PutUint64(b[8:], m.Seq)
	binary.BigEndian.PutUint64(b[16:], m.Receipt)
	return base64.StdEncoding.EncodeToString(b[:])
}

// parseReceipt decodes a pop receipt. A '+' sent unescaped in a query
// string arrives as a space, so spaces are read back as '+'.
func parseReceipt(s string) (receipt, error) {
	b, err := base64.StdEncoding.DecodeString(strings.ReplaceAll(s, " ", "+"))
	if err != nil {
		return receipt{}, errBadReceipt
	}
	if len(b) != receiptSize {
		return receipt{}, errForeignReceipt
	}
	rc := receipt{
		visible: binary.BigEndian.Uint64(b[0:]),
		seq:     binary.BigEndian.Uint64(b[8:]),
		version: binary.BigEndian.Uint64(b[16:]),
	}
	if rc.visible > math.MaxInt64 {
		return receipt{}, errForeignReceipt // no time cerulean stores
	}
	return rc, nil
}

func (r receipt) visibleAt() time.Time { return time.Unix(0, int64(r.visible)).UTC() }

// newMessageID returns a random version-4 GUID.
func newMessageID() [16]byte { return guid.NewBytes() }

// formatID renders an id the way Azure renders message ids.
func formatID(id [16]byte) string {
	var out [36]byte
	hex.Encode(out[0:8], id[0:4])
	out[8] = '-'
	hex.Encode(out[9:13], id[4:6])
	out[13] = '-'
	hex.Encode(out[14:18], id[6:8])
	out[18] = '-'
	hex.Encode(out[19:23], id[8:10])
	out[23] = '-'
	hex.Encode(out[24:], id[10:16])
	return string(out[:])
}

// parseID reads a message id in GUID form (any case, braces optional).
func parseID(s string) ([16]byte, bool) {
	var id [16]byte
	s = strings.TrimSuffix(strings.TrimPrefix(s, "{"), "}")
	if len(s) != 36 || s[8] != '-' || s[13] != '-' || s[18] != '-' || s[23] != '-' {
		return id, false
	}
	h := s[0:8] + s[9:13] + s[14:18] + s[19:23] + s[24:36]
	if _, err := hex.Decode(id[:], []byte(h)); err != nil {
		return id, false
	}
	return id, true
}
