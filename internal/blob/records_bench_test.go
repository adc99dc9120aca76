package blob

import (
	"fmt"
	"testing"
	"time"

	"github.com/cerulean-db/cerulean/internal/azhttp"
	"github.com/cerulean-db/cerulean/internal/kv/record"
)

// benchRecords are the Blob service's hot records as a listing or a read
// meets them: a blob as Put Blob leaves it (two metadata pairs, MD5, tags),
// a container, and one page blob extent.
func benchRecords() map[string]any {
	now := time.Date(2026, 11, 22, 21, 30, 0, 123456700, time.UTC)
	return map[string]any{
		"Blob": &Blob{Type: blockBlob, Version: 1 << 40, Created: now, Modified: now, Size: 1024, Extents: 1,
			Headers:  ContentHeaders{ContentType: "application/octet-stream", ContentMD5: make([]byte, 16)},
			Metadata: azhttp.Metadata{{"owner", "ada"}, {"purpose", "bench"}},
			Tags:     Tags{{Key: "project", Value: "cerulean"}}},
		"Container": &Container{Version: 1 << 40, Created: now, Modified: now,
			Metadata: azhttp.Metadata{{"owner", "ada"}}, DefaultEncryptionScope: "$account-encryption-key"},
		"extent": &extent{Data: 1 << 40, Offset: 512 << 10, Size: 4096},
	}
}

// BenchmarkRecordCodec encodes and decodes each hot record in the JSON
// format earlier releases wrote and in the binary format written now.
func BenchmarkRecordCodec(b *testing.B) {
	for _, name := range []string{"Blob", "Container", "extent"} {
		v := benchRecords()[name]
		formats := map[string][]byte{"json": record.EncodeJSON(v), "binary": record.Encode(v)}
		for _, format := range []string{"json", "binary"} {
			enc := formats[format]
			b.Run(fmt.Sprintf("%s/format=%s/encode", name, format), func(b *testing.B) {
				b.ReportAllocs()
				for range b.N {
					if format == "json" {
						_ = record.EncodeJSON(v)
					} else {
						_ = record.Encode(v)
					}
				}
				b.ReportMetric(float64(len(enc)), "bytes")
			})
			b.Run(fmt.Sprintf("%s/format=%s/decode", name, format), func(b *testing.B) {
				b.ReportAllocs()
				for range b.N {
					var err error
					switch name {
					case "Blob":
						err = record.Decode(enc, new(Blob))
					case "Container":
						err = record.Decode(enc, new(Container))
					default:
						err = record.Decode(enc, new(extent))
					}
					if err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}
