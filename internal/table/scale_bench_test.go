package table

import (
	"fmt"
	"testing"

	"github.com/cerulean-db/cerulean/internal/kv"
	"github.com/cerulean-db/cerulean/internal/kv/memory"
	"github.com/cerulean-db/cerulean/internal/kv/pebble"
	"github.com/cerulean-db/cerulean/internal/table/odata"
)

// scaleRows is the partition size of the scale benchmarks: the issue's
// 100,000 entities in one partition.
const scaleRows = 100_000

// scaleService returns a Service over store with table "scale" filled
// with scaleRows entities in partition "p"; every hundredth has Age 7,
// the rest Age 42.
func scaleService(b *testing.B, store kv.Store) *Service {
	b.Helper()
	s := New(Config{Store: store, Accounts: newTestService(b).accounts})
	if _, err := s.CreateTable(b.Context(), testAccount, "scale"); err != nil {
		b.Fatal(err)
	}
	for start := 0; start < scaleRows; start += 100 {
		ops := make([]EntityWrite, 100)
		for j := range ops {
			props := benchProps()
			if (start+j)%100 == 0 {
				props[1].Value = odata.Int32Value(7)
			}
			ops[j] = EntityWrite{Kind: WriteInsert, PartitionKey: "p", RowKey: fmt.Sprintf("%06d", start+j), Properties: props}
		}
		if _, err := s.Batch(b.Context(), testAccount, "scale", ops); err != nil {
			b.Fatal(err)
		}
	}
	return s
}

func memoryStore(b *testing.B) kv.Store {
	store := memory.Open()
	b.Cleanup(func() { _ = store.Close() })
	return store
}

// BenchmarkQuery100k reads one page of a 100,000-entity partition: a
// non-selective filter fills its 1,000 entities from the first 1,000
// scanned; a selective one (1 in 100 matches) scans up to the budget.
func BenchmarkQuery100k(b *testing.B) {
	s := scaleService(b, memoryStore(b))
	for _, c := range []struct{ name, filter string }{
		{"nonselective", "PartitionKey eq 'p' and Age eq 42"},
		{"selective", "PartitionKey eq 'p' and Age eq 7"},
		{"selective-top10", "PartitionKey eq 'p' and Age eq 7"},
	} {
		f, err := odata.Parse(c.filter)
		if err != nil {
			b.Fatal(err)
		}
		top := maxPageSize
		if c.name == "selective-top10" {
			top = 10
		}
		b.Run(c.name, func(b *testing.B) {
			b.ReportAllocs()
			var n int
			for b.Loop() {
				page, err := s.QueryEntities(b.Context(), testAccount, "scale", EntityQuery{Filter: f, Top: top})
				if err != nil || len(page.Entities) == 0 {
					b.Fatalf("%d entities, %v", len(page.Entities), err)
				}
				n = len(page.Entities)
			}
			b.ReportMetric(float64(n), "entities/page")
		})
	}
}

// upsertBody is the JSON body the SDKs send for an Insert Or Replace of
// the bench entity.
const upsertBody = `{"PartitionKey":"p","RowKey":"%s","Name":"a customer name","Age":42,"Balance":1234.5,"Since@odata.type":"Edm.DateTime","Since":"2026-06-01T12:00:00Z","Active":true}`

// BenchmarkUpsert100k makes scaleRows Insert Or Replace writes, one
// transaction each, in one partition already holding scaleRows entities
// (so half the writes replace, half insert): one op is the whole run of
// 100,000, the "under 10 s". Each write parses the body as the
// handler does.
func BenchmarkUpsert100k(b *testing.B) {
	for _, c := range []struct {
		name string
		open func(b *testing.B) kv.Store
	}{
		{"memory", memoryStore},
		{"pebble", func(b *testing.B) kv.Store {
			store, err := pebble.Open(b.TempDir(), pebble.Options{})
			if err != nil {
				b.Fatal(err)
			}
			b.Cleanup(func() { _ = store.Close() })
			return store
		}},
	} {
		b.Run(c.name, func(b *testing.B) {
			s := scaleService(b, c.open(b))
			b.ReportAllocs()
			for b.Loop() {
				for i := range scaleRows {
					rk := fmt.Sprintf("%06d", scaleRows/2+i)
					doc, err := parseEntityJSON([]byte(fmt.Sprintf(upsertBody, rk)))
					if err != nil {
						b.Fatal(err)
					}
					if _, err := s.WriteEntity(b.Context(), testAccount, "scale", EntityWrite{Kind: WriteInsertOrReplace, PartitionKey: "p", RowKey: rk, Properties: doc.Properties}); err != nil {
						b.Fatal(err)
					}
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*scaleRows), "ns/upsert")
		})
	}
}
