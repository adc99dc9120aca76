package smb

import (
	"math"
	"testing"
	"time"
)

// FuzzFiletime: SMB's FILETIME and the file model's times convert both
// ways without loss across the whole range either side can hold: every
// time FileREST accepts from 1601 (the FILETIME epoch) to 9999 at 100 ns
// precision, and every FILETIME a client sets (all but 0, -1 and -2,
// which mean "leave it"). Go's UnixNano, which is undefined outside
// 1678–2262, cannot be the path.
func FuzzFiletime(f *testing.F) {
	f.Add(int64(0), uint64(filetimeEpoch))
	f.Add(int64(-11644473600), uint64(1))
	f.Add(int64(253402300799), uint64(math.MaxUint64-2))
	f.Add(int64(-9223372036), uint64(0x7FFFFFFFFFFFFFFF))
	f.Add(int64(9223372036), uint64(2650467743999999999))
	first := time.Date(1601, 1, 1, 0, 0, 0, 0, time.UTC).Unix()
	last := time.Date(9999, 12, 31, 23, 59, 59, 0, time.UTC).Unix()
	f.Fuzz(func(t *testing.T, sec int64, v uint64) {
		span := last - first + 1
		s := first + (sec%span+span)%span
		at := time.Unix(s, int64(v%1e7)*100).UTC()
		if got := fromFiletime(filetime(at)); !got.Equal(at) {
			t.Fatalf("%v: FILETIME %d reads back as %v", at, filetime(at), got)
		}
		if v == 0 || v >= math.MaxUint64-1 {
			return
		}
		if got := filetime(fromFiletime(v)); got != v {
			t.Fatalf("FILETIME %d: %v writes back as %d", v, fromFiletime(v), got)
		}
	})
}
