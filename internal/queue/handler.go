package queue

import (
	"context"
	"net/http"
	"net/url"
	"strings"

	"github.com/cerulean-db/cerulean/internal/azhttp"
)

// Handler returns the Queue service's HTTP handler, wrapped in the plumbing
// every service shares (request ids, versions, CORS, logging).
func (s *Service) Handler() http.Handler {
	return azhttp.Wrap("queue", s.log, s.corsRules, azhttp.WriteError, http.HandlerFunc(s.serve))
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
	run  func(*Service, *request) error
}

func (s *Service) serve(w http.ResponseWriter, r *http.Request) {
	q := &request{w: w, r: r, q: r.URL.Query(), path: splitPath(r.URL.Path)}
	if err := s.dispatch(q); err != nil {
		azhttp.WriteError(w, r, err)
	}
}

func (s *Service) dispatch(q *request) error {
	acct, secondary := q.path.acct, false
	if _, ok := s.accounts.Lookup(acct); !ok {
		acct, secondary = primaryAccount(acct)
		if _, ok := s.accounts.Lookup(acct); !ok || !secondary {
			return azhttp.ErrResourceNotFound.WithMessage("The specified account %q does not exist.", q.path.acct)
		}
	}
	q.acct = acct
	op, err := route(q)
	if err != nil {
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
	q.access, err = s.auth.Authenticate(q.r, acct, q.path.queue, "")
	if err != nil {
		return err
	}
	// Queues have no public access: an anonymous request is refused here.
	if err := q.access.Allows(op.need); err != nil {
		return err
	}
	return op.run(s, q)
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
			return operation{need('s', 'l'), true, (*Service).listQueues}, nil
		case restype == "service" && comp == "properties" && m == http.MethodGet:
			return operation{need('s', 'r'), true, (*Service).getServiceProperties}, nil
		case restype == "service" && comp == "properties" && m == http.MethodPut:
			return operation{need('s', 'w'), false, (*Service).setServiceProperties}, nil
		case restype == "service" && comp == "stats" && m == http.MethodGet:
			return operation{need('s', 'r'), true, (*Service).getServiceStats}, nil
		}
	case !p.messages:
		switch {
		case comp == "" && m == http.MethodPut:
			return operation{need('c', 'w'), false, (*Service).createQueue}, nil
		case comp == "" && m == http.MethodDelete:
			return operation{need('c', 'd'), false, (*Service).deleteQueue}, nil
		case comp == "metadata" && read:
			return operation{need('c', 'r'), true, (*Service).getQueueMetadata}, nil
		case comp == "metadata" && m == http.MethodPut:
			return operation{need('c', 'w'), false, (*Service).setQueueMetadata}, nil
		case comp == "acl" && read:
			return operation{need('c', 'r'), true, (*Service).getQueueACL}, nil
		case comp == "acl" && m == http.MethodPut:
			return operation{need('c', 'w'), false, (*Service).setQueueACL}, nil
		}
	case p.id == "":
		switch {
		case m == http.MethodPost:
			return operation{need('o', 'a'), false, (*Service).putMessage}, nil
		case m == http.MethodGet && strings.EqualFold(q.q.Get("peekonly"), "true"):
			return operation{need('o', 'r'), true, (*Service).peekMessages}, nil
		case m == http.MethodGet:
			return operation{need('o', 'p'), false, (*Service).getMessages}, nil
		case m == http.MethodDelete:
			return operation{need('c', 'd'), false, (*Service).clearMessages}, nil
		}
	default:
		switch m {
		case http.MethodDelete:
			return operation{need('o', 'p'), false, (*Service).deleteMessage}, nil
		case http.MethodPut:
			return operation{need('o', 'u'), false, (*Service).updateMessage}, nil
		}
	}
	switch m {
	case http.MethodGet, http.MethodHead, http.MethodPut, http.MethodPost, http.MethodDelete:
	default:
		return operation{}, azhttp.ErrUnsupportedHttpVerb
	}
	return operation{}, azhttp.ErrInvalidQueryParameterValue.WithMessage("The requested operation (%s with restype=%q comp=%q) is not valid for this resource.", m, restype, comp)
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
		if !(c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-') {
			return azhttp.ErrInvalidResourceName
		}
	}
	return nil
}
