package azauth

import (
	"crypto/hmac"
	"crypto/sha256"
	"hash"
	"iter"
	"sync"
)

// keyMACs are the HMAC-SHA256 states of one key, kept for reuse: a reset
// HMAC restores the key's precomputed pad states instead of hashing them
// again, and a pooled one allocates nothing per request.
type keyMACs struct{ pool sync.Pool }

func newKeyMACs(key []byte) *keyMACs {
	k := &keyMACs{}
	k.pool.New = func() any { return hmac.New(sha256.New, key) }
	return k
}

// signs reports whether sig is the HMAC-SHA256 of s under the key.
func (k *keyMACs) signs(sig []byte, s string) bool {
	m := k.pool.Get().(hash.Hash)
	defer k.pool.Put(m)
	m.Reset()
	m.Write([]byte(s))
	var sum [sha256.Size]byte
	return hmac.Equal(m.Sum(sum[:0]), sig)
}

// macsOf returns the MAC states of each of keys.
func macsOf(keys [][]byte) []*keyMACs {
	out := make([]*keyMACs, len(keys))
	for i, k := range keys {
		out[i] = newKeyMACs(k)
	}
	return out
}

// signedBy reports whether sig is the HMAC-SHA256 of any candidate
// string-to-sign under any of acct's keys. Trying every key is how key
// rotation works: either key of an account is valid at any time.
func signedBy(acct Account, sig []byte, candidates iter.Seq[string]) bool {
	macs := acct.macs
	if len(macs) != len(acct.Keys) { // an Account not built by NewAccounts
		macs = macsOf(acct.Keys)
	}
	for c := range candidates {
		for _, m := range macs {
			if m.signs(sig, c) {
				return true
			}
		}
	}
	return false
}
