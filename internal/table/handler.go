package table

import (
	"context"
	"errors"
	"net/http"
	"net/url"
	"strings"

	"github.com/cerulean-db/cerulean/internal/azauth"
	"github.com/cerulean-db/cerulean/internal/azerr"
	"github.com/cerulean-db/cerulean/internal/azhttp"
	"github.com/cerulean-db/cerulean/internal/storagefront"
	"github.com/cerulean-db/cerulean/internal/svcprops"
)

// maxBody bounds a request body: an entity is at most 1 MiB as Azure
// counts it, and an entity-group transaction at most 4 MiB.
const maxBody = 4 << 20

// handler translates Azure's Table REST protocol (OData JSON) to Service
// calls: it parses a request, makes one call into the Service and writes
// its answer; the front door (storagefront) routes and authenticates
// before it. It holds no table state of its own.
type handler struct {
	svc      *Service
	accounts *azauth.Accounts
	props    *svcprops.Store // service properties, CORS rules among them
}

// NewHandler returns the Table service's HTTP handler: its front door
// over the routing table, wrapped in the plumbing every service shares;
// errors are sent as OData JSON.
func NewHandler(svc *Service) http.Handler {
	h := &handler{svc: svc, accounts: svc.accounts}
	door := storagefront.New(storagefront.Config[*handler, *request]{
		Service: "table", Routes: routes, Receiver: h, Parse: parseRequest, Unrouted: unrouted, Anonymous: refuseAnonymous,
		Accounts: svc.accounts, Now: svc.now, Log: svc.log, WriteError: h.writeError,
		Store: svc.store, PropsKey: func(acct string) []byte { return servicePropsKey(acct) },
		ACL: storagefront.ACLFrom(svc.GetTable, func(t *Table) []azauth.SignedIdentifier { return t.ACL }),
		// The account's read-only secondary (account-secondary, host or
		// path style) serves reads and Get Table Service Stats, which
		// aztables' TestGetStatistics calls there; a write is refused as
		// the Blob service refuses one ("Write operations are not
		// allowed.").
		SecondaryReadOnly: azerr.ErrInsufficientAccountPermissions.WithMessage("Write operations are not allowed."),
	})
	h.props = door.Props
	return door.Handler()
}

// writeError answers err as Azure's Table service does: the XML
// operations (service properties and stats, table ACLs) in OData's XML
// error form, the rest in OData JSON labelled with the metadata level the
// request asked for (a nometadata request's ConditionNotMet is
// application/json;odata=nometadata, recorded in go-storage
// StorageEntitySuite TestDelete), or as plain application/json when Azure
// refused the request before reading its format (a path that addresses
// nothing; a $batch whose signature is wrong).
func (h *handler) writeError(w http.ResponseWriter, r *http.Request, err error) {
	q := r.URL.Query()
	_, rest := splitPath(azhttp.AccountPath(r.URL, h.accounts))
	res, perr := parseResource(rest)
	if perr == nil && (res.kind == resService || res.kind == resEntities && q.Get("comp") == "acl") {
		azhttp.WriteErrorODataXML(w, r, err)
		return
	}
	if _, ok := errors.AsType[unnegotiated](err); ok {
		azhttp.WriteErrorJSONAs(w, r, err, "application/json")
		return
	}
	if perr == nil && res.kind == resBatch && errors.Is(err, azerr.ErrAuthenticationFailed) {
		// A batch's format is its parts'; refused before they are read,
		// it is plain application/json (test_table_batch.py
		// test_new_invalid_key).
		azhttp.WriteErrorJSONAs(w, r, err, "application/json")
		return
	}
	level, ferr := responseFormat(r, q)
	if ferr != nil {
		level = minimalMetadata
	}
	azhttp.WriteErrorJSONAs(w, r, err, level.contentType())
}

// unnegotiated marks an error Azure answers before it reads what format
// the request wants: its answer is plain application/json.
type unnegotiated struct{ error }

func (u unnegotiated) Unwrap() error { return u.error }

// request is one Table request, its path parsed as OData addresses it.
type request struct {
	w      http.ResponseWriter
	r      *http.Request
	q      url.Values
	acct   string
	res    resource
	method string // after X-HTTP-Method tunnelling; PATCH is MERGE
	access azauth.Access
}

func (q *request) ctx() context.Context { return q.r.Context() }

// Scope is the table a table SAS must be signed for (tn); a batch names
// its table only inside the body, so the SAS's own table is checked
// against every operation there.
func (q *request) Scope() (string, string) {
	if q.res.kind == resBatch {
		return q.q.Get("tn"), ""
	}
	return q.res.table, ""
}

func (q *request) SetAccess(a azauth.Access) { q.access = a }

// at is the routing table's resource for what a path addresses.
func at(kinds ...resKind) storagefront.Resource {
	var r storagefront.Resource
	for _, k := range kinds {
		r |= 1 << k
	}
	return r
}

func parseRequest(c storagefront.Call) (*request, storagefront.Address, error) {
	q := &request{w: c.W, r: c.R, q: c.Query, acct: c.Acct}
	_, rest := splitPath(c.R.URL.Path)
	var err error
	if q.res, err = parseResource(rest); err != nil {
		return nil, storagefront.Address{}, err
	}
	if q.method, err = effectiveMethod(c.R); err != nil {
		return nil, storagefront.Address{}, err
	}
	switch comp := q.q.Get("comp"); {
	case q.res.kind == resEntities && comp != "" && comp != "acl":
		return nil, storagefront.Address{}, errCompNotValid(comp)
	case q.res.kind == resService && q.q.Get("restype") == "account" && comp == "properties":
		return nil, storagefront.Address{}, azerr.ErrNotImplemented.WithMessage("Get Account Information on the Table service is not supported by this server.")
	}
	return q, storagefront.Address{Resource: at(q.res.kind), Method: q.method}, nil
}

func errCompNotValid(comp string) error {
	return azerr.InvalidQueryParameterValue("comp", comp, "").WithMessage("The value %q of query parameter comp is not valid here.", comp)
}

// unrouted answers a request no route serves.
func unrouted(c storagefront.Call, a storagefront.Address) error {
	if comp := c.Query.Get("comp"); a.Resource == at(resEntities) && comp != "" {
		return errCompNotValid(comp)
	}
	return azerr.ErrMethodNotAllowed.WithMessage("The %s method is not allowed on this resource.", a.Method)
}

// refuseAnonymous: tables have no public access.
func refuseAnonymous(*handler, *request, storagefront.Public) error {
	return azerr.ErrAuthorizationFailure.WithMessage("%s\nThe Table service requires an authorized request (Shared Key or SAS).", azerr.ErrAuthorizationFailure.Message)
}

// effectiveMethod applies X-HTTP-Method tunnelling (POST carrying MERGE,
// PUT or DELETE) and folds PATCH into MERGE.
func effectiveMethod(r *http.Request) (string, error) {
	xs := r.Header.Values("X-Http-Method")
	m := r.Method
	if len(xs) > 0 {
		if len(xs) > 1 || strings.Contains(xs[0], ",") {
			return "", azerr.ErrXMethodIncorrectCount
		}
		if r.Method != http.MethodPost {
			return "", azerr.ErrXMethodNotUsingPost
		}
		m = strings.ToUpper(strings.TrimSpace(xs[0]))
		switch m {
		case "MERGE", http.MethodPut, http.MethodDelete:
		default:
			return "", azerr.ErrXMethodIncorrectValue.WithMessage("The specified X-HTTP-Method %q is invalid: use MERGE, PUT or DELETE.", xs[0])
		}
	}
	if m == http.MethodPatch {
		m = "MERGE"
	}
	return m, nil
}

// Access checks. The Table service's SAS permissions: r read/query, a add
// (insert), u update (update, merge), d delete; account SAS adds l (list
// tables), w (create tables, set properties) and c (create tables). A
// table SAS reaches only the entities of its table; stored access policies
// (Get/Set Table ACL) are for Shared Key only.
func need(resourceType, permission byte) azauth.Need {
	return azauth.Need{Service: 't', ResourceType: resourceType, Permission: permission}
}

func allowAll(needs ...azauth.Need) func(*http.Request, azauth.Access) error {
	return func(_ *http.Request, a azauth.Access) error {
		for _, n := range needs {
			if err := a.Allows(n); err != nil {
				return err
			}
		}
		return nil
	}
}

// accountLevel allows an operation on the service or on tables, which a
// table (service) SAS never grants.
func accountLevel(needs ...azauth.Need) func(*http.Request, azauth.Access) error {
	check := allowAll(needs...)
	return func(r *http.Request, a azauth.Access) error {
		if a.Kind == azauth.AccessServiceSAS {
			return azerr.ErrAuthorizationFailure
		}
		return check(r, a)
	}
}

func sharedKeyOnly(_ *http.Request, a azauth.Access) error {
	if a.Kind != azauth.AccessSharedKey {
		return azerr.ErrAuthorizationFailure.WithMessage("%s\nOnly the account owner may call this operation.", azerr.ErrAuthorizationFailure.Message)
	}
	return nil
}

// createTableAccess allows Create Table with either w or c.
func createTableAccess(_ *http.Request, a azauth.Access) error {
	if a.Kind == azauth.AccessServiceSAS {
		return azerr.ErrAuthorizationFailure
	}
	if err := a.Allows(need('c', 'w')); err == nil {
		return nil
	}
	return a.Allows(need('c', 'c'))
}

// batchAccess lets a batch through to parsing; each operation in it is
// authorized on its own.
func batchAccess(_ *http.Request, a azauth.Access) error { return a.Allows(need('o', 0)) }

// writeNeeds is what an entity write needs.
func writeNeeds(kind WriteKind) []azauth.Need {
	switch kind {
	case WriteInsert:
		return []azauth.Need{need('o', 'a')}
	case WriteReplace, WriteMerge:
		return []azauth.Need{need('o', 'u')}
	case WriteInsertOrReplace, WriteInsertOrMerge:
		return []azauth.Need{need('o', 'a'), need('o', 'u')}
	}
	return []azauth.Need{need('o', 'd')}
}

// queryTablesOrTable serves Query Tables, of every table or of the one
// its path names (Tables('name')).
func (h *handler) queryTablesOrTable(q *request) error {
	if q.res.kind == resTable {
		return h.getTable(q)
	}
	return h.queryTables(q)
}

// queryEntitiesOrEntity serves Query Entities, of a table or of the one
// entity its path's keys name.
func (h *handler) queryEntitiesOrEntity(q *request) error {
	if q.res.kind == resEntity {
		return h.getEntity(q)
	}
	return h.queryEntities(q)
}

// splitPath splits a path-style URL path into the account and the rest.
func splitPath(p string) (acct, rest string) {
	p = strings.TrimPrefix(p, "/")
	acct, rest, _ = strings.Cut(p, "/")
	return acct, rest
}
