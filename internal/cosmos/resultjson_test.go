package cosmos

import (
	"encoding/json"
	"math"
	"math/rand/v2"
	"testing"
)

// TestEncodeResultMatchesMarshal holds the reflection-free result
// encoder to marshal's bytes.
func TestEncodeResultMatchesMarshal(t *testing.T) {
	values := []any{
		nil, true, false, 0.0, math.Copysign(0, -1), 1.0, -1.5, 1e20, 1e21, 1e-6, 1e-7, 123456789.125, math.MaxFloat64, math.SmallestNonzeroFloat64, -2.5e-300,
		"", "plain", `quote " and \ backslash`, "<html> & co", "tab\tnew\nline\r", "\x00\x01\x1f\x7f", "\b\f", "é ü 日本", "\u2028\u2029", "bad \xff utf8",
		[]any{}, []any{1.0, "x", nil, []any{true}}, map[string]any{}, map[string]any{"b": 1.0, "a": map[string]any{"z": "y", "é": []any{}}},
	}
	r := rand.New(rand.NewPCG(1, 2))
	for range 200 {
		values = append(values, r.NormFloat64()*math.Pow(10, float64(r.IntN(60)-30)))
	}
	for _, v := range values {
		want, err := marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		got, err := encodeResult(v)
		if err != nil {
			t.Fatal(err)
		}
		if string(got) != string(want) {
			t.Errorf("%#v: got %s, want %s", v, got, want)
		}
	}
}

// TestCompactFeedMatchesMarshal holds the query page renderer to the
// bytes writeFeed's marshal gives.
func TestCompactFeedMatchesMarshal(t *testing.T) {
	for _, items := range [][]json.RawMessage{nil, {}, {json.RawMessage(`{"a":1}`)}, {json.RawMessage(`1`), json.RawMessage(`"x"`), json.RawMessage(`[null]`)}} {
		want := items
		if want == nil {
			want = []json.RawMessage{}
		}
		exp, err := marshal(map[string]any{"_rid": "ab+c=", "Documents": want, "_count": len(want)})
		if err != nil {
			t.Fatal(err)
		}
		if got := compactFeed("ab+c=", "Documents", items); string(got) != string(exp) {
			t.Errorf("got %s, want %s", got, exp)
		}
	}
}
