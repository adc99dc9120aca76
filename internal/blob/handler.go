package blob

import (
	"context"
	"errors"
	"net/http"
	"net/url"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/cerulean-db/cerulean/internal/azauth"
	"github.com/cerulean-db/cerulean/internal/azerr"
	"github.com/cerulean-db/cerulean/internal/azhttp"
	"github.com/cerulean-db/cerulean/internal/storagefront"
)

// handler serves the Blob REST API over a Service: each of its methods
// parses one operation's request, makes one call into the Service and
// writes the answer, once the front door (storagefront) has routed and
// authenticated it.
type handler struct {
	svc *Service
	// door routes and authenticates requests, a batch's sub-requests
	// too; its Auth and Props serve the handlers.
	door *storagefront.Door[*handler, *request]
}

// NewHandler returns the Blob service's HTTP handler over svc: its front
// door over the routing table, wrapped in the plumbing every service
// shares (request ids, versions, CORS, logging).
func NewHandler(svc *Service) http.Handler {
	h := &handler{svc: svc}
	h.door = storagefront.New(storagefront.Config[*handler, *request]{
		Service: "blob", Routes: routes, Receiver: h, Parse: parseRequest, Unrouted: unrouted,
		Accounts: svc.accounts, Now: svc.now, Log: svc.log, WriteError: azhttp.WriteError,
		Store: svc.store, PropsKey: func(acct string) []byte { return servicePropsKey(acct) },
		ACL:               storagefront.ACLFrom(containersOf(svc), func(c *Container) []azauth.SignedIdentifier { return c.ACL }),
		SecondaryReadOnly: errSecondaryReadOnly,
		CheckNames:        func(q *request) error { return checkNames(q.container, q.blob) },
		Authenticate:      (*handler).authenticate,
		Anonymous:         (*handler).allowAnonymous,
		Admit:             func(q *request) error { return checkLeaseIDs(q.r.Header) },
	})
	return h.door.Handler()
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
	access                azauth.Access
	secondary             bool // addressed at acct-secondary (acct is the primary)
}

func (q *request) ctx() context.Context { return q.r.Context() }

// version is the x-ms-version the request is answered at: the one the
// middleware echoed (the client's, or the default when it sent none).
func (q *request) version() string {
	if v := q.w.Header().Get("X-Ms-Version"); v != "" {
		return v
	}
	if v := q.r.Header.Get("X-Ms-Version"); v != "" {
		return v
	}
	return azhttp.DefaultVersion
}

func (q *request) Scope() (string, string) { return q.container, q.blob }

func (q *request) SetAccess(a azauth.Access) { q.access = a }

// What a path addresses.
const (
	atService storagefront.Resource = 1 << iota
	atContainer
	atBlob
	atAny = atService | atContainer | atBlob
)

// literalQueryValue is the first value of a query parameter decoded as
// Azure decodes it, '+' staying '+' (url.Values makes it a space); def
// when the raw query does not hold it.
func literalQueryValue(rawQuery, name, def string) string {
	for part := range strings.SplitSeq(rawQuery, "&") {
		k, v, _ := strings.Cut(part, "=")
		if k != name {
			continue
		}
		if lit, err := url.PathUnescape(v); err == nil {
			return lit
		}
	}
	return def
}

// parseRequest splits the path and parses the snapshot or version a
// request names.
func parseRequest(c storagefront.Call) (*request, storagefront.Address, error) {
	q := &request{w: c.W, r: c.R, q: c.Query, acct: c.Acct, secondary: c.Secondary}
	_, q.container, q.blob = splitPath(c.R.URL.Path)
	var at storagefront.Address
	if v := q.q.Get("snapshot"); v != "" {
		var err error
		if q.snapshot, err = parseSnapshot("snapshot", v); err != nil {
			// Azure echoes the value with its '+' as sent
			// (go-azblob-TestBlobSnapshotOfSnapshot).
			return nil, at, azerr.InvalidQueryParameterValue("snapshot", literalQueryValue(c.R.URL.RawQuery, "snapshot", v), "")
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

// queryBlob answers Query Blob Contents, which this server does not run:
// a blob that is not there is 404 BlobNotFound first, as Azure answers
// (Java's recording BlobBaseApiTests.queryError).
func (h *handler) queryBlob(q *request) error {
	if _, err := h.svc.GetBlobProperties(q.ctx(), q.snapshotRef(), Preconditions{}); err != nil {
		return err
	}
	return notSupported("Query Blob Contents")
}

func notSupported(what string) error {
	return azerr.ErrNotImplemented.WithMessage("%s is not supported by this server yet.", what)
}

// unrouted answers a request no route serves.
func unrouted(c storagefront.Call, at storagefront.Address) error {
	if at.Snapshot {
		return azerr.InvalidQueryParameterValue("snapshot", c.Query.Get("snapshot"), "").WithMessage("This operation is not permitted on a snapshot.")
	}
	if _, container, _ := splitPath(c.R.URL.Path); container == "" && c.R.Method == http.MethodPut {
		// At the account, comp names the operation: Azure answers a
		// PUT it does not know (Create Container without a name) naming
		// comp, with an empty reason (go-azblob-TestContainerCreateEmptyName).
		return azerr.ErrInvalidQueryParameterValue.WithDetails(
			azerr.Detail{Name: "QueryParameterName", Value: "comp"},
			azerr.Detail{Name: "QueryParameterValue", Value: c.Query.Get("comp")},
			azerr.Detail{Name: "Reason"})
	}
	return azerr.UnroutedOperation(c.R.Method, c.Query.Get("restype"), c.Query.Get("comp"))
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
	if q.container == "" {
		// The account itself is never public: Azure asks for credentials
		// (the .NET SDK's recording ServiceClientTests/FindBlobsByTagAsync_Error).
		return azerr.ErrNoAuthenticationInformation
	}
	denied := azerr.ErrResourceNotFound
	if level == publicNever {
		return denied
	}
	c, err := h.svc.GetContainer(q.ctx(), q.containerRef())
	if errors.Is(err, azerr.ErrContainerNotFound) {
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

func need(resourceType, permission byte) azauth.Need {
	return azauth.Need{Service: 'b', ResourceType: resourceType, Permission: permission}
}

// splitPath splits a path-style URL path into account, container and blob.
func splitPath(p string) (acct, container, blob string) { return storagefront.SplitPath(p) }

// checkNames applies Azure's naming rules: a name of the wrong length is
// OutOfRangeInput, one with wrong characters InvalidResourceName.
func checkNames(container, blob string) error {
	tooLong := azerr.ErrOutOfRangeInput.WithMessage("The specified resource name length is not within the permissible limits.")
	if container != "" && !validContainerName(container) {
		if n := len(container); (n < 3 || n > 63) && container[0] != '$' {
			return tooLong
		}
		return azerr.ErrInvalidResourceName
	}
	// Azure counts characters, not bytes.
	if utf8.RuneCountInString(blob) > 1024 {
		return tooLong
	}
	if strings.ContainsRune(blob, 0) {
		return azerr.ErrInvalidResourceName.WithMessage("Blob names may not contain the NUL character.")
	}
	return nil
}

// validContainerName applies Azure's container naming rules.
func validContainerName(n string) bool {
	switch n {
	case "$root", "$logs", "$web":
		return true
	}
	return storagefront.ValidName(n)
}
