package testkit

import (
	"encoding/json"
	"math/rand/v2"
	"testing"
)

// Ptr returns a pointer to a copy of v, for the SDKs' optional fields.
func Ptr[T any](v T) *T { return &v }

// Deref returns *p, or T's zero value when p is nil.
func Deref[T any](p *T) T {
	if p == nil {
		var zero T
		return zero
	}
	return *p
}

// RandBytes returns n pseudo-random bytes that depend only on seed, so a
// failing test sees the same data when it is run again.
func RandBytes(seed uint64, n int) []byte {
	var s [32]byte
	for i := range 4 {
		for j := range 8 {
			s[i*8+j] = byte((seed + uint64(i)*0x9e3779b97f4a7c15) >> (8 * j))
		}
	}
	b := make([]byte, n)
	_, _ = rand.NewChaCha8(s).Read(b)
	return b
}

// JSON is v encoded as JSON, failing t when it cannot be.
func JSON(t testing.TB, v any) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
