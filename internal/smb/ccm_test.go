package smb

import (
	"bytes"
	"encoding/hex"
	"testing"
)

// TestCCMVectors: AES-CCM against the examples of NIST SP 800-38C
// appendix C, and a sealed message that is tampered with does not open.
func TestCCMVectors(t *testing.T) {
	key, _ := hex.DecodeString("404142434445464748494a4b4c4d4e4f")
	seq := func(from, n int) []byte {
		b := make([]byte, n)
		for i := range b {
			b[i] = byte(from + i)
		}
		return b
	}
	for i, tc := range []struct {
		nonce, ad, plain []byte
		tagLen           int
		want             string
	}{
		{seq(0x10, 7), seq(0, 8), seq(0x20, 4), 4, "7162015b4dac255d"},
		{seq(0x10, 8), seq(0, 16), seq(0x20, 16), 6, "d2a1f0e051ea5f62081a7792073d593d1fc64fbfaccd"},
		{seq(0x10, 12), seq(0, 20), seq(0x20, 24), 8, "e3b201a9f5b71a7a9b1ceaeccd97e70b6176aad9a4428aa5484392fbc1b09951"},
	} {
		a, err := newCCM(key, len(tc.nonce), tc.tagLen)
		if err != nil {
			t.Fatal(err)
		}
		got := a.Seal(nil, tc.nonce, tc.plain, tc.ad)
		if hex.EncodeToString(got) != tc.want {
			t.Errorf("example %d: %x, want %s", i+1, got, tc.want)
			continue
		}
		plain, err := a.Open(nil, tc.nonce, got, tc.ad)
		if err != nil || !bytes.Equal(plain, tc.plain) {
			t.Errorf("example %d: open: %x %v", i+1, plain, err)
		}
		got[0] ^= 1
		if _, err := a.Open(nil, tc.nonce, got, tc.ad); err == nil {
			t.Errorf("example %d: a tampered message opened", i+1)
		}
	}
}
