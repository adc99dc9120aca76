package table

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"testing"

	"github.com/cerulean-db/cerulean/internal/azerr"
)

// readObjectDecoder is readObject as encoding/json's Decoder.Token
// does it, the reference FuzzReadObject holds readObject to. It decodes one JSON object of scalar members, keeping their
// order and refusing duplicates.
func readObjectDecoder(body []byte) ([]jsonMember, error) {
	dec := json.NewDecoder(bytes.NewReader(body))
	dec.UseNumber()
	malformed := func() error {
		return invalidInput("The request body is not a valid JSON entity.")
	}
	if t, err := dec.Token(); err != nil || t != json.Delim('{') {
		return nil, malformed()
	}
	var members []jsonMember
	seen := map[string]bool{}
	for dec.More() {
		t, err := dec.Token()
		if err != nil {
			return nil, malformed()
		}
		name, ok := t.(string)
		if !ok {
			return nil, malformed()
		}
		if seen[name] {
			return nil, azerr.ErrDuplicatePropertiesSpecified.WithMessage("The property %q is specified more than once.", name)
		}
		seen[name] = true
		v, err := dec.Token()
		if err != nil {
			return nil, malformed()
		}
		if _, isDelim := v.(json.Delim); isDelim {
			return nil, invalidInput("The value of property %q is an object or an array; only primitive values are supported.", name)
		}
		members = append(members, jsonMember{name: name, value: v})
	}
	if t, err := dec.Token(); err != nil || t != json.Delim('}') {
		return nil, malformed()
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		return nil, malformed()
	}
	return members, nil
}

// FuzzReadObject holds readObject to the Decoder.Token loop it replaced:
// the same members, or the same error.
func FuzzReadObject(f *testing.F) {
	for _, s := range []string{
		`{"PartitionKey":"p","RowKey":"r","Name":"a customer name","Age":42,"Balance":1234.5,"Since@odata.type":"Edm.DateTime","Since":"2026-06-01T12:00:00Z","Active":true,"N":null}`,
		`{}`, ` { } `, `{"a":1,}`, `{"a":1 "b":2}`, `{"a"}`, `{"a":}`, `{"a":[1]}`, `{"a":{`, `{"a":1,"a"`,
		`{"a":01}`, `{"a":-}`, `{"a":1.}`, `{"a":1e}`, `{"a":-0.5E+3}`, `{"a":1e400}`, `{"a":truex}`, `{"a":tru}`,
		`{"a":"\u00e9\ud83d\ude00"}`, `{"a":"\ud800"}`, `{"a":"\x"}`, "{\"a\":\"\xff\"}", "{\"a\":\"\x01\"}",
		`{"a":"b\"}`, `{}{}`, `{} x`, `{"a":1}` + "\x00", "\x00", ``, `[]`, `{"\u0061":1,"a":2}`, `{"a":false,"b":null}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, body []byte) {
		got, err := readObject(body)
		want, wantErr := readObjectDecoder(body)
		if errString(err) != errString(wantErr) {
			t.Fatalf("%q: error %v, want %v", body, err, wantErr)
		}
		if len(got) != len(want) {
			t.Fatalf("%q: %v, want %v", body, got, want)
		}
		for i := range got {
			if got[i] != want[i] {
				t.Fatalf("%q: member %d %#v, want %#v", body, i, got[i], want[i])
			}
		}
	})
}

func errString(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}
