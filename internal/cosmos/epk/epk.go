package epk

import (
	"encoding/binary"
	"encoding/hex"
	"math"
	"math/bits"
	"strings"
)

// Undefined is the value of a component whose path is absent from the
// item (the SDKs' {} / PartitionKey.None).
type Undefined struct{}

// Component type markers of the hash input.
const (
	markUndefined byte = 0x00
	markNull      byte = 0x01
	markFalse     byte = 0x02
	markTrue      byte = 0x03
	markNumber    byte = 0x05
	markString    byte = 0x08
)

// encode appends one component (nil, bool, float64, string or Undefined)
// as hashed; strings end with suffix (0x00 in version 1, 0xFF in 2).
func encode(buf []byte, v any, suffix byte) []byte {
	switch x := v.(type) {
	case nil:
		return append(buf, markNull)
	case bool:
		if x {
			return append(buf, markTrue)
		}
		return append(buf, markFalse)
	case float64:
		buf = append(buf, markNumber)
		return binary.LittleEndian.AppendUint64(buf, math.Float64bits(x))
	case string:
		buf = append(buf, markString)
		buf = append(buf, x...)
		return append(buf, suffix)
	default:
		return append(buf, markUndefined)
	}
}

// V1 is the version-1 EPK: per component, twelve zero bytes and the
// big-endian MurmurHash3-32 of the encoded value.
func V1(values []any) string {
	var sb strings.Builder
	for _, v := range values {
		h := murmur32(encode(nil, v, 0x00), 0)
		var b [16]byte
		binary.BigEndian.PutUint32(b[12:], h)
		sb.WriteString(strings.ToUpper(hex.EncodeToString(b[:])))
	}
	return sb.String()
}

// V2Hash is the raw version-2 hash of a whole key (unmasked).
func V2Hash(values []any) string {
	var buf []byte
	for _, v := range values {
		buf = encode(buf, v, 0xFF)
	}
	return hash128(buf)
}

// V2MultiHash is the raw hierarchical hash: one 128-bit hash per
// component (unmasked).
func V2MultiHash(values []any) string {
	var sb strings.Builder
	for _, v := range values {
		sb.WriteString(hash128(encode(nil, v, 0xFF)))
	}
	return sb.String()
}

// Kind is a container's partitioning scheme.
type Kind int

// The schemes a partitionKey definition names.
const (
	HashV1 Kind = iota
	HashV2
	MultiHash
)

// ForRouting returns the EPK by which a key is placed and scoped: the
// scheme's hash with the top two bits of each 128-bit hash cleared.
// An empty key (a whole hierarchical container) is "".
func ForRouting(kind Kind, values []any) string {
	switch kind {
	case HashV1:
		return V1(values)
	case HashV2:
		if len(values) == 0 {
			return ""
		}
		return mask(V2Hash(values))
	default:
		var sb strings.Builder
		for _, v := range values {
			sb.WriteString(mask(hash128(encode(nil, v, 0xFF))))
		}
		return sb.String()
	}
}

// mask clears the top two bits of a 32-hex-digit hash.
func mask(h string) string {
	b, err := hex.DecodeString(h[:2])
	if err != nil {
		return h
	}
	return strings.ToUpper(hex.EncodeToString([]byte{b[0] & 0x3F})) + h[2:]
}

func hash128(data []byte) string {
	lo, hi := murmur128(data, 0, 0)
	var b [16]byte
	binary.BigEndian.PutUint64(b[:8], hi)
	binary.BigEndian.PutUint64(b[8:], lo)
	return strings.ToUpper(hex.EncodeToString(b[:]))
}

// Compare orders two EPKs, treating a shorter one as padded with zeros:
// hierarchical ranges mix 32- and 64-digit bounds. It returns -1, 0 or 1.
func Compare(a, b string) int {
	n := min(len(a), len(b))
	if c := strings.Compare(strings.ToUpper(a[:n]), strings.ToUpper(b[:n])); c != 0 {
		return c
	}
	tail, sign := b[n:], -1
	if len(a) > len(b) {
		tail, sign = a[n:], 1
	}
	if strings.Trim(tail, "0") == "" {
		return 0
	}
	return sign
}

// InRange reports whether e lies in [minInclusive, maxExclusive); "FF"
// or "" as the maximum means the end of the space.
func InRange(e, minInclusive, maxExclusive string) bool {
	if Compare(e, minInclusive) < 0 {
		return false
	}
	if maxExclusive == "" || strings.EqualFold(maxExclusive, "FF") {
		return true
	}
	return Compare(e, maxExclusive) < 0
}

// murmur32K scrambles a word of MurmurHash3_x86_32's input (a block, or
// the tail) before it is mixed into the hash.
func murmur32K(k uint32) uint32 { return bits.RotateLeft32(k*0xcc9e2d51, 15) * 0x1b873593 }

func murmur32(data []byte, seed uint32) uint32 {
	h := seed
	n := len(data) &^ 3
	for i := 0; i < n; i += 4 {
		k := binary.LittleEndian.Uint32(data[i:])
		h ^= murmur32K(k)
		h = bits.RotateLeft32(h, 13)
		h = h*5 + 0xe6546b64
	}
	var k uint32
	switch len(data) & 3 {
	case 3:
		k ^= uint32(data[n+2]) << 16
		fallthrough
	case 2:
		k ^= uint32(data[n+1]) << 8
		fallthrough
	case 1:
		k ^= uint32(data[n])
		h ^= murmur32K(k)
	}
	h ^= uint32(len(data))
	h ^= h >> 16
	h *= 0x85ebca6b
	h ^= h >> 13
	h *= 0xc2b2ae35
	h ^= h >> 16
	return h
}

func fmix64(v uint64) uint64 {
	v ^= v >> 33
	v *= 0xff51afd7ed558ccd
	v ^= v >> 33
	v *= 0xc4ceb9fe1a85ec53
	v ^= v >> 33
	return v
}

// murmur128's multipliers.
const murmurC1, murmurC2 = 0x87c37b91114253d5, 0x4cf5ad432745937f

// murmurK1 and murmurK2 scramble the first and second word of a block
// (or of the tail) before it is mixed into h1 and h2.
func murmurK1(k uint64) uint64 { return bits.RotateLeft64(k*murmurC1, 31) * murmurC2 }
func murmurK2(k uint64) uint64 { return bits.RotateLeft64(k*murmurC2, 33) * murmurC1 }

// murmur128 is MurmurHash3_x64_128, returning the low and high halves.
func murmur128(data []byte, seedLo, seedHi uint64) (uint64, uint64) {
	h1, h2 := seedLo, seedHi
	pos := 0
	for ; pos+16 <= len(data); pos += 16 {
		k1 := binary.LittleEndian.Uint64(data[pos:])
		k2 := binary.LittleEndian.Uint64(data[pos+8:])
		h1 ^= murmurK1(k1)
		h1 = bits.RotateLeft64(h1, 27)
		h1 += h2
		h1 = h1*5 + 0x52dce729
		h2 ^= murmurK2(k2)
		h2 = bits.RotateLeft64(h2, 31)
		h2 += h1
		h2 = h2*5 + 0x38495ab5
	}
	tail := data[pos:]
	var k1, k2 uint64
	for i := len(tail) - 1; i >= 8; i-- {
		k2 ^= uint64(tail[i]) << (8 * (i - 8))
	}
	for i := min(len(tail), 8) - 1; i >= 0; i-- {
		k1 ^= uint64(tail[i]) << (8 * i)
	}
	// The SDKs mix both tail words even when empty.
	h2 ^= murmurK2(k2)
	h1 ^= murmurK1(k1)
	n := uint64(len(data))
	h1 ^= n
	h2 ^= n
	h1 += h2
	h2 += h1
	h1 = fmix64(h1)
	h2 = fmix64(h2)
	h1 += h2
	h2 += h1
	return h1, h2
}
