package blobsdk_test

import (
	"encoding/xml"
	"net/http"
	"strings"
	"testing"

	"github.com/cerulean-db/cerulean/internal/testkit"
)

// The behaviours in this file are Azure's answers as the Go SDK's
// recordings of its live tests show them (test/parity/testdata/blob);
// each test names the recordings it follows.

// recorded sends hand-built requests at one x-ms-version.
type recorded struct {
	t       *testing.T
	sk      testkit.Signer
	base    string
	version string
}

func newRecorded(t *testing.T, f *fixture, container, version string) *recorded {
	cc := f.createContainer(container, nil)
	return &recorded{t: t, sk: f.signer(), base: cc.URL(), version: version}
}

func (r *recorded) send(method, path string, hdr map[string]string, body []byte) testkit.Response {
	r.t.Helper()
	h := map[string]string{"x-ms-version": r.version}
	for k, v := range hdr {
		h[k] = v
	}
	return r.sk.Send(r.t, testkit.Request{Method: method, URL: r.base + path, Header: h, Body: body})
}

// must fails the test unless the answer has the status and code.
func (r *recorded) must(resp testkit.Response, status int, code, what string) testkit.Response {
	r.t.Helper()
	if !resp.Check(r.t, status, code, what) {
		r.t.FailNow()
	}
	return resp
}

func pageBlob(r *recorded, name string) {
	r.t.Helper()
	r.must(r.send(http.MethodPut, "/"+name, map[string]string{"x-ms-blob-type": "PageBlob", "x-ms-blob-content-length": "5120"}, nil), http.StatusCreated, "", "create page blob")
}

// go-azblob-TestResizePageBlob, go-azblob-TestBlobSetSequenceNumberIfMatchTrue,
// go-azblob-TestBlobPutPagesIfSequenceNumberLTENegOne,
// go-azblob-TestBlobClearPagesInvalidRange, go-azblob-TestBlobPutPagesEmptyBody,
// go-azblob-TestPutGetPages, go-azblob-TestBlobCreatePageSequenceInvalid,
// go-azblob-TestBlobSetSequenceNumberSequenceNumberInvalid.
func TestRecordedPageBlobAnswers(t *testing.T) {
	f := newFixture(t)
	r := newRecorded(t, f, "pages", "2020-10-02")
	pageBlob(r, "p")

	// A negative sequence number to set is a malformed header; as a
	// condition (below) it is InvalidInput.
	r.send(http.MethodPut, "/negative", map[string]string{"x-ms-blob-type": "PageBlob", "x-ms-blob-content-length": "512", "x-ms-blob-sequence-number": "-1"}, nil).
		Check(t, http.StatusBadRequest, "InvalidHeaderValue", "create with sequence number -1")
	r.send(http.MethodPut, "/p?comp=properties", map[string]string{"x-ms-sequence-number-action": "update", "x-ms-blob-sequence-number": "-1"}, nil).
		Check(t, http.StatusBadRequest, "InvalidHeaderValue", "set sequence number -1")

	resp := r.must(r.send(http.MethodPut, "/p?comp=properties", map[string]string{"x-ms-blob-content-length": "1024"}, nil), http.StatusOK, "", "resize")
	if got := resp.Header.Get("x-ms-blob-sequence-number"); got != "0" {
		t.Errorf("resize: x-ms-blob-sequence-number %q, want 0", got)
	}
	resp = r.must(r.send(http.MethodPut, "/p?comp=properties", map[string]string{"x-ms-sequence-number-action": "update", "x-ms-blob-sequence-number": "7"}, nil), http.StatusOK, "", "set sequence number")
	if got := resp.Header.Get("x-ms-blob-sequence-number"); got != "7" {
		t.Errorf("set sequence number: x-ms-blob-sequence-number %q, want 7", got)
	}

	page := make([]byte, 512)
	for _, h := range []string{"x-ms-if-sequence-number-le", "x-ms-if-sequence-number-lt", "x-ms-if-sequence-number-eq"} {
		r.send(http.MethodPut, "/p?comp=page", map[string]string{"x-ms-page-write": "update", "x-ms-range": "bytes=0-511", h: "-1"}, page).
			Check(t, http.StatusBadRequest, "InvalidInput", h+": -1")
	}
	r.send(http.MethodPut, "/p?comp=page", map[string]string{"x-ms-page-write": "update", "x-ms-range": "bytes=0-511", "x-ms-if-sequence-number-le": "x"}, page).
		Check(t, http.StatusBadRequest, "InvalidHeaderValue", "x-ms-if-sequence-number-le: x")

	detail := func(resp testkit.Response, name string) string {
		var e struct {
			HeaderName string `xml:"HeaderName"`
		}
		if err := xml.Unmarshal([]byte(strings.TrimPrefix(string(resp.Body), "\ufeff")), &e); err != nil {
			t.Fatalf("error body %q: %v", resp.Body, err)
		}
		return e.HeaderName
	}
	resp = r.send(http.MethodPut, "/p?comp=page", map[string]string{"x-ms-page-write": "clear", "x-ms-range": "bytes=0-512"}, nil)
	if resp.Check(t, http.StatusBadRequest, "InvalidHeaderValue", "clear of a range that is not whole pages") && detail(resp, "HeaderName") != "Range" {
		t.Errorf("clear of bytes=0-512 names %q, want Range", detail(resp, "HeaderName"))
	}
	resp = r.send(http.MethodPut, "/p?comp=page", map[string]string{"x-ms-page-write": "update"}, nil)
	if resp.Check(t, http.StatusBadRequest, "MissingRequiredHeader", "Put Page without a range") && detail(resp, "HeaderName") != "Range" {
		t.Errorf("Put Page without a range names %q, want Range", detail(resp, "HeaderName"))
	}

	r.must(r.send(http.MethodPut, "/p?comp=page", map[string]string{"x-ms-page-write": "update", "x-ms-range": "bytes=0-1023"}, make([]byte, 1024)), http.StatusCreated, "", "put two pages")
	resp = r.must(r.send(http.MethodGet, "/p?comp=pagelist", map[string]string{"x-ms-range": "bytes=0-1022"}, nil), http.StatusOK, "", "page ranges of bytes 0-1022")
	if !strings.Contains(string(resp.Body), "<PageRange><Start>0</Start><End>1023</End></PageRange>") {
		t.Errorf("page ranges of bytes 0-1022: %s, want pages 0-1023", resp.Body)
	}
	resp = r.must(r.send(http.MethodGet, "/p?comp=pagelist", map[string]string{"x-ms-range": "bytes=-2-497"}, nil), http.StatusOK, "", "page ranges with a negative start")
	if !strings.Contains(string(resp.Body), "<End>1023</End>") {
		t.Errorf("page ranges with a negative start: %s, want every page", resp.Body)
	}
}

// go-azblob-TestBlobAbortCopyNoCopyStarted, go-azblob-TestBlobStartCopyDestIfMatchFalse.
func TestRecordedCopyAnswers(t *testing.T) {
	f := newFixture(t)
	r := newRecorded(t, f, "copies", "2020-10-02")
	r.must(r.send(http.MethodPut, "/src", map[string]string{"x-ms-blob-type": "BlockBlob"}, []byte("abc")), http.StatusCreated, "", "put source")
	r.send(http.MethodPut, "/src?comp=copy&copyid=copynotstarted", map[string]string{"x-ms-copy-action": "abort"}, nil).
		Check(t, http.StatusBadRequest, "InvalidQueryParameterValue", "abort with a copy id that is no GUID")
	r.send(http.MethodPut, "/src?comp=copy&copyid=CA761232ED4211CEBACD00AA0057B223", map[string]string{"x-ms-copy-action": "abort"}, nil).
		Check(t, http.StatusConflict, "NoPendingCopyOperation", "abort with an unhyphenated GUID and no copy")

	r.must(r.send(http.MethodPut, "/dst", map[string]string{"x-ms-blob-type": "BlockBlob"}, []byte("x")), http.StatusCreated, "", "put destination")
	r.send(http.MethodPut, "/dst", map[string]string{"x-ms-copy-source": r.base + "/src", "If-Match": `"0x1"`}, nil).
		Check(t, http.StatusPreconditionFailed, "TargetConditionNotMet", "copy onto a destination whose ETag does not match")
}

// go-azblob-TestCopySealedBlob, go-azblob-TestCopyUnsealedBlob, go-azblob-TestSealAppendBlob.
func TestRecordedSealAnswers(t *testing.T) {
	f := newFixture(t)
	r := newRecorded(t, f, "seals", "2020-10-02")
	r.must(r.send(http.MethodPut, "/a", map[string]string{"x-ms-blob-type": "AppendBlob"}, nil), http.StatusCreated, "", "create append blob")
	r.must(r.send(http.MethodPut, "/unsealed", map[string]string{"x-ms-blob-type": "AppendBlob"}, nil), http.StatusCreated, "", "create append blob")
	before := r.must(r.send(http.MethodHead, "/a", nil, nil), http.StatusOK, "", "properties before the seal").Header.Get("ETag")
	sealed := r.must(r.send(http.MethodPut, "/a?comp=seal", nil, nil), http.StatusOK, "", "seal").Header.Get("ETag")
	if sealed == before {
		t.Errorf("seal kept the ETag %s", before)
	}
	for _, tc := range []struct {
		name, source, seal string
		sealed             bool
	}{
		{"copy of a sealed blob", "/a", "", true},
		{"copy of a sealed blob, unsealed", "/a", "false", false},
		{"copy of an unsealed blob, sealed", "/unsealed", "true", true},
		{"copy of an unsealed blob", "/unsealed", "", false},
	} {
		hdr := map[string]string{"x-ms-copy-source": r.base + tc.source}
		if tc.seal != "" {
			hdr["x-ms-seal-blob"] = tc.seal
		}
		dst := "/" + strings.ReplaceAll(tc.name, " ", "-")
		r.must(r.send(http.MethodPut, dst, hdr, nil), http.StatusAccepted, "", tc.name)
		got := r.must(r.send(http.MethodHead, dst, nil, nil), http.StatusOK, "", tc.name+": properties").Header.Get("x-ms-blob-sealed")
		if (got == "true") != tc.sealed {
			t.Errorf("%s: x-ms-blob-sealed %q, want sealed %v", tc.name, got, tc.sealed)
		}
	}
}

// go-azblob-TestBlobSnapshotMetadata, go-azblob-TestBlobSnapshotIfMatchTrue,
// go-azblob-TestContainerListBlobsWithSnapshots, go-azblob-TestBlobListWrapper,
// go-storage-ContainerSuite-TestListBlobsWithMetadata.
func TestRecordedSnapshotAndListingAnswers(t *testing.T) {
	f := newFixture(t)
	for _, version := range []string{"2018-03-28", "2020-10-02"} {
		t.Run(version, func(t *testing.T) {
			r := newRecorded(t, f, "snaps"+strings.ReplaceAll(version, "-", ""), version)
			put := r.must(r.send(http.MethodPut, "/b", map[string]string{"x-ms-blob-type": "BlockBlob"}, []byte("abc")), http.StatusCreated, "", "put blob")
			plain := r.must(r.send(http.MethodPut, "/b?comp=snapshot", nil, nil), http.StatusCreated, "", "snapshot")
			if plain.Header.Get("ETag") != put.Header.Get("ETag") || plain.Header.Get("x-ms-request-server-encrypted") != "false" {
				t.Errorf("snapshot without metadata: ETag %s (blob's %s), x-ms-request-server-encrypted %q; want the blob's ETag and false",
					plain.Header.Get("ETag"), put.Header.Get("ETag"), plain.Header.Get("x-ms-request-server-encrypted"))
			}
			meta := r.must(r.send(http.MethodPut, "/b?comp=snapshot", map[string]string{"x-ms-meta-Rofl_BAZ": "Waz"}, nil), http.StatusCreated, "", "snapshot with metadata")
			if meta.Header.Get("ETag") == put.Header.Get("ETag") || meta.Header.Get("x-ms-request-server-encrypted") != "true" {
				t.Errorf("snapshot with metadata: ETag %s (blob's %s), x-ms-request-server-encrypted %q; want an ETag of its own and true",
					meta.Header.Get("ETag"), put.Header.Get("ETag"), meta.Header.Get("x-ms-request-server-encrypted"))
			}
			list := string(r.must(r.send(http.MethodGet, "?restype=container&comp=list&include=snapshots,metadata", nil, nil), http.StatusOK, "", "list").Body)
			if n := strings.Count(list, "<LeaseState>"); n != 1 {
				t.Errorf("%d blobs list a lease state, want only the base blob: %s", n, list)
			}
			if !strings.Contains(list, "<Rofl_BAZ>Waz</Rofl_BAZ>") {
				t.Errorf("snapshot metadata lost its case: %s", list)
			}
			newer := version >= "2019-12-12"
			if got := strings.Contains(list, "<OrMetadata") && strings.Contains(list, "<Content-CRC64"); got != newer {
				t.Errorf("OrMetadata and Content-CRC64 listed: %v, want %v: %s", got, newer, list)
			}
		})
	}
}

// go-azblob-TestContainerCreateEmptyMetadata, go-azblob-TestBlobSetTierOnCommit,
// go-azblob-TestAccountDeleteRetentionPolicy (AllowPermanentDelete).
func TestRecordedPropertyAnswers(t *testing.T) {
	f := newFixture(t)
	r := newRecorded(t, f, "props", "2020-10-02")
	resp := r.must(r.send(http.MethodGet, "?restype=container", nil, nil), http.StatusOK, "", "container properties")
	if got := resp.Header.Get("x-ms-immutable-storage-with-versioning-enabled"); got != "false" {
		t.Errorf("x-ms-immutable-storage-with-versioning-enabled %q, want false", got)
	}

	r.must(r.send(http.MethodPut, "/b?comp=block&blockid=AAAAAA%3D%3D", nil, []byte("abc")), http.StatusCreated, "", "put block")
	for _, tc := range []struct{ list, want, not string }{
		{"committed", "<CommittedBlocks", "<UncommittedBlocks"},
		{"uncommitted", "<UncommittedBlocks", "<CommittedBlocks"},
	} {
		body := string(r.must(r.send(http.MethodGet, "/b?comp=blocklist&blocklisttype="+tc.list, nil, nil), http.StatusOK, "", tc.list).Body)
		if !strings.Contains(body, tc.want) || strings.Contains(body, tc.not) {
			t.Errorf("blocklisttype=%s: %s", tc.list, body)
		}
	}

	svc := strings.TrimSuffix(r.base, "/props") + "/?restype=service&comp=properties"
	props := r.sk.Send(t, testkit.Request{Method: http.MethodGet, URL: svc, Header: map[string]string{"x-ms-version": "2020-10-02"}})
	if !strings.Contains(string(props.Body), "<AllowPermanentDelete>false</AllowPermanentDelete>") {
		t.Errorf("service properties at 2020-10-02: %s, want AllowPermanentDelete false", props.Body)
	}
	props = r.sk.Send(t, testkit.Request{Method: http.MethodGet, URL: svc, Header: map[string]string{"x-ms-version": "2018-03-28"}})
	if strings.Contains(string(props.Body), "AllowPermanentDelete") {
		t.Errorf("service properties at 2018-03-28: %s, want no AllowPermanentDelete", props.Body)
	}
}

// A blob committed with block IDs of one length takes uncommitted blocks
// whose IDs have another (go-azblob-TestBlobPutBlockListModifyBlob).
func TestRecordedBlockIDLengthAfterCommit(t *testing.T) {
	f := newFixture(t)
	r := newRecorded(t, f, "idlen", "2020-10-02")
	r.must(r.send(http.MethodPut, "/b?comp=block&blockid=AAAAAA%3D%3D", nil, []byte("one")), http.StatusCreated, "", "put a 4-byte block ID")
	r.must(r.send(http.MethodPut, "/b?comp=blocklist", nil, []byte(`<BlockList><Latest>AAAAAA==</Latest></BlockList>`)), http.StatusCreated, "", "commit")
	r.must(r.send(http.MethodPut, "/b?comp=block&blockid=0001", nil, []byte("two")), http.StatusCreated, "", "put a 3-byte block ID")
	r.send(http.MethodPut, "/b?comp=block&blockid=AAAAAA%3D%3D", nil, []byte("three")).
		Check(t, http.StatusBadRequest, "InvalidBlobOrBlock", "a 4-byte block ID among 3-byte uncommitted ones")
	r.must(r.send(http.MethodPut, "/b?comp=blocklist", nil, []byte(`<BlockList><Latest>0001</Latest></BlockList>`)), http.StatusCreated, "", "commit the 3-byte block")
}

// go-TestContainerRestoreFailures: Restore Container without a version, or
// at the account's URL without a name, is 400 MissingRequiredHeader.
func TestRecordedRestoreContainerFailures(t *testing.T) {
	f := newFixture(t)
	sk := f.signer()
	send := func(u string, name string) testkit.Response {
		return sk.Send(t, testkit.Request{Method: http.MethodPut, URL: u, Header: map[string]string{
			"x-ms-version": "2023-11-03", "x-ms-deleted-container-name": name, "x-ms-deleted-container-version": ""}})
	}
	base := strings.TrimSuffix(f.env.BlobURL, "/")
	send(base+"/restoreme?comp=undelete&restype=container", "restoreme").
		Check(t, http.StatusBadRequest, "MissingRequiredHeader", "Restore Container without a version")
	send(base+"/?comp=undelete&restype=container", "").
		Check(t, http.StatusBadRequest, "MissingRequiredHeader", "Restore Container at the account without a name")
}
