package table

import (
	"encoding/binary"
	"errors"
	"fmt"
	"math"

	"github.com/cerulean-db/cerulean/internal/kv"
	"github.com/cerulean-db/cerulean/internal/kv/tuple"
	"github.com/cerulean-db/cerulean/internal/table/odata"
)

// An entity is stored as one payload:
//
//	format byte (1), uvarint version, varint Timestamp ticks,
//	uvarint property count, then per property:
//	uvarint name length, name, type byte, value
//
// where a String, Guid or Binary value is a uvarint length and its bytes,
// Int32, Int64 and DateTime a varint, Double eight little-endian bytes of
// its IEEE bits and Boolean one byte. The payload is cut into chunkSize
// pieces (an entity may reach 1 MiB, a kv value 100 kB): the head value
// is one byte giving the number of further chunks, then the first piece.
const (
	recordFormat = 1
	chunkSize    = 64 << 10
	maxChunks    = 64
)

var errCorrupt = errors.New("table: corrupt entity record")

func encodeEntity(e *Entity) []byte {
	b := make([]byte, 0, 64+e.size())
	b = append(b, recordFormat)
	b = binary.AppendUvarint(b, e.Version)
	b = binary.AppendVarint(b, e.Timestamp)
	b = binary.AppendUvarint(b, uint64(len(e.Properties)))
	for _, p := range e.Properties {
		b = binary.AppendUvarint(b, uint64(len(p.Name)))
		b = append(b, p.Name...)
		b = append(b, byte(p.Value.Type))
		switch p.Value.Type {
		case odata.String, odata.Guid, odata.Binary:
			b = binary.AppendUvarint(b, uint64(len(p.Value.Str)))
			b = append(b, p.Value.Str...)
		case odata.Int32, odata.Int64, odata.DateTime:
			b = binary.AppendVarint(b, p.Value.Num)
		case odata.Double:
			b = binary.LittleEndian.AppendUint64(b, math.Float64bits(p.Value.Float))
		case odata.Boolean:
			b = append(b, byte(p.Value.Num))
		}
	}
	return b
}

// decoder reads a payload, remembering the first error.
type decoder struct {
	b   []byte
	err error
}

func (d *decoder) fail() {
	if d.err == nil {
		d.err = errCorrupt
	}
	d.b = nil
}

// varNum reads one number with read (binary.Uvarint or binary.Varint);
// a short or overlong one fails the decoder.
func varNum[T uint64 | int64](d *decoder, read func([]byte) (T, int)) T {
	v, n := read(d.b)
	if n <= 0 {
		d.fail()
		return 0
	}
	d.b = d.b[n:]
	return v
}

func (d *decoder) uvarint() uint64 { return varNum(d, binary.Uvarint) }

func (d *decoder) varint() int64 { return varNum(d, binary.Varint) }

func (d *decoder) bytes(n uint64) string {
	if n > uint64(len(d.b)) {
		d.fail()
		return ""
	}
	s := string(d.b[:n])
	d.b = d.b[n:]
	return s
}

func (d *decoder) byte1() byte {
	if len(d.b) == 0 {
		d.fail()
		return 0
	}
	c := d.b[0]
	d.b = d.b[1:]
	return c
}

// decodeHeader reads the version and Timestamp at the start of a payload
// (they sit in the head chunk, so no other chunk is needed for them).
func decodeHeader(payload []byte) (version uint64, stamp int64, err error) {
	d := decoder{b: payload}
	if d.byte1() != recordFormat {
		return 0, 0, errCorrupt
	}
	version, stamp = d.uvarint(), d.varint()
	return version, stamp, d.err
}

func decodeEntity(pk, rk string, payload []byte) (*Entity, error) {
	d := decoder{b: payload}
	if d.byte1() != recordFormat {
		return nil, errCorrupt
	}
	e := &Entity{PartitionKey: pk, RowKey: rk, Version: d.uvarint(), Timestamp: d.varint()}
	n := d.uvarint()
	if n > maxProperties+systemProperties {
		return nil, errCorrupt
	}
	e.Properties = make([]Property, 0, n)
	for i := uint64(0); i < n && d.err == nil; i++ {
		p := Property{Name: d.bytes(d.uvarint())}
		t := odata.Type(d.byte1())
		p.Value.Type = t
		switch t {
		case odata.String, odata.Guid, odata.Binary:
			p.Value.Str = d.bytes(d.uvarint())
		case odata.Int32, odata.Int64, odata.DateTime:
			p.Value.Num = d.varint()
		case odata.Double:
			p.Value.Float = math.Float64frombits(binaryUint64(d.bytes(8)))
		case odata.Boolean:
			p.Value.Num = int64(d.byte1())
		default:
			d.fail()
		}
		e.Properties = append(e.Properties, p)
	}
	if d.err == nil && len(d.b) != 0 {
		d.fail()
	}
	if d.err != nil {
		return nil, fmt.Errorf("entity (%q, %q): %w", pk, rk, d.err)
	}
	return e, nil
}

func binaryUint64(s string) uint64 {
	if len(s) != 8 {
		return 0
	}
	return binary.LittleEndian.Uint64([]byte(s))
}

// storedEntity is what a write needs to know about the entity it
// replaces: whether it exists, its version and Timestamp, and how many
// chunks beyond the head it occupies.
type storedEntity struct {
	found   bool
	version uint64
	stamp   int64
	extra   int
	head    []byte // the head value, for loading the rest
	// create: the key was not read (found is unknown); the entity must
	// not exist, and storeEntity writes it with kv.Create.
	create bool
}

// loadHead reads an entity's head value only.
func loadHead(r kv.Reader, key tuple.Key) (storedEntity, error) {
	v, err := r.Get(key)
	if errors.Is(err, kv.ErrNotFound) {
		return storedEntity{}, nil
	}
	if err != nil {
		return storedEntity{}, err
	}
	if len(v) < 1 || int(v[0]) >= maxChunks {
		return storedEntity{}, errCorrupt
	}
	version, stamp, err := decodeHeader(v[1:])
	if err != nil {
		return storedEntity{}, err
	}
	return storedEntity{found: true, version: version, stamp: stamp, extra: int(v[0]), head: v}, nil
}

// loadEntity reads a whole entity; nil when absent.
func loadEntity(r kv.Reader, key tuple.Key, pk, rk string) (*Entity, storedEntity, error) {
	st, err := loadHead(r, key)
	if err != nil || !st.found {
		return nil, st, err
	}
	payload := st.head[1:]
	if st.extra > 0 {
		payload = append([]byte(nil), payload...)
		for i := 1; i <= st.extra; i++ {
			part, err := r.Get(chunkKey(key, i))
			if err != nil {
				return nil, st, fmt.Errorf("entity chunk %d: %w", i, err)
			}
			payload = append(payload, part...)
		}
	}
	e, err := decodeEntity(pk, rk, payload)
	return e, st, err
}

// storeEntity writes e under key, removing chunks of the previous value
// that the new one does not reuse.
func storeEntity(tx kv.Txn, key tuple.Key, e *Entity, old storedEntity) error {
	payload := encodeEntity(e)
	parts := (len(payload) + chunkSize - 1) / chunkSize
	if parts == 0 {
		parts = 1
	}
	if parts > maxChunks {
		return fmt.Errorf("entity of %d bytes: %w", len(payload), kv.ErrTooLarge)
	}
	first := min(len(payload), chunkSize)
	head := make([]byte, 0, 1+first)
	head = append(head, byte(parts-1))
	head = append(head, payload[:first]...)
	// Keys the old version did not hold are written as new (kv.Insert),
	// so nothing reads them back to learn what they replace.
	put := func(k, v []byte, held bool) error {
		if held {
			return tx.Set(k, v)
		}
		return kv.Insert(tx, k, v)
	}
	if old.create {
		if err := kv.Create(tx, key, head); err != nil {
			return err
		}
	} else if err := put(key, head, old.found); err != nil {
		return err
	}
	for i := 1; i < parts; i++ {
		end := min(len(payload), (i+1)*chunkSize)
		if err := put(chunkKey(key, i), payload[i*chunkSize:end], old.found && i <= old.extra); err != nil {
			return err
		}
	}
	for i := parts; i <= old.extra; i++ {
		if err := tx.Delete(chunkKey(key, i)); err != nil {
			return err
		}
	}
	return nil
}

// removeEntity deletes an entity's head and chunks.
func removeEntity(tx kv.Txn, key tuple.Key, old storedEntity) error {
	if err := tx.Delete(key); err != nil {
		return err
	}
	for i := 1; i <= old.extra; i++ {
		if err := tx.Delete(chunkKey(key, i)); err != nil {
			return err
		}
	}
	return nil
}
