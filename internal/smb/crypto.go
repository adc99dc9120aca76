package smb

import (
	"crypto/aes"
	"crypto/cipher"
	"crypto/hmac"
	"crypto/sha256"
)

// kdf is SP800-108's key derivation in counter mode with HMAC-SHA256,
// as SMB 3.x derives its signing keys (MS-SMB2 3.1.4.2): one block, a
// 128-bit key.
func kdf(key, label, context []byte) []byte {
	h := hmac.New(sha256.New, key)
	h.Write([]byte{0, 0, 0, 1})
	h.Write(label)
	h.Write([]byte{0})
	h.Write(context)
	h.Write([]byte{0, 0, 0, 128})
	return h.Sum(nil)[:16]
}

// cmac is AES-CMAC (RFC 4493), SMB 3.x's signing algorithm.
type cmac struct {
	c      cipher.Block
	k1, k2 [16]byte
}

func newCMAC(key []byte) (*cmac, error) {
	c, err := aes.NewCipher(key)
	if err != nil {
		return nil, err
	}
	m := &cmac{c: c}
	var l [16]byte
	c.Encrypt(l[:], l[:])
	m.k1 = dbl(l)
	m.k2 = dbl(m.k1)
	return m, nil
}

// dbl doubles a block in GF(2^128).
func dbl(b [16]byte) [16]byte {
	var out [16]byte
	carry := b[0] >> 7
	for i := range 15 {
		out[i] = b[i]<<1 | b[i+1]>>7
	}
	out[15] = b[15] << 1
	if carry != 0 {
		out[15] ^= 0x87
	}
	return out
}

func (m *cmac) sum(msg []byte) [16]byte {
	var x [16]byte
	n := len(msg)
	blocks := max((n+15)/16, 1)
	for i := range blocks - 1 {
		for j := range 16 {
			x[j] ^= msg[16*i+j]
		}
		m.c.Encrypt(x[:], x[:])
	}
	last := msg[16*(blocks-1):]
	var pad [16]byte
	if len(last) == 16 {
		for j := range 16 {
			pad[j] = last[j] ^ m.k1[j]
		}
	} else {
		copy(pad[:], last)
		pad[len(last)] = 0x80
		for j := range 16 {
			pad[j] ^= m.k2[j]
		}
	}
	for j := range 16 {
		x[j] ^= pad[j]
	}
	m.c.Encrypt(x[:], x[:])
	return x
}
