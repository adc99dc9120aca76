package storagefront

import (
	"fmt"
	"net/http"
	"net/url"
	"strings"

	"github.com/cerulean-db/cerulean/internal/azauth"
)

// Resource is a set of the kinds of resource a service's paths address
// (service, container, blob…), one bit each, numbered by the service.
type Resource uint16

// Read matches GET and HEAD in Route.Method.
const Read = "GET|HEAD"

// AnyComp in Route.Comp matches every comp, none included.
const AnyComp = "*"

// Public is a route's rule for anonymous callers, which the service's
// Anonymous hook interprets (Blob: which container public access level
// lets it through). The zero value refuses them.
type Public uint8

// Route is one row of a service's routing table: which requests it
// matches, the operation's Azure name, what the operation needs of the
// caller, and the handler method that runs it. The first row that
// matches a request wins, so a row with more conditions goes before a
// row it refines (Put Block From URL before Put Block).
type Route[H, R any] struct {
	// Name is Azure's REST operation name without spaces
	// ("GetContainerMetadata"): the metric label and fault rule key.
	Name string

	// On is the resources the row matches.
	On Resource
	// Method matches the request's method (after the service's own
	// rewriting, e.g. Table's X-HTTP-Method); Read matches GET and HEAD;
	// empty matches any.
	Method string
	// Restype, when set, must equal the restype parameter; empty matches
	// any (the resource usually decides it).
	Restype string
	// Comp must equal the comp parameter: empty means none; AnyComp
	// matches every value.
	Comp string
	// Headers and Params are headers and query parameters the request
	// must carry: "name" (present, non-empty for a header) or
	// "name=value" (that value, case-insensitively). Header names are
	// written in Go's canonical form (X-Ms-Copy-Source), which a lookup
	// uses as it is; any other spelling is converted, allocating, on every
	// request the route is tried for.
	Headers, Params []string
	// Snapshot marks the operations that also serve a snapshot: a
	// request the service reports as addressing one matches no other row.
	Snapshot bool

	// Need is what the caller's access must allow (azauth.Access.Allows),
	// unless Authorize decides instead.
	Need azauth.Need
	// Authorize, when set, decides whether the caller's access allows the
	// operation (what it needs depends on the request, or on more than a
	// Need says).
	Authorize func(r *http.Request, a azauth.Access) error
	// Public is the rule for an anonymous caller (see Public).
	Public Public
	// Changes marks a GET that changes state (Get Messages): the
	// read-only secondary refuses it like any other write.
	Changes bool

	// Run serves the request.
	Run func(H, R) error
	// Err, when set, is the answer instead of running: an operation of
	// Azure's this server does not serve (501), still counted by name.
	Err error
}

// matches reports whether rt serves a request for res with method m and
// the given query, header and snapshot.
func (rt *Route[H, R]) matches(res Resource, m string, q url.Values, h http.Header, snapshot bool) bool {
	if rt.On&res == 0 || snapshot && !rt.Snapshot {
		return false
	}
	switch rt.Method {
	case "", m:
	case Read:
		if m != http.MethodGet && m != http.MethodHead {
			return false
		}
	default:
		return false
	}
	if rt.Restype != "" && q.Get("restype") != rt.Restype {
		return false
	}
	if rt.Comp != AnyComp && q.Get("comp") != rt.Comp {
		return false
	}
	for _, c := range rt.Headers {
		name, want, exact := strings.Cut(c, "=")
		if v := h.Get(name); v == "" || exact && !strings.EqualFold(v, want) {
			return false
		}
	}
	for _, c := range rt.Params {
		name, want, exact := strings.Cut(c, "=")
		if !q.Has(name) || exact && !strings.EqualFold(q.Get(name), want) {
			return false
		}
	}
	return true
}

// reads reports whether the operation changes nothing, the only kind the
// read-only secondary serves.
func (rt *Route[H, R]) reads(m string) bool {
	return (m == http.MethodGet || m == http.MethodHead) && !rt.Changes
}

// Validate checks a routing table: every row is named, no name is used
// twice (one operation, one row: a metric label or fault rule never
// stands for two), and every row matches something and does something.
func Validate[H, R any](routes []Route[H, R]) error {
	seen := make(map[string]bool, len(routes))
	for i, rt := range routes {
		switch {
		case rt.Name == "":
			return fmt.Errorf("route %d has no name", i)
		case seen[rt.Name]:
			return fmt.Errorf("route %d: %q names two routes", i, rt.Name)
		case rt.On == 0:
			return fmt.Errorf("route %q matches no resource", rt.Name)
		case (rt.Run == nil) == (rt.Err == nil):
			return fmt.Errorf("route %q must either run or answer an error", rt.Name)
		}
		seen[rt.Name] = true
	}
	return nil
}

// Names lists the operations of a routing table in its order.
func Names[H, R any](routes []Route[H, R]) []string {
	names := make([]string, len(routes))
	for i, rt := range routes {
		names[i] = rt.Name
	}
	return names
}
