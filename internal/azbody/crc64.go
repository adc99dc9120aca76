package azbody

import (
	"encoding/base64"
	"encoding/binary"
	"hash"
	"hash/crc64"
	"net/http"

	"github.com/cerulean-db/cerulean/internal/azerr"
)

// crc64Table is Azure Storage's CRC64 (the polynomial of NVMe's CRC64).
var crc64Table = crc64.MakeTable(0x9A6C9329AC4BC9B5)

// CRC64 returns Azure Storage's CRC64 of data the way the x-ms-*-crc64
// headers carry it: 8 bytes, little endian.
func CRC64(data []byte) []byte { return CRC64Bytes(crc64.Checksum(data, crc64Table)) }

// NewCRC64 returns a running Azure Storage CRC64, for content that
// streams; CRC64Bytes renders its Sum64.
func NewCRC64() hash.Hash64 { return crc64.New(crc64Table) }

// CRC64Bytes renders a CRC64 sum as the x-ms-*-crc64 headers carry it.
func CRC64Bytes(sum uint64) []byte { return binary.LittleEndian.AppendUint64(nil, sum) }

// ParseCRC64 reads a CRC64 header (x-ms-content-crc64 and its source
// variants): nil when absent, else the 8 bytes the client computed.
func ParseCRC64(h http.Header, name string) ([]byte, error) {
	v := h.Get(name)
	if v == "" {
		return nil, nil
	}
	sum, err := base64.StdEncoding.DecodeString(v)
	if err != nil || len(sum) != 8 {
		return nil, azerr.InvalidHeaderValue(name, v)
	}
	return sum, nil
}
