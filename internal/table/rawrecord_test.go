package table

import (
	"fmt"
	"strings"
	"testing"

	"github.com/cerulean-db/cerulean/internal/table/odata"
)

// FuzzRawRecord checks that a record read in place accepts exactly what
// decodeEntity accepts and answers every property as the decoded entity.
func FuzzRawRecord(f *testing.F) {
	e := &Entity{PartitionKey: "p", RowKey: "r", Version: 9, Timestamp: testTicks, Properties: append(benchProps(),
		Property{"Id", odata.Value{Type: odata.Guid, Str: "c9da6455-213d-42c9-9a79-3e9149a57833"}},
		Property{"Blob", odata.BinaryValue([]byte{0, 1})},
		Property{"Big", odata.Int64Value(-1 << 40)},
		Property{"Empty", odata.StringValue("")},
	)}
	f.Add(encodeEntity(e))
	f.Add(encodeEntity(&Entity{}))
	f.Add([]byte{recordFormat})
	f.Add([]byte{recordFormat, 1, 2, 1, 1, 'a', byte(odata.Double), 0})
	f.Fuzz(func(t *testing.T, payload []byte) {
		var raw rawRecord
		rawErr := raw.parse("pk", "rk", payload)
		e, err := decodeEntity("pk", "rk", payload)
		if (rawErr == nil) != (err == nil) {
			t.Fatalf("raw parse: %v, decodeEntity: %v", rawErr, err)
		}
		if err != nil {
			return
		}
		names := []string{"PartitionKey", "RowKey", "Timestamp", "absent"}
		for _, p := range e.Properties {
			names = append(names, p.Name)
		}
		for _, n := range names {
			want, wantOK := e.Get(n)
			got, ok := raw.get(n)
			if ok != wantOK || !sameValue(got, want) {
				t.Fatalf("get %q: %+v %v, want %+v %v", n, got, ok, want, wantOK)
			}
		}
	})
}

// sameValue is == with NaN equal to itself (a Double's bits round-trip).
func sameValue(a, b odata.Value) bool {
	if a.Type == odata.Double && b.Type == odata.Double && a.Float != a.Float && b.Float != b.Float {
		a.Float, b.Float = 0, 0
	}
	return a == b
}

// TestQueryMixedChunks pages a filtered query over entities that fit one
// value and entities that need several, interleaved: the in-place match
// of the first kind and the reassembly of the second give one result.
func TestQueryMixedChunks(t *testing.T) {
	s := newTestService(t)
	ctx := t.Context()
	if _, err := s.CreateTable(ctx, testAccount, "mixed"); err != nil {
		t.Fatal(err)
	}
	big := odata.StringValue(strings.Repeat("x", 100<<10))
	for i := range 12 {
		props := []Property{{"N", odata.Int32Value(int32(i))}}
		if i%3 == 0 {
			props = append(props, Property{"Big", big})
		}
		if _, err := s.WriteEntity(ctx, testAccount, "mixed", EntityWrite{Kind: WriteInsert, PartitionKey: "p", RowKey: fmt.Sprintf("%02d", i), Properties: props}); err != nil {
			t.Fatal(err)
		}
	}
	f, err := odata.Parse("N ge 2 and N lt 11")
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	q := EntityQuery{Filter: f, Top: 2}
	for {
		page, err := s.QueryEntities(ctx, testAccount, "mixed", q)
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range page.Entities {
			n, _ := e.Get("N")
			_, hasBig := e.Get("Big")
			if e.RowKey != fmt.Sprintf("%02d", n.Num) || hasBig != (n.Num%3 == 0) {
				t.Fatalf("entity %q: N %d, Big %v", e.RowKey, n.Num, hasBig)
			}
			got = append(got, e.RowKey)
		}
		if !page.HasNext {
			break
		}
		q.NextPK, q.NextRK, q.HasNext = page.NextPK, page.NextRK, true
	}
	if want := "02 03 04 05 06 07 08 09 10"; strings.Join(got, " ") != want {
		t.Fatalf("got %v, want %s", got, want)
	}
}
