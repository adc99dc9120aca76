package smb

import (
	"crypto/aes"
	"crypto/cipher"
	"crypto/hmac"
	"crypto/sha256"
	"crypto/subtle"
	"errors"
)

// kdf is SP800-108's key derivation in counter mode with HMAC-SHA256,
// as SMB 3.x derives its keys (MS-SMB2 3.1.4.2): one block, a 128-bit
// key.
func kdf(key, label, context []byte) []byte {
	return kdfBits(key, label, context, 128)
}

// kdfBits is kdf for an L of 128 or 256 bits: the 256-bit ciphers'
// keys are a whole HMAC-SHA256 block with L = 256 in the input, which
// changes every byte of the key, not only its length.
func kdfBits(key, label, context []byte, bits int) []byte {
	h := hmac.New(sha256.New, key)
	h.Write([]byte{0, 0, 0, 1})
	h.Write(label)
	h.Write([]byte{0})
	h.Write(context)
	h.Write([]byte{0, 0, byte(bits >> 8), byte(bits)})
	return h.Sum(nil)[:bits/8]
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

// ccm is AES-CCM (NIST SP 800-38C, RFC 3610) as a cipher.AEAD: SMB 3.0
// and 3.0.2 encrypt with AES-128-CCM, an 11-byte nonce and a 16-byte tag
// (MS-SMB2 3.1.4.3), which Go's library does not offer.
type ccm struct {
	b        cipher.Block
	nonceLen int
	tagLen   int
}

// newCCM returns AES-CCM with the given nonce (7 to 13 bytes) and tag
// (4 to 16 bytes, even) lengths.
func newCCM(key []byte, nonceLen, tagLen int) (cipher.AEAD, error) {
	b, err := aes.NewCipher(key)
	if err != nil {
		return nil, err
	}
	if nonceLen < 7 || nonceLen > 13 || tagLen < 4 || tagLen > 16 || tagLen%2 != 0 {
		return nil, errors.New("smb: bad CCM parameters")
	}
	return &ccm{b: b, nonceLen: nonceLen, tagLen: tagLen}, nil
}

func (c *ccm) NonceSize() int { return c.nonceLen }
func (c *ccm) Overhead() int  { return c.tagLen }

// mac is the CBC-MAC of the formatted B0, associated data and payload.
func (c *ccm) mac(nonce, plain, ad []byte) [16]byte {
	q := 15 - c.nonceLen
	var b0 [16]byte
	b0[0] = byte((c.tagLen-2)/2<<3 | (q - 1))
	if len(ad) > 0 {
		b0[0] |= 0x40
	}
	copy(b0[1:], nonce)
	n := uint64(len(plain))
	for i := 15; i > c.nonceLen; i-- {
		b0[i] = byte(n)
		n >>= 8
	}
	var x [16]byte
	c.b.Encrypt(x[:], b0[:])
	block := func(p []byte) {
		for len(p) > 0 {
			k := min(len(p), 16)
			for i := range k {
				x[i] ^= p[i]
			}
			c.b.Encrypt(x[:], x[:])
			p = p[k:]
		}
	}
	if len(ad) > 0 {
		var hdr []byte
		if len(ad) < 0xFF00 {
			hdr = []byte{byte(len(ad) >> 8), byte(len(ad))}
		} else {
			hdr = []byte{0xFF, 0xFE, byte(len(ad) >> 24), byte(len(ad) >> 16), byte(len(ad) >> 8), byte(len(ad))}
		}
		a := append(hdr, ad...)
		a = append(a, make([]byte, (16-len(a)%16)%16)...)
		block(a)
	}
	block(plain)
	return x
}

// ctr XORs src into dst with the counter blocks from 1 on, and returns
// the keystream block of counter 0 (which masks the tag).
func (c *ccm) ctr(nonce, dst, src []byte) [16]byte {
	q := 15 - c.nonceLen
	var ctr, s0, ks [16]byte
	ctr[0] = byte(q - 1)
	copy(ctr[1:], nonce)
	c.b.Encrypt(s0[:], ctr[:])
	for i := 0; i < len(src); i += 16 {
		for j := 15; j > c.nonceLen; j-- {
			ctr[j]++
			if ctr[j] != 0 {
				break
			}
		}
		c.b.Encrypt(ks[:], ctr[:])
		for j := i; j < min(i+16, len(src)); j++ {
			dst[j] = src[j] ^ ks[j-i]
		}
	}
	return s0
}

func (c *ccm) Seal(dst, nonce, plain, ad []byte) []byte {
	if len(nonce) != c.nonceLen {
		panic("smb: CCM nonce length")
	}
	t := c.mac(nonce, plain, ad)
	out := make([]byte, len(plain)+c.tagLen)
	s0 := c.ctr(nonce, out, plain)
	for i := range c.tagLen {
		out[len(plain)+i] = t[i] ^ s0[i]
	}
	return append(dst, out...)
}

func (c *ccm) Open(dst, nonce, sealed, ad []byte) ([]byte, error) {
	if len(nonce) != c.nonceLen || len(sealed) < c.tagLen {
		return nil, errUnsealed
	}
	n := len(sealed) - c.tagLen
	plain := make([]byte, n)
	s0 := c.ctr(nonce, plain, sealed[:n])
	t := c.mac(nonce, plain, ad)
	var want [16]byte
	for i := range c.tagLen {
		want[i] = t[i] ^ s0[i]
	}
	if subtle.ConstantTimeCompare(want[:c.tagLen], sealed[n:]) != 1 {
		return nil, errUnsealed
	}
	return append(dst, plain...), nil
}
