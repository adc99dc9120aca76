package file

import (
	"net/http"

	"github.com/cerulean-db/cerulean/internal/storagefront"
)

// route is one row of the routing table.
type route = storagefront.Route[*handler, *request]

const (
	httpGet, httpHead, httpPut, httpDelete, getOrHead = http.MethodGet, http.MethodHead, http.MethodPut, http.MethodDelete, storagefront.Read
	copySource                                        = "X-Ms-Copy-Source"
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
	{Name: "LeaseShare", On: atShare, Method: httpPut, Comp: "lease", Snapshot: true, Need: shareNeed(need('c', 'w')), Run: (*handler).leaseShare},
	{Name: "SnapshotShare", On: atShare, Method: httpPut, Comp: "snapshot", Need: shareNeed(need('c', 'c')), Run: (*handler).snapshotShare},
	{Name: "GetShareStats", On: atShare, Method: httpGet, Comp: "stats", Need: shareNeed(need('c', 'r')), Run: (*handler).getShareStats},
	{Name: "CreatePermission", On: atShare, Method: httpPut, Comp: "filepermission", Need: need('c', 'c'), Run: (*handler).createPermission},
	{Name: "GetPermission", On: atShare, Method: httpGet, Comp: "filepermission", Need: need('c', 'r'), Run: (*handler).getPermission},
	{Name: "RestoreShare", On: atShare, Method: httpPut, Comp: "undelete", Need: shareNeed(need('c', 'w')), Run: (*handler).restoreShare},

	{Name: "ListHandles", On: atDirectory | atFile | atRoot, Method: httpGet, Comp: "listhandles", Need: need('o', 'r'), Run: (*handler).listHandles},
	{Name: "ForceCloseHandles", On: atDirectory | atFile | atRoot, Method: httpPut, Comp: "forceclosehandles", Need: need('o', 'w'), Run: (*handler).forceCloseHandles},

	{Name: "CreateDirectory", On: atDirectory, Method: httpPut, Need: either('o', 'c', 'w'), Run: (*handler).createDirectory},
	{Name: "GetDirectoryProperties", On: atDirectory, Method: getOrHead, Snapshot: true, Need: need('o', 'r'), Run: (*handler).getDirectoryProperties},
	{Name: "DeleteDirectory", On: atDirectory, Method: httpDelete, Need: need('o', 'd'), Run: (*handler).deleteDirectory},
	{Name: "SetDirectoryMetadata", On: atDirectory, Method: httpPut, Comp: "metadata", Need: need('o', 'w'), Run: (*handler).setDirectoryMetadata},
	{Name: "ListDirectoriesAndFiles", On: atDirectory, Method: httpGet, Comp: "list", Snapshot: true, Need: need('c', 'l'), Run: (*handler).listDirectory},
	{Name: "SetDirectoryProperties", On: atDirectory, Method: httpPut, Comp: "properties", Need: need('o', 'w'), Run: (*handler).setDirectoryProperties},
	{Name: "RenameDirectory", On: atDirectory, Method: httpPut, Comp: "rename", Need: need('o', 'w'), Run: (*handler).renameDirectory},

	// The link rows come first: a file row without a Restype takes any.
	{Name: "CreateSymbolicLink", On: atFile, Method: httpPut, Restype: "symboliclink", Need: either('o', 'c', 'w'), Run: (*handler).createSymbolicLink},
	{Name: "GetSymbolicLink", On: atFile, Method: httpGet, Restype: "symboliclink", Snapshot: true, Need: need('o', 'r'), Run: (*handler).getSymbolicLink},
	{Name: "CreateHardLink", On: atFile, Method: httpPut, Restype: "hardlink", Need: either('o', 'c', 'w'), Run: (*handler).createHardLink},
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
}

// Operations lists the operations the File service routes, by Azure's
// names, in the routing table's order.
func Operations() []string { return storagefront.Names(routes) }
