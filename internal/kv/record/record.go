package record

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"

	"github.com/fxamacker/cbor/v2"

	"github.com/cerulean-db/cerulean/internal/kv"
)

// Record formats. A record written by this release starts with a format
// byte; JSON records, which earlier releases wrote and which this one still
// reads, start with '{', '[', '"', a digit or a letter. Format bytes are
// control characters that no JSON text begins with (JSON's whitespace,
// 0x09 0x0a 0x0d, aside).
const (
	// FormatJSON is the data format of the JSON records earlier releases
	// wrote, which carry no format byte.
	FormatJSON = 1
	// FormatCBOR is a format byte followed by the record in CBOR
	// (RFC 8949), with the record's JSON field names and omission rules.
	// It is the format this release writes.
	FormatCBOR = 2
	// Latest is the newest record format this release reads, the one it
	// writes.
	Latest = FormatCBOR
)

// ErrNewerFormat is returned for a record (or a store) written in a format
// newer than this release reads.
var ErrNewerFormat = errors.New("written by a newer cerulean")

// The CBOR modes reproduce what encoding/json keeps of a record: times as
// RFC 3339 text with nanoseconds (so their zone offset survives, as in
// JSON), omitempty by Go's emptiness (a struct is never empty), nil maps
// and slices as null, and untyped maps decoded as map[string]any.
var (
	encMode = mustEncMode(cbor.EncOptions{
		Time:          cbor.TimeRFC3339Nano,
		OmitEmpty:     cbor.OmitEmptyGoValue,
		NilContainers: cbor.NilContainerAsNull,
		// Integers and floats keep their Go kinds; a float never shrinks
		// into a narrower CBOR float that would read back differently.
		ShortestFloat: cbor.ShortestFloatNone,
	})
	decMode = mustDecMode(cbor.DecOptions{
		DefaultMapType:   reflectMapStringAny,
		MaxNestedLevels:  64,
		MaxArrayElements: 1 << 24,
		MaxMapPairs:      1 << 24,
		// Go strings need not be UTF-8 (a blob name or a metadata value
		// may hold any bytes); they read back byte for byte.
		UTF8: cbor.UTF8DecodeInvalid,
	})
)

func mustEncMode(o cbor.EncOptions) cbor.UserBufferEncMode {
	m, err := o.UserBufferEncMode()
	if err != nil {
		panic(fmt.Sprintf("record: CBOR encoding options: %v", err))
	}
	return m
}

func mustDecMode(o cbor.DecOptions) cbor.DecMode {
	m, err := o.DecMode()
	if err != nil {
		panic(fmt.Sprintf("record: CBOR decoding options: %v", err))
	}
	return m
}

// Encode marshals v in the latest format. Records are plain structs that
// always marshal, so a failure is a programming error.
func Encode(v any) []byte {
	buf := bytes.NewBuffer(make([]byte, 1, 256))
	buf.Bytes()[0] = FormatCBOR
	if err := encMode.MarshalToBuffer(v, buf); err != nil {
		panic(fmt.Sprintf("encode %T: %v", v, err))
	}
	return buf.Bytes()
}

// EncodeJSON marshals v as earlier releases did; tests use it to write
// records in the old format.
func EncodeJSON(v any) []byte {
	b, err := json.Marshal(v)
	if err != nil {
		panic(fmt.Sprintf("encode %T: %v", v, err))
	}
	return b
}

// Format returns the format a stored record is in.
func Format(b []byte) int {
	if len(b) == 0 || b[0] >= 0x20 || b[0] == '\t' || b[0] == '\n' || b[0] == '\r' {
		return FormatJSON
	}
	return int(b[0])
}

// Decode unmarshals a stored record, in any format this release reads,
// into v.
func Decode(b []byte, v any) error {
	var err error
	switch f := Format(b); f {
	case FormatJSON:
		err = json.Unmarshal(b, v)
	case FormatCBOR:
		err = decMode.Unmarshal(b[1:], v)
	default:
		if f > Latest {
			err = fmt.Errorf("record format %d %w; this release reads up to format %d", f, ErrNewerFormat, Latest)
		} else {
			err = fmt.Errorf("unknown record format %d", f)
		}
	}
	if err != nil {
		return fmt.Errorf("decode %T: %w", v, err)
	}
	return nil
}

// Load reads key into v; found is false (and v untouched) for an absent key.
func Load(r kv.Reader, key []byte, v any) (found bool, err error) {
	b, err := r.Get(key)
	return decodeFound(b, err, v)
}

// decodeFound decodes what a read of a record returned into v.
func decodeFound(b []byte, err error, v any) (bool, error) {
	if errors.Is(err, kv.ErrNotFound) {
		return false, nil
	}
	if err != nil {
		return false, err
	}
	return true, Decode(b, v)
}

// Require returns the record under key, or absent (the caller's not-found
// error) when the key is absent.
func Require[T any](r kv.Reader, key []byte, absent error) (*T, error) {
	b, err := r.Get(key)
	return required[T](b, err, absent)
}

// RequireShared is Require of a record that nearly every request reads
// and few write (kv.GetShared).
func RequireShared[T any](r kv.Reader, key []byte, absent error) (*T, error) {
	b, err := kv.GetShared(r, key)
	return required[T](b, err, absent)
}

// required decodes what a read of a required record returned.
func required[T any](b []byte, readErr, absent error) (*T, error) {
	v := new(T)
	found, err := decodeFound(b, readErr, v)
	if err != nil {
		return nil, err
	}
	if !found {
		return nil, absent
	}
	return v, nil
}

// Store writes v under key.
func Store(tx kv.Txn, key []byte, v any) error { return tx.Set(key, Encode(v)) }

// LoadAll decodes every record whose key starts with prefix, in key order.
func LoadAll[T any](r kv.Reader, prefix []byte) ([]*T, error) {
	var out []*T
	err := r.Scan(prefix, kv.PrefixEnd(prefix), func(_, v []byte) error {
		rec := new(T)
		if err := Decode(v, rec); err != nil {
			return err
		}
		out = append(out, rec)
		return nil
	})
	return out, err
}

var reflectMapStringAny = reflect.TypeFor[map[string]any]()
