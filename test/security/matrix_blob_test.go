package security

import (
	"bytes"
	"encoding/base64"
	"net/http"
	"testing"

	"github.com/cerulean-db/cerulean/internal/servertest"
)

var blobService = storageService{
	name: "blob", ss: "b",
	// Versioning on, so that deleting a version is in the matrix.
	options:          []servertest.Option{servertest.WithBlobDataProtection(true, 0)},
	accountLetters:   "rwdxylacuptfi",
	containerLetters: "racwdxyltfmeopi",
	objectLetters:    "racwdxytmeopi",
	createContainer:  createWithRestype("blob", "container"),
	serviceSAS:       objectScopedSAS("blob", "c", "b"),
}

func putBlockBlob(n *target) call {
	return call{method: http.MethodPut, path: objectPath(n), header: map[string]string{"x-ms-blob-type": "BlockBlob"}, body: []byte("matrix")}
}

func prepBlob(t testing.TB, f *fixture, n *target) { f.prepare(t, "blob", putBlockBlob(n)) }

func prepContainer(t testing.TB, f *fixture, n *target) {
	blobService.createContainer(t, f, n.container)
}

func prepNothing(testing.TB, *fixture, *target) {}

// prepOldVersion writes the blob twice and notes the first version's id.
func prepOldVersion(t testing.TB, f *fixture, n *target) {
	resp := f.withKey(t, "blob", putBlockBlob(n), sharedKey)
	must2xx(t, resp, "put the first version")
	n.note = resp.Header.Get("x-ms-version-id")
	if n.note == "" {
		t.Fatal("Put Blob with versioning on answered no x-ms-version-id")
	}
	prepBlob(t, f, n)
}

func prepAppendBlob(t testing.TB, f *fixture, n *target) {
	f.prepare(t, "blob", call{method: http.MethodPut, path: objectPath(n), header: map[string]string{"x-ms-blob-type": "AppendBlob"}})
}

func prepPageBlob(t testing.TB, f *fixture, n *target) {
	f.prepare(t, "blob", call{method: http.MethodPut, path: objectPath(n), header: map[string]string{"x-ms-blob-type": "PageBlob", "x-ms-blob-content-length": "512"}})
}

func prepLeasedBlob(t testing.TB, f *fixture, n *target) {
	prepBlob(t, f, n)
	f.prepare(t, "blob", call{method: http.MethodPut, path: objectPath(n), query: q("comp", "lease"),
		header: map[string]string{"x-ms-lease-action": "acquire", "x-ms-lease-duration": "-1"}})
}

var blockID = base64.StdEncoding.EncodeToString([]byte("block-0001"))

func prepStagedBlock(t testing.TB, f *fixture, n *target) {
	f.prepare(t, "blob", call{method: http.MethodPut, path: objectPath(n), query: q("comp", "block", "blockid", blockID), body: []byte("staged")})
}

func blobCall(method, comp string, header map[string]string, body []byte) func(n *target) call {
	return func(n *target) call {
		c := call{method: method, path: objectPath(n), header: header, body: body}
		if comp != "" {
			c.query = q("comp", comp)
		}
		return c
	}
}

func containerCall(method string, query ...string) func(n *target) call {
	return func(n *target) call {
		return call{method: method, path: n.container, query: q(append([]string{"restype", "container"}, query...)...)}
	}
}

// blobOps is the Blob service's table. A service SAS never reaches the
// container itself (only its blobs and its listing), and the container ACL
// is the account owner's alone.
var blobOps = []storageOp{
	{name: "List Containers", level: 's', account: "l", prep: prepNothing,
		call: func(*target) call { return call{method: http.MethodGet, query: q("comp", "list")} }},
	{name: "Get Blob Service Properties", level: 's', account: "r", prep: prepNothing,
		call: func(*target) call {
			return call{method: http.MethodGet, query: q("restype", "service", "comp", "properties")}
		}},
	{name: "Set Blob Service Properties", level: 's', account: "w", prep: prepNothing,
		call: func(*target) call {
			return call{method: http.MethodPut, query: q("restype", "service", "comp", "properties"),
				body: []byte(`<?xml version="1.0" encoding="utf-8"?><StorageServiceProperties><Cors/></StorageServiceProperties>`)}
		}},
	{name: "Find Blobs by Tags", level: 's', account: "f", prep: prepNothing,
		call: func(*target) call { return call{method: http.MethodGet, query: q("comp", "blobs", "where", `"k"='v'`)} }},

	{name: "Create Container", level: 'c', account: "c|w", service: "-", prep: prepNothing, call: containerCall(http.MethodPut)},
	{name: "Get Container Properties", level: 'c', account: "r", service: "-", prep: prepContainer, call: containerCall(http.MethodGet)},
	{name: "Get Container Metadata", level: 'c', account: "r", service: "-", prep: prepContainer, call: containerCall(http.MethodGet, "comp", "metadata")},
	{name: "Set Container Metadata", level: 'c', account: "w", service: "-", prep: prepContainer,
		call: func(n *target) call {
			c := containerCall(http.MethodPut, "comp", "metadata")(n)
			c.header = map[string]string{"x-ms-meta-k": "v"}
			return c
		}},
	{name: "Get Container ACL", level: 'c', account: "-", service: "-", prep: prepContainer, call: containerCall(http.MethodGet, "comp", "acl")},
	{name: "Set Container ACL", level: 'c', account: "-", service: "-", prep: prepContainer, call: containerCall(http.MethodPut, "comp", "acl")},
	{name: "Lease Container", level: 'c', account: "w", service: "-", prep: prepContainer,
		call: func(n *target) call {
			c := containerCall(http.MethodPut, "comp", "lease")(n)
			c.header = map[string]string{"x-ms-lease-action": "acquire", "x-ms-lease-duration": "-1"}
			return c
		}},
	{name: "Delete Container", level: 'c', account: "d", service: "-", prep: prepContainer, call: containerCall(http.MethodDelete)},
	{name: "List Blobs", level: 'c', account: "l", service: "l", prep: prepContainer, call: containerCall(http.MethodGet, "comp", "list")},
	{name: "Find Blobs by Tags in a container", level: 'c', account: "f", service: "f", prep: prepContainer,
		call: containerCall(http.MethodGet, "comp", "blobs", "where", `"k"='v'`)},

	{name: "Get Blob", level: 'o', account: "r", service: "r", prep: prepBlob, call: blobCall(http.MethodGet, "", nil, nil)},
	{name: "Get Blob Properties", level: 'o', account: "r", service: "r|e", prep: prepBlob, call: blobCall(http.MethodHead, "", nil, nil)},
	{name: "Get Blob Metadata", level: 'o', account: "r", service: "r", prep: prepBlob, call: blobCall(http.MethodGet, "metadata", nil, nil)},
	{name: "Set Blob Metadata", level: 'o', account: "w", service: "w", prep: prepBlob,
		call: blobCall(http.MethodPut, "metadata", map[string]string{"x-ms-meta-k": "v"}, nil)},
	{name: "Set Blob Properties", level: 'o', account: "w", service: "w", prep: prepBlob,
		call: blobCall(http.MethodPut, "properties", map[string]string{"x-ms-blob-content-type": "text/plain"}, nil)},
	{name: "Put Blob (new)", level: 'o', account: "c|w", service: "c|w", prep: prepNothing, call: putBlockBlob},
	{name: "Put Blob (overwrite)", level: 'o', account: "w", service: "w", prep: prepBlob, call: putBlockBlob},
	{name: "Put Block", level: 'o', account: "w", service: "w", prep: prepNothing,
		call: func(n *target) call {
			return call{method: http.MethodPut, path: objectPath(n), query: q("comp", "block", "blockid", blockID), body: []byte("blk")}
		}},
	// "Write: create or write content, properties, metadata, or block
	// list"; create alone writes a new blob by Put Blob only.
	{name: "Put Block List (new)", level: 'o', account: "w", service: "w", prep: prepStagedBlock,
		call: blobCall(http.MethodPut, "blocklist", nil, []byte(`<?xml version="1.0" encoding="utf-8"?><BlockList><Latest>`+blockID+`</Latest></BlockList>`))},
	{name: "Get Block List", level: 'o', account: "r", service: "r", prep: prepBlob,
		call: func(n *target) call {
			return call{method: http.MethodGet, path: objectPath(n), query: q("comp", "blocklist", "blocklisttype", "all")}
		}},
	{name: "Create Append Blob (new)", level: 'o', account: "c|w", service: "c|w", prep: prepNothing,
		call: blobCall(http.MethodPut, "", map[string]string{"x-ms-blob-type": "AppendBlob"}, nil)},
	{name: "Append Block", level: 'o', account: "a|w", service: "a|w", prep: prepAppendBlob,
		call: blobCall(http.MethodPut, "appendblock", nil, []byte("tail"))},
	{name: "Put Page", level: 'o', account: "w", service: "w", prep: prepPageBlob,
		call: blobCall(http.MethodPut, "page", map[string]string{"x-ms-page-write": "update", "x-ms-range": "bytes=0-511"}, bytes.Repeat([]byte{7}, 512))},
	{name: "Delete Blob", level: 'o', account: "d", service: "d", prep: prepBlob, call: blobCall(http.MethodDelete, "", nil, nil)},
	{name: "Delete Blob Version", level: 'o', account: "x", service: "x", prep: prepOldVersion,
		call: func(n *target) call {
			return call{method: http.MethodDelete, path: objectPath(n), query: q("versionid", n.note)}
		}},
	{name: "Snapshot Blob", level: 'o', account: "c|w", service: "c|w", prep: prepBlob, call: blobCall(http.MethodPut, "snapshot", nil, nil)},
	{name: "Set Blob Tier", level: 'o', account: "w", service: "w", prep: prepBlob,
		call: blobCall(http.MethodPut, "tier", map[string]string{"x-ms-access-tier": "Cool"}, nil)},
	{name: "Set Blob Tags", level: 'o', account: "t", service: "t", prep: prepBlob,
		call: blobCall(http.MethodPut, "tags", nil, []byte(`<?xml version="1.0" encoding="utf-8"?><Tags><TagSet><Tag><Key>k</Key><Value>v</Value></Tag></TagSet></Tags>`))},
	{name: "Get Blob Tags", level: 'o', account: "t", service: "t", prep: prepBlob, call: blobCall(http.MethodGet, "tags", nil, nil)},
	{name: "Acquire Blob Lease", level: 'o', account: "w", service: "w", prep: prepBlob,
		call: blobCall(http.MethodPut, "lease", map[string]string{"x-ms-lease-action": "acquire", "x-ms-lease-duration": "-1"}, nil)},
	{name: "Break Blob Lease", level: 'o', account: "w|d", service: "w|d", prep: prepLeasedBlob,
		call: blobCall(http.MethodPut, "lease", map[string]string{"x-ms-lease-action": "break"}, nil)},
}

func TestBlobPermissionMatrix(t *testing.T) {
	t.Parallel()
	runMatrix(t, blobService, blobOps)
}
