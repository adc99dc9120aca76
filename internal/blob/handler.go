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
	"github.com/cerulean-db/cerulean/internal/svcprops"
)

// handler serves a Service on the wire: it authenticates and parses each
// request, makes one call into the Service and writes its answer.
type handler struct {
	svc      *Service
	accounts *azhttp.Accounts
	auth     *azhttp.Authenticator
	props    *svcprops.Store // service properties, which only the wire reads
	log      *slog.Logger
}

// NewHandler returns the Blob service's HTTP handler over svc, wrapped in
// the plumbing every service shares (request ids, versions, CORS, logging).
func NewHandler(svc *Service) http.Handler {
	h := &handler{svc: svc, accounts: svc.accounts, log: svc.log}
	h.auth = &azhttp.Authenticator{Accounts: svc.accounts, Service: "blob", Now: svc.now, Wall: time.Now, Policy: h.storedPolicy}
	h.props = svcprops.New(svc.store, "blob", func(acct string) []byte { return servicePropsKey(acct) })
	return azhttp.HostStyle(svc.accounts, azhttp.Wrap("blob", h.log, h.corsRules, azhttp.WriteError, http.HandlerFunc(h.serve)))
}

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

// anonymous says which public access level lets an unauthenticated caller
// run an operation.
type anonymous int

const (
	anonNever     anonymous = iota
	anonBlob                // container public access "blob" or "container"
	anonContainer           // container public access "container"
)

// operation is one routed REST operation.
type operation struct {
	need azhttp.Need
	anon anonymous
	run  func(*handler, *request) error
}

func (h *handler) serve(w http.ResponseWriter, r *http.Request) {
	q := &request{w: w, r: r, q: r.URL.Query()}
	q.acct, q.container, q.blob = splitPath(r.URL.Path)
	if err := h.dispatch(q); err != nil {
		azhttp.WriteError(w, r, err)
	}
}

func (h *handler) dispatch(q *request) error {
	if err := h.resolveAccount(q); err != nil {
		return err
	}
	if v := q.q.Get("snapshot"); v != "" {
		var err error
		if q.snapshot, err = parseSnapshot("snapshot", v); err != nil {
			return err
		}
	}
	if err := parseVersionID(q); err != nil {
		return err
	}
	op, err := route(q)
	if err != nil {
		return err
	}
	if err := azhttp.Routed(q.w, q.r, azhttp.OperationName(op.run)); err != nil {
		return err
	}
	if err := secondaryAllows(q); err != nil {
		return err
	}
	if err := checkNames(q.container, q.blob); err != nil {
		return err
	}
	q.access, err = h.authenticate(q)
	if err != nil {
		return err
	}
	if q.access.Kind == azhttp.AccessAnonymous {
		if err := h.allowAnonymous(q, op.anon); err != nil {
			return err
		}
	} else if err := q.access.Allows(op.need); err != nil {
		return err
	}
	if err := checkLeaseIDs(q.r.Header); err != nil {
		return err
	}
	return op.run(h, q)
}

// allowAnonymous lets an unauthenticated read through only where the
// container's public access level allows it; elsewhere the resource is
// reported missing, as Azure does, so that its existence is not revealed.
func (h *handler) allowAnonymous(q *request, level anonymous) error {
	denied := azhttp.ErrResourceNotFound
	if level == anonNever || q.container == "" {
		return denied
	}
	c, err := h.svc.GetContainer(q.ctx(), q.containerRef())
	if errors.Is(err, azhttp.ErrContainerNotFound) {
		return denied
	}
	if err != nil {
		return err
	}
	switch {
	case c.PublicAccess == "container":
		return nil
	case c.PublicAccess == "blob" && level == anonBlob:
		return nil
	}
	return denied
}

// storedPolicy resolves a service SAS's signed identifier from the
// container's access policies.
func (h *handler) storedPolicy(ctx context.Context, acct, container, id string) (azhttp.StoredPolicy, bool, error) {
	c, err := h.svc.GetContainer(ctx, ContainerRef{Account: acct, Container: container})
	if errors.Is(err, azhttp.ErrContainerNotFound) {
		return azhttp.StoredPolicy{}, false, nil
	}
	if err != nil {
		return azhttp.StoredPolicy{}, false, err
	}
	for _, si := range c.ACL {
		if si.ID == id {
			return si.Policy(), true, nil
		}
	}
	return azhttp.StoredPolicy{}, false, nil
}

func need(resourceType, permission byte) azhttp.Need {
	return azhttp.Need{Service: 'b', ResourceType: resourceType, Permission: permission}
}

// route picks the operation from the method, the addressed resource and
// the restype/comp query parameters.
func route(q *request) (operation, error) {
	restype, comp, m := q.q.Get("restype"), q.q.Get("comp"), q.r.Method
	read := m == http.MethodGet || m == http.MethodHead
	notSupported := func(what string) (operation, error) {
		return operation{}, azhttp.ErrNotImplemented.WithMessage("%s is not supported by this server yet.", what)
	}
	switch {
	case q.container == "":
		switch {
		case comp == "list" && m == http.MethodGet:
			return operation{need('s', 'l'), anonNever, (*handler).listContainers}, nil
		case restype == "service" && comp == "properties" && m == http.MethodGet:
			return operation{need('s', 'r'), anonNever, (*handler).getServiceProperties}, nil
		case restype == "service" && comp == "properties" && m == http.MethodPut:
			return operation{need('s', 'w'), anonNever, (*handler).setServiceProperties}, nil
		case restype == "account" && comp == "properties" && read:
			return operation{accountInfoNeed, anonNever, (*handler).getAccountInfo}, nil
		case restype == "service" && comp == "stats" && m == http.MethodGet:
			return operation{need('s', 'r'), anonNever, (*handler).getServiceStats}, nil
		case comp == "blobs" && m == http.MethodGet:
			return operation{need('s', 'f'), anonNever, (*handler).findBlobsByTags}, nil
		case restype == "service" && comp == "userdelegationkey" && m == http.MethodPost:
			return operation{need('s', 'r'), anonNever, (*handler).getUserDelegationKey}, nil
		case comp == "batch" && m == http.MethodPost:
			return operation{batchNeed, anonNever, (*handler).submitBatch}, nil
		}
	case q.blob == "":
		if restype == "account" && comp == "properties" && read {
			return operation{accountInfoNeed, anonNever, (*handler).getAccountInfo}, nil
		}
		if restype != "container" && comp != "" {
			break
		}
		if restype == "" {
			// A path with only a container name and no restype addresses a
			// blob in the $root container in Azure; unsupported here.
			return notSupported("The $root container")
		}
		switch {
		case comp == "" && m == http.MethodPut:
			return operation{containerNeed(either('c', 'c', 'w')), anonNever, (*handler).createContainer}, nil
		case comp == "" && read:
			return operation{containerNeed(need('c', 'r')), anonContainer, (*handler).getContainerProperties}, nil
		case comp == "" && m == http.MethodDelete:
			return operation{containerNeed(need('c', 'd')), anonNever, (*handler).deleteContainer}, nil
		case comp == "metadata" && read:
			return operation{containerNeed(need('c', 'r')), anonContainer, (*handler).getContainerProperties}, nil
		case comp == "metadata" && m == http.MethodPut:
			return operation{containerNeed(need('c', 'w')), anonNever, (*handler).setContainerMetadata}, nil
		case comp == "acl" && read:
			return operation{ownerNeed('c'), anonNever, (*handler).getContainerACL}, nil
		case comp == "acl" && m == http.MethodPut:
			return operation{ownerNeed('c'), anonNever, (*handler).setContainerACL}, nil
		case comp == "list" && m == http.MethodGet:
			return operation{need('c', 'l'), anonContainer, (*handler).listBlobs}, nil
		case comp == "lease" && m == http.MethodPut:
			return operation{containerNeed(leaseNeed(q.r, 'c')), anonNever, (*handler).leaseContainer}, nil
		case comp == "blobs" && m == http.MethodGet:
			return operation{need('c', 'f'), anonNever, (*handler).findBlobsByTags}, nil
		case comp == "batch" && m == http.MethodPost:
			return operation{batchNeed, anonNever, (*handler).submitBatch}, nil
		case comp == "undelete" && m == http.MethodPut:
			return operation{need('c', 'w'), anonNever, (*handler).restoreContainer}, nil
		case comp == "rename":
			return notSupported("This container operation")
		}
	default:
		if restype == "account" && comp == "properties" && read {
			return operation{accountInfoNeed, anonNever, (*handler).getAccountInfo}, nil
		}
		snapshotOK := read && (comp == "" || comp == "metadata" || comp == "blocklist" || comp == "pagelist") || m == http.MethodDelete && comp == "" || comp == "tags"
		if q.snapshot != "" && !snapshotOK {
			return operation{}, azhttp.InvalidQueryParameterValue("snapshot", q.q.Get("snapshot"), "").WithMessage("This operation is not permitted on a snapshot.")
		}
		fromURL := q.r.Header.Get("x-ms-copy-source") != ""
		switch {
		case comp == "" && m == http.MethodPut && fromURL && q.r.Header.Get("x-ms-blob-type") != "":
			return operation{either('o', 'w', 'c'), anonNever, (*handler).putBlobFromURL}, nil
		case comp == "" && m == http.MethodPut && fromURL:
			return operation{either('o', 'w', 'c'), anonNever, (*handler).copyBlob}, nil
		case comp == "" && m == http.MethodPut:
			return operation{either('o', 'w', 'c'), anonNever, (*handler).putBlob}, nil
		case comp == "" && m == http.MethodHead:
			return operation{either('o', 'r', 'e'), anonBlob, (*handler).getBlob}, nil
		case comp == "" && read:
			return operation{need('o', 'r'), anonBlob, (*handler).getBlob}, nil
		case comp == "" && m == http.MethodDelete && q.q.Has("versionid"):
			// Azure's "Delete version (x)": Delete (d) deletes a blob or a
			// snapshot, not a version.
			return operation{need('o', 'x'), anonNever, (*handler).deleteBlob}, nil
		case comp == "" && m == http.MethodDelete:
			return operation{need('o', 'd'), anonNever, (*handler).deleteBlob}, nil
		case comp == "block" && m == http.MethodPut && fromURL:
			return operation{need('o', 'w'), anonNever, (*handler).putBlockFromURL}, nil
		case comp == "block" && m == http.MethodPut:
			return operation{need('o', 'w'), anonNever, (*handler).putBlock}, nil
		case comp == "blocklist" && m == http.MethodPut:
			return operation{need('o', 'w'), anonNever, (*handler).putBlockList}, nil
		case comp == "blocklist" && m == http.MethodGet:
			return operation{need('o', 'r'), anonBlob, (*handler).getBlockList}, nil
		case comp == "properties" && m == http.MethodPut:
			return operation{need('o', 'w'), anonNever, (*handler).setBlobProperties}, nil
		case comp == "metadata" && read:
			return operation{need('o', 'r'), anonBlob, (*handler).getBlobMetadata}, nil
		case comp == "metadata" && m == http.MethodPut:
			return operation{need('o', 'w'), anonNever, (*handler).setBlobMetadata}, nil
		case comp == "lease" && m == http.MethodPut:
			return operation{leaseNeed(q.r, 'o'), anonNever, (*handler).leaseBlob}, nil
		case comp == "snapshot" && m == http.MethodPut:
			return operation{either('o', 'w', 'c'), anonNever, (*handler).snapshotBlob}, nil
		case comp == "copy" && m == http.MethodPut:
			return operation{need('o', 'w'), anonNever, (*handler).abortCopy}, nil
		case comp == "page" && m == http.MethodPut && fromURL:
			return operation{need('o', 'w'), anonNever, (*handler).putPageFromURL}, nil
		case comp == "page" && m == http.MethodPut:
			return operation{need('o', 'w'), anonNever, (*handler).putPage}, nil
		case comp == "pagelist" && m == http.MethodGet:
			return operation{need('o', 'r'), anonBlob, (*handler).getPageRanges}, nil
		case comp == "appendblock" && m == http.MethodPut && fromURL:
			return operation{either('o', 'a', 'w'), anonNever, (*handler).appendBlockFromURL}, nil
		case comp == "appendblock" && m == http.MethodPut:
			return operation{either('o', 'a', 'w'), anonNever, (*handler).appendBlock}, nil
		case comp == "seal" && m == http.MethodPut:
			return operation{need('o', 'w'), anonNever, (*handler).sealBlob}, nil
		case comp == "tier" && m == http.MethodPut:
			return operation{need('o', 'w'), anonNever, (*handler).setBlobTier}, nil
		case comp == "tags" && m == http.MethodPut:
			return operation{need('o', 't'), anonNever, (*handler).setBlobTags}, nil
		case comp == "tags" && m == http.MethodGet:
			return operation{need('o', 't'), anonNever, (*handler).getBlobTags}, nil
		case comp == "expiry" && m == http.MethodPut:
			return operation{need('o', 'w'), anonNever, (*handler).setBlobExpiry}, nil
		case comp == "incrementalcopy" && m == http.MethodPut:
			return operation{either('o', 'w', 'c'), anonNever, (*handler).incrementalCopy}, nil
		case comp == "undelete" && m == http.MethodPut:
			return operation{need('o', 'w'), anonNever, (*handler).undeleteBlob}, nil
		case comp == "immutabilityPolicies", comp == "legalhold", comp == "query":
			return notSupported("This blob operation")
		}
	}
	return operation{}, azhttp.UnroutedOperation(m, restype, comp)
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
