package file

import (
	"context"
	"log/slog"
	"net/http"
	"net/url"
	"strings"
	"unicode/utf8"

	"github.com/cerulean-db/cerulean/internal/azhttp"
	"github.com/cerulean-db/cerulean/internal/storagefront"
	"github.com/cerulean-db/cerulean/internal/svcprops"
)

// handler serves a Service on the wire: it parses each request, makes one
// call into the Service and writes its answer; the front door
// (storagefront) routes and authenticates before it.
type handler struct {
	svc      *Service
	accounts *azhttp.Accounts
	auth     *azhttp.Authenticator
	props    *svcprops.Store // service properties, which only the wire reads
	log      *slog.Logger
}

// NewHandler returns the File service's HTTP handler over svc: its front
// door over the routing table, wrapped in the plumbing every service
// shares (request ids, versions, CORS, logging).
func NewHandler(svc *Service) http.Handler {
	h := &handler{svc: svc, accounts: svc.accounts, log: svc.log}
	door := storagefront.New(storagefront.Config[*handler, *request]{
		Service: "file", Routes: routes, Receiver: h, Parse: parseRequest, Unrouted: unrouted,
		CheckNames: func(q *request) error { return checkNames(q.share, q.path) },
		Accounts:   svc.accounts, Now: svc.now, Log: svc.log, WriteError: azhttp.WriteError,
		Store: svc.store, PropsKey: func(acct string) []byte { return servicePropsKey(acct) }, ACL: h.shareACL,
	})
	h.auth, h.props = door.Auth, door.Props
	return door.Handler()
}

// Operations lists the operations the File service routes, by Azure's
// names, in the routing table's order.
func Operations() []string { return storagefront.Names(routes) }

// request is one parsed call.
type request struct {
	w                 http.ResponseWriter
	r                 *http.Request
	q                 url.Values
	acct, share, path string
	// snapshot is ?sharesnapshot= in SnapshotLayout, "" for the live share.
	snapshot string
	access   azhttp.Access // who the request proved to be
}

func (q *request) ctx() context.Context { return q.r.Context() }

func (q *request) Scope() (string, string) { return q.share, q.path }

func (q *request) SetAccess(a azhttp.Access) { q.access = a }

// ns is the share a read addresses: the live share or its snapshot.
func (q *request) ns() string {
	if q.snapshot == "" {
		return q.share
	}
	return SnapshotNamespace(q.share, q.snapshot)
}

// What a path addresses: the SDKs send restype=share or =directory, and
// no restype for a file or for the share's root directory.
const (
	atService storagefront.Resource = 1 << iota
	atShare
	atDirectory
	atFile
	atRoot
)

// parseRequest splits the path, parses the share snapshot a request
// names (?sharesnapshot=) and classifies what it addresses.
func parseRequest(c storagefront.Call) (*request, storagefront.Address, error) {
	q := &request{w: c.W, r: c.R, q: c.Query, acct: c.Acct}
	_, q.share, q.path = splitPath(c.R.URL.Path)
	var at storagefront.Address
	if q.q.Has("sharesnapshot") && q.share != "" {
		v := q.q.Get("sharesnapshot")
		snap, ok := ParseSnapshot(v)
		if !ok {
			return nil, at, azhttp.InvalidQueryParameterValue("sharesnapshot", v, "")
		}
		q.snapshot, at.Snapshot = snap, true
	}
	switch restype := q.q.Get("restype"); {
	case q.share == "" && q.q.Get("comp") == "userdelegationkey":
		return nil, at, notSupported("Get User Delegation Key")
	case q.share == "":
		at.Resource = atService
	case restype == "share":
		if q.path == "" {
			at.Resource = atShare
		}
	case restype == "directory":
		at.Resource = atDirectory
	case restype == "" && q.path != "":
		at.Resource = atFile
	case restype == "":
		at.Resource = atRoot
	}
	return q, at, nil
}

func notSupported(what string) error {
	return azhttp.ErrNotImplemented.WithMessage("%s is not supported by this server yet.", what)
}

// unrouted answers a request no route serves. A share snapshot is
// read-only: a write answers ShareSnapshotOperationNotSupported.
func unrouted(c storagefront.Call, at storagefront.Address) error {
	m, restype, comp := c.R.Method, c.Query.Get("restype"), c.Query.Get("comp")
	switch {
	case !at.Snapshot:
		return azhttp.UnroutedOperation(m, restype, comp)
	case m != http.MethodGet && m != http.MethodHead:
		return azhttp.ErrShareSnapshotOperationNotSupported
	}
	return azhttp.ErrNotImplemented.WithMessage("This operation (restype=%q comp=%q) on a share snapshot is not supported by this server yet.", restype, comp)
}

func need(resourceType, permission byte) azhttp.Need {
	return azhttp.Need{Service: 'f', ResourceType: resourceType, Permission: permission}
}

type route = storagefront.Route[*handler, *request]

const (
	httpGet, httpHead, httpPut, httpDelete, getOrHead = http.MethodGet, http.MethodHead, http.MethodPut, http.MethodDelete, storagefront.Read
	copySource                                        = "x-ms-copy-source"
)

// routes is the File service's routing table: Azure's operations, the
// requests that select each and what each needs of a caller. A request
// naming a share snapshot runs only the rows marked Snapshot (the reads
// Azure serves on one, and Delete Share). Operations of the Files REST
// surface that are not served yet answer 501 by name.
var routes = []route{
	{Name: "ListShares", On: atService, Method: httpGet, Comp: "list", Need: need('s', 'l'), Run: (*handler).listShares},
	{Name: "GetFileServiceProperties", On: atService, Method: httpGet, Restype: "service", Comp: "properties", Need: need('s', 'r'), Run: (*handler).getServiceProperties},
	{Name: "SetFileServiceProperties", On: atService, Method: httpPut, Restype: "service", Comp: "properties", Need: need('s', 'w'), Run: (*handler).setServiceProperties},

	{Name: "CreateShare", On: atShare, Method: httpPut, Need: shareNeed(either('c', 'c', 'w')), Run: (*handler).createShare},
	{Name: "GetShareProperties", On: atShare, Method: getOrHead, Snapshot: true, Need: shareNeed(need('c', 'r')), Run: (*handler).getShareProperties},
	{Name: "GetShareMetadata", On: atShare, Method: getOrHead, Comp: "metadata", Snapshot: true, Need: shareNeed(need('c', 'r')), Run: (*handler).getShareProperties},
	{Name: "DeleteShare", On: atShare, Method: httpDelete, Snapshot: true, Need: shareNeed(need('c', 'd')), Run: (*handler).deleteShare},
	{Name: "SetShareMetadata", On: atShare, Method: httpPut, Comp: "metadata", Need: shareNeed(need('c', 'w')), Run: (*handler).setShareMetadata},
	{Name: "SetShareProperties", On: atShare, Method: httpPut, Comp: "properties", Need: shareNeed(need('c', 'w')), Run: (*handler).setShareProperties},
	{Name: "GetShareACL", On: atShare, Method: getOrHead, Comp: "acl", Need: ownerNeed(), Run: (*handler).getShareACL},
	{Name: "SetShareACL", On: atShare, Method: httpPut, Comp: "acl", Need: ownerNeed(), Run: (*handler).setShareACL},
	{Name: "LeaseShare", On: atShare, Method: httpPut, Comp: "lease", Need: shareNeed(need('c', 'w')), Run: (*handler).leaseShare},
	{Name: "SnapshotShare", On: atShare, Method: httpPut, Comp: "snapshot", Need: shareNeed(need('c', 'c')), Run: (*handler).snapshotShare},
	{Name: "GetShareStats", On: atShare, Method: httpGet, Comp: "stats", Need: shareNeed(need('c', 'r')), Run: (*handler).getShareStats},
	{Name: "CreatePermission", On: atShare, Method: httpPut, Comp: "filepermission", Need: need('c', 'c'), Run: (*handler).createPermission},
	{Name: "GetPermission", On: atShare, Method: httpGet, Comp: "filepermission", Need: need('c', 'r'), Run: (*handler).getPermission},
	{Name: "RestoreShare", On: atShare, Comp: "undelete", Err: notSupported("Restore Share")},

	{Name: "ListHandles", On: atDirectory | atFile | atRoot, Method: httpGet, Comp: "listhandles", Need: need('o', 'r'), Run: (*handler).listHandles},
	{Name: "ForceCloseHandles", On: atDirectory | atFile | atRoot, Method: httpPut, Comp: "forceclosehandles", Need: need('o', 'w'), Run: (*handler).forceCloseHandles},

	{Name: "CreateDirectory", On: atDirectory, Method: httpPut, Need: either('o', 'c', 'w'), Run: (*handler).createDirectory},
	{Name: "GetDirectoryProperties", On: atDirectory, Method: getOrHead, Snapshot: true, Need: need('o', 'r'), Run: (*handler).getDirectoryProperties},
	{Name: "DeleteDirectory", On: atDirectory, Method: httpDelete, Need: need('o', 'd'), Run: (*handler).deleteDirectory},
	{Name: "SetDirectoryMetadata", On: atDirectory, Method: httpPut, Comp: "metadata", Need: need('o', 'w'), Run: (*handler).setDirectoryMetadata},
	{Name: "ListDirectoriesAndFiles", On: atDirectory, Method: httpGet, Comp: "list", Snapshot: true, Need: need('c', 'l'), Run: (*handler).listDirectory},
	{Name: "SetDirectoryProperties", On: atDirectory, Method: httpPut, Comp: "properties", Need: need('o', 'w'), Run: (*handler).setDirectoryProperties},
	{Name: "RenameDirectory", On: atDirectory, Method: httpPut, Comp: "rename", Need: need('o', 'w'), Run: (*handler).renameDirectory},

	{Name: "CopyFile", On: atFile, Method: httpPut, Headers: []string{copySource}, Need: need('o', 'w'), Run: (*handler).copyFile},
	{Name: "CreateFile", On: atFile, Method: httpPut, Need: either('o', 'c', 'w'), Run: (*handler).createFile},
	{Name: "GetFile", On: atFile, Method: httpGet, Snapshot: true, Need: need('o', 'r'), Run: (*handler).getFile},
	{Name: "GetFileProperties", On: atFile, Method: httpHead, Snapshot: true, Need: need('o', 'r'), Run: (*handler).getFileProperties},
	{Name: "DeleteFile", On: atFile, Method: httpDelete, Need: need('o', 'd'), Run: (*handler).deleteFile},
	{Name: "PutRangeFromURL", On: atFile, Method: httpPut, Comp: "range", Headers: []string{copySource}, Need: need('o', 'w'), Run: (*handler).putRangeFromURL},
	{Name: "PutRange", On: atFile, Method: httpPut, Comp: "range", Need: need('o', 'w'), Run: (*handler).putRange},
	{Name: "ListRanges", On: atFile, Method: httpGet, Comp: "rangelist", Snapshot: true, Need: need('o', 'r'), Run: (*handler).listRanges},
	{Name: "SetFileMetadata", On: atFile, Method: httpPut, Comp: "metadata", Need: need('o', 'w'), Run: (*handler).setFileMetadata},
	{Name: "GetFileMetadata", On: atFile, Method: getOrHead, Comp: "metadata", Snapshot: true, Need: need('o', 'r'), Run: (*handler).getFileProperties},
	{Name: "SetFileProperties", On: atFile, Method: httpPut, Comp: "properties", Need: need('o', 'w'), Run: (*handler).setFileProperties},
	{Name: "LeaseFile", On: atFile, Method: httpPut, Comp: "lease", Need: need('o', 'w'), Run: (*handler).leaseFile},
	{Name: "AbortCopyFile", On: atFile, Method: httpPut, Comp: "copy", Need: need('o', 'w'), Run: (*handler).abortCopy},
	{Name: "RenameFile", On: atFile, Method: httpPut, Comp: "rename", Need: need('o', 'w'), Run: (*handler).renameFile},
	{Name: "CreateSymbolicLink", On: atFile, Method: httpPut, Comp: "symboliclink", Err: notSupported("NFS links")},
	{Name: "GetSymbolicLink", On: atFile, Method: httpGet, Comp: "symboliclink", Err: notSupported("NFS links")},
	{Name: "CreateHardLink", On: atFile, Method: httpPut, Comp: "hardlink", Err: notSupported("NFS links")},
}

// splitPath splits a path-style URL path into account, share and the path
// of a directory or file within it (without a trailing slash).
func splitPath(p string) (acct, share, path string) {
	p = strings.TrimPrefix(p, "/")
	acct, rest, _ := strings.Cut(p, "/")
	share, path, _ = strings.Cut(rest, "/")
	return acct, share, strings.TrimSuffix(path, "/")
}

// checkNames applies Azure's naming rules for shares, directories and
// files: share names as container names, paths as CheckPath says.
func checkNames(share, path string) error {
	if share != "" && !validShareName(share) {
		if n := len(share); n < 3 || n > 63 {
			return azhttp.ErrOutOfRangeInput.WithMessage("The specified resource name length is not within the permissible limits.")
		}
		return azhttp.ErrInvalidResourceName
	}
	if path == "" {
		return nil
	}
	return CheckPath(path)
}

// CheckPath applies Azure's naming rules for the path of a directory or
// file within a share ("/"-separated): elements of 1 to 255 characters,
// the whole path at most 2048, none of the characters Windows forbids.
// SMB names follow the same rules, so that whatever one protocol creates
// the other can reach.
func CheckPath(path string) error {
	if utf8.RuneCountInString(path) > 2048 {
		return azhttp.ErrOutOfRangeInput.WithMessage("The specified resource name length is not within the permissible limits.")
	}
	for _, part := range strings.Split(path, "/") {
		if part == "" || part == "." || part == ".." || utf8.RuneCountInString(part) > 255 ||
			strings.ContainsAny(part, "\"\\:|<>*?") || strings.ContainsFunc(part, func(r rune) bool { return r < 0x20 }) {
			return azhttp.ErrInvalidResourceName
		}
	}
	return nil
}

func validShareName(n string) bool {
	if len(n) < 3 || len(n) > 63 || n[0] == '-' || n[len(n)-1] == '-' || strings.Contains(n, "--") {
		return false
	}
	for _, c := range n {
		if ok := c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-'; !ok {
			return false
		}
	}
	return true
}
