package smb

import (
	"encoding/binary"
	"testing"
)

// FuzzCopyChunkRequest: any SRV_COPYCHUNK_COPY decodes without
// panicking, and one it accepts keeps every limit and lies within the
// input.
func FuzzCopyChunkRequest(f *testing.F) {
	one := make([]byte, copyChunkHeaderSize+copyChunkSize)
	binary.LittleEndian.PutUint32(one[resumeKeySize:], 1)
	binary.LittleEndian.PutUint32(one[copyChunkHeaderSize+16:], 4096)
	f.Add(one)
	f.Add(one[:copyChunkHeaderSize])
	f.Add([]byte{})
	f.Fuzz(func(t *testing.T, in []byte) {
		chunks, ok := parseCopyChunks(in)
		if !ok {
			return
		}
		if len(chunks) > copyMaxChunks || copyChunkHeaderSize+len(chunks)*copyChunkSize > len(in) {
			t.Fatalf("accepted %d chunks from %d bytes", len(chunks), len(in))
		}
		var total uint64
		for _, ch := range chunks {
			if ch.length == 0 || ch.length > copyMaxChunkSize {
				t.Fatalf("accepted a chunk of %d bytes", ch.length)
			}
			if ch.source+uint64(ch.length) < ch.source || (ch.target != copyAtEnd && int64(ch.target) < 0) {
				t.Fatalf("accepted offsets %d, %d", ch.source, ch.target)
			}
			total += uint64(ch.length)
		}
		if total > copyMaxTotalSize {
			t.Fatalf("accepted %d bytes in all", total)
		}
	})
}
