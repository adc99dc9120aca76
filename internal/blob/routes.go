package blob

import (
	"net/http"

	"github.com/cerulean-db/cerulean/internal/storagefront"
)

// route is one row of the routing table.
type route = storagefront.Route[*handler, *request]

const (
	httpGet, httpHead, httpPut, httpDelete, httpPost, getOrHead = http.MethodGet, http.MethodHead, http.MethodPut, http.MethodDelete, http.MethodPost, storagefront.Read
	copySource                                                  = "X-Ms-Copy-Source"
)

// routes is the Blob service's routing table: Azure's operations, the
// requests that select each (method, restype/comp, headers) and what each
// needs of a caller. A container is addressed with restype=container.
var routes = []route{
	// The account.
	{Name: "ListContainers", On: atService, Method: httpGet, Comp: "list", Need: need('s', 'l'), Run: (*handler).listContainers},
	{Name: "GetBlobServiceProperties", On: atService, Method: httpGet, Restype: "service", Comp: "properties", Need: need('s', 'r'), Run: (*handler).getServiceProperties},
	{Name: "SetBlobServiceProperties", On: atService, Method: httpPut, Restype: "service", Comp: "properties", Need: need('s', 'w'), Run: (*handler).setServiceProperties},
	{Name: "GetBlobServiceStats", On: atService, Method: httpGet, Restype: "service", Comp: "stats", Need: need('s', 'r'), Run: (*handler).getServiceStats},
	{Name: "GetAccountInformation", On: atAny, Method: getOrHead, Restype: "account", Comp: "properties", Snapshot: true, Need: accountInfoNeed, Run: (*handler).getAccountInfo},
	{Name: "FindBlobsByTags", On: atService, Method: httpGet, Comp: "blobs", Need: need('s', 'f'), Run: (*handler).findBlobsByTags},
	{Name: "GetUserDelegationKey", On: atService, Method: httpPost, Restype: "service", Comp: "userdelegationkey", Need: need('s', 'r'), Run: (*handler).getUserDelegationKey},
	{Name: "BlobBatch", On: atService | atContainer, Method: httpPost, Comp: "batch", Need: batchNeed, Run: (*handler).submitBatch},

	// Containers.
	{Name: "CreateContainer", On: atContainer, Method: httpPut, Need: containerNeed(either('c', 'c', 'w')), Run: (*handler).createContainer},
	{Name: "GetContainerProperties", On: atContainer, Method: getOrHead, Need: containerNeed(need('c', 'r')), Public: publicContainer, Run: (*handler).getContainerProperties},
	{Name: "DeleteContainer", On: atContainer, Method: httpDelete, Need: containerNeed(need('c', 'd')), Run: (*handler).deleteContainer},
	{Name: "GetContainerMetadata", On: atContainer, Method: getOrHead, Comp: "metadata", Need: containerNeed(need('c', 'r')), Public: publicContainer, Run: (*handler).getContainerProperties},
	{Name: "SetContainerMetadata", On: atContainer, Method: httpPut, Comp: "metadata", Need: containerNeed(need('c', 'w')), Run: (*handler).setContainerMetadata},
	{Name: "GetContainerACL", On: atContainer, Method: getOrHead, Comp: "acl", Need: ownerNeed('c'), Run: (*handler).getContainerACL},
	{Name: "SetContainerACL", On: atContainer, Method: httpPut, Comp: "acl", Need: ownerNeed('c'), Run: (*handler).setContainerACL},
	{Name: "ListBlobs", On: atContainer, Method: httpGet, Comp: "list", Need: need('c', 'l'), Public: publicContainer, Run: (*handler).listBlobs},
	{Name: "LeaseContainer", On: atContainer, Method: httpPut, Comp: "lease", Authorize: leaseAccess('c'), Run: (*handler).leaseContainer},
	{Name: "FindBlobsByTagsInContainer", On: atContainer, Method: httpGet, Comp: "blobs", Need: need('c', 'f'), Run: (*handler).findBlobsByTags},
	{Name: "RestoreContainer", On: atContainer | atService, Method: httpPut, Comp: "undelete", Need: need('c', 'w'), Run: (*handler).restoreContainer},

	// Blobs: a request naming a snapshot or version runs only the rows
	// marked Snapshot.
	{Name: "PutBlobFromURL", On: atBlob, Method: httpPut, Headers: []string{copySource, "X-Ms-Blob-Type"}, Need: either('o', 'w', 'c'), Run: (*handler).putBlobFromURL},
	{Name: "CopyBlobFromURL", On: atBlob, Method: httpPut, Headers: []string{copySource, "X-Ms-Requires-Sync=true"}, Need: either('o', 'w', 'c'), Run: (*handler).copyBlob},
	{Name: "CopyBlob", On: atBlob, Method: httpPut, Headers: []string{copySource}, Need: either('o', 'w', 'c'), Run: (*handler).copyBlob},
	{Name: "PutBlob", On: atBlob, Method: httpPut, Need: either('o', 'w', 'c'), Run: (*handler).putBlob},
	{Name: "GetBlobProperties", On: atBlob, Method: httpHead, Snapshot: true, Need: either('o', 'r', 'e'), Public: publicBlob, Run: (*handler).getBlob},
	{Name: "GetBlob", On: atBlob, Method: httpGet, Snapshot: true, Need: need('o', 'r'), Public: publicBlob, Run: (*handler).getBlob},
	{Name: "DeleteBlob", On: atBlob, Method: httpDelete, Snapshot: true, Authorize: deleteBlobAccess, Run: (*handler).deleteBlob},
	{Name: "PutBlockFromURL", On: atBlob, Method: httpPut, Comp: "block", Headers: []string{copySource}, Need: need('o', 'w'), Run: (*handler).putBlockFromURL},
	{Name: "PutBlock", On: atBlob, Method: httpPut, Comp: "block", Need: need('o', 'w'), Run: (*handler).putBlock},
	{Name: "PutBlockList", On: atBlob, Method: httpPut, Comp: "blocklist", Need: need('o', 'w'), Run: (*handler).putBlockList},
	{Name: "GetBlockList", On: atBlob, Method: httpGet, Comp: "blocklist", Snapshot: true, Need: need('o', 'r'), Public: publicBlob, Run: (*handler).getBlockList},
	{Name: "SetBlobProperties", On: atBlob, Method: httpPut, Comp: "properties", Need: need('o', 'w'), Run: (*handler).setBlobProperties},
	{Name: "GetBlobMetadata", On: atBlob, Method: getOrHead, Comp: "metadata", Snapshot: true, Need: need('o', 'r'), Public: publicBlob, Run: (*handler).getBlobMetadata},
	{Name: "SetBlobMetadata", On: atBlob, Method: httpPut, Comp: "metadata", Need: need('o', 'w'), Run: (*handler).setBlobMetadata},
	{Name: "LeaseBlob", On: atBlob, Method: httpPut, Comp: "lease", Authorize: leaseAccess('o'), Run: (*handler).leaseBlob},
	{Name: "SnapshotBlob", On: atBlob, Method: httpPut, Comp: "snapshot", Need: either('o', 'w', 'c'), Run: (*handler).snapshotBlob},
	{Name: "AbortCopyBlob", On: atBlob, Method: httpPut, Comp: "copy", Need: need('o', 'w'), Run: (*handler).abortCopy},
	{Name: "PutPageFromURL", On: atBlob, Method: httpPut, Comp: "page", Headers: []string{copySource}, Need: need('o', 'w'), Run: (*handler).putPageFromURL},
	{Name: "PutPage", On: atBlob, Method: httpPut, Comp: "page", Need: need('o', 'w'), Run: (*handler).putPage},
	{Name: "GetPageRanges", On: atBlob, Method: httpGet, Comp: "pagelist", Snapshot: true, Need: need('o', 'r'), Public: publicBlob, Run: (*handler).getPageRanges},
	{Name: "AppendBlockFromURL", On: atBlob, Method: httpPut, Comp: "appendblock", Headers: []string{copySource}, Need: either('o', 'a', 'w'), Run: (*handler).appendBlockFromURL},
	{Name: "AppendBlock", On: atBlob, Method: httpPut, Comp: "appendblock", Need: either('o', 'a', 'w'), Run: (*handler).appendBlock},
	{Name: "AppendBlobSeal", On: atBlob, Method: httpPut, Comp: "seal", Need: need('o', 'w'), Run: (*handler).sealBlob},
	{Name: "SetBlobTier", On: atBlob, Method: httpPut, Comp: "tier", Snapshot: true, Need: need('o', 'w'), Run: (*handler).setBlobTier},
	{Name: "SetBlobTags", On: atBlob, Method: httpPut, Comp: "tags", Snapshot: true, Need: need('o', 't'), Run: (*handler).setBlobTags},
	{Name: "GetBlobTags", On: atBlob, Method: httpGet, Comp: "tags", Snapshot: true, Need: need('o', 't'), Run: (*handler).getBlobTags},
	{Name: "SetBlobExpiry", On: atBlob, Method: httpPut, Comp: "expiry", Need: need('o', 'w'), Run: (*handler).setBlobExpiry},
	{Name: "IncrementalCopyBlob", On: atBlob, Method: httpPut, Comp: "incrementalcopy", Need: either('o', 'w', 'c'), Run: (*handler).incrementalCopy},
	{Name: "UndeleteBlob", On: atBlob, Method: httpPut, Comp: "undelete", Need: need('o', 'w'), Run: (*handler).undeleteBlob},
	{Name: "SetBlobImmutabilityPolicy", On: atBlob, Method: httpPut, Comp: "immutabilityPolicies", Err: notSupported("Set Blob Immutability Policy")},
	{Name: "DeleteBlobImmutabilityPolicy", On: atBlob, Method: httpDelete, Comp: "immutabilityPolicies", Err: notSupported("Delete Blob Immutability Policy")},
	{Name: "SetBlobLegalHold", On: atBlob, Method: httpPut, Comp: "legalhold", Err: notSupported("Set Blob Legal Hold")},
	{Name: "QueryBlobContents", On: atBlob, Method: httpPost, Comp: "query", Snapshot: true, Need: need('o', 'r'), Run: (*handler).queryBlob},
}

// Operations lists the operations the Blob service routes, by Azure's
// names, in the routing table's order.
func Operations() []string { return storagefront.Names(routes) }
