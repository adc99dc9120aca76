package blob

import (
	"context"
	"errors"
	"log/slog"
	"net/http"
	"net/url"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/cerulean-db/cerulean/internal/azhttp"
	"github.com/cerulean-db/cerulean/internal/storagefront"
	"github.com/cerulean-db/cerulean/internal/svcprops"
)

// handler serves a Service on the wire: it parses each request, makes one
// call into the Service and writes its answer. The front door
// (storagefront) routes and authenticates before it.
type handler struct {
	svc      *Service
	accounts *azhttp.Accounts
	auth     *azhttp.Authenticator
	props    *svcprops.Store // service properties, which only the wire reads
	log      *slog.Logger
	door     *storagefront.Door[*handler, *request] // serves a batch's sub-requests
}

// NewHandler returns the Blob service's HTTP handler over svc: its front
// door over the routing table, wrapped in the plumbing every service
// shares (request ids, versions, CORS, logging).
func NewHandler(svc *Service) http.Handler {
	h := &handler{svc: svc, accounts: svc.accounts, log: svc.log}
	h.door = storagefront.New(storagefront.Config[*handler, *request]{
		Service: "blob", Routes: routes, Receiver: h, Parse: parseRequest, Unrouted: unrouted,
		Accounts: svc.accounts, Now: svc.now, Log: svc.log, WriteError: azhttp.WriteError,
		Store: svc.store, PropsKey: func(acct string) []byte { return servicePropsKey(acct) }, ACL: h.containerACL,
		SecondaryReadOnly: errSecondaryReadOnly,
		CheckNames:        func(q *request) error { return checkNames(q.container, q.blob) },
		Authenticate:      (*handler).authenticate,
		Anonymous:         (*handler).allowAnonymous,
		Admit:             func(q *request) error { return checkLeaseIDs(q.r.Header) },
	})
	h.auth, h.props = h.door.Auth, h.door.Props
	return h.door.Handler()
}

// Operations lists the operations the Blob service routes, by Azure's
// names, in the routing table's order.
func Operations() []string { return storagefront.Names(routes) }

// now is the time lease states are reported as at.
func (h *handler) now() time.Time { return h.svc.clock() }

// request is one parsed call.
type request struct {
	w                     http.ResponseWriter
	r                     *http.Request
	q                     url.Values
	acct, container, blob string
	snapshot              string // ?snapshot=, normalised
	access                azhttp.Access
	secondary             bool // addressed at acct-secondary (acct is the primary)
}

func (q *request) ctx() context.Context { return q.r.Context() }

func (q *request) Scope() (string, string) { return q.container, q.blob }

func (q *request) SetAccess(a azhttp.Access) { q.access = a }

// What a path addresses.
const (
	atService storagefront.Resource = 1 << iota
	atContainer
	atBlob
	atAny = atService | atContainer | atBlob
)

// parseRequest splits the path and parses the snapshot or version a
// request names.
func parseRequest(c storagefront.Call) (*request, storagefront.Address, error) {
	q := &request{w: c.W, r: c.R, q: c.Query, acct: c.Acct, secondary: c.Secondary}
	_, q.container, q.blob = splitPath(c.R.URL.Path)
	var at storagefront.Address
	if v := q.q.Get("snapshot"); v != "" {
		var err error
		if q.snapshot, err = parseSnapshot("snapshot", v); err != nil {
			return nil, at, err
		}
	}
	if err := parseVersionID(q); err != nil {
		return nil, at, err
	}
	restype, comp := q.q.Get("restype"), q.q.Get("comp")
	switch {
	case q.container == "":
		at.Resource = atService
	case q.blob != "":
		at.Resource = atBlob
		at.Snapshot = q.snapshot != ""
	case restype == "container" && comp == "rename":
		// Renaming a container is in the SDKs but not in Azure's REST
		// reference.
		return nil, at, notSupported("This container operation")
	case restype == "container" || restype == "account" && comp == "properties":
		at.Resource = atContainer
	case restype == "" && comp == "":
		// A path with only a container name and no restype addresses a
		// blob in the $root container in Azure; unsupported here.
		return nil, at, notSupported("The $root container")
	}
	return q, at, nil
}

func notSupported(what string) error {
	return azhttp.ErrNotImplemented.WithMessage("%s is not supported by this server yet.", what)
}

// unrouted answers a request no route serves.
func unrouted(c storagefront.Call, at storagefront.Address) error {
	if at.Snapshot {
		return azhttp.InvalidQueryParameterValue("snapshot", c.Query.Get("snapshot"), "").WithMessage("This operation is not permitted on a snapshot.")
	}
	return azhttp.UnroutedOperation(c.R.Method, c.Query.Get("restype"), c.Query.Get("comp"))
}

// Who may call an operation anonymously: the container's public access
// level decides.
const (
	publicNever     storagefront.Public = iota
	publicBlob                          // container public access "blob" or "container"
	publicContainer                     // container public access "container"
)

// allowAnonymous lets an unauthenticated read through only where the
// container's public access level allows it; elsewhere the resource is
// reported missing, as Azure does, so that its existence is not revealed.
func (h *handler) allowAnonymous(q *request, level storagefront.Public) error {
	denied := azhttp.ErrResourceNotFound
	if level == publicNever || q.container == "" {
		return denied
	}
	c, err := h.svc.GetContainer(q.ctx(), q.acct, q.container)
	if errors.Is(err, azhttp.ErrContainerNotFound) {
		return denied
	}
	if err != nil {
		return err
	}
	switch {
	case c.PublicAccess == "container":
		return nil
	case c.PublicAccess == "blob" && level == publicBlob:
		return nil
	}
	return denied
}

// containerACL is the container's stored access policies, which a
// service SAS may name.
func (h *handler) containerACL(ctx context.Context, acct, container string) ([]azhttp.SignedIdentifier, error) {
	c, err := h.svc.GetContainer(ctx, acct, container)
	if errors.Is(err, azhttp.ErrContainerNotFound) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	return c.ACL, nil
}

func need(resourceType, permission byte) azhttp.Need {
	return azhttp.Need{Service: 'b', ResourceType: resourceType, Permission: permission}
}

type route = storagefront.Route[*handler, *request]

const (
	httpGet, httpHead, httpPut, httpDelete, httpPost, getOrHead = http.MethodGet, http.MethodHead, http.MethodPut, http.MethodDelete, http.MethodPost, storagefront.Read
	copySource                                                  = "x-ms-copy-source"
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
	{Name: "RestoreContainer", On: atContainer, Method: httpPut, Comp: "undelete", Need: need('c', 'w'), Run: (*handler).restoreContainer},

	// Blobs: a request naming a snapshot or version runs only the rows
	// marked Snapshot.
	{Name: "PutBlobFromURL", On: atBlob, Method: httpPut, Headers: []string{copySource, "x-ms-blob-type"}, Need: either('o', 'w', 'c'), Run: (*handler).putBlobFromURL},
	{Name: "CopyBlobFromURL", On: atBlob, Method: httpPut, Headers: []string{copySource, "x-ms-requires-sync=true"}, Need: either('o', 'w', 'c'), Run: (*handler).copyBlob},
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
	{Name: "SetBlobTier", On: atBlob, Method: httpPut, Comp: "tier", Need: need('o', 'w'), Run: (*handler).setBlobTier},
	{Name: "SetBlobTags", On: atBlob, Method: httpPut, Comp: "tags", Snapshot: true, Need: need('o', 't'), Run: (*handler).setBlobTags},
	{Name: "GetBlobTags", On: atBlob, Method: httpGet, Comp: "tags", Snapshot: true, Need: need('o', 't'), Run: (*handler).getBlobTags},
	{Name: "SetBlobExpiry", On: atBlob, Method: httpPut, Comp: "expiry", Need: need('o', 'w'), Run: (*handler).setBlobExpiry},
	{Name: "IncrementalCopyBlob", On: atBlob, Method: httpPut, Comp: "incrementalcopy", Need: either('o', 'w', 'c'), Run: (*handler).incrementalCopy},
	{Name: "UndeleteBlob", On: atBlob, Method: httpPut, Comp: "undelete", Need: need('o', 'w'), Run: (*handler).undeleteBlob},
	{Name: "SetBlobImmutabilityPolicy", On: atBlob, Method: httpPut, Comp: "immutabilityPolicies", Err: notSupported("Set Blob Immutability Policy")},
	{Name: "DeleteBlobImmutabilityPolicy", On: atBlob, Method: httpDelete, Comp: "immutabilityPolicies", Err: notSupported("Delete Blob Immutability Policy")},
	{Name: "SetBlobLegalHold", On: atBlob, Method: httpPut, Comp: "legalhold", Err: notSupported("Set Blob Legal Hold")},
	{Name: "QueryBlobContents", On: atBlob, Method: httpPost, Comp: "query", Err: notSupported("Query Blob Contents")},
}

// splitPath splits a path-style URL path into account, container and blob.
func splitPath(p string) (acct, container, blob string) {
	p = strings.TrimPrefix(p, "/")
	acct, rest, _ := strings.Cut(p, "/")
	container, blob, _ = strings.Cut(rest, "/")
	return acct, container, blob
}

// checkNames applies Azure's naming rules: a name of the wrong length is
// OutOfRangeInput, one with wrong characters InvalidResourceName.
func checkNames(container, blob string) error {
	tooLong := azhttp.ErrOutOfRangeInput.WithMessage("The specified resource name length is not within the permissible limits.")
	if container != "" && !validContainerName(container) {
		if n := len(container); (n < 3 || n > 63) && container[0] != '$' {
			return tooLong
		}
		return azhttp.ErrInvalidResourceName
	}
	// Azure counts characters, not bytes.
	if utf8.RuneCountInString(blob) > 1024 {
		return tooLong
	}
	if strings.ContainsRune(blob, 0) {
		return azhttp.ErrInvalidResourceName.WithMessage("Blob names may not contain the NUL character.")
	}
	return nil
}

// validContainerName applies Azure's container naming rules.
func validContainerName(n string) bool {
	switch n {
	case "$root", "$logs", "$web":
		return true
	}
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
