package table

import (
	"context"
	"net/http"
	"net/url"
	"strings"

	"github.com/cerulean-db/cerulean/internal/azhttp"
)

// maxBody bounds a request body: an entity is at most 1 MiB as Azure
// counts it, and an entity-group transaction at most 4 MiB.
const maxBody = 4 << 20

// Handler returns the Table service's HTTP handler, wrapped in the
// plumbing every service shares; errors are sent as OData JSON.
func (s *Service) Handler() http.Handler {
	return azhttp.Wrap("table", s.log, s.corsRules, azhttp.WriteErrorJSON, http.HandlerFunc(s.serve))
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
	run       func(*Service, *request) error
}

func (s *Service) serve(w http.ResponseWriter, r *http.Request) {
	q := &request{w: w, r: r, q: r.URL.Query()}
	if err := s.dispatch(q); err != nil {
		azhttp.WriteErrorJSON(w, r, err)
	}
}

func (s *Service) dispatch(q *request) error {
	acct, rest := splitPath(q.r.URL.Path)
	q.acct = acct
	if _, ok := s.accounts.Lookup(acct); !ok {
		return azhttp.ErrResourceNotFound.WithMessage("The specified account %q does not exist.", acct)
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
	// A table SAS is signed for its table (tn); a batch names its table
	// only inside the body, so the SAS's own table is checked against
	// every operation there.
	container := q.res.table
	if q.res.kind == resBatch {
		container = q.q.Get("tn")
	}
	q.access, err = s.auth.Authenticate(q.r, q.acct, container, "")
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
	return op.run(s, q)
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
func writeNeeds(kind opKind) []azhttp.Need {
	switch kind {
	case opInsert:
		return []azhttp.Need{need('o', 'a')}
	case opReplace, opMerge:
		return []azhttp.Need{need('o', 'u')}
	case opInsertReplace, opInsertMerge:
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
			return operation{accountLevel(need('s', 'r')), (*Service).getServiceProperties}, nil
		case restype == "service" && comp == "properties" && m == http.MethodPut:
			return operation{accountLevel(need('s', 'w')), (*Service).setServiceProperties}, nil
		case restype == "service" && comp == "stats" && m == http.MethodGet:
			return operation{accountLevel(need('s', 'r')), (*Service).getServiceStats}, nil
		case restype == "account" && comp == "properties":
			return notSupported("Get Account Information on the Table service")
		}
	case resTables:
		switch m {
		case http.MethodGet:
			return operation{accountLevel(need('c', 'l')), (*Service).queryTables}, nil
		case http.MethodPost:
			return operation{createTableAccess, (*Service).createTable}, nil
		}
	case resTable:
		switch m {
		case http.MethodGet:
			return operation{accountLevel(need('c', 'l')), (*Service).getTable}, nil
		case http.MethodDelete:
			return operation{accountLevel(need('c', 'd')), (*Service).deleteTable}, nil
		}
	case resBatch:
		if m == http.MethodPost {
			return operation{batchAccess, (*Service).batch}, nil
		}
	case resEntities:
		switch {
		case comp == "acl" && m == http.MethodGet:
			return operation{sharedKeyOnly, (*Service).getTableACL}, nil
		case comp == "acl" && m == http.MethodPut:
			return operation{sharedKeyOnly, (*Service).setTableACL}, nil
		case comp != "":
			return operation{}, azhttp.ErrInvalidQueryParameterValue.WithMessage("The value %q of query parameter comp is not valid here.", comp)
		case m == http.MethodGet:
			return operation{allowAll(need('o', 'r')), (*Service).queryEntities}, nil
		case m == http.MethodPost:
			return operation{allowAll(writeNeeds(opInsert)...), (*Service).insertEntity}, nil
		}
	case resEntity:
		ifm := q.r.Header.Get("If-Match") != ""
		switch m {
		case http.MethodGet:
			return operation{allowAll(need('o', 'r')), (*Service).getEntity}, nil
		case http.MethodPut:
			kind := opInsertReplace
			if ifm {
				kind = opReplace
			}
			return operation{allowAll(writeNeeds(kind)...), (*Service).updateEntity}, nil
		case "MERGE":
			kind := opInsertMerge
			if ifm {
				kind = opMerge
			}
			return operation{allowAll(writeNeeds(kind)...), (*Service).updateEntity}, nil
		case http.MethodDelete:
			return operation{allowAll(writeNeeds(opDelete)...), (*Service).deleteEntity}, nil
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
