package smb

import (
	"crypto/aes"
	"crypto/cipher"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/binary"
	"math/bits"
)

// md4 is RFC 1320's MD4, which NTLM's password hash (NTOWF) is built on
// and which Go's standard library does not carry.
func md4(msg []byte) [16]byte {
	s := [4]uint32{0x67452301, 0xefcdab89, 0x98badcfe, 0x10325476}
	m := make([]byte, len(msg), len(msg)+72)
	copy(m, msg)
	m = append(m, 0x80)
	for len(m)%64 != 56 {
		m = append(m, 0)
	}
	m = binary.LittleEndian.AppendUint64(m, uint64(len(msg))*8)
	type round struct {
		f     func(x, y, z uint32) uint32
		k     uint32
		order [16]int
		shift [4]int
	}
	rounds := [3]round{
		{func(x, y, z uint32) uint32 { return x&y | ^x&z }, 0, [16]int{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15}, [4]int{3, 7, 11, 19}},
		{func(x, y, z uint32) uint32 { return x&y | x&z | y&z }, 0x5A827999, [16]int{0, 4, 8, 12, 1, 5, 9, 13, 2, 6, 10, 14, 3, 7, 11, 15}, [4]int{3, 5, 9, 13}},
		{func(x, y, z uint32) uint32 { return x ^ y ^ z }, 0x6ED9EBA1, [16]int{0, 8, 4, 12, 2, 10, 6, 14, 1, 9, 5, 13, 3, 11, 7, 15}, [4]int{3, 9, 11, 15}},
	}
	for off := 0; off < len(m); off += 64 {
		var x [16]uint32
		for j := range x {
			x[j] = binary.LittleEndian.Uint32(m[off+4*j:])
		}
		v := s
		for _, r := range rounds {
			for j := range 16 {
				// Steps update a, d, c, b in turn, each from the other three.
				i0 := (16 - j) % 4
				i1, i2, i3 := (i0+1)%4, (i0+2)%4, (i0+3)%4
				v[i0] = bits.RotateLeft32(v[i0]+r.f(v[i1], v[i2], v[i3])+x[r.order[j]]+r.k, r.shift[j%4])
			}
		}
		for i := range s {
			s[i] += v[i]
		}
	}
	var out [16]byte
	for i, w := range s {
		binary.LittleEndian.PutUint32(out[4*i:], w)
	}
	return out
}

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
