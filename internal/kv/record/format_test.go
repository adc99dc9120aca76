package record

import (
	"errors"
	"strings"
	"testing"
	"time"
)

type sample struct {
	Name  string
	N     int64
	At    time.Time
	Meta  map[string]string
	Bytes []byte `json:",omitempty"`
}

// TestDecodeReadsBothFormats: a record written by an earlier release (JSON)
// and one written now (format byte, CBOR) decode alike.
func TestDecodeReadsBothFormats(t *testing.T) {
	want := sample{Name: "a", N: -3, At: time.Date(2024, 5, 6, 7, 8, 9, 123456789, time.UTC), Meta: map[string]string{"k": "v"}}
	for _, b := range [][]byte{EncodeJSON(want), Encode(want), []byte(" \n" + string(EncodeJSON(want)))} {
		var got sample
		if err := Decode(b, &got); err != nil {
			t.Fatalf("decode %q: %v", b, err)
		}
		if got.Name != want.Name || got.N != want.N || !got.At.Equal(want.At) || got.Meta["k"] != "v" {
			t.Fatalf("decode %q = %+v", b, got)
		}
	}
	if b := Encode(want); b[0] != FormatCBOR || Format(b) != Latest {
		t.Fatalf("new record starts with %#x", b[0])
	}
	if f := Format(EncodeJSON(want)); f != FormatJSON {
		t.Fatalf("JSON record read as format %d", f)
	}
}

// TestNewerFormatRefused: a record from a newer release is an error that
// names its format and the newest this release reads.
func TestNewerFormatRefused(t *testing.T) {
	var got sample
	err := Decode([]byte{Latest + 1, 0xa0}, &got)
	if !errors.Is(err, ErrNewerFormat) {
		t.Fatalf("err = %v, want ErrNewerFormat", err)
	}
	for _, s := range []string{"record format 3", "up to format 2"} {
		if !strings.Contains(err.Error(), s) {
			t.Fatalf("error %q does not say %q", err, s)
		}
	}
	if err := Decode([]byte{0x00, 0xa0}, &got); err == nil || errors.Is(err, ErrNewerFormat) {
		t.Fatalf("format 0: %v", err)
	}
	if err := Decode([]byte{FormatCBOR, 0xff}, &got); err == nil {
		t.Fatal("corrupt binary record decoded")
	}
}

// TestInvalidUTF8KeptExactly: Go strings (blob names, metadata values) may
// hold any bytes. A binary record keeps them byte for byte, where JSON
// replaced invalid bytes with U+FFFD.
func TestInvalidUTF8KeptExactly(t *testing.T) {
	in := sample{Name: "a\xffb", Meta: map[string]string{"\xfe": "\xc3"}}
	var got sample
	if err := Decode(Encode(in), &got); err != nil {
		t.Fatal(err)
	}
	if got.Name != in.Name || got.Meta["\xfe"] != "\xc3" {
		t.Fatalf("got %q %q", got.Name, got.Meta)
	}
}

// TestZeroTimePointer records the one value the two formats read back
// differently: a pointer to the zero time is nil from a binary record
// (CBOR null). Records point only at times a clock gave.
func TestZeroTimePointer(t *testing.T) {
	type withPtr struct{ At *time.Time }
	var fromJSON, fromBinary withPtr
	in := withPtr{At: new(time.Time)}
	if err := Decode(EncodeJSON(in), &fromJSON); err != nil || fromJSON.At == nil {
		t.Fatalf("JSON: %v %v", err, fromJSON.At)
	}
	if err := Decode(Encode(in), &fromBinary); err != nil || fromBinary.At != nil {
		t.Fatalf("binary: %v %v", err, fromBinary.At)
	}
}

// TestOmitRules: omitempty and omitzero leave out what JSON leaves out,
// and a struct is never empty (as in encoding/json).
func TestOmitRules(t *testing.T) {
	type inner struct{ A int }
	type rec struct {
		S string    `json:",omitempty"`
		T time.Time `json:",omitzero"`
		I inner     `json:",omitempty"`
		M map[string]int
		L []int
	}
	var got rec
	got.S = "preset"
	if err := Decode(Encode(rec{}), &got); err != nil {
		t.Fatal(err)
	}
	// S was omitted, so the preset survives, as it does decoding JSON.
	var fromJSON rec
	fromJSON.S = "preset"
	if err := Decode(EncodeJSON(rec{}), &fromJSON); err != nil {
		t.Fatal(err)
	}
	if got.S != fromJSON.S || got.M != nil || got.L != nil {
		t.Fatalf("binary %+v, JSON %+v", got, fromJSON)
	}
	b := Encode(rec{})
	if strings.Contains(string(b), "S") || strings.Contains(string(b), "T") || !strings.Contains(string(b), "I") {
		t.Fatalf("record %q", b)
	}
}
