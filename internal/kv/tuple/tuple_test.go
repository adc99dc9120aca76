package tuple

import (
	"bytes"
	"sort"
	"testing"
)

func TestOrderMatchesElements(t *testing.T) {
	names := []string{"", "a", "a\x00", "a\x00b", "a\x01", "ab", "b", "\xff", "a/b", "a/b/c"}
	keys := make([]Key, len(names))
	for i, n := range names {
		keys[i] = New("x").Str(n).Uint(7)
	}
	sorted := append([]string(nil), names...)
	sort.Strings(sorted)
	sort.Slice(keys, func(i, j int) bool { return bytes.Compare(keys[i], keys[j]) < 0 })
	for i, k := range keys {
		r, err := NewReader(k, 1)
		if err != nil {
			t.Fatal(err)
		}
		s, err := r.Str()
		if err != nil || s != sorted[i] {
			t.Fatalf("position %d: got %q (%v), want %q", i, s, err, sorted[i])
		}
		if v, err := r.Uint(); err != nil || v != 7 {
			t.Fatalf("uint: %d %v", v, err)
		}
	}
}

func TestStrPrefix(t *testing.T) {
	base := New("x")
	p := base.StrPrefix("a\x00")
	for _, n := range []string{"a\x00", "a\x00b", "a\x00\x00"} {
		if !bytes.HasPrefix(base.Str(n), p) {
			t.Errorf("%q does not start with prefix", n)
		}
	}
	for _, n := range []string{"a", "ab", "a\x01"} {
		if bytes.HasPrefix(base.Str(n), p) {
			t.Errorf("%q wrongly starts with prefix", n)
		}
	}
}

func TestMalformed(t *testing.T) {
	r, _ := NewReader([]byte("abc"), 0)
	if _, err := r.Str(); err == nil {
		t.Fatal("unterminated string decoded")
	}
	r, _ = NewReader([]byte{1, 2}, 0)
	if _, err := r.Uint(); err == nil {
		t.Fatal("short uint decoded")
	}
}

func TestReadTagged(t *testing.T) {
	acct, tag, r, err := ReadTagged(New("Ba").Str("acct").Raw("c").Str("container"), "Ba")
	if err != nil || acct != "acct" || tag != 'c' {
		t.Fatalf("ReadTagged = %q %q %v", acct, tag, err)
	}
	if name, err := r.Str(); err != nil || name != "container" {
		t.Fatalf("after the tag: %q, %v", name, err)
	}
	for _, bad := range []Key{New("Fa").Str("acct").Raw("c"), New("Ba").Str("acct"), New("Ba")} {
		if _, _, _, err := ReadTagged(bad, "Ba"); err == nil {
			t.Errorf("ReadTagged(%q) accepted it", bad)
		}
	}
}

func TestFields(t *testing.T) {
	r, _ := NewReader(New("T").Str("a").Uint(7).Bytes([]byte{0, 1}), 1)
	f := r.Fields()
	if s, n, b := f.Str(), f.Uint(), f.Bytes(); s != "a" || n != 7 || !bytes.Equal(b, []byte{0, 1}) || f.Err() != nil {
		t.Fatalf("Fields read %q %d %v, err %v", s, n, b, f.Err())
	}
	if n, s := f.Uint(), f.Str(); n != 0 || s != "" || f.Err() == nil {
		t.Fatalf("reads past the end: %d %q, err %v", n, s, f.Err())
	}
}
