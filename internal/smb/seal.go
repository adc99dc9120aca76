package smb

import (
	"crypto/aes"
	"crypto/cipher"
	"crypto/rand"
	"errors"
)

// SMB 3.x encryption (MS-SMB2 2.2.41, 3.1.4.3): a frame is one
// TRANSFORM_HEADER followed by the encrypted messages; the header from
// its nonce on is the additional authenticated data and its signature
// field the tag. 3.1.1 negotiates AES-128-GCM, AES-128-CCM or
// AES-256-GCM in its encryption context (signing.go); 3.0 and 3.0.2 use
// AES-128-CCM (crypto.go) when the client has the encryption capability.
// A 12-byte GCM or 11-byte CCM nonce, whatever the key length, starts the
// 16-byte nonce field. Encryption is used
// when the client encrypts; it is never required.

const transformSize = 52

var errUnsealed = errors.New("smb: an encrypted frame fails to decrypt")

func newGCM(key []byte) (cipher.AEAD, error) {
	b, err := aes.NewCipher(key)
	if err != nil {
		return nil, err
	}
	return cipher.NewGCM(b)
}

// handleSealed decrypts a frame, answers the messages inside and
// encrypts the answer for the same session. A frame that does not
// decrypt closes the connection.
func (c *conn) handleSealed(frame []byte) ([]byte, error) {
	if len(frame) < transformSize || c.sealing != nil {
		return nil, errMalformed
	}
	size := int(le.Uint32(frame[36:]))
	id := le.Uint64(frame[44:])
	c.mu.Lock()
	s := c.sessions[id]
	c.mu.Unlock()
	if s == nil || s.unseal == nil || le.Uint16(frame[42:]) != 1 || size != len(frame)-transformSize {
		return nil, errUnsealed
	}
	var tagged []byte
	tagged = append(append(tagged, frame[transformSize:]...), frame[4:20]...)
	plain, err := s.unseal.Open(nil, frame[20:20+s.unseal.NonceSize()], tagged, frame[20:transformSize])
	if err != nil {
		return nil, errUnsealed
	}
	c.sealing = s
	defer func() { c.sealing = nil }()
	out, err := c.handleFrame(plain)
	if err != nil || out == nil {
		return out, err
	}
	return sealFor(s, out)
}

// sealFor encrypts messages for a session's client.
func sealFor(s *session, msg []byte) ([]byte, error) {
	hdr := make([]byte, transformSize)
	copy(hdr, []byte{0xFD, 'S', 'M', 'B'})
	nonce := hdr[20 : 20+s.seal.NonceSize()] // the rest of the 16-byte field stays zero
	if _, err := rand.Read(nonce); err != nil {
		return nil, err
	}
	le.PutUint32(hdr[36:], uint32(len(msg)))
	le.PutUint16(hdr[42:], 1) // encrypted
	le.PutUint64(hdr[44:], s.id)
	sealed := s.seal.Seal(nil, nonce, msg, hdr[20:transformSize])
	n := len(sealed) - s.seal.Overhead()
	copy(hdr[4:20], sealed[n:])
	return append(hdr, sealed[:n]...), nil
}
