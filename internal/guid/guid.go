// Package guid makes the random (version 4) GUIDs Azure hands out as
// request, lease and batch IDs, so the services draw them one way.
package guid

import (
	"crypto/rand"
	"fmt"
)

// New is a random version-4 GUID in the 8-4-4-4-12 lower-case
// hexadecimal form.
func New() string {
	b := NewBytes()
	return fmt.Sprintf("%x-%x-%x-%x-%x", b[0:4], b[4:6], b[6:8], b[8:10], b[10:16])
}

// NewBytes is a random version-4 GUID as its 16 bytes.
func NewBytes() [16]byte {
	var b [16]byte
	_, _ = rand.Read(b[:]) // crypto/rand.Read never returns an error
	b[6] = b[6]&0x0f | 0x40
	b[8] = b[8]&0x3f | 0x80
	return b
}
