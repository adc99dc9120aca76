package file

import (
	"context"
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

// NewHandler returns the File service's HTTP handler over svc, wrapped in
// the plumbing every service shares (request ids, versions, CORS, logging).
func NewHandler(svc *Service) http.Handler {
	h := &handler{svc: svc, accounts: svc.accounts, log: svc.log}
	h.auth = &azhttp.Authenticator{Accounts: svc.accounts, Service: "file", Now: svc.now, Wall: time.Now, Policy: h.storedPolicy}
	h.props = svcprops.New(svc.store, "file", func(acct string) []byte { return servicePropsKey(acct) })
	return azhttp.HostStyle(svc.accounts, azhttp.Wrap("file", h.log, h.corsRules, azhttp.WriteError, http.HandlerFunc(h.serve)))
}

func (h *handler) corsRules(r *http.Request) ([]azhttp.CORSRule, error) {
	acct, _, _ := splitPath(r.URL.Path)
	if _, ok := h.accounts.Lookup(acct); !ok {
		return nil, nil
	}
	return h.props.CORSRules(r.Context(), acct)
}

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

// ns is the share a read addresses: the live share or its snapshot.
func (q *request) ns() string {
	if q.snapshot == "" {
		return q.share
	}
	return SnapshotNamespace(q.share, q.snapshot)
}

// operation is one routed REST operation.
type operation struct {
	need azhttp.Need
	run  func(*handler, *request) error
}

func (h *handler) serve(w http.ResponseWriter, r *http.Request) {
	q := &request{w: w, r: r, q: r.URL.Query()}
	q.acct, q.share, q.path = splitPath(r.URL.Path)
	if err := h.dispatch(q); err != nil {
		azhttp.WriteError(w, r, err)
	}
}

func (h *handler) dispatch(q *request) error {
	if err := h.accounts.Require(q.acct); err != nil {
		return err
	}
	op, err := route(q)
	if err != nil {
		return err
	}
	if err := azhttp.Routed(q.w, q.r, azhttp.OperationName(op.run)); err != nil {
		return err
	}
	if err := checkNames(q.share, q.path); err != nil {
		return err
	}
	access, err := h.auth.Authenticate(q.r, q.acct, q.share, q.path)
	if err != nil {
		return err
	}
	q.access = access
	// Azure Files has no public access: Allows refuses anonymous requests.
	if err := access.Allows(op.need); err != nil {
		return err
	}
	q.access = access
	return op.run(h, q)
}

func need(resourceType, permission byte) azhttp.Need {
	return azhttp.Need{Service: 'f', ResourceType: resourceType, Permission: permission}
}

// route picks the operation from the method, the addressed resource and
// the restype/comp query parameters. Operations of the Files REST surface
// that are not served yet answer 501 with their name, never a pretence.
func route(q *request) (operation, error) {
	restype, comp, m := q.q.Get("restype"), q.q.Get("comp"), q.r.Method
	read := m == http.MethodGet || m == http.MethodHead
	notSupported := func(what string) (operation, error) {
		return operation{}, azhttp.ErrNotImplemented.WithMessage("%s is not supported by this server yet.", what)
	}
	if q.q.Has("sharesnapshot") && q.share != "" {
		return routeSnapshot(q, restype, comp)
	}
	switch {
	case q.share == "":
		switch {
		case comp == "list" && m == http.MethodGet:
			return operation{need('s', 'l'), (*handler).listShares}, nil
		case restype == "service" && comp == "properties" && m == http.MethodGet:
			return operation{need('s', 'r'), (*handler).getServiceProperties}, nil
		case restype == "service" && comp == "properties" && m == http.MethodPut:
			return operation{need('s', 'w'), (*handler).setServiceProperties}, nil
		case comp == "userdelegationkey":
			return notSupported("Get User Delegation Key")
		}
	case restype == "share":
		if q.path != "" {
			break
		}
		switch {
		case comp == "" && m == http.MethodPut:
			return operation{shareNeed(either('c', 'c', 'w')), (*handler).createShare}, nil
		case comp == "" && read, comp == "metadata" && read:
			return operation{shareNeed(need('c', 'r')), (*handler).getShareProperties}, nil
		case comp == "" && m == http.MethodDelete:
			return operation{shareNeed(need('c', 'd')), (*handler).deleteShare}, nil
		case comp == "metadata" && m == http.MethodPut:
			return operation{shareNeed(need('c', 'w')), (*handler).setShareMetadata}, nil
		case comp == "properties" && m == http.MethodPut:
			return operation{shareNeed(need('c', 'w')), (*handler).setShareProperties}, nil
		case comp == "acl" && read:
			return operation{ownerNeed(), (*handler).getShareACL}, nil
		case comp == "acl" && m == http.MethodPut:
			return operation{ownerNeed(), (*handler).setShareACL}, nil
		case comp == "lease" && m == http.MethodPut:
			return operation{shareNeed(need('c', 'w')), (*handler).leaseShare}, nil
		case comp == "snapshot" && m == http.MethodPut:
			return operation{shareNeed(need('c', 'c')), (*handler).snapshotShare}, nil
		case comp == "stats" && m == http.MethodGet:
			return operation{shareNeed(need('c', 'r')), (*handler).getShareStats}, nil
		case comp == "filepermission" && m == http.MethodPut:
			return operation{need('c', 'c'), (*handler).createPermission}, nil
		case comp == "filepermission" && m == http.MethodGet:
			return operation{need('c', 'r'), (*handler).getPermission}, nil
		case comp == "undelete":
			return notSupported("Restore Share")
		}
	case (restype == "" || restype == "directory") && comp == "listhandles" && m == http.MethodGet:
		// The SDKs send no restype: the path names a directory or a file.
		return operation{need('o', 'r'), (*handler).listHandles}, nil
	case (restype == "" || restype == "directory") && comp == "forceclosehandles" && m == http.MethodPut:
		return operation{need('o', 'w'), (*handler).forceCloseHandles}, nil
	case restype == "directory":
		switch {
		case comp == "" && m == http.MethodPut:
			return operation{either('o', 'c', 'w'), (*handler).createDirectory}, nil
		case comp == "" && read:
			return operation{need('o', 'r'), (*handler).getDirectoryProperties}, nil
		case comp == "" && m == http.MethodDelete:
			return operation{need('o', 'd'), (*handler).deleteDirectory}, nil
		case comp == "metadata" && m == http.MethodPut:
			return operation{need('o', 'w'), (*handler).setDirectoryMetadata}, nil
		case comp == "list" && m == http.MethodGet:
			return operation{need('c', 'l'), (*handler).listDirectory}, nil
		case comp == "properties" && m == http.MethodPut:
			return operation{need('o', 'w'), (*handler).setDirectoryProperties}, nil
		case comp == "rename" && m == http.MethodPut:
			return operation{need('o', 'w'), (*handler).renameDirectory}, nil
		}
	case restype == "" && q.path != "":
		switch {
		case comp == "" && m == http.MethodPut && q.r.Header.Get("x-ms-copy-source") != "":
			return operation{need('o', 'w'), (*handler).copyFile}, nil
		case comp == "" && m == http.MethodPut:
			return operation{either('o', 'c', 'w'), (*handler).createFile}, nil
		case comp == "" && m == http.MethodGet:
			return operation{need('o', 'r'), (*handler).getFile}, nil
		case comp == "" && m == http.MethodHead:
			return operation{need('o', 'r'), (*handler).getFileProperties}, nil
		case comp == "" && m == http.MethodDelete:
			return operation{need('o', 'd'), (*handler).deleteFile}, nil
		case comp == "range" && m == http.MethodPut && q.r.Header.Get("x-ms-copy-source") != "":
			return operation{need('o', 'w'), (*handler).putRangeFromURL}, nil
		case comp == "range" && m == http.MethodPut:
			return operation{need('o', 'w'), (*handler).putRange}, nil
		case comp == "rangelist" && m == http.MethodGet:
			return operation{need('o', 'r'), (*handler).listRanges}, nil
		case comp == "metadata" && m == http.MethodPut:
			return operation{need('o', 'w'), (*handler).setFileMetadata}, nil
		case comp == "metadata" && read:
			return operation{need('o', 'r'), (*handler).getFileProperties}, nil
		case comp == "properties" && m == http.MethodPut:
			return operation{need('o', 'w'), (*handler).setFileProperties}, nil
		case comp == "lease" && m == http.MethodPut:
			return operation{need('o', 'w'), (*handler).leaseFile}, nil
		case comp == "copy" && m == http.MethodPut:
			return operation{need('o', 'w'), (*handler).abortCopy}, nil
		case comp == "rename" && m == http.MethodPut:
			return operation{need('o', 'w'), (*handler).renameFile}, nil
		case comp == "symboliclink", comp == "hardlink":
			return notSupported("NFS links")
		}
	}
	return operation{}, azhttp.UnroutedOperation(m, restype, comp)
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
