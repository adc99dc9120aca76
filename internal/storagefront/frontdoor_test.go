package storagefront

import (
	"errors"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"github.com/cerulean-db/cerulean/internal/azauth"
	"github.com/cerulean-db/cerulean/internal/azerr"
	"github.com/cerulean-db/cerulean/internal/azhttp"
)

// A service of two resources, for the front door's own rules.
type fakeHandler struct{ ran []string }

type fakeRequest struct {
	path   string
	access azauth.Access
}

func (q *fakeRequest) Scope() (string, string)   { return q.path, "" }
func (q *fakeRequest) SetAccess(a azauth.Access) { q.access = a }

const (
	atRoot Resource = 1 << iota
	atThing
)

var errNotServed = azerr.ErrNotImplemented.WithMessage("not served")

func run(name string) func(*fakeHandler, *fakeRequest) error {
	return func(h *fakeHandler, _ *fakeRequest) error {
		h.ran = append(h.ran, name)
		return nil
	}
}

func fakeRoutes() []Route[*fakeHandler, *fakeRequest] {
	open := func(*http.Request, azauth.Access) error { return nil }
	return []Route[*fakeHandler, *fakeRequest]{
		{Name: "ListThings", On: atRoot, Method: http.MethodGet, Comp: "list", Authorize: open, Run: run("ListThings")},
		{Name: "CopyThingFromURL", On: atThing, Method: http.MethodPut, Headers: []string{"x-ms-copy-source", "x-ms-requires-sync=true"}, Authorize: open, Run: run("CopyThingFromURL")},
		{Name: "PutThing", On: atThing, Method: http.MethodPut, Authorize: open, Run: run("PutThing")},
		{Name: "GetThing", On: atThing, Method: Read, Snapshot: true, Authorize: open, Run: run("GetThing")},
		{Name: "PeekThing", On: atThing, Method: http.MethodGet, Comp: AnyComp, Params: []string{"peekonly=true"}, Authorize: open, Run: run("PeekThing")},
		{Name: "TakeThing", On: atThing, Method: http.MethodGet, Comp: AnyComp, Changes: true, Authorize: open, Run: run("TakeThing")},
		{Name: "GetThingStats", On: atRoot, Method: http.MethodGet, Restype: "service", Comp: "stats", Need: azauth.Need{Service: 'b', ResourceType: 's', Permission: 'r'}, Run: run("GetThingStats")},
		{Name: "SealThing", On: atThing, Method: http.MethodPut, Comp: "seal", Err: errNotServed},
	}
}

var errUnrouted = errors.New("unrouted")

func newFakeDoor(h *fakeHandler) *Door[*fakeHandler, *fakeRequest] {
	return New(Config[*fakeHandler, *fakeRequest]{
		Service: "blob", Routes: fakeRoutes(), Receiver: h,
		Accounts:          azauth.NewAccounts(azauth.Account{Name: "acct", Keys: [][]byte{[]byte("key")}}),
		WriteError:        azhttp.WriteError,
		SecondaryReadOnly: azerr.ErrInsufficientAccountPermissions,
		Parse: func(c Call) (*fakeRequest, Address, error) {
			_, rest, _ := strings.Cut(strings.TrimPrefix(c.R.URL.Path, "/"), "/")
			at := Address{Resource: atRoot, Snapshot: c.Query.Has("snapshot")}
			if rest != "" {
				at.Resource = atThing
			}
			return &fakeRequest{path: rest}, at, nil
		},
		Unrouted: func(Call, Address) error { return errUnrouted },
	})
}

// serve runs one anonymous request and reports the operation it was
// named as, what ran and the error dispatch returned.
func serve(t *testing.T, method, target string, header http.Header) (operation string, ran []string, err error) {
	t.Helper()
	h := &fakeHandler{}
	d := newFakeDoor(h)
	r := httptest.NewRequest(method, target, nil)
	for k, v := range header {
		r.Header[k] = v
	}
	info := &azhttp.RequestInfo{}
	err = d.dispatch(httptest.NewRecorder(), azhttp.WithRequestInfo(r, info))
	return info.Operation, h.ran, err
}

func TestRouting(t *testing.T) {
	for _, tc := range []struct {
		method, target string
		header         http.Header
		want           string // the operation named; "" when none
	}{
		{http.MethodGet, "/acct?comp=list", nil, "ListThings"},
		{http.MethodGet, "/acct?comp=list&restype=anything", nil, "ListThings"}, // an unset Restype matches any
		{http.MethodGet, "/acct?restype=service&comp=stats", nil, "GetThingStats"},
		{http.MethodGet, "/acct?restype=other&comp=stats", nil, ""}, // a set Restype must match
		{http.MethodPut, "/acct/t", http.Header{"X-Ms-Copy-Source": {"u"}, "X-Ms-Requires-Sync": {"TRUE"}}, "CopyThingFromURL"},
		{http.MethodPut, "/acct/t", http.Header{"X-Ms-Copy-Source": {"u"}, "X-Ms-Requires-Sync": {"false"}}, "PutThing"},
		{http.MethodPut, "/acct/t", http.Header{"X-Ms-Requires-Sync": {"true"}}, "PutThing"}, // every header must be there
		{http.MethodPut, "/acct/t?comp=other", nil, ""},                                      // an empty Comp means none
		{http.MethodHead, "/acct/t", nil, "GetThing"},                                        // Read is GET or HEAD
		{http.MethodGet, "/acct/t?comp=x&peekonly=True", nil, "PeekThing"},
		{http.MethodGet, "/acct/t?comp=x", nil, "TakeThing"},
		{http.MethodDelete, "/acct/t", nil, ""},
		{http.MethodHead, "/acct/t?snapshot=1", nil, "GetThing"},
		{http.MethodPut, "/acct/t?snapshot=1", nil, ""}, // only Snapshot rows serve a snapshot
		{http.MethodPut, "/acct/t?comp=seal", nil, "SealThing"},
		{http.MethodGet, "/nobody?comp=list", nil, ""}, // no such account
	} {
		got, _, _ := serve(t, tc.method, tc.target, tc.header)
		if got != tc.want {
			t.Errorf("%s %s %v: routed to %q, want %q", tc.method, tc.target, tc.header, got, tc.want)
		}
	}
}

func TestDispatch(t *testing.T) {
	// The operation is named before the caller is authenticated, and an
	// anonymous caller gets no further than its Need allows.
	op, ran, err := serve(t, http.MethodGet, "/acct?restype=service&comp=stats", nil)
	if op != "GetThingStats" || len(ran) != 0 || err == nil {
		t.Errorf("anonymous GetThingStats: named %q, ran %v, err %v; want named, refused", op, ran, err)
	}
	if _, ran, err := serve(t, http.MethodPut, "/acct/t", nil); err != nil || len(ran) != 1 || ran[0] != "PutThing" {
		t.Errorf("PutThing: ran %v, err %v", ran, err)
	}
	if op, ran, err := serve(t, http.MethodPut, "/acct/t?comp=seal", nil); op != "SealThing" || len(ran) != 0 || !errors.Is(err, errNotServed) {
		t.Errorf("SealThing: named %q, ran %v, err %v; want its error", op, ran, err)
	}
	if op, _, err := serve(t, http.MethodDelete, "/acct/t", nil); op != "" || !errors.Is(err, errUnrouted) {
		t.Errorf("DELETE: named %q, err %v; want the service's unrouted answer", op, err)
	}
	// The secondary serves reads only; a GET that changes state is none.
	for target, wantErr := range map[string]bool{"/acct-secondary/t": false, "/acct-secondary/t?comp=x": true} {
		_, _, err := serve(t, http.MethodGet, target, nil)
		if refused := errors.Is(err, azerr.ErrInsufficientAccountPermissions); refused != wantErr {
			t.Errorf("GET %s on the secondary: err %v, want refused %v", target, err, wantErr)
		}
	}
	if _, _, err := serve(t, http.MethodPut, "/acct-secondary/t", nil); !errors.Is(err, azerr.ErrInsufficientAccountPermissions) {
		t.Errorf("PUT on the secondary: err %v, want it refused", err)
	}
}

func TestValidate(t *testing.T) {
	if err := Validate(fakeRoutes()); err != nil {
		t.Fatalf("a valid table: %v", err)
	}
	for name, breakIt := range map[string]func(rs []Route[*fakeHandler, *fakeRequest]){
		"unnamed":     func(rs []Route[*fakeHandler, *fakeRequest]) { rs[1].Name = "" },
		"duplicate":   func(rs []Route[*fakeHandler, *fakeRequest]) { rs[2].Name = rs[0].Name },
		"nowhere":     func(rs []Route[*fakeHandler, *fakeRequest]) { rs[0].On = 0 },
		"no run":      func(rs []Route[*fakeHandler, *fakeRequest]) { rs[0].Run = nil },
		"run and err": func(rs []Route[*fakeHandler, *fakeRequest]) { rs[0].Err = errNotServed },
	} {
		rs := fakeRoutes()
		breakIt(rs)
		if err := Validate(rs); err == nil {
			t.Errorf("%s: Validate accepted the table", name)
		}
	}
}
