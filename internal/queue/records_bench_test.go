package queue

import (
	"testing"
	"time"

	"github.com/cerulean-db/cerulean/internal/azhttp"
	"github.com/cerulean-db/cerulean/internal/kv/record"
)

// BenchmarkQueueRecordCodec encodes and decodes a queue's record (read by
// every message operation) in the JSON format earlier releases wrote and
// in the binary format written now.
func BenchmarkQueueRecordCodec(b *testing.B) {
	q := &queueRecord{Created: time.Date(2026, 11, 22, 21, 30, 0, 123456700, time.UTC), Metadata: azhttp.Metadata{{"team", "billing"}}}
	for _, format := range []string{"json", "binary"} {
		enc := record.Encode(q)
		if format == "json" {
			enc = record.EncodeJSON(q)
		}
		b.Run("format="+format+"/encode", func(b *testing.B) {
			b.ReportAllocs()
			for range b.N {
				if format == "json" {
					_ = record.EncodeJSON(q)
				} else {
					_ = record.Encode(q)
				}
			}
			b.ReportMetric(float64(len(enc)), "bytes")
		})
		b.Run("format="+format+"/decode", func(b *testing.B) {
			b.ReportAllocs()
			for range b.N {
				if err := record.Decode(enc, new(queueRecord)); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
