package queue

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"strings"

	"github.com/cerulean-db/cerulean/internal/azauth"
	"github.com/cerulean-db/cerulean/internal/azerr"
	"github.com/cerulean-db/cerulean/internal/azhttp"
	"github.com/cerulean-db/cerulean/internal/storagefront"
	"github.com/cerulean-db/cerulean/internal/svcprops"
)

// handler translates Azure's Queue REST protocol to Service calls: it
// parses a request, makes one call into the Service and writes its
// answer; the front door (storagefront) routes and authenticates before
// it. It holds no queue state of its own.
type handler struct {
	svc   *Service
	props *svcprops.Store // service properties, CORS rules among them
}

// NewHandler returns the Queue service's HTTP handler: its front door
// over the routing table, wrapped in the plumbing every service shares
// (request ids, versions, CORS, logging).
func NewHandler(svc *Service) http.Handler {
	h := &handler{svc: svc}
	door := storagefront.New(storagefront.Config[*handler, *request]{
		Service: "queue", Routes: routes, Receiver: h, Parse: parseRequest, Unrouted: unrouted, CheckNames: checkNames,
		Accounts: svc.accounts, Now: svc.now, Log: svc.log, WriteError: azhttp.WriteError,
		Store: svc.store, PropsKey: func(acct string) []byte { return servicePropsKey(acct) }, ACL: svc.GetQueueACL,
		SecondaryReadOnly: errSecondaryReadOnly, Anonymous: storagefront.AskCredentials[*handler, *request],
	})
	h.props = door.Props
	return door.Handler()
}

// request is one Queue request, its path split.
type request struct {
	w         http.ResponseWriter
	r         *http.Request
	q         url.Values
	path      resourcePath
	acct      string // the primary account, "-secondary" removed
	secondary bool   // addressed at acct-secondary
	access    azauth.Access
}

func (q *request) ctx() context.Context { return q.r.Context() }

func (q *request) Scope() (string, string) { return q.path.queue, "" }

func (q *request) SetAccess(a azauth.Access) { q.access = a }

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

// What a path addresses.
const (
	atService storagefront.Resource = 1 << iota
	atQueue
	atMessages
	atMessage
)

func parseRequest(c storagefront.Call) (*request, storagefront.Address, error) {
	q := &request{w: c.W, r: c.R, q: c.Query, path: splitPath(c.R.URL.Path), acct: c.Acct, secondary: c.Secondary}
	var at storagefront.Address
	switch p := q.path; {
	case p.invalid:
		return nil, at, azerr.ErrInvalidUri
	case p.queue == "":
		at.Resource = atService
	case !p.messages:
		at.Resource = atQueue
	case p.id == "":
		at.Resource = atMessages
	default:
		at.Resource = atMessage
	}
	return q, at, nil
}

// unrouted answers a request no route serves.
func unrouted(c storagefront.Call, _ storagefront.Address) error {
	switch m := c.R.Method; m {
	case http.MethodGet, http.MethodHead, http.MethodPut, http.MethodPost, http.MethodDelete:
		restype, comp := c.Query.Get("restype"), c.Query.Get("comp")
		return azerr.InvalidQueryParameterValue("comp", comp, fmt.Sprintf("%s with restype=%q comp=%q is not an operation on this resource", m, restype, comp))
	}
	return azerr.ErrUnsupportedHttpVerb
}

func need(resourceType, permission byte) azauth.Need {
	return azauth.Need{Service: 'q', ResourceType: resourceType, Permission: permission}
}

// checkNames applies the naming rules to the queue a request addresses.
func checkNames(q *request) error {
	if q.path.queue == "" {
		return nil
	}
	return checkQueueName(q.path.queue)
}

// checkQueueName applies Azure's queue naming rules: 3 to 63 lower-case
// letters, digits and single hyphens, starting and ending with a letter or
// digit.
func checkQueueName(n string) error {
	if len(n) < 3 || len(n) > 63 {
		return azerr.ErrOutOfRangeInput.WithMessage("The specified resource name length is not within the permissible limits.")
	}
	if !storagefront.ValidName(n) {
		return azerr.ErrInvalidResourceName
	}
	return nil
}
