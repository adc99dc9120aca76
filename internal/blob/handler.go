package blob

import (
	"context"
	"errors"
	"net/http"
	"net/url"
	"strings"
	"unicode/utf8"

	"github.com/cerulean-db/cerulean/internal/azhttp"
)

// Handler returns the Blob service's HTTP handler, wrapped in the plumbing
// every service shares (request ids, versions, CORS, logging).
func (s *Service) Handler() http.Handler {
	return azhttp.Wrap("blob", s.log, s.corsRules, azhttp.WriteError, http.HandlerFunc(s.serve))
}

// request is one parsed call.
type request struct {
	w                     http.ResponseWriter
	r                     *http.Request
	q                     url.Values
	acct, container, blob string
	snapshot              string // ?snapshot=, normalised
	access                azhttp.Access
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
	run  func(*Service, *request) error
}

func (s *Service) serve(w http.ResponseWriter, r *http.Request) {
	q := &request{w: w, r: r, q: r.URL.Query()}
	q.acct, q.container, q.blob = splitPath(r.URL.Path)
	if err := s.dispatch(q); err != nil {
		azhttp.WriteError(w, r, err)
	}
}

func (s *Service) dispatch(q *request) error {
	if _, ok := s.accounts.Lookup(q.acct); !ok {
		return azhttp.ErrResourceNotFound.WithMessage("The specified account %q does not exist.", q.acct)
	}
	if v := q.q.Get("snapshot"); v != "" {
		var err error
		if q.snapshot, err = ParseSnapshot(v); err != nil {
			return err
		}
	}
	op, err := route(q)
	if err != nil {
		return err
	}
	if err := checkNames(q.container, q.blob); err != nil {
		return err
	}
	q.access, err = s.auth.Authenticate(q.r, q.acct, q.container, q.blob)
	if err != nil {
		return err
	}
	if q.access.Kind == azhttp.AccessAnonymous {
		if err := s.allowAnonymous(q, op.anon); err != nil {
			return err
		}
	} else if err := q.access.Allows(op.need); err != nil {
		return err
	}
	return op.run(s, q)
}

// allowAnonymous lets an unauthenticated read through only where the
// container's public access level allows it; elsewhere the resource is
// reported missing, as Azure does, so that its existence is not revealed.
func (s *Service) allowAnonymous(q *request, level anonymous) error {
	denied := azhttp.ErrResourceNotFound
	if level == anonNever || q.container == "" {
		return denied
	}
	c, err := s.GetContainer(q.ctx(), q.acct, q.container)
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
			return operation{need('s', 'l'), anonNever, (*Service).listContainers}, nil
		case restype == "service" && comp == "properties" && m == http.MethodGet:
			return operation{need('s', 'r'), anonNever, (*Service).getServiceProperties}, nil
		case restype == "service" && comp == "properties" && m == http.MethodPut:
			return operation{need('s', 'w'), anonNever, (*Service).setServiceProperties}, nil
		case restype == "account" && comp == "properties" && read:
			return operation{need('s', 'r'), anonNever, (*Service).getAccountInfo}, nil
		case restype == "service" && comp == "stats":
			return notSupported("Get Blob Service Stats (geo-replication)")
		case comp == "blobs":
			return notSupported("Find Blobs by Tags")
		case comp == "userdelegationkey":
			return notSupported("Get User Delegation Key")
		case comp == "batch":
			return notSupported("Blob Batch")
		}
	case q.blob == "":
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
			return operation{need('c', 'c'), anonNever, (*Service).createContainer}, nil
		case comp == "" && read:
			return operation{need('c', 'r'), anonContainer, (*Service).getContainerProperties}, nil
		case comp == "" && m == http.MethodDelete:
			return operation{need('c', 'd'), anonNever, (*Service).deleteContainer}, nil
		case comp == "metadata" && read:
			return operation{need('c', 'r'), anonContainer, (*Service).getContainerProperties}, nil
		case comp == "metadata" && m == http.MethodPut:
			return operation{need('c', 'w'), anonNever, (*Service).setContainerMetadata}, nil
		case comp == "acl" && read:
			return operation{need('c', 'r'), anonNever, (*Service).getContainerACL}, nil
		case comp == "acl" && m == http.MethodPut:
			return operation{need('c', 'w'), anonNever, (*Service).setContainerACL}, nil
		case comp == "list" && m == http.MethodGet:
			return operation{need('c', 'l'), anonContainer, (*Service).listBlobs}, nil
		case comp == "lease" && m == http.MethodPut:
			return operation{need('c', 'w'), anonNever, (*Service).leaseContainer}, nil
		case comp == "undelete", comp == "rename", comp == "batch", comp == "blobs":
			return notSupported("This container operation")
		}
	default:
		if q.snapshot != "" && !(read && (comp == "" || comp == "metadata" || comp == "blocklist" || comp == "pagelist")) && !(m == http.MethodDelete && comp == "") {
			return operation{}, azhttp.ErrInvalidQueryParameterValue.WithMessage("This operation is not permitted on a snapshot.")
		}
		switch {
		case comp == "" && m == http.MethodPut && q.r.Header.Get("x-ms-copy-source") != "":
			return operation{need('o', 'w'), anonNever, (*Service).copyBlob}, nil
		case comp == "" && m == http.MethodPut:
			return operation{need('o', 'w'), anonNever, (*Service).putBlob}, nil
		case comp == "" && read:
			return operation{need('o', 'r'), anonBlob, (*Service).getBlob}, nil
		case comp == "" && m == http.MethodDelete:
			return operation{need('o', 'd'), anonNever, (*Service).deleteBlob}, nil
		case comp == "block" && m == http.MethodPut:
			return operation{need('o', 'w'), anonNever, (*Service).putBlock}, nil
		case comp == "blocklist" && m == http.MethodPut:
			return operation{need('o', 'w'), anonNever, (*Service).putBlockList}, nil
		case comp == "blocklist" && m == http.MethodGet:
			return operation{need('o', 'r'), anonBlob, (*Service).getBlockList}, nil
		case comp == "properties" && m == http.MethodPut:
			return operation{need('o', 'w'), anonNever, (*Service).setBlobProperties}, nil
		case comp == "metadata" && read:
			return operation{need('o', 'r'), anonBlob, (*Service).getBlobMetadata}, nil
		case comp == "metadata" && m == http.MethodPut:
			return operation{need('o', 'w'), anonNever, (*Service).setBlobMetadata}, nil
		case comp == "lease" && m == http.MethodPut:
			return operation{need('o', 'w'), anonNever, (*Service).leaseBlob}, nil
		case comp == "snapshot" && m == http.MethodPut:
			return operation{need('o', 'w'), anonNever, (*Service).snapshotBlob}, nil
		case comp == "copy" && m == http.MethodPut:
			return operation{need('o', 'w'), anonNever, (*Service).abortCopy}, nil
		case comp == "page" && m == http.MethodPut:
			return operation{need('o', 'w'), anonNever, (*Service).putPage}, nil
		case comp == "pagelist" && m == http.MethodGet:
			return operation{need('o', 'r'), anonBlob, (*Service).getPageRanges}, nil
		case comp == "appendblock" && m == http.MethodPut && q.r.Header.Get("x-ms-copy-source") != "":
			return notSupported("Append Block From URL")
		case comp == "appendblock" && m == http.MethodPut:
			return operation{need('o', 'a'), anonNever, (*Service).appendBlock}, nil
		case comp == "seal" && m == http.MethodPut:
			return operation{need('o', 'w'), anonNever, (*Service).sealBlob}, nil
		case comp == "tier", comp == "tags", comp == "undelete", comp == "expiry", comp == "immutabilityPolicies", comp == "legalhold", comp == "query":
			return notSupported("This blob operation")
		}
	}
	if !read && m != http.MethodPut && m != http.MethodDelete && m != http.MethodPost {
		return operation{}, azhttp.ErrUnsupportedHttpVerb
	}
	return operation{}, azhttp.ErrInvalidQueryParameterValue.WithMessage("The requested operation (%s with restype=%q comp=%q) is not valid for this resource.", m, restype, comp)
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
		if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-') {
			return false
		}
	}
	return true
}
