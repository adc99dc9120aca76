package blob

import (
	"context"
	"encoding/xml"
	"fmt"
	"github.com/cerulean-db/cerulean/internal/testkit"
	"os"
	"testing"
	"time"
)

// benchListSizes are the container sizes BenchmarkListBlobsScale lists.
// The million-blob size takes minutes to fill, so it runs only when
// CERULEAN_BENCH_1M is set:
//
//	CERULEAN_BENCH_1M=1 go test -run '^$' -bench ListBlobsScale -benchtime 1x ./internal/blob
func benchListSizes() []int {
	sizes := []int{10_000, 100_000}
	if os.Getenv("CERULEAN_BENCH_1M") != "" {
		sizes = append(sizes, 1_000_000)
	}
	return sizes
}

// newListingService fills container "c" with n empty blobs, 5,000 to a
// transaction, over Pebble on an in-memory file system (the store's work
// without the disk's fsync latency).
func newListingService(b *testing.B, n int) *Service {
	b.Helper()
	store := testkit.MemPebble(b)
	s := New(Config{Store: store})
	ctx := context.Background()
	if _, err := s.CreateContainer(ctx, ContainerRef{Account: testAcct, Container: "c"}, CreateContainerOptions{}); err != nil {
		b.Fatal(err)
	}
	const batch = 5_000
	for done := 0; done < n; done += batch {
		err := s.Update(ctx, func(tx *Tx) error {
			for i := done; i < min(done+batch, n); i++ {
				if _, err := tx.PutBlob(Ref{Account: testAcct, Container: "c", Name: fmt.Sprintf("dir/blob-%08d", i)}, nil, PutBlobOptions{Headers: ContentHeaders{ContentType: "text/plain"}}); err != nil {
					return err
				}
			}
			return nil
		})
		if err != nil {
			b.Fatal(err)
		}
	}
	return s
}

// renderBlobPage builds a List Blobs page as the handler does (no
// delimiter, no includes) and renders it with encoding/xml or with the
// direct writer.
func renderBlobPage(l *BlobListing, now time.Time, direct bool) ([]byte, error) {
	doc := blobListXML{ServiceEndpoint: "http://127.0.0.1:10000/devstoreaccount1/", ContainerName: "c", NextMarker: l.NextMarker}
	items := make([]any, 0, len(l.Blobs))
	for _, e := range l.Blobs {
		items = append(items, blobEntryXML(e, nil, now))
	}
	doc.Blobs.Items = items
	if !direct {
		return xml.Marshal(doc)
	}
	w := listingWriter{b: make([]byte, 0, 512+768*len(items))}
	w.blobList(&doc)
	return w.b, nil
}

// BenchmarkListBlobsScale lists a whole container, 5,000 blobs a page as
// the SDKs ask, and renders every page: one op is one full listing, and
// ns/blob and allocs/blob divide it by the container's size. render=xml
// is the encoding/xml body the handler used to write, render=direct the
// listingWriter it writes now; list-only leaves rendering out.
func BenchmarkListBlobsScale(b *testing.B) {
	ctx := context.Background()
	for _, size := range benchListSizes() {
		s := newListingService(b, size)
		for _, render := range []string{"list-only", "xml", "direct"} {
			b.Run(fmt.Sprintf("blobs=%d/render=%s", size, render), func(b *testing.B) {
				b.ReportAllocs()
				var bytes int64
				for range b.N {
					marker := ""
					listed := 0
					for {
						l, err := s.ListBlobs(ctx, ContainerRef{Account: testAcct, Container: "c"}, ListBlobsOptions{Marker: marker, Max: 5000})
						if err != nil {
							b.Fatal(err)
						}
						listed += len(l.Blobs)
						if render != "list-only" {
							body, err := renderBlobPage(l, time.Now(), render == "direct")
							if err != nil {
								b.Fatal(err)
							}
							bytes += int64(len(body))
						}
						if l.NextMarker == "" {
							break
						}
						marker = l.NextMarker
					}
					if listed != size {
						b.Fatalf("listed %d of %d blobs", listed, size)
					}
				}
				b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*size), "ns/blob")
				b.ReportMetric(float64(bytes)/float64(b.N*size), "bytes/blob")
			})
		}
	}
}

// BenchmarkRenderBlobPage renders one page of 5,000 listed blobs,
// already read: the XML body's own cost per blob, encoding/xml against
// the direct writer.
func BenchmarkRenderBlobPage(b *testing.B) {
	s := newListingService(b, 5000)
	l, err := s.ListBlobs(context.Background(), ContainerRef{Account: testAcct, Container: "c"}, ListBlobsOptions{Max: 5000})
	if err != nil {
		b.Fatal(err)
	}
	now := time.Now()
	for _, render := range []string{"xml", "direct"} {
		b.Run("render="+render, func(b *testing.B) {
			b.ReportAllocs()
			for range b.N {
				if _, err := renderBlobPage(l, now, render == "direct"); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(float64(b.Elapsed().Nanoseconds())/float64(b.N*len(l.Blobs)), "ns/blob")
		})
	}
}
