package table

import (
	"fmt"
	"testing"

	"github.com/cerulean-db/cerulean/internal/table/odata"
)

func benchProps() []Property {
	return []Property{
		{"Name", odata.StringValue("a customer name")},
		{"Age", odata.Int32Value(42)},
		{"Balance", odata.DoubleValue(1234.5)},
		{"Since", odata.DateTimeValue(testTicks)},
		{"Active", odata.BoolValue(true)},
	}
}

func benchService(b *testing.B) *Service {
	b.Helper()
	s := newTestService(b)
	if _, err := s.CreateTable(b.Context(), testAccount, "bench"); err != nil {
		b.Fatal(err)
	}
	return s
}

// BenchmarkInsertEntity: one entity per transaction (memory store).
func BenchmarkInsertEntity(b *testing.B) {
	s := benchService(b)
	props := benchProps()
	b.ResetTimer()
	for i := range b.N {
		if _, err := s.WriteEntity(b.Context(), testAccount, "bench", EntityWrite{Kind: WriteInsert, PartitionKey: "p", RowKey: fmt.Sprint(i), Properties: props}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkBatch100: an entity-group transaction of 100 inserts.
func BenchmarkBatch100(b *testing.B) {
	s := benchService(b)
	props := benchProps()
	b.ResetTimer()
	for i := range b.N {
		ops := make([]EntityWrite, 100)
		for j := range ops {
			ops[j] = EntityWrite{Kind: WriteInsert, PartitionKey: fmt.Sprint(i), RowKey: fmt.Sprint(j), Properties: props}
		}
		if _, err := s.Batch(b.Context(), testAccount, "bench", ops); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkQueryPartition: a 1,000-entity page of one partition among
// ten, filtered.
func BenchmarkQueryPartition(b *testing.B) {
	s := benchService(b)
	props := benchProps()
	for p := range 10 {
		for start := 0; start < 1000; start += 100 {
			ops := make([]EntityWrite, 100)
			for j := range ops {
				ops[j] = EntityWrite{Kind: WriteInsert, PartitionKey: fmt.Sprint(p), RowKey: fmt.Sprintf("%04d", start+j), Properties: props}
			}
			if _, err := s.Batch(b.Context(), testAccount, "bench", ops); err != nil {
				b.Fatal(err)
			}
		}
	}
	f, err := odata.Parse("PartitionKey eq '7' and Age eq 42 and Active eq true")
	if err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for range b.N {
		page, err := s.QueryEntities(b.Context(), testAccount, "bench", EntityQuery{Filter: f, Top: maxPageSize})
		// A loaded machine may end the page early (scan budget).
		if err != nil || len(page.Entities) == 0 {
			b.Fatalf("%d entities, %v", len(page.Entities), err)
		}
	}
}
