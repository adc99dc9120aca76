package table

import (
	"context"
	"errors"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/cerulean-db/cerulean/internal/azhttp"
	"github.com/cerulean-db/cerulean/internal/svcprops"
)

// maxBody bounds a request body: an entity is at most 1 MiB as Azure
// counts it, and an entity-group transaction at most 4 MiB.
const maxBody = 4 << 20

// handler translates Azure's Table REST protocol (OData JSON) to Service
// calls: it routes, authenticates and parses a request, makes one call
// into the Service and writes its answer. It holds no table state of its
// own.
type handler struct {
	svc      *Service
	accounts *azhttp.Accounts
	auth     *azhttp.Authenticator
	props    *svcprops.Store // service properties, CORS rules among them
}

// NewHandler returns the Table service's HTTP handler, wrapped in the
// plumbing every service shares; errors are sent as OData JSON.
func NewHandler(svc *Service) http.Handler {
	h := &handler{svc: svc, accounts: svc.accounts}
	h.auth = &azhttp.Authenticator{Accounts: svc.accounts, Service: "table", Now: svc.now, Wall: time.Now, Policy: h.storedPolicy}
	h.props = svcprops.New(svc.store, "table", func(acct string) []byte { return servicePropsKey(acct) })
	return azhttp.HostStyle(svc.accounts, azhttp.Wrap("table", svc.log, h.corsRules, azhttp.WriteErrorJSON, http.HandlerFunc(h.serve)))
}

// storedPolicy resolves a table SAS's signed identifier.
func (h *handler) storedPolicy(ctx context.Context, acct, table, id string) (azhttp.StoredPolicy, bool, error) {
	t, err := h.svc.GetTable(ctx, acct, table)
	if errors.Is(err, azhttp.ErrTableNotFound) {
		return azhttp.StoredPolicy{}, false, nil
	}
	if err != nil {
		return azhttp.StoredPolicy{}, false, err
	}
	for _, si := range t.ACL {
		if si.ID == id {
			return si.Policy(), true, nil
		}
	}
	return azhttp.StoredPolicy{}, false, nil
}

// corsRules is the CORS source of the request's account.
func (h *handler) corsRules(r *http.Request) ([]azhttp.CORSRule, error) {
	acct, _ := splitPath(r.URL.Path)
	if _, ok := h.accounts.Lookup(acct); !ok {
		return nil, nil
	}
	return h.props.CORSRules(r.Context(), acct)
}

// request is one parsed call.
type request struct {
	w      http.ResponseWriter
	r      *http.Request
	q      url.Values
	acct   string
	res    resource
	method string // after X-HTTP-Method tunnelling; PATCH is MERGE
	access azhttp.Access
}

func (q *request) ctx() context.Context { return q.r.Context() }

// operation is one routed REST operation.
type operation struct {
	// authorize decides whether the caller's access allows the operation
	// (entity key ranges are checked once the keys are known).
	authorize func(azhttp.Access) error
	run       func(*handler, *request) error
}

func (h *handler) serve(w http.ResponseWriter, r *http.Request) {
	q := &request{w: w, r: r, q: r.URL.Query()}
	if err := h.dispatch(q); err != nil {
		azhttp.WriteErrorJSON(w, r, err)
	}
}

func (h *handler) dispatch(q *request) error {
	acct, rest := splitPath(q.r.URL.Path)
	q.acct = acct
	if err := h.accounts.Require(acct); err != nil {
		return err
	}
	var err error
	if q.res, err = parseResource(rest); err != nil {
		return err
	}
	if q.method, err = effectiveMethod(q.r); err != nil {
		return err
	}
	op, err := route(q)
	if err != nil {
		return err
	}
	if err := azhttp.Routed(q.w, q.r, azhttp.OperationName(op.run)); err != nil {
		return err
	}
	// A table SAS is signed for its table (tn); a batch names its table
	// only inside the body, so the SAS's own table is checked against
	// every operation there.
	container := q.res.table
	if q.res.kind == resBatch {
		container = q.q.Get("tn")
	}
	q.access, err = h.auth.Authenticate(q.r, q.acct, container, "")
	if err != nil {
		return err
	}
	if q.access.Kind == azhttp.AccessAnonymous {
		// Tables have no public access.
		return azhttp.ErrAuthorizationFailure.WithMessage("%s\nThe Table service requires an authorized request (Shared Key or SAS).", azhttp.ErrAuthorizationFailure.Message)
	}
	if err := op.authorize(q.access); err != nil {
		return err
	}
	return op.run(h, q)
}

// effectiveMethod applies X-HTTP-Method tunnelling (POST carrying MERGE,
// PUT or DELETE) and folds PATCH into MERGE.
func effectiveMethod(r *http.Request) (string, error) {
	xs := r.Header.Values("X-HTTP-Method")
	m := r.Method
	if len(xs) > 0 {
		if len(xs) > 1 || strings.Contains(xs[0], ",") {
			return "", azhttp.ErrXMethodIncorrectCount
		}
		if r.Method != http.MethodPost {
			return "", azhttp.ErrXMethodNotUsingPost
		}
		m = strings.ToUpper(strings.TrimSpace(xs[0]))
		switch m {
		case "MERGE", http.MethodPut, http.MethodDelete:
		default:
			return "", azhttp.ErrXMethodIncorrectValue.WithMessage("The specified X-HTTP-Method %q is invalid: use MERGE, PUT or DELETE.", xs[0])
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
func need(resourceType, permission byte) azhttp.Need {
	return azhttp.Need{Service: 't', ResourceType: resourceType, Permission: permission}
}

func allowAll(needs ...azhttp.Need) func(azhttp.Access) error {
	return func(a azhttp.Access) error {
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
func accountLevel(needs ...azhttp.Need) func(azhttp.Access) error {
	check := allowAll(needs...)
	return func(a azhttp.Access) error {
		if a.Kind == azhttp.AccessServiceSAS {
			return azhttp.ErrAuthorizationFailure
		}
		return check(a)
	}
}

func sharedKeyOnly(a azhttp.Access) error {
	if a.Kind != azhttp.AccessSharedKey {
		return azhttp.ErrAuthorizationFailure.WithMessage("%s\nOnly the account owner may call this operation.", azhttp.ErrAuthorizationFailure.Message)
	}
	return nil
}

// createTableAccess allows Create Table with either w or c.
func createTableAccess(a azhttp.Access) error {
	if a.Kind == azhttp.AccessServiceSAS {
		return azhttp.ErrAuthorizationFailure
	}
	if err := a.Allows(need('c', 'w')); err == nil {
		return nil
	}
	return a.Allows(need('c', 'c'))
}

// batchAccess lets a batch through to parsing; each operation in it is
// authorized on its own.
func batchAccess(a azhttp.Access) error { return a.Allows(need('o', 0)) }

// writeNeeds is what an entity write needs.
func writeNeeds(kind WriteKind) []azhttp.Need {
	switch kind {
	case WriteInsert:
		return []azhttp.Need{need('o', 'a')}
	case WriteReplace, WriteMerge:
		return []azhttp.Need{need('o', 'u')}
	case WriteInsertOrReplace, WriteInsertOrMerge:
		return []azhttp.Need{need('o', 'a'), need('o', 'u')}
	}
	return []azhttp.Need{need('o', 'd')}
}

// route picks the operation from the method and the addressed resource.
func route(q *request) (operation, error) {
	m, comp, restype := q.method, q.q.Get("comp"), q.q.Get("restype")
	notSupported := func(what string) (operation, error) {
		return operation{}, azhttp.ErrNotImplemented.WithMessage("%s is not supported by this server.", what)
	}
	switch q.res.kind {
	case resService:
		switch {
		case restype == "service" && comp == "properties" && m == http.MethodGet:
			return operation{accountLevel(need('s', 'r')), (*handler).getServiceProperties}, nil
		case restype == "service" && comp == "properties" && m == http.MethodPut:
			return operation{accountLevel(need('s', 'w')), (*handler).setServiceProperties}, nil
		case restype == "service" && comp == "stats" && m == http.MethodGet:
			return operation{accountLevel(need('s', 'r')), (*handler).getServiceStats}, nil
		case restype == "account" && comp == "properties":
			return notSupported("Get Account Information on the Table service")
		}
	case resTables:
		switch m {
		case http.MethodGet:
			return operation{accountLevel(need('c', 'l')), (*handler).queryTables}, nil
		case http.MethodPost:
			return operation{createTableAccess, (*handler).createTable}, nil
		}
	case resTable:
		switch m {
		case http.MethodGet:
			return operation{accountLevel(need('c', 'l')), (*handler).getTable}, nil
		case http.MethodDelete:
			return operation{accountLevel(need('c', 'd')), (*handler).deleteTable}, nil
		}
	case resBatch:
		if m == http.MethodPost {
			return operation{batchAccess, (*handler).batch}, nil
		}
	case resEntities:
		switch {
		case comp == "acl" && m == http.MethodGet:
			return operation{sharedKeyOnly, (*handler).getTableACL}, nil
		case comp == "acl" && m == http.MethodPut:
			return operation{sharedKeyOnly, (*handler).setTableACL}, nil
		case comp != "":
			return operation{}, azhttp.InvalidQueryParameterValue("comp", comp, "").WithMessage("The value %q of query parameter comp is not valid here.", comp)
		case m == http.MethodGet:
			return operation{allowAll(need('o', 'r')), (*handler).queryEntities}, nil
		case m == http.MethodPost:
			return operation{allowAll(writeNeeds(WriteInsert)...), (*handler).insertEntity}, nil
		}
	case resEntity:
		ifm := q.r.Header.Get("If-Match") != ""
		switch m {
		case http.MethodGet:
			return operation{allowAll(need('o', 'r')), (*handler).getEntity}, nil
		case http.MethodPut:
			kind := WriteInsertOrReplace
			if ifm {
				kind = WriteReplace
			}
			return operation{allowAll(writeNeeds(kind)...), (*handler).updateEntity}, nil
		case "MERGE":
			kind := WriteInsertOrMerge
			if ifm {
				kind = WriteMerge
			}
			return operation{allowAll(writeNeeds(kind)...), (*handler).updateEntity}, nil
		case http.MethodDelete:
			return operation{allowAll(writeNeeds(WriteDelete)...), (*handler).deleteEntity}, nil
		}
	}
	return operation{}, azhttp.ErrMethodNotAllowed.WithMessage("The %s method is not allowed on this resource.", m)
}

// splitPath splits a path-style URL path into the account and the rest.
func splitPath(p string) (acct, rest string) {
	p = strings.TrimPrefix(p, "/")
	acct, rest, _ = strings.Cut(p, "/")
	return acct, rest
}
