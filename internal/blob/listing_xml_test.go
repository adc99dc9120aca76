package blob

import (
	"bytes"
	"encoding/xml"
	"math/rand/v2"
	"testing"

	"github.com/cerulean-db/cerulean/internal/azhttp"
)

// randText draws strings rich in what escaping must handle: markup
// characters, whitespace, control bytes, invalid UTF-8, U+FFFD, U+FFFE
// and characters beyond the BMP.
func randText(r *rand.Rand) string {
	if r.IntN(4) == 0 {
		return ""
	}
	pieces := []string{"a", "Zz9", " ", "&", "<", ">", "\"", "'", "\t", "\n", "\r", "\x00", "\x1f", "\x7f", "\xff", "\xc3", "é", "\uFFFD", "\uFFFE", "\U0001F600", "\u2028", "]]>", "/", "%"}
	var b []byte
	for range r.IntN(8) {
		b = append(b, pieces[r.IntN(len(pieces))]...)
	}
	return string(b)
}

func randMeta(r *rand.Rand) *azhttp.MetadataXML {
	if r.IntN(2) == 0 {
		return nil
	}
	var m azhttp.MetadataXML
	for i := range r.IntN(3) {
		m = append(m, [2]string{[]string{"a", "Name_1", "x"}[i], randText(r)})
	}
	return &m
}

func randBlobXML(r *rand.Rand) blobXML {
	s := func() string { return randText(r) }
	bp := func() *bool {
		if r.IntN(2) == 0 {
			return nil
		}
		v := r.IntN(2) == 0
		return &v
	}
	x := blobXML{Name: listedName(s()), Deleted: r.IntN(2) == 0, Snapshot: s(), VersionID: s(), IsCurrent: bp(), HasVersionsOnly: bp()}
	p := &x.Properties
	p.CreationTime, p.DeletedTime, p.LastModified, p.Etag = s(), s(), s(), s()
	if r.IntN(2) == 0 {
		d := r.IntN(400) - 10
		p.RemainingDays = &d
	}
	p.ContentLength = r.Int64N(1<<40) - 5
	p.ContentType, p.ContentEncoding, p.ContentLanguage, p.ContentMD5 = s(), s(), s(), s()
	p.CacheControl, p.ContentDisposition, p.BlobType = s(), s(), s()
	if r.IntN(2) == 0 {
		n := r.Int64N(1 << 62)
		p.SequenceNumber = &n
	}
	p.Sealed = bp()
	p.AccessTier, p.AccessTierInferred, p.AccessTierChangeTime = s(), r.IntN(2) == 0, s()
	p.ArchiveStatus, p.RehydratePriority, p.LeaseStatus, p.LeaseState, p.LeaseDuration = s(), s(), s(), s(), s()
	p.CopyID, p.CopySource, p.CopyStatus, p.CopyProgress, p.CopyCompletionTime = s(), s(), s(), s(), s()
	p.ServerEncrypted, p.IncrementalCopy, p.DestinationSnapshot = r.IntN(2) == 0, r.IntN(2) == 0, s()
	p.CustomerProvidedKeySha256, p.EncryptionScope, p.TagCount = s(), s(), r.IntN(3)
	x.Metadata = randMeta(r)
	if r.IntN(2) == 0 {
		crc := s()
		p.ContentCRC64 = &crc
		x.OrMetadata = &struct{}{}
	}
	if r.IntN(2) == 0 {
		x.Tags = &tagsXML{}
		for range r.IntN(3) {
			x.Tags.TagSet.Tags = append(x.Tags.TagSet.Tags, tagXML{Key: s(), Value: s()})
		}
	}
	return x
}

// TestListingWriterMatchesEncodingXML: the direct writer renders random
// listings exactly as xml.Marshal renders the same structs.
func TestListingWriterMatchesEncodingXML(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for i := range 3000 {
		s := func() string { return randText(r) }
		bl := blobListXML{ServiceEndpoint: s(), ContainerName: s(), Prefix: s(), Marker: s(), MaxResults: r.IntN(3) * 2500, Delimiter: s(), NextMarker: s()}
		for range r.IntN(4) {
			if r.IntN(3) == 0 {
				bl.Blobs.Items = append(bl.Blobs.Items, blobPrefixXML{Name: listedName(s())})
			} else {
				bl.Blobs.Items = append(bl.Blobs.Items, randBlobXML(r))
			}
		}
		want, err := xml.Marshal(bl)
		if err != nil {
			t.Fatal(err)
		}
		var w listingWriter
		w.blobList(&bl)
		if !bytes.Equal(w.b, want) {
			t.Fatalf("blob list %d:\n got %q\nwant %q", i, w.b, want)
		}

		cl := containerListXML{ServiceEndpoint: s(), Prefix: s(), Marker: s(), MaxResults: r.IntN(3), NextMarker: s()}
		for range r.IntN(4) {
			var x containerXML
			x.Name, x.Deleted, x.Version = s(), r.IntN(2) == 0, s()
			p := &x.Properties
			p.LastModified, p.Etag, p.LeaseStatus, p.LeaseState, p.LeaseDuration, p.PublicAccess = s(), s(), s(), s(), s(), s()
			p.HasImmutabilityPolicy, p.HasLegalHold, p.DeletedTime = r.IntN(2) == 0, r.IntN(2) == 0, s()
			if r.IntN(2) == 0 {
				d := r.IntN(10)
				p.RemainingDays = &d
			}
			p.DefaultEncryptionScope, p.DenyEncryptionScopeOverride = s(), r.IntN(2) == 0
			x.Metadata = randMeta(r)
			cl.Containers.Items = append(cl.Containers.Items, x)
		}
		want, err = xml.Marshal(cl)
		if err != nil {
			t.Fatal(err)
		}
		w = listingWriter{}
		w.containerList(&cl)
		if !bytes.Equal(w.b, want) {
			t.Fatalf("container list %d:\n got %q\nwant %q", i, w.b, want)
		}
	}
}
