// Package guid makes the random (version 4) GUIDs Azure hands out as
// request, lease and batch IDs, so the services draw them one way.
package guid

import (
	"crypto/rand"
	"encoding/hex"
)

// New is a random version-4 GUID in the 8-4-4-4-12 lower-case
// hexadecimal form.
// Every request draws one, so it is formatted by hand rather than with
// fmt (one allocation, the string).
func New() string {
	b := NewBytes()
	var s [36]byte
	hex.Encode(s[0:8], b[0:4])
	s[8] = '-'
	hex.Encode(s[9:13], b[4:6])
	s[13] = '-'
	hex.Encode(s[14:18], b[6:8])
	s[18] = '-'
	hex.Encode(s[19:23], b[8:10])
	s[23] = '-'
	hex.Encode(s[24:36], b[10:16])
	return string(s[:])
}

// NewBytes is a random version-4 GUID as its 16 bytes.
func NewBytes() [16]byte {
	var b [16]byte
	_, _ = rand.Read(b[:]) // crypto/rand.Read never returns an error
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	return b
}
