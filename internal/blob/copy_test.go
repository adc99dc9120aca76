package blob

import (
	"bytes"
	"crypto/md5"
	"errors"
	"net/url"
	"testing"

	"github.com/cerulean-db/cerulean/internal/azerr"
	"github.com/cerulean-db/cerulean/internal/testkit"
)

// Copy Blob From URL checks x-ms-source-content-md5 against the bytes it
// copied (the Go SDK's TestCopyBlobFromUrlSourceContentMD5): a match
// copies; a mismatch is Md5Mismatch and leaves neither a destination nor
// any staged bytes, whether the source is small enough to stay inline or
// staged in its own transactions.
func TestCopySourceMD5(t *testing.T) {
	s, store := newTestService(t)
	ctx := t.Context()
	for size, data := range map[string][]byte{
		"inline": []byte("small enough to stay in memory"),
		"staged": bytes.Repeat([]byte{7}, inlineLimit+pageSize),
	} {
		src := "source-" + size
		if _, err := s.PutBlob(ctx, Ref{Account: testAcct, Container: "c", Name: src}, contentOf(data), PutBlobOptions{}); err != nil {
			t.Fatal(err)
		}
		u, _ := url.Parse("http://127.0.0.1:10000/" + testAcct + "/c/" + src)
		req := func(dest string, sum []byte) CopyRequest {
			return CopyRequest{
				Source: CopySource{URL: u, Acct: testAcct, Container: "c", Blob: src},
				Sync:   true, SourceMD5: sum,
				Acct: testAcct, Container: "c", Blob: dest,
			}
		}
		wrong := md5.Sum([]byte("something else"))
		bad := "bad-" + size
		before := testkit.CountKeys(t, store, nil)
		if _, err := s.CopyBlob(ctx, req(bad, wrong[:])); !errors.Is(err, azerr.ErrMd5Mismatch) {
			t.Errorf("%s: copy with a wrong source MD5: %v, want Md5Mismatch", size, err)
		}
		if blobExists(t, s, bad) || blobDataKeys(t, store, "c", bad) != 0 {
			t.Errorf("%s: a refused copy left a destination or its data", size)
		}
		if after := testkit.CountKeys(t, store, nil); after != before {
			t.Errorf("%s: %d keys before the refused copy, %d after", size, before, after)
		}
		right := md5.Sum(data)
		good := "good-" + size
		if _, err := s.CopyBlob(ctx, req(good, right[:])); err != nil {
			t.Fatalf("%s: copy with the source's MD5: %v", size, err)
		}
		if got := readBlob(t, s, good); !bytes.Equal(got, data) {
			t.Errorf("%s: copy holds %d bytes, want the source's %d", size, len(got), len(data))
		}
	}
}
