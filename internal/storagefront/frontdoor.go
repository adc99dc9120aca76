package storagefront

import (
	"context"
	"errors"
	"log/slog"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/cerulean-db/cerulean/internal/azauth"
	"github.com/cerulean-db/cerulean/internal/azerr"
	"github.com/cerulean-db/cerulean/internal/azhttp"
	"github.com/cerulean-db/cerulean/internal/kv"
	"github.com/cerulean-db/cerulean/internal/svcprops"
)

// Call is one request as the front door hands it to a service's Parse.
type Call struct {
	W     http.ResponseWriter
	R     *http.Request
	Query url.Values
	// Acct is the account the request addresses: the primary one when it
	// came to the account's secondary endpoint (Secondary).
	Acct      string
	Secondary bool
}

// Address is what a service's Parse learned of a request's target.
type Address struct {
	// Resource is the kind of resource the path addresses (one bit);
	// zero when none, which no route matches.
	Resource Resource
	// Method is the method to route on when the service rewrites it
	// (Table's X-HTTP-Method tunnelling); empty means the request's own.
	Method string
	// Snapshot says the request names a snapshot: only the routes marked
	// Snapshot serve it.
	Snapshot bool
}

// Request is what the front door needs of a service's parsed request.
type Request interface {
	// Scope is what a service SAS must be signed for: the container
	// (queue, table, share) addressed and the object within it, as
	// azauth.Authenticator.Authenticate takes them.
	Scope() (container, object string)
	// SetAccess records who the request proved to be.
	SetAccess(azauth.Access)
}

// Config describes one Storage service to its front door: its routing
// table and the hooks for what only the service knows. H is the service's
// handler type (the receiver of the table's Run methods), R its parsed
// request.
type Config[H any, R Request] struct {
	// Service is "blob", "queue", "table" or "file": the log's name, and
	// the one SAS signatures are verified for.
	Service string
	// Routes is the routing table.
	Routes []Route[H, R]
	// Receiver is the value the table's Run methods (and the hooks) are
	// called on: the service's handler.
	Receiver H

	Accounts *azauth.Accounts
	// Now is the clock SAS windows are checked against.
	Now func() time.Time
	Log *slog.Logger
	// Store holds the service properties (CORS rules among them) of each
	// account under PropsKey(account).
	Store    kv.Store
	PropsKey func(acct string) []byte
	// WriteError renders an error (XML, or Table's OData JSON).
	WriteError func(http.ResponseWriter, *http.Request, error)
	// ACL returns a container's stored access policies, which a service
	// SAS may name (see ACLFrom); a container it reports missing (404) has
	// none.
	ACL func(ctx context.Context, acct, container string) ([]azauth.SignedIdentifier, error)
	// SecondaryReadOnly, when set, makes the service answer at the
	// account's read-only secondary endpoint (account-secondary) and is
	// its answer to anything but a read there.
	SecondaryReadOnly error

	// Parse builds the service's request and reports what it addresses,
	// refusing what no operation could serve (a malformed path, a bad
	// snapshot), before anything is counted as an operation.
	Parse func(Call) (R, Address, error)
	// Unrouted is the answer to a request no route matches.
	Unrouted func(Call, Address) error
	// CheckNames, when set, applies the service's naming rules once the
	// operation is known.
	CheckNames func(R) error
	// Authenticate, when set, replaces the front door's authentication
	// (Blob: a batch's sub-requests act with the batch's SAS).
	Authenticate func(H, R) (azauth.Access, error)
	// Anonymous, when set, decides whether an anonymous caller may run
	// the route (public access); otherwise authorization refuses it.
	Anonymous func(H, R, Public) error
	// Admit, when set, is a last check once the caller is authorized
	// (Blob: the lease ids' syntax, which Azure checks after access).
	Admit func(R) error
}

// Door is the front door of one Storage service: an http.Handler that
// resolves the account, routes by the service's table, names the
// operation, authenticates, authorizes and runs it.
type Door[H any, R Request] struct {
	Config[H, R]
	// Auth authenticates the service's requests (and what a handler
	// authenticates on its own, like a copy source's SAS).
	Auth *azauth.Authenticator
	// Props is the service properties, which Get and Set Service
	// Properties serve and CORS reads.
	Props *svcprops.Store
}

// New returns the front door cfg describes. It panics when the routing
// table is invalid (see Validate): that is a programming error.
func New[H any, R Request](cfg Config[H, R]) *Door[H, R] {
	if err := Validate(cfg.Routes); err != nil {
		panic(cfg.Service + " routing table: " + err.Error())
	}
	d := &Door[H, R]{Config: cfg, Props: svcprops.New(cfg.Store, cfg.Service, cfg.PropsKey)}
	d.Auth = &azauth.Authenticator{Accounts: cfg.Accounts, Service: cfg.Service, Now: cfg.Now, Wall: time.Now, Policy: d.storedPolicy}
	return d
}

// Handler returns the door wrapped in the plumbing every service shares:
// host-style addressing, request ids, versions, CORS and logging.
func (d *Door[H, R]) Handler() http.Handler {
	return azhttp.HostStyle(d.Accounts, azhttp.Wrap(d.Service, d.Log, d.corsRules, d.WriteError, d))
}

// ServeHTTP serves one request without the shared plumbing (Blob's batch
// serves its sub-requests so).
func (d *Door[H, R]) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if err := d.dispatch(w, r); err != nil {
		d.WriteError(w, r, err)
	}
}

func (d *Door[H, R]) dispatch(w http.ResponseWriter, r *http.Request) error {
	c := Call{W: w, R: r, Query: r.URL.Query()}
	var err error
	if c.Acct, c.Secondary, err = d.account(accountSegment(r.URL.Path)); err != nil {
		return err
	}
	q, addr, err := d.Parse(c)
	if err != nil {
		return err
	}
	if addr.Method == "" {
		addr.Method = r.Method
	}
	rt := d.route(c, addr)
	if rt == nil {
		return d.Unrouted(c, addr)
	}
	if err := azhttp.Routed(w, r, rt.Name); err != nil {
		return err
	}
	if rt.Err != nil {
		return rt.Err
	}
	if c.Secondary && !rt.reads(addr.Method) {
		return d.SecondaryReadOnly
	}
	if d.CheckNames != nil {
		if err := d.CheckNames(q); err != nil {
			return err
		}
	}
	access, err := d.authenticate(c, q)
	if err != nil {
		return err
	}
	q.SetAccess(access)
	switch {
	case access.Kind == azauth.AccessAnonymous && d.Anonymous != nil:
		err = d.Anonymous(d.Receiver, q, rt.Public)
	case rt.Authorize != nil:
		err = rt.Authorize(r, access)
	default:
		err = access.Allows(rt.Need)
	}
	if err != nil {
		return err
	}
	if d.Admit != nil {
		if err := d.Admit(q); err != nil {
			return err
		}
	}
	return rt.Run(d.Receiver, q)
}

// AskCredentials is an Anonymous hook for a service without public
// access: Azure asks the anonymous caller for credentials (401
// NoAuthenticationInformation), at the service and at any resource alike
// (the .NET SDK's recordings Queues ServiceClientTests/GetPropertiesAsync_Error
// and QueueClientTests/ExistsAsync_Error, Files
// DirectoryClientTests/CreateIfNotExists_Error at 2025-05-05).
func AskCredentials[H, R any](H, R, Public) error {
	return azerr.ErrNoAuthenticationInformation
}

// route is the first row of the table that matches the request.
func (d *Door[H, R]) route(c Call, a Address) *Route[H, R] {
	for i := range d.Routes {
		if rt := &d.Routes[i]; rt.matches(a.Resource, a.Method, c.Query, c.R.Header, a.Snapshot) {
			return rt
		}
	}
	return nil
}

func (d *Door[H, R]) authenticate(c Call, q R) (azauth.Access, error) {
	if d.Authenticate != nil {
		return d.Authenticate(d.Receiver, q)
	}
	container, object := q.Scope()
	return d.Auth.Authenticate(c.R, c.Acct, container, object)
}

// account resolves the first path segment to the account addressed: a
// known account, or (where the service has one) a known account's
// secondary endpoint.
func (d *Door[H, R]) account(name string) (acct string, secondary bool, err error) {
	if _, ok := d.Accounts.Lookup(name); ok {
		return name, false, nil
	}
	if d.SecondaryReadOnly != nil {
		if base, ok := strings.CutSuffix(name, azhttp.SecondarySuffix); ok && base != "" {
			if _, known := d.Accounts.Lookup(base); known {
				return base, true, nil
			}
		}
	}
	return name, false, d.Accounts.Require(name)
}

// corsRules is the CORS source of the request's account; the secondary
// answers with its primary's rules.
func (d *Door[H, R]) corsRules(r *http.Request) ([]azhttp.CORSRule, error) {
	acct := accountSegment(r.URL.Path)
	if base, ok := strings.CutSuffix(acct, azhttp.SecondarySuffix); ok && base != "" && d.SecondaryReadOnly != nil {
		acct = base
	}
	if _, ok := d.Accounts.Lookup(acct); !ok {
		return nil, nil
	}
	return d.Props.CORSRules(r.Context(), acct)
}

// storedPolicy resolves a service SAS's signed identifier from the
// container's stored access policies.
func (d *Door[H, R]) storedPolicy(ctx context.Context, acct, container, id string) (azauth.StoredPolicy, bool, error) {
	acl, err := d.ACL(ctx, acct, container)
	if e := (*azerr.Error)(nil); errors.As(err, &e) && e.Status == http.StatusNotFound {
		return azauth.StoredPolicy{}, false, nil
	}
	if err != nil {
		return azauth.StoredPolicy{}, false, err
	}
	for _, si := range acl {
		if si.ID == id {
			return si.Policy(), true, nil
		}
	}
	return azauth.StoredPolicy{}, false, nil
}

// ACLFrom adapts the lookup of a container (queue, table, share) to
// Config.ACL: acl reads the stored access policies of what get found.
func ACLFrom[C any](get func(ctx context.Context, acct, name string) (C, error), acl func(C) []azauth.SignedIdentifier) func(context.Context, string, string) ([]azauth.SignedIdentifier, error) {
	return func(ctx context.Context, acct, name string) ([]azauth.SignedIdentifier, error) {
		c, err := get(ctx, acct, name)
		if err != nil {
			return nil, err
		}
		return acl(c), nil
	}
}

// accountSegment is the first segment of a path-style URL path.
func accountSegment(p string) string {
	acct, _, _ := SplitPath(p)
	return acct
}

// SplitPath splits a path-style URL path into the account, the service's
// top-level resource (container, share, queue, table) and the rest.
func SplitPath(p string) (acct, resource, rest string) {
	acct, rest, _ = strings.Cut(strings.TrimPrefix(p, "/"), "/")
	resource, rest, _ = strings.Cut(rest, "/")
	return acct, resource, rest
}
