package testkit

import (
	"encoding/binary"
	"hash/crc64"
)

// XSMHeader is the x-ms-structured-body value of an XSM/1.0 message with
// CRC64 checksums.
const XSMHeader = "XSM/1.0; properties=crc64"

var azureCRC64Table = crc64.MakeTable(0x9A6C9329AC4BC9B5)

// AzureCRC64 is the CRC-64 Azure Storage computes (polynomial
// 0x9A6C9329AC4BC9B5), independent of the server's and the SDKs' code.
func AzureCRC64(b []byte) uint64 {
	return crc64.Checksum(b, azureCRC64Table)
}

// EncodeXSM encodes data as an XSM/1.0 structured message with CRC64
// checksums in segments of seg bytes, written from the format's
// description (independently of the server's codec and of the SDKs').
func EncodeXSM(data []byte, seg int) []byte {
	n := max(1, (len(data)+seg-1)/seg)
	var body []byte
	for i := range n {
		part := data[i*seg : min(len(data), (i+1)*seg)]
		body = binary.LittleEndian.AppendUint16(body, uint16(i+1))
		body = binary.LittleEndian.AppendUint64(body, uint64(len(part)))
		body = append(body, part...)
		body = binary.LittleEndian.AppendUint64(body, AzureCRC64(part))
	}
	body = binary.LittleEndian.AppendUint64(body, AzureCRC64(data))
	out := []byte{1}
	out = binary.LittleEndian.AppendUint64(out, uint64(13+len(body)))
	out = binary.LittleEndian.AppendUint16(out, 1)
	out = binary.LittleEndian.AppendUint16(out, uint16(n))
	return append(out, body...)
}
