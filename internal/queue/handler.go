package queue

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"time"

	"github.com/cerulean-db/cerulean/internal/azhttp"
	"github.com/cerulean-db/cerulean/internal/svcprops"
)

// handler translates Azure's Queue REST protocol to Service calls: it
// routes, authenticates and parses a request, makes one call into the
// Service and writes its answer. It holds no queue state of its own.
type handler struct {
	svc      *Service
	accounts *azhttp.Accounts
	auth     *azhttp.Authenticator
	props    *svcprops.Store // service properties, CORS rules among them
}

// NewHandler returns the Queue service's HTTP handler, wrapped in the
// plumbing every service shares (request ids, versions, CORS, logging).
func NewHandler(svc *Service) http.Handler {
	h := &handler{svc: svc, accounts: svc.accounts}
	h.auth = &azhttp.Authenticator{Accounts: svc.accounts, Service: "queue", Now: svc.now, Wall: time.Now, Policy: h.storedPolicy}
	h.props = svcprops.New(svc.store, "queue", func(acct string) []byte { return servicePropsKey(acct) })
	return azhttp.HostStyle(svc.accounts, azhttp.Wrap("queue", svc.log, h.corsRules, azhttp.WriteError, http.HandlerFunc(h.serve)))
}

// corsRules is the CORS source of the request's account.
func (h *handler) corsRules(r *http.Request) ([]azhttp.CORSRule, error) {
	acct, _ := primaryAccount(splitPath(r.URL.Path).acct)
	if _, ok := h.accounts.Lookup(acct); !ok {
		return nil, nil
	}
	return h.props.CORSRules(r.Context(), acct)
}

// storedPolicy resolves a queue SAS's signed identifier.
func (h *handler) storedPolicy(ctx context.Context, acct, queue, id string) (azhttp.StoredPolicy, bool, error) {
	acl, err := h.svc.GetQueueACL(ctx, acct, queue)
	if errors.Is(err, azhttp.ErrQueueNotFound) {
		return azhttp.StoredPolicy{}, false, nil
	}
	if err != nil {
		return azhttp.StoredPolicy{}, false, err
	}
	for _, si := range acl {
		if si.ID == id {
			return si.Policy(), true, nil
		}
	}
	return azhttp.StoredPolicy{}, false, nil
}

// request is one parsed call.
type request struct {
	w      http.ResponseWriter
	r      *http.Request
	q      url.Values
	path   resourcePath
	acct   string // the primary account, "-secondary" removed
	access azhttp.Access
}

func (q *request) ctx() context.Context { return q.r.Context() }

// resourcePath is what a path-style URL addresses:
// /account[/queue[/messages[/messageid]]].
type resourcePath struct {
	acct, queue string
	messages    bool
	id          string
	invalid     bool // more segments than any resource has
}

func splitPath(p string) resourcePath {
	parts := strings.Split(strings.Trim(p, "/"), "/")
	var rp resourcePath
	rp.acct = parts[0]
	if len(parts) > 1 {
		rp.queue = parts[1]
	}
	if len(parts) > 2 {
		rp.messages = parts[2] == "messages"
		rp.invalid = !rp.messages
	}
	if len(parts) > 3 {
		rp.id = parts[3]
	}
	if len(parts) > 4 || (len(parts) == 4 && rp.id == "") {
		rp.invalid = true
	}
	return rp
}

// secondarySuffix marks the read-only secondary endpoint of an account
// (account-secondary), which Azure serves for read-access geo-redundant
// storage and the emulators answer on the same port.
const secondarySuffix = "-secondary"

// primaryAccount strips the secondary suffix from acct.
func primaryAccount(acct string) (string, bool) {
	if base, ok := strings.CutSuffix(acct, secondarySuffix); ok && base != "" {
		return base, true
	}
	return acct, false
}

// operation is one routed REST operation.
type operation struct {
	need azhttp.Need
	// read marks operations that change nothing, the only ones the
	// secondary endpoint serves.
	read bool
	run  func(*handler, *request) error
	// alt is a second permission that also grants the operation to an
	// account SAS (Create Queue: w or c); 0 for none.
	alt byte
	// queueSAS marks the operations a queue (service) SAS may run; any
	// other answers such a SAS 403 AuthorizationFailure, as Azure does.
	queueSAS bool
	// ownerOnly marks the operations only Shared Key may call (Get and
	// Set Queue ACL: "only the account owner").
	ownerOnly bool
}

func (h *handler) serve(w http.ResponseWriter, r *http.Request) {
	q := &request{w: w, r: r, q: r.URL.Query(), path: splitPath(r.URL.Path)}
	if err := h.dispatch(q); err != nil {
		azhttp.WriteError(w, r, err)
	}
}

func (h *handler) dispatch(q *request) error {
	acct, secondary := q.path.acct, false
	if _, ok := h.accounts.Lookup(acct); !ok {
		acct, secondary = primaryAccount(acct)
		if _, ok := h.accounts.Lookup(acct); !ok || !secondary {
			return h.accounts.Require(q.path.acct)
		}
	}
	q.acct = acct
	op, err := route(q)
	if err != nil {
		return err
	}
	if err := azhttp.Routed(q.w, q.r, azhttp.OperationName(op.run)); err != nil {
		return err
	}
	if secondary && !op.read {
		return azhttp.ErrAuthorizationFailure.WithMessage("This request is not authorized to perform this operation: the secondary location is read-only.")
	}
	if q.path.queue != "" {
		if err := checkQueueName(q.path.queue); err != nil {
			return err
		}
	}
	q.access, err = h.auth.Authenticate(q.r, acct, q.path.queue, "")
	if err != nil {
		return err
	}
	// Queues have no public access: an anonymous request is refused here.
	if err := op.authorize(q.access); err != nil {
		return err
	}
	return op.run(h, q)
}

func need(resourceType, permission byte) azhttp.Need {
	return azhttp.Need{Service: 'q', ResourceType: resourceType, Permission: permission}
}

// route picks the operation from the method, the addressed resource and
// the restype/comp query parameters. SAS letters follow "Create an account
// SAS" and "Create a service SAS": r read/peek, a add, u update, p process
// (get and delete messages), w write, d delete, l list.
func route(q *request) (operation, error) {
	restype, comp, m, p := q.q.Get("restype"), q.q.Get("comp"), q.r.Method, q.path
	read := m == http.MethodGet || m == http.MethodHead
	if p.invalid {
		return operation{}, azhttp.ErrInvalidUri
	}
	switch {
	case p.queue == "":
		switch {
		case comp == "list" && m == http.MethodGet:
			return operation{need: need('s', 'l'), read: true, run: (*handler).listQueues}, nil
		case restype == "service" && comp == "properties" && m == http.MethodGet:
			return operation{need: need('s', 'r'), read: true, run: (*handler).getServiceProperties}, nil
		case restype == "service" && comp == "properties" && m == http.MethodPut:
			return operation{need: need('s', 'w'), read: false, run: (*handler).setServiceProperties}, nil
		case restype == "service" && comp == "stats" && m == http.MethodGet:
			return operation{need: need('s', 'r'), read: true, run: (*handler).getServiceStats}, nil
		}
	case !p.messages:
		switch {
		case comp == "" && m == http.MethodPut:
			return operation{need: need('c', 'w'), read: false, run: (*handler).createQueue, alt: 'c'}, nil
		case comp == "" && m == http.MethodDelete:
			return operation{need: need('c', 'd'), read: false, run: (*handler).deleteQueue}, nil
		case comp == "metadata" && read:
			return operation{need: need('c', 'r'), read: true, run: (*handler).getQueueMetadata, queueSAS: true}, nil
		case comp == "metadata" && m == http.MethodPut:
			return operation{need: need('c', 'w'), read: false, run: (*handler).setQueueMetadata}, nil
		case comp == "acl" && read:
			return operation{need: need('c', 'r'), read: true, run: (*handler).getQueueACL, ownerOnly: true}, nil
		case comp == "acl" && m == http.MethodPut:
			return operation{need: need('c', 'w'), read: false, run: (*handler).setQueueACL, ownerOnly: true}, nil
		}
	case p.id == "":
		switch {
		case m == http.MethodPost:
			return operation{need: need('o', 'a'), read: false, run: (*handler).putMessage, queueSAS: true}, nil
		case m == http.MethodGet && strings.EqualFold(q.q.Get("peekonly"), "true"):
			return operation{need: need('o', 'r'), read: true, run: (*handler).peekMessages, queueSAS: true}, nil
		case m == http.MethodGet:
			return operation{need: need('o', 'p'), read: false, run: (*handler).getMessages, queueSAS: true}, nil
		case m == http.MethodDelete:
			return operation{need: need('c', 'd'), read: false, run: (*handler).clearMessages}, nil
		}
	default:
		switch m {
		case http.MethodDelete:
			return operation{need: need('o', 'p'), read: false, run: (*handler).deleteMessage, queueSAS: true}, nil
		case http.MethodPut:
			return operation{need: need('o', 'u'), read: false, run: (*handler).updateMessage, queueSAS: true}, nil
		}
	}
	switch m {
	case http.MethodGet, http.MethodHead, http.MethodPut, http.MethodPost, http.MethodDelete:
	default:
		return operation{}, azhttp.ErrUnsupportedHttpVerb
	}
	return operation{}, azhttp.InvalidQueryParameterValue("comp", comp, fmt.Sprintf("%s with restype=%q comp=%q is not an operation on this resource", m, restype, comp))
}

// checkQueueName applies Azure's queue naming rules: 3 to 63 lower-case
// letters, digits and single hyphens, starting and ending with a letter or
// digit.
func checkQueueName(n string) error {
	if len(n) < 3 || len(n) > 63 {
		return azhttp.ErrOutOfRangeInput.WithMessage("The specified resource name length is not within the permissible limits.")
	}
	if n[0] == '-' || n[len(n)-1] == '-' || strings.Contains(n, "--") {
		return azhttp.ErrInvalidResourceName
	}
	for _, c := range n {
		if (c < 'a' || c > 'z') && (c < '0' || c > '9') && c != '-' {
			return azhttp.ErrInvalidResourceName
		}
	}
	return nil
}
