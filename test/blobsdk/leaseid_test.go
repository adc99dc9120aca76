package blobsdk_test

import (
	"net/http"
	"testing"

	"github.com/cerulean-db/cerulean/internal/testkit"
)

// Lease IDs are GUIDs in any form .NET parses — 32 digits, hyphenated,
// braced or in parentheses, either case — in x-ms-proposed-lease-id and
// x-ms-lease-id, on every lease action and as a write condition, for
// blobs and containers alike; only a value that is no GUID is 400
// InvalidHeaderValue.
func TestLeaseIDForms(t *testing.T) {
	f := newFixture(t)
	const (
		plain   = "ca761232ed4211cebacd00aa0057b223"
		upper   = "CA761232ED4211CEBACD00AA0057B223"
		canon   = "ca761232-ed42-11ce-bacd-00aa0057b223"
		braced  = "{CA761232-ED42-11CE-BACD-00AA0057B223}"
		parens  = "(ca761232-ed42-11ce-bacd-00aa0057b223)"
		other   = "0f8fad5bd9cb469fa16570867728950e"
		otherID = "0f8fad5b-d9cb-469f-a165-70867728950e"
	)
	r := newRecorded(t, f, "leaseforms", "2020-10-02")
	r.must(r.send(http.MethodPut, "/b", map[string]string{"x-ms-blob-type": "BlockBlob"}, []byte("abc")), http.StatusCreated, "", "put blob")

	for _, target := range []struct{ name, path, write, mismatch string }{
		{"blob", "/b?comp=lease", "/b?comp=metadata", "LeaseIdMismatchWithBlobOperation"},
		{"container", "?restype=container&comp=lease", "?restype=container&comp=metadata", "LeaseIdMismatchWithContainerOperation"},
	} {
		t.Run(target.name, func(t *testing.T) {
			lease := func(action string, hdr map[string]string) testkit.Response {
				h := map[string]string{"x-ms-lease-action": action}
				for k, v := range hdr {
					h[k] = v
				}
				return r.send(http.MethodPut, target.path, h, nil)
			}
			got := r.must(lease("acquire", map[string]string{"x-ms-lease-duration": "-1", "x-ms-proposed-lease-id": plain}), http.StatusCreated, "", "acquire with 32 digits")
			if id := got.Header.Get("x-ms-lease-id"); id != canon {
				t.Errorf("acquire: x-ms-lease-id %q, want %q", id, canon)
			}
			r.must(lease("renew", map[string]string{"x-ms-lease-id": braced}), http.StatusOK, "", "renew with the braced form")
			r.must(r.send(http.MethodPut, target.write, map[string]string{"x-ms-lease-id": upper, "x-ms-meta-a": "b"}, nil), http.StatusOK, "", "write under the lease, upper case")
			r.send(http.MethodPut, target.write, map[string]string{"x-ms-lease-id": other, "x-ms-meta-a": "b"}, nil).
				Check(t, http.StatusPreconditionFailed, target.mismatch, "write under another GUID")
			r.send(http.MethodPut, target.write, map[string]string{"x-ms-lease-id": "not-a-guid", "x-ms-meta-a": "b"}, nil).
				Check(t, http.StatusBadRequest, "InvalidHeaderValue", "write under a lease ID that is no GUID")
			got = r.must(lease("change", map[string]string{"x-ms-lease-id": parens, "x-ms-proposed-lease-id": other}), http.StatusOK, "", "change from the parenthesised form")
			if id := got.Header.Get("x-ms-lease-id"); id != otherID {
				t.Errorf("change: x-ms-lease-id %q, want %q", id, otherID)
			}
			lease("acquire", map[string]string{"x-ms-lease-duration": "-1", "x-ms-proposed-lease-id": "{0f8fad5b-d9cb-469f-a165-70867728950e"}).
				Check(t, http.StatusBadRequest, "InvalidHeaderValue", "acquire with an unclosed brace")
			r.must(lease("release", map[string]string{"x-ms-lease-id": "{" + otherID + "}"}), http.StatusOK, "", "release with the braced form")
		})
	}
}
