package table

import (
	"encoding/json"
	"errors"
	"math"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/cerulean-db/cerulean/internal/azerr"
	"github.com/cerulean-db/cerulean/internal/table/odata"
)

// everyType is one property of each EDM type, edge values included.
func everyType() []Property {
	guid, _ := odata.ParseGuid("c9da6455-213d-42c9-9a79-3e9149a57833")
	return []Property{
		{"Str", odata.StringValue("héllo \"quoted\" \\ \n\t\x01 ✓ 𝄞")},
		{"Empty", odata.StringValue("")},
		{"I32", odata.Int32Value(math.MinInt32)},
		{"I32Max", odata.Int32Value(math.MaxInt32)},
		{"I64", odata.Int64Value(math.MinInt64)},
		{"I64Max", odata.Int64Value(math.MaxInt64)},
		{"Dbl", odata.DoubleValue(-1234.5678e-9)},
		{"DblWhole", odata.DoubleValue(7)},
		{"DblNaN", odata.DoubleValue(math.NaN())},
		{"DblInf", odata.DoubleValue(math.Inf(1))},
		{"DblNegInf", odata.DoubleValue(math.Inf(-1))},
		{"BoolT", odata.BoolValue(true)},
		{"BoolF", odata.BoolValue(false)},
		{"When", odata.TimeValue(time.Date(2024, 2, 29, 23, 59, 59, 999999900, time.UTC))},
		{"Early", odata.DateTimeValue(odata.MinDateTime)},
		{"Late", odata.DateTimeValue(odata.MaxDateTime)},
		{"Id", guid},
		{"Bin", odata.BinaryValue([]byte{0, 1, 2, 0xfe, 0xff})},
		{"BinEmpty", odata.BinaryValue(nil)},
	}
}

func sameProperties(t *testing.T, got, want []Property) {
	t.Helper()
	if len(got) != len(want) {
		t.Fatalf("got %d properties, want %d: %+v", len(got), len(want), got)
	}
	for i := range want {
		if got[i].Name != want[i].Name || !got[i].Value.Equal(want[i].Value) {
			t.Errorf("property %d: got %s=%+v, want %s=%+v", i, got[i].Name, got[i].Value, want[i].Name, want[i].Value)
		}
	}
}

func TestCodecRoundTrip(t *testing.T) {
	e := &Entity{PartitionKey: "p", RowKey: "r", Version: 1 << 40, Timestamp: testTicks, Properties: everyType()}
	got, err := decodeEntity("p", "r", encodeEntity(e))
	if err != nil {
		t.Fatal(err)
	}
	if got.Version != e.Version || got.Timestamp != e.Timestamp {
		t.Fatalf("header %d/%d, want %d/%d", got.Version, got.Timestamp, e.Version, e.Timestamp)
	}
	sameProperties(t, got.Properties, e.Properties)
	payload := encodeEntity(e)
	for i := range payload {
		if _, err := decodeEntity("p", "r", payload[:i]); err == nil {
			t.Fatalf("truncated payload (%d of %d bytes) decoded", i, len(payload))
		}
	}
}

// TestJSONRoundTrip renders every type at every metadata level and reads
// it back: minimal and full metadata keep every type exactly; no
// metadata keeps the JSON-native ones.
func TestJSONRoundTrip(t *testing.T) {
	e := &Entity{PartitionKey: "p'1", RowKey: "r x", Version: 42, Timestamp: testTicks, Properties: everyType()}
	for _, level := range []metadataLevel{minimalMetadata, fullMetadata, noMetadata} {
		j := entityJSON{level: level, base: "http://h/acct/", acct: "acct", table: "tbl", single: "http://h/acct/$metadata#tbl/@Element"}
		body := j.appendEntity(nil, e)
		if !json.Valid(body) {
			t.Fatalf("level %d: invalid JSON %s", level, body)
		}
		doc, err := parseEntityJSON(body)
		if err != nil {
			t.Fatalf("level %d: %v\n%s", level, err, body)
		}
		if doc.PartitionKey != e.PartitionKey || doc.RowKey != e.RowKey {
			t.Fatalf("level %d: keys %q %q", level, doc.PartitionKey, doc.RowKey)
		}
		if level != noMetadata {
			sameProperties(t, doc.Properties, e.Properties)
			if !strings.Contains(string(body), `"odata.etag":"W/\"datetime'1970-01-01T00%3A00%3A00.0000042Z'\""`) {
				t.Errorf("level %d: no odata.etag in %s", level, body)
			}
		}
		full := strings.Contains(string(body), `"odata.type":"acct.tbl"`) && strings.Contains(string(body), `"Timestamp@odata.type":"Edm.DateTime"`)
		if full != (level == fullMetadata) {
			t.Errorf("level %d: full metadata markers = %v in %s", level, full, body)
		}
	}
}

func TestParseEntityJSONInference(t *testing.T) {
	doc, err := parseEntityJSON([]byte(`{"PartitionKey":"p","RowKey":"r","Timestamp":"2020-01-01T00:00:00Z","odata.etag":"x",
		"I":1,"Big":3000000000,"F":1.0,"E":1e3,"S":"s","B":true,"N":null,
		"L@odata.type":"Edm.Int64","L":"9","D@odata.type":"Edm.Double","D":2,"Nan@odata.type":"Edm.Double","Nan":"NaN"}`))
	if err != nil {
		t.Fatal(err)
	}
	want := map[string]odata.Type{"I": odata.Int32, "Big": odata.Double, "F": odata.Double, "E": odata.Double, "S": odata.String, "B": odata.Boolean, "L": odata.Int64, "D": odata.Double, "Nan": odata.Double}
	if len(doc.Properties) != len(want) {
		t.Fatalf("properties %+v", doc.Properties)
	}
	for _, p := range doc.Properties {
		if want[p.Name] != p.Value.Type {
			t.Errorf("%s: type %v, want %v", p.Name, p.Value.Type, want[p.Name])
		}
	}
}

func TestParseEntityJSONErrors(t *testing.T) {
	long := strings.Repeat("a", 256)
	tests := []struct {
		body string
		want *azerr.Error
	}{
		{`not json`, azerr.ErrInvalidInput},
		{`{"a":1} trailing`, azerr.ErrInvalidInput},
		{`["a"]`, azerr.ErrInvalidInput},
		{`{"A":{"nested":1}}`, azerr.ErrInvalidInput},
		{`{"A":[1]}`, azerr.ErrInvalidInput},
		{`{"A":1,"A":2}`, azerr.ErrDuplicatePropertiesSpecified},
		{`{"A@odata.type":"Edm.Decimal","A":"1"}`, azerr.ErrInvalidInput},
		{`{"A@odata.type":5,"A":"1"}`, azerr.ErrInvalidInput},
		{`{"A@odata.type":"Edm.Int32","A":3000000000}`, azerr.ErrInvalidInput},
		{`{"A@odata.type":"Edm.Int64","A":"x"}`, azerr.ErrInvalidInput},
		{`{"A@odata.type":"Edm.Guid","A":"nope"}`, azerr.ErrInvalidInput},
		{`{"A@odata.type":"Edm.Binary","A":"***"}`, azerr.ErrInvalidInput},
		{`{"A@odata.type":"Edm.DateTime","A":"1500-01-01T00:00:00Z"}`, azerr.ErrInvalidInput},
		{`{"A@odata.type":"Edm.Boolean","A":1}`, azerr.ErrInvalidInput},
		{`{"A@odata.type":"Edm.Boolean","A":"yes"}`, azerr.ErrInvalidInput},
		{`{"A@odata.type":"Edm.DateTime","A":"2026-02-30T00:00:00Z"}`, azerr.ErrInvalidInput},
		{`{"A":1e999}`, azerr.ErrInvalidInput},
		{`{"PartitionKey":5}`, azerr.ErrInvalidInput},
		{`{"PartitionKey":null}`, azerr.ErrPropertiesNeedValue},
		{`{"PartitionKey":"a/b"}`, azerr.ErrOutOfRangeInput},
		{`{"RowKey":"a\u0001"}`, azerr.ErrOutOfRangeInput},
		{`{"RowKey":"` + strings.Repeat("k", 513) + `"}`, azerr.ErrKeyValueTooLarge},
		{`{"` + long + `":1}`, azerr.ErrPropertyNameTooLong},
		{`{"has space":1}`, azerr.ErrPropertyNameInvalid},
		{`{"1st":1}`, azerr.ErrPropertyNameInvalid},
		{`{"":1}`, azerr.ErrPropertyNameInvalid},
		{`{"S":"` + strings.Repeat("x", 32<<10+1) + `"}`, azerr.ErrPropertyValueTooLarge},
	}
	for _, tc := range tests {
		_, err := parseEntityJSON([]byte(tc.body))
		if !errors.Is(err, tc.want) {
			name := tc.body
			if len(name) > 60 {
				name = name[:60] + "…"
			}
			t.Errorf("%s: err = %v, want %s", name, err, tc.want.Code)
		}
	}
	// 252 properties fit; 253 do not.
	var b strings.Builder
	b.WriteString(`{"PartitionKey":"p","RowKey":"r"`)
	for i := range maxProperties + 1 {
		b.WriteString(`,"P` + strconv.Itoa(i) + `":1`)
	}
	b.WriteString("}")
	if _, err := parseEntityJSON([]byte(b.String())); !errors.Is(err, azerr.ErrTooManyProperties) {
		t.Errorf("253 properties: err = %v", err)
	}
}

// TestTypedBooleanAnyCase: a Boolean typed as text is read in any case.
func TestTypedBooleanAnyCase(t *testing.T) {
	for text, want := range map[string]bool{"true": true, "TRUE": true, "True": true, "false": false, "FALSE": false, "fAlSe": false} {
		doc, err := parseEntityJSON([]byte(`{"A@odata.type":"Edm.Boolean","A":"` + text + `"}`))
		if err != nil || len(doc.Properties) != 1 || doc.Properties[0].Value != odata.BoolValue(want) {
			t.Errorf("%s: %+v %v", text, doc, err)
		}
	}
}

func TestEntitySizeLimit(t *testing.T) {
	// 16 strings of 32 Ki characters (64 KiB each in UTF-16) make 1 MiB
	// with the overhead: one too many.
	var props []Property
	for i := range 16 {
		props = append(props, Property{Name: "S" + strconv.Itoa(i), Value: odata.StringValue(strings.Repeat("x", 32<<10))})
	}
	e := &Entity{PartitionKey: "p", RowKey: "r", Properties: props}
	if err := e.validate(); !errors.Is(err, azerr.ErrEntityTooLarge) {
		t.Fatalf("validate = %v, size %d", err, e.size())
	}
	e.Properties = props[:15]
	if err := e.validate(); err != nil {
		t.Fatalf("15 strings: %v", err)
	}
}

func TestETag(t *testing.T) {
	seen := map[string]bool{}
	for _, v := range []uint64{0, 1, 2, 9_999_999, 10_000_000, 1 << 40, 1 << 50} {
		tag := etag(v)
		if !strings.HasPrefix(tag, `W/"datetime'`) || !strings.HasSuffix(tag, `'"`) || strings.Contains(tag, ":") {
			t.Errorf("etag(%d) = %s", v, tag)
		}
		if seen[tag] {
			t.Errorf("etag(%d) = %s repeats", v, tag)
		}
		seen[tag] = true
		for _, form := range []string{tag, strings.TrimPrefix(tag, "W/"), strings.ReplaceAll(tag, "%3A", ":")} {
			if got, ok := parseETag(form); !ok || got != v {
				t.Errorf("parseETag(%s) = %d, %v; want %d", form, got, ok, v)
			}
		}
	}
	// Azure's own rendering of a datetime, from a recorded answer (the
	// Go SDK's aztables recordings): seven fractional digits at most,
	// trailing zeros dropped, colons escaped.
	recorded := uint64(time.Date(2021, 4, 13, 15, 57, 40, 962_420_000, time.UTC).UnixNano() / 100)
	if got, want := etag(recorded), `W/"datetime'2021-04-13T15%3A57%3A40.96242Z'"`; got != want {
		t.Errorf("etag(%d) = %s, want %s", recorded, got, want)
	}
	if got, want := etag(recorded+1), `W/"datetime'2021-04-13T15%3A57%3A40.9624201Z'"`; got != want {
		t.Errorf("etag(%d) = %s, want %s", recorded+1, got, want)
	}
	for _, bad := range []string{"", "*", `"0x8D"`, `W/"datetime'nope'"`, `W/"datetime'1960-01-01T00%3A00%3A00.0000000Z'"`} {
		if _, ok := parseETag(bad); ok {
			t.Errorf("parseETag(%q) accepted", bad)
		}
	}
	if m, sent, err := parseIfMatch(etag(5)); err != nil || !sent || m.Any || !m.matches(5) || m.matches(6) {
		t.Errorf("If-Match %s = %+v, %v", etag(5), m, err)
	}
	if m, _, err := parseIfMatch("*"); err != nil || !m.matches(123) {
		t.Error("* does not match")
	}
	// Weak but never issued: well formed, matches nothing (412 later).
	for _, stale := range []string{`W/"wrong"`, `w/"datetime'2026-13-01T00%3A00%3A00.0000000Z'"`, `W/"a\"b"`} {
		if m, sent, err := parseIfMatch(stale); err != nil || !sent || m.Any || len(m.Versions) != 0 {
			t.Errorf("If-Match %s = %+v, %v; want a condition matching nothing", stale, m, err)
		}
	}
	// Strong, malformed or a list: refused as Azure refuses them.
	for _, bad := range []string{"garbage", strings.TrimPrefix(etag(5), "W/"), `W/"a"b"`, etag(5) + ", " + etag(7), `W/`, `"*"`} {
		if _, _, err := parseIfMatch(bad); !errors.Is(err, azerr.ErrInvalidInput) {
			t.Errorf("If-Match %s: err %v, want InvalidInput", bad, err)
		}
	}
	if _, sent, _ := parseIfMatch(" "); sent {
		t.Error("a blank If-Match counts as sent")
	}
}

func TestContinuation(t *testing.T) {
	for _, k := range []string{"", "a", "p'1", "\x00\xff", strings.Repeat("ü", 300)} {
		tok := encodeContinuation(k)
		if tok == "" {
			t.Fatalf("empty token for %q", k)
		}
		got, err := decodeContinuation(tok)
		if err != nil || got != k {
			t.Fatalf("decode(record.Encode(%q)) = %q, %v", k, got, err)
		}
	}
	for _, bad := range []string{"", "x", "1!", "1!3!YWJ", "1!2!YWJj", "2!0!", "1!01!Y", "1!-0!", "1!4!****"} {
		if _, err := decodeContinuation(bad); !errors.Is(err, azerr.ErrInvalidInput) {
			t.Errorf("decode(%q) err = %v", bad, err)
		}
	}
}

func FuzzContinuation(f *testing.F) {
	for _, s := range []string{"1!0!", "1!4!cDEwMA", "1!8!cGFydDE-", "garbage", "1!99999999999999999999!x"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, token string) {
		key, err := decodeContinuation(token)
		if err != nil {
			if !errors.Is(err, azerr.ErrInvalidInput) {
				t.Fatalf("decode(%q): %v", token, err)
			}
			return
		}
		if again, err := decodeContinuation(encodeContinuation(key)); err != nil || again != key {
			t.Fatalf("re-encoding %q fails: %q %v", key, again, err)
		}
	})
}

// FuzzParseEntityJSON: whatever parses renders (in minimal metadata) to
// JSON that parses back to the same properties.
func FuzzParseEntityJSON(f *testing.F) {
	f.Add([]byte(`{"PartitionKey":"p","RowKey":"r","A":1,"B":"x","C":true,"D":1.5}`))
	f.Add([]byte(`{"PartitionKey":"p","RowKey":"r","L@odata.type":"Edm.Int64","L":"-9","T@odata.type":"Edm.DateTime","T":"2024-01-01T00:00:00Z"}`))
	f.Add([]byte(`{"G@odata.type":"Edm.Guid","G":"c9da6455-213d-42c9-9a79-3e9149a57833","B@odata.type":"Edm.Binary","B":"AAE=","N@odata.type":"Edm.Double","N":"NaN"}`))
	f.Add([]byte(`{"A":1,"A":2}`))
	f.Fuzz(func(t *testing.T, body []byte) {
		doc, err := parseEntityJSON(body)
		if err != nil {
			var e *azerr.Error
			if !errors.As(err, &e) || e.Status != 400 {
				t.Fatalf("error %v is not a 400 Azure error", err)
			}
			return
		}
		e := &Entity{PartitionKey: doc.PartitionKey, RowKey: doc.RowKey, Version: 1, Timestamp: testTicks, Properties: doc.Properties}
		out := entityJSON{level: minimalMetadata}.appendEntity(nil, e)
		again, err := parseEntityJSON(out)
		if err != nil {
			t.Fatalf("rendered %s does not parse: %v", out, err)
		}
		sameProperties(t, again.Properties, doc.Properties)
		if _, err := decodeEntity(e.PartitionKey, e.RowKey, encodeEntity(e)); err != nil {
			t.Fatalf("stored form does not decode: %v", err)
		}
	})
}
