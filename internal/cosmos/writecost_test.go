package cosmos

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"math"
	"testing"

	"github.com/cerulean-db/cerulean/internal/kv"
)

// TestEtagOfShape pins etagOf's rendering to the one it replaced: the
// version as 16 hex digits, split 4-12 after a fixed prefix.
func TestEtagOfShape(t *testing.T) {
	for _, v := range []uint64{0, 1, 0xf, 0x10, 0xffff, 0x10000, 0x123456789abcdef0, math.MaxUint64} {
		x := fmt.Sprintf("%016x", v)
		want := `"00000000-0000-0000-` + x[:4] + "-" + x[4:] + `"`
		if got := etagOf(v); got != want {
			t.Errorf("etagOf(%#x) = %s, want %s", v, got, want)
		}
	}
}

// readCountingTxn counts the reads of one key.
type readCountingTxn struct {
	kv.Txn
	key   []byte
	reads int
}

func (c *readCountingTxn) Get(key []byte) ([]byte, error) {
	if bytes.Equal(key, c.key) {
		c.reads++
	}
	return c.Txn.Get(key)
}

// TestWriteTakesIndexPolicyFromCache checks that an item write after the
// first to a container does not read the index state (the cached
// definition knows its policy text), and that a Replace Container that
// changes the policy is still followed by the next write.
func TestWriteTakesIndexPolicyFromCache(t *testing.T) {
	s, store := newItemsService(t, Config{}, `{"id":"items","partitionKey":{"paths":["/pk"]},"indexingPolicy":{"includedPaths":[{"path":"/*"}],"excludedPaths":[{"path":"/b/?"}]}}`)
	ctx := context.Background()
	ref := CollectionRef{DB: "db", Coll: "items"}
	create := func(id string) int {
		t.Helper()
		var reads int
		err := store.Update(ctx, func(tx kv.Txn) error {
			c := &readCountingTxn{Txn: tx, key: indexStateKey("db", "items")}
			_, err := s.In(c).CreateItem(ref, "", fmt.Appendf(nil, `{"id":%q,"pk":"p","a":1,"b":2}`, id), ItemOptions{})
			reads = c.reads
			return err
		})
		if err != nil {
			t.Fatal(err)
		}
		return reads
	}
	countPath := func(path string) int {
		t.Helper()
		n := 0
		err := s.view(ctx, func(tx *Tx) error {
			p := indexPathPrefix("db", "items", []string{path})
			return tx.rd.Scan(p, kv.PrefixEnd(p), func(_, _ []byte) error { n++; return nil })
		})
		if err != nil {
			t.Fatal(err)
		}
		return n
	}
	create("first")
	if n := create("second"); n != 0 {
		t.Errorf("second write read the index state %d times, want 0", n)
	}
	if a, b := countPath("a"), countPath("b"); a != 2 || b != 0 {
		t.Fatalf("/a %d entries (want 2), /b %d (want 0)", a, b)
	}
	if _, err := s.ReplaceContainer(ctx, ref, []byte(`{"id":"items","partitionKey":{"paths":["/pk"]},"indexingPolicy":{"includedPaths":[{"path":"/*"}],"excludedPaths":[{"path":"/a/?"}]}}`), Preconditions{}); err != nil {
		t.Fatal(err)
	}
	create("third")
	if a, b := countPath("a"), countPath("b"); a != 0 || b != 3 {
		t.Fatalf("after replace: /a %d entries (want 0), /b %d (want 3)", a, b)
	}
	checkIndexConsistent(t, s, "items")
}

// TestChangeRecordSplice checks that a record whose document is spliced
// in (a write's freshly encoded body) is the bytes marshal makes of it.
func TestChangeRecordSplice(t *testing.T) {
	docs := []string{
		`{"id":"a","pk":"p"}`,
		`{"id":"<&>","s":"\u2028 é \u003c","n":1.10,"big":12345678901234567890,"o":{"x":[1,null,true,"y"]}}`,
		`{}`,
	}
	for _, d := range docs {
		m, err := decodeObject([]byte(d))
		if err != nil {
			t.Fatal(err)
		}
		body, err := marshal(m)
		if err != nil {
			t.Fatal(err)
		}
		rec := changeRecord{Op: opCreate, ID: "a<b", PK: []string{"p", "&"}, EPK: "05C1", ETag: etagOf(7), TS: 1700000000, Doc: body}
		want, err := marshal(rec)
		if err != nil {
			t.Fatal(err)
		}
		got, err := encodeChangeRecord(rec, true)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("spliced record\n%s\nwant\n%s", got, want)
		}
	}
}

// TestAppendPathJSON checks the index's path encoding against
// json.Marshal, which it stands in for.
func TestAppendPathJSON(t *testing.T) {
	paths := [][]string{
		nil,
		{},
		{"a"},
		{"id", "_rid", "x y", "~!@#$%^*()"},
		{"<b>", "a&b"},
		{"quote\"d", "back\\slash", "tab\t", "é", "\u2028", "\x7f", string([]byte{0xff})},
		{""},
	}
	for _, p := range paths {
		want, _ := json.Marshal(p)
		if got := appendPathJSON([]byte("keep"), p); string(got) != "keep"+string(want) {
			t.Errorf("appendPathJSON(%q) = %s, want keep%s", p, got, want)
		}
	}
}

// TestContainerRIDOf pins the content path's reading of _self.
func TestContainerRIDOf(t *testing.T) {
	for self, want := range map[string]string{
		"dbs/AAA=/colls/BBB=/docs/CCC=/": "BBB=",
		"/dbs/AAA=/colls/BBB=/":          "BBB=",
		"dbs/AAA=/colls/BBB=":            "BBB=",
		"dbs/AAA=/colls/":                "",
		"dbs/AAA=/colls":                 "",
		"":                               "",
	} {
		if got := containerRIDOf(self); got != want {
			t.Errorf("containerRIDOf(%q) = %q, want %q", self, got, want)
		}
	}
}
