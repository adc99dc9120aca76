package blob

import (
	"encoding/binary"
	"errors"
	"fmt"

	"github.com/cerulean-db/cerulean/internal/kv"
	"github.com/cerulean-db/cerulean/internal/kv/record"
	"github.com/cerulean-db/cerulean/internal/kv/tuple"
)

// A block or append blob may have 50,000 extents, each with a block ID of
// up to 64 bytes: one key per extent would make a commit write 50,000 keys
// that each carry the blob's name (up to ~1 kB), past the transaction
// limit. So their extents are stored in pages: the page holding extents
// [i, i+extentsPerPage) is one value under extentKey(i), in a compact
// binary form. Page blobs keep one extent record per key, keyed by end
// offset, because Put Page needs range scans by offset; a page starts with
// pageFormat, a record never does (a JSON record starts with '{', a binary
// one with record.FormatCBOR), so a reader tells them apart (and reads
// block blobs written one extent per key before pages existed).

// extentsPerPage bounds a page below kv.MaxValueSize: an extent encodes in
// at most 105 bytes (a 64-byte block ID, its length and four varints).
const extentsPerPage = 900

// pageFormat is the first byte of an extent page.
const pageFormat = 0x01

// isPage reports whether v is an extent page rather than one extent's
// record.
func isPage(v []byte) bool { return len(v) > 0 && v[0] == pageFormat }

var errBadPage = errors.New("malformed extent page")

// encodePage encodes consecutive extents as one page.
func encodePage(exts []extent) []byte {
	out := make([]byte, 1, 1+len(exts)*(binary.MaxVarintLen64*5))
	out[0] = pageFormat
	for _, e := range exts {
		out = binary.AppendUvarint(out, uint64(len(e.BlockID)))
		out = append(out, e.BlockID...)
		out = binary.AppendUvarint(out, e.Data)
		out = binary.AppendUvarint(out, uint64(e.DataOff))
		out = binary.AppendUvarint(out, uint64(e.Offset))
		out = binary.AppendUvarint(out, uint64(e.Size))
	}
	return out
}

// decodePage appends the extents of page v, stored under key, to out.
func decodePage(out []extent, key, v []byte) ([]extent, error) {
	if len(v) == 0 || v[0] != pageFormat {
		return out, errBadPage
	}
	stored := len(v)
	v = v[1:]
	next := func() (uint64, bool) {
		x, n := binary.Uvarint(v)
		if n <= 0 {
			return 0, false
		}
		v = v[n:]
		return x, true
	}
	for len(v) > 0 {
		idLen, ok := next()
		if !ok || idLen > uint64(len(v)) {
			return out, errBadPage
		}
		e := extent{key: key, stored: stored}
		if idLen > 0 {
			e.BlockID = append([]byte(nil), v[:idLen]...)
		}
		v = v[idLen:]
		var fields [4]uint64
		for i := range fields {
			if fields[i], ok = next(); !ok {
				return out, errBadPage
			}
		}
		e.Data, e.DataOff, e.Offset, e.Size = fields[0], int64(fields[1]), int64(fields[2]), int64(fields[3])
		out = append(out, e)
	}
	return out, nil
}

// decodeExtents appends the extents stored in one value (a page or one
// JSON extent) under key to out.
func decodeExtents(out []extent, key, v []byte) ([]extent, error) {
	key = append([]byte(nil), key...)
	if !isPage(v) {
		e := extent{key: key, stored: len(v)}
		if err := record.Decode(v, &e); err != nil {
			return out, err
		}
		return append(out, e), nil
	}
	out, err := decodePage(out, key, v)
	if err != nil {
		return out, fmt.Errorf("extents at %q: %w", key, err)
	}
	return out, nil
}

// storeExtents writes a blob's whole content under prefix: page blob
// extents one per key, block and append blob extents in pages. Nothing
// may be under prefix as tx sees it (a new blob, or one whose extents tx
// has deleted).
func storeExtents(tx kv.Txn, prefix tuple.Key, typ string, extents []extent) error {
	if typ == pageBlob {
		for _, e := range extents {
			if err := kv.Insert(tx, prefix.Uint(uint64(e.Offset+e.Size)), record.Encode(e)); err != nil {
				return err
			}
		}
		return nil
	}
	for i := 0; i < len(extents); i += extentsPerPage {
		page := extents[i:min(i+extentsPerPage, len(extents))]
		if err := kv.Insert(tx, prefix.Uint(uint64(i)), encodePage(page)); err != nil {
			return err
		}
	}
	return nil
}

// appendExtent adds e as extent idx (the blob's extent count) of an append
// blob, rewriting only the last page.
func appendExtent(tx kv.Txn, acct, container, name string, idx int, e extent) error {
	start := idx - idx%extentsPerPage
	key := extentKey(acct, container, name, start)
	if start == idx {
		return tx.Set(key, encodePage([]extent{e}))
	}
	v, err := tx.Get(key)
	if errors.Is(err, kv.ErrNotFound) {
		// Written one extent per key, before pages existed: go on so.
		return record.Store(tx, extentKey(acct, container, name, idx), e)
	}
	if err != nil {
		return err
	}
	if !isPage(v) {
		return record.Store(tx, extentKey(acct, container, name, idx), e)
	}
	page, err := decodePage(nil, key, v)
	if err != nil {
		return fmt.Errorf("append extent: %w", err)
	}
	if len(page) != idx-start {
		return fmt.Errorf("append extent %d: page at %d holds %d extents: %w", idx, start, len(page), errBadPage)
	}
	return tx.Set(key, encodePage(append(page, e)))
}
