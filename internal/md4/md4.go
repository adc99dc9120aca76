// Package md4 is RFC 1320's MD4, on which NTLM's password hash (NTOWF)
// is built and which Go's standard library does not carry. MD4 is broken
// as a hash; it is here only because NTLM's wire format requires it.
package md4

import (
	"encoding/binary"
	"math/bits"
)

// Sum is the MD4 digest of msg.
func Sum(msg []byte) [16]byte {
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
