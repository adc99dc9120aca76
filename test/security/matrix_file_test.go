package security

import (
	"net/http"
	"testing"
)

var fileService = storageService{
	name: "file", ss: "f",
	accountLetters:   accountLetters,
	containerLetters: "rcwdl",
	objectLetters:    "rcwd",
	createContainer:  createWithRestype("file", "share"),
	serviceSAS:       objectScopedSAS("file", "s", "f"),
}

func createFile(n *target) call {
	return call{method: http.MethodPut, path: objectPath(n), header: map[string]string{"x-ms-type": "file", "x-ms-content-length": "16"}}
}

func prepShare(t testing.TB, f *fixture, n *target) { fileService.createContainer(t, f, n.container) }

func prepFile(t testing.TB, f *fixture, n *target) { f.prepare(t, "file", createFile(n)) }

func prepDirectory(t testing.TB, f *fixture, n *target) {
	f.prepare(t, "file", call{method: http.MethodPut, path: objectPath(n), query: q("restype", "directory")})
}

func fileCall(method, comp string, header map[string]string, body []byte) func(n *target) call {
	return func(n *target) call {
		c := call{method: method, path: objectPath(n), header: header, body: body}
		if comp != "" {
			c.query = q("comp", comp)
		}
		return c
	}
}

func shareCall(method string, query ...string) func(n *target) call {
	return func(n *target) call {
		return call{method: method, path: n.container, query: q(append([]string{"restype", "share"}, query...)...)}
	}
}

func directoryCall(method string, query ...string) func(n *target) call {
	return func(n *target) call {
		return call{method: method, path: objectPath(n), query: q(append([]string{"restype", "directory"}, query...)...)}
	}
}

// fileOps is the Files service's table. As with blob containers, a share
// (service) SAS reaches the share's files, directories and listing but not
// the share itself, and the share ACL is the account owner's alone.
var fileOps = []storageOp{
	{name: "List Shares", level: 's', account: "l", prep: prepNothing,
		call: func(*target) call { return call{method: http.MethodGet, query: q("comp", "list")} }},
	{name: "Get File Service Properties", level: 's', account: "r", prep: prepNothing,
		call: func(*target) call {
			return call{method: http.MethodGet, query: q("restype", "service", "comp", "properties")}
		}},

	{name: "Create Share", level: 'c', account: "c|w", service: "-", prep: prepNothing, call: shareCall(http.MethodPut)},
	{name: "Get Share Properties", level: 'c', account: "r", service: "-", prep: prepShare, call: shareCall(http.MethodGet)},
	{name: "Set Share Metadata", level: 'c', account: "w", service: "-", prep: prepShare,
		call: func(n *target) call {
			c := shareCall(http.MethodPut, "comp", "metadata")(n)
			c.header = map[string]string{"x-ms-meta-k": "v"}
			return c
		}},
	{name: "Get Share Stats", level: 'c', account: "r", service: "-", prep: prepShare, call: shareCall(http.MethodGet, "comp", "stats")},
	{name: "Get Share ACL", level: 'c', account: "-", service: "-", prep: prepShare, call: shareCall(http.MethodGet, "comp", "acl")},
	{name: "Set Share ACL", level: 'c', account: "-", service: "-", prep: prepShare, call: shareCall(http.MethodPut, "comp", "acl")},
	{name: "Delete Share", level: 'c', account: "d", service: "-", prep: prepShare, call: shareCall(http.MethodDelete)},
	{name: "List Directories and Files", level: 'c', account: "l", service: "l", prep: prepShare,
		call: func(n *target) call {
			return call{method: http.MethodGet, path: n.container, query: q("restype", "directory", "comp", "list")}
		}},

	{name: "Create Directory", level: 'o', account: "c|w", service: "c|w", containerSASOnly: true, prep: prepNothing, call: directoryCall(http.MethodPut)},
	{name: "Get Directory Properties", level: 'o', account: "r", service: "r", containerSASOnly: true, prep: prepDirectory, call: directoryCall(http.MethodGet)},
	{name: "Delete Directory", level: 'o', account: "d", service: "d", containerSASOnly: true, prep: prepDirectory, call: directoryCall(http.MethodDelete)},

	{name: "Create File", level: 'o', account: "c|w", service: "c|w", prep: prepNothing, call: createFile},
	{name: "Get File", level: 'o', account: "r", service: "r", prep: prepFile, call: fileCall(http.MethodGet, "", nil, nil)},
	{name: "Get File Properties", level: 'o', account: "r", service: "r", prep: prepFile, call: fileCall(http.MethodHead, "", nil, nil)},
	{name: "Set File Metadata", level: 'o', account: "w", service: "w", prep: prepFile,
		call: fileCall(http.MethodPut, "metadata", map[string]string{"x-ms-meta-k": "v"}, nil)},
	{name: "Put Range", level: 'o', account: "w", service: "w", prep: prepFile,
		call: fileCall(http.MethodPut, "range", map[string]string{"x-ms-range": "bytes=0-3", "x-ms-write": "update"}, []byte("abcd"))},
	{name: "List Ranges", level: 'o', account: "r", service: "r", prep: prepFile, call: fileCall(http.MethodGet, "rangelist", nil, nil)},
	{name: "Lease File", level: 'o', account: "w", service: "w", prep: prepFile,
		call: fileCall(http.MethodPut, "lease", map[string]string{"x-ms-lease-action": "acquire", "x-ms-lease-duration": "-1"}, nil)},
	{name: "Delete File", level: 'o', account: "d", service: "d", prep: prepFile, call: fileCall(http.MethodDelete, "", nil, nil)},
}

func TestFilePermissionMatrix(t *testing.T) {
	t.Parallel()
	runMatrix(t, fileService, fileOps)
}
