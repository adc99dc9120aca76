package blobsdk_test

import (
	"crypto/sha256"
	"encoding/base64"
	"net/http"
	"testing"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore/policy"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/appendblob"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/blob"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/bloberror"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/blockblob"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/container"

	"github.com/cerulean-db/cerulean/internal/testkit"
)

// cpk is a customer-provided key as the SDK sends it.
func cpk(seed byte) (*blob.CPKInfo, string) {
	key := make([]byte, 32)
	for i := range key {
		key[i] = seed + byte(i)
	}
	sum := sha256.Sum256(key)
	hash := base64.StdEncoding.EncodeToString(sum[:])
	return &blob.CPKInfo{
		EncryptionKey:       ptr(base64.StdEncoding.EncodeToString(key)),
		EncryptionKeySHA256: ptr(hash),
		EncryptionAlgorithm: ptr(blob.EncryptionAlgorithmTypeAES256),
	}, hash
}

// A blob written with a customer-provided key echoes the key's hash,
// reads and changes only with that key (409 without it or with another),
// and lists its hash; operations that take no key still work.
func TestCustomerProvidedKey(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	cc := f.createContainer(testkit.Name("cpk"), nil)
	key, hash := cpk(1)
	other, _ := cpk(2)
	data := testkit.RandBytes(21, 3000)

	bb := cc.NewBlockBlobClient("b")
	up, err := bb.Upload(t.Context(), rsc(data), &blockblob.UploadOptions{CPKInfo: key})
	must(t, err, "Put Blob with a customer-provided key")
	if deref(up.EncryptionKeySHA256) != hash || up.IsServerEncrypted == nil || !*up.IsServerEncrypted {
		t.Errorf("Put Blob echoed key hash %v, server encrypted %v", deref(up.EncryptionKeySHA256), deref(up.IsServerEncrypted))
	}
	bc := bb.BlobClient()

	_, err = bc.GetProperties(t.Context(), nil)
	mustErr(t, err, 409, bloberror.BlobUsesCustomerSpecifiedEncryption, "properties without the key")
	_, err = bc.GetProperties(t.Context(), &blob.GetPropertiesOptions{CPKInfo: other})
	mustErr(t, err, 409, bloberror.BlobUsesCustomerSpecifiedEncryption, "properties with another key")
	_, err = bc.DownloadStream(t.Context(), nil)
	mustErr(t, err, 409, bloberror.BlobUsesCustomerSpecifiedEncryption, "download without the key")
	_, err = bc.SetMetadata(t.Context(), map[string]*string{"a": ptr("1")}, nil)
	mustErr(t, err, 409, bloberror.BlobUsesCustomerSpecifiedEncryption, "set metadata without the key")
	_, err = bc.CreateSnapshot(t.Context(), nil)
	mustErr(t, err, 409, bloberror.BlobUsesCustomerSpecifiedEncryption, "snapshot without the key")

	p, err := bc.GetProperties(t.Context(), &blob.GetPropertiesOptions{CPKInfo: key})
	must(t, err, "properties with the key")
	if deref(p.EncryptionKeySHA256) != hash {
		t.Errorf("properties: key hash %v, want %s", deref(p.EncryptionKeySHA256), hash)
	}
	dl, err := bc.DownloadBuffer(t.Context(), make([]byte, len(data)), &blob.DownloadBufferOptions{CPKInfo: key})
	must(t, err, "download with the key")
	if dl != int64(len(data)) {
		t.Errorf("downloaded %d bytes, want %d", dl, len(data))
	}
	_, err = bc.SetMetadata(t.Context(), map[string]*string{"a": ptr("1")}, &blob.SetMetadataOptions{CPKInfo: key})
	must(t, err, "set metadata with the key")
	snap, err := bc.CreateSnapshot(t.Context(), &blob.CreateSnapshotOptions{CPKInfo: key})
	must(t, err, "snapshot with the key")
	sc, err := bc.WithSnapshot(*snap.Snapshot)
	must(t, err, "snapshot client")
	_, err = sc.GetProperties(t.Context(), nil)
	mustErr(t, err, 409, bloberror.BlobUsesCustomerSpecifiedEncryption, "snapshot properties without the key")

	// Operations that take no key are not refused.
	_, err = bc.SetTags(t.Context(), map[string]string{"k": "v"}, nil)
	must(t, err, "set tags on a CPK blob")
	items, _ := listFlat(t, cc, &container.ListBlobsFlatOptions{Include: container.ListBlobsInclude{Snapshots: true}})
	for _, it := range items {
		if deref(it.Properties.CustomerProvidedKeySHA256) != hash {
			t.Errorf("listing %s: CustomerProvidedKeySha256 %v, want %s", *it.Name, deref(it.Properties.CustomerProvidedKeySHA256), hash)
		}
	}

	// Copying needs the source's key, which Copy Blob cannot carry.
	_, err = cc.NewBlobClient("copy").StartCopyFromURL(t.Context(), bc.URL(), nil)
	mustErr(t, err, 409, bloberror.BlobUsesCustomerSpecifiedEncryption, "copy of a CPK blob")

	// Overwriting replaces the key; the blob then reads without one.
	upload(t, bb, data[:10], nil)
	expectContent(t, bc, data[:10], "blob overwritten without a key")

	// Appends must bring the append blob's key.
	ab := cc.NewAppendBlobClient("ab")
	_, err = ab.Create(t.Context(), &appendblob.CreateOptions{CPKInfo: key})
	must(t, err, "create append blob with a key")
	_, err = ab.AppendBlock(t.Context(), rsc(data), nil)
	mustErr(t, err, 409, bloberror.BlobUsesCustomerSpecifiedEncryption, "append without the key")
	var raw *http.Response
	_, err = ab.AppendBlock(policy.WithCaptureResponse(t.Context(), &raw), rsc(data), &appendblob.AppendBlockOptions{CPKInfo: key})
	must(t, err, "append with the key")
	if got := raw.Header.Get("x-ms-encryption-key-sha256"); got != hash {
		t.Errorf("Append Block echoed key hash %q, want %q", got, hash)
	}

	// Blocks staged and committed with a key.
	staged := cc.NewBlockBlobClient("staged")
	sb, err := staged.StageBlock(t.Context(), blockID(0), rsc(data), &blockblob.StageBlockOptions{CPKInfo: key})
	must(t, err, "Put Block with a key")
	if deref(sb.EncryptionKeySHA256) != hash {
		t.Errorf("Put Block echoed key hash %v", deref(sb.EncryptionKeySHA256))
	}
	_, err = staged.CommitBlockList(t.Context(), []string{blockID(0)}, &blockblob.CommitBlockListOptions{CPKInfo: key})
	must(t, err, "Put Block List with a key")
	_, err = staged.BlobClient().GetProperties(t.Context(), nil)
	mustErr(t, err, 409, bloberror.BlobUsesCustomerSpecifiedEncryption, "committed blob without the key")
}

// Malformed key headers are refused with Azure's errors before anything
// is written.
func TestCustomerProvidedKeyHeaders(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	cc := f.createContainer(testkit.Name("cpkhdr"), nil)
	sign := f.signer()
	key, hash := cpk(3)
	good := map[string]string{
		"x-ms-encryption-key": *key.EncryptionKey, "x-ms-encryption-key-sha256": hash, "x-ms-encryption-algorithm": "AES256",
	}
	short := base64.StdEncoding.EncodeToString([]byte("sixteen byte key"))
	shortSum := sha256.Sum256([]byte("sixteen byte key"))
	cases := []struct {
		name   string
		change map[string]string
		status int
		code   string
	}{
		{"short key", map[string]string{"x-ms-encryption-key": short, "x-ms-encryption-key-sha256": base64.StdEncoding.EncodeToString(shortSum[:])}, 400, "InvalidHeaderValue"},
		{"not base64", map[string]string{"x-ms-encryption-key": "not base64!"}, 400, "InvalidHeaderValue"},
		{"wrong hash", map[string]string{"x-ms-encryption-key-sha256": base64.StdEncoding.EncodeToString(make([]byte, 32))}, 400, "InvalidHeaderValue"},
		{"no hash", map[string]string{"x-ms-encryption-key-sha256": ""}, 400, "MissingRequiredHeader"},
		{"no algorithm", map[string]string{"x-ms-encryption-algorithm": ""}, 400, "MissingRequiredHeader"},
		{"other algorithm", map[string]string{"x-ms-encryption-algorithm": "AES128"}, 400, "InvalidHeaderValue"},
		{"no key", map[string]string{"x-ms-encryption-key": ""}, 400, "MissingRequiredHeader"},
		{"with a scope", map[string]string{"x-ms-encryption-scope": "scope1"}, 400, "InvalidHeaderValue"},
	}
	for _, tc := range cases {
		h := map[string]string{"x-ms-blob-type": "BlockBlob"}
		for k, v := range good {
			h[k] = v
		}
		for k, v := range tc.change {
			if v == "" {
				delete(h, k)
			} else {
				h[k] = v
			}
		}
		u := cc.NewBlobClient("b").URL()
		sign.Send(t, testkit.Request{Method: http.MethodPut, URL: u, Header: h, Body: []byte("abc")}).Check(t, tc.status, tc.code, tc.name)
	}
	_, err := cc.NewBlobClient("b").GetProperties(t.Context(), nil)
	mustErr(t, err, 404, bloberror.BlobNotFound, "blob after refused key headers")

	h := map[string]string{"x-ms-blob-type": "BlockBlob"}
	for k, v := range good {
		h[k] = v
	}
	r := sign.Send(t, testkit.Request{Method: http.MethodPut, URL: cc.NewBlobClient("b").URL(), Header: h, Body: []byte("abc")})
	if r.Check(t, http.StatusCreated, "", "well-formed key headers") {
		if r.Header.Get("x-ms-encryption-key-sha256") != hash || r.Header.Get("x-ms-request-server-encrypted") != "true" {
			t.Errorf("echo: key hash %q, server encrypted %q", r.Header.Get("x-ms-encryption-key-sha256"), r.Header.Get("x-ms-request-server-encrypted"))
		}
	}
	// A read may leave out the algorithm.
	delete(h, "x-ms-encryption-algorithm")
	delete(h, "x-ms-blob-type")
	sign.Send(t, testkit.Request{Method: http.MethodHead, URL: cc.NewBlobClient("b").URL(), Header: h}).Check(t, http.StatusOK, "", "properties with key and hash only")
}
