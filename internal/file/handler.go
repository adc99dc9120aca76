package file

import (
	"context"
	"net/http"
	"net/url"
	"strings"
	"unicode/utf8"

	"github.com/cerulean-db/cerulean/internal/azauth"
	"github.com/cerulean-db/cerulean/internal/azerr"
	"github.com/cerulean-db/cerulean/internal/azhttp"
	"github.com/cerulean-db/cerulean/internal/storagefront"
	"github.com/cerulean-db/cerulean/internal/svcprops"
)

// handler serves the File REST API over a Service (the model SMB shares):
// a method per operation parses, calls the Service once and writes,
// behind the front door (storagefront).
type handler struct {
	svc   *Service
	auth  *azauth.Authenticator // also checks a copy source's SAS
	props *svcprops.Store       // service properties, which only the wire reads
}

// NewHandler returns the File service's HTTP handler over svc: its front
// door over the routing table, wrapped in the plumbing every service
// shares (request ids, versions, CORS, logging).
func NewHandler(svc *Service) http.Handler {
	h := &handler{svc: svc}
	door := storagefront.New(storagefront.Config[*handler, *request]{
		Service: "file", Routes: routes, Receiver: h, Parse: parseRequest, Unrouted: unrouted,
		CheckNames: func(q *request) error { return checkNames(q.share, q.path) },
		Accounts:   svc.accounts, Now: svc.now, Log: svc.log, WriteError: azhttp.WriteError,
		Store: svc.store, PropsKey: func(acct string) []byte { return servicePropsKey(acct) },
		ACL:       storagefront.ACLFrom(sharesOf(svc), func(sh *Share) []azauth.SignedIdentifier { return sh.ACL }),
		Anonymous: storagefront.AskCredentials[*handler, *request],
	})
	h.auth, h.props = door.Auth, door.Props
	return door.Handler()
}

// request is one parsed call.
type request struct {
	w                 http.ResponseWriter
	r                 *http.Request
	q                 url.Values
	acct, share, path string
	// snapshot is ?sharesnapshot= in SnapshotLayout, "" for the live share.
	snapshot string
	access   azauth.Access // who the request proved to be
}

func (q *request) ctx() context.Context { return q.r.Context() }

func (q *request) Scope() (string, string) { return q.share, q.path }

func (q *request) SetAccess(a azauth.Access) { q.access = a }

// ns is the share a read addresses: the live share or its snapshot.
func (q *request) ns() string {
	if q.snapshot == "" {
		return q.share
	}
	return SnapshotNamespace(q.share, q.snapshot)
}

// What a path addresses: the SDKs send restype=share or =directory, and
// no restype for a file or for the share's root directory.
const (
	atService storagefront.Resource = 1 << iota
	atShare
	atDirectory
	atFile
	atRoot
)

// parseRequest splits the path, parses the share snapshot a request
// names (?sharesnapshot=) and classifies what it addresses.
func parseRequest(c storagefront.Call) (*request, storagefront.Address, error) {
	q := &request{w: c.W, r: c.R, q: c.Query, acct: c.Acct}
	_, q.share, q.path = splitPath(c.R.URL.Path)
	q.path = trailingDots(q.path, c.R.Header.Get("X-Ms-Allow-Trailing-Dot"))
	var at storagefront.Address
	// Snapshot Share ignores sharesnapshot, parseable or not, and
	// snapshots the live share: the azfile recording
	// TestShareCreateSnapshotNegativeSnapshotOfSnapshot answers 201 to
	// both a snapshot's URL and "2023-03-31 20:00:00 +0000 UTC".
	snapshotShare := c.R.Method == http.MethodPut && q.q.Get("restype") == "share" && q.q.Get("comp") == "snapshot"
	if q.q.Has("sharesnapshot") && q.share != "" && !snapshotShare {
		v := q.q.Get("sharesnapshot")
		snap, ok := ParseSnapshot(v)
		if !ok {
			return nil, at, azerr.InvalidQueryParameterValue("sharesnapshot", v, "")
		}
		q.snapshot, at.Snapshot = snap, true
	}
	switch restype := q.q.Get("restype"); {
	case q.share == "" && q.q.Get("comp") == "userdelegationkey":
		return nil, at, notSupported("Get User Delegation Key")
	case q.share == "":
		at.Resource = atService
	case restype == "share":
		if q.path == "" {
			at.Resource = atShare
		}
	case restype == "directory":
		at.Resource = atDirectory
	case (restype == "symboliclink" || restype == "hardlink") && q.path != "":
		at.Resource = atFile
	case restype == "" && q.path != "":
		at.Resource = atFile
	case restype == "":
		at.Resource = atRoot
	}
	return q, at, nil
}

func notSupported(what string) error {
	return azerr.ErrNotImplemented.WithMessage("%s is not supported by this server yet.", what)
}

// unrouted answers a request no route serves. A share snapshot is
// read-only: a write answers ShareSnapshotOperationNotSupported.
func unrouted(c storagefront.Call, at storagefront.Address) error {
	m, restype, comp := c.R.Method, c.Query.Get("restype"), c.Query.Get("comp")
	switch {
	case !at.Snapshot:
		return azerr.UnroutedOperation(m, restype, comp)
	case m != http.MethodGet && m != http.MethodHead:
		return azerr.ErrShareSnapshotOperationNotSupported
	}
	return azerr.ErrNotImplemented.WithMessage("This operation (restype=%q comp=%q) on a share snapshot is not supported by this server yet.", restype, comp)
}

func need(resourceType, permission byte) azauth.Need {
	return azauth.Need{Service: 'f', ResourceType: resourceType, Permission: permission}
}

// splitPath splits a path-style URL path into account, share and the path
// of a directory or file within it (without a trailing slash).
func splitPath(p string) (acct, share, path string) {
	acct, share, path = storagefront.SplitPath(p)
	return acct, share, strings.TrimSuffix(path, "/")
}

// trailingDots applies Azure's rule for names ending in dots: as on
// Windows, each element of a path loses its trailing dots unless the
// request allows them (x-ms-allow-trailing-dot: true for the path it
// addresses, x-ms-source-allow-trailing-dot: true for a source URL).
// allow is that header's value.
func trailingDots(path, allow string) string {
	if strings.EqualFold(strings.TrimSpace(allow), "true") || !strings.Contains(path, ".") {
		return path
	}
	parts := strings.Split(path, "/")
	for i, p := range parts {
		parts[i] = strings.TrimRight(p, ".")
	}
	return strings.Join(parts, "/")
}

// checkNames applies Azure's naming rules for shares, directories and
// files: share names as container names, paths as CheckPath says.
func checkNames(share, path string) error {
	if share != "" && !storagefront.ValidName(share) {
		if n := len(share); n < 3 || n > 63 {
			return azerr.ErrOutOfRangeInput.WithMessage("The specified resource name length is not within the permissible limits.")
		}
		return azerr.ErrInvalidResourceName
	}
	if path == "" {
		return nil
	}
	return CheckPath(path)
}

// CheckPath applies Azure's naming rules for the path of a directory or
// file within a share ("/"-separated): elements of 1 to 255 characters,
// the whole path at most 2048, none of the characters Windows forbids.
// SMB names follow the same rules, so that whatever one protocol creates
// the other can reach.
func CheckPath(path string) error {
	if utf8.RuneCountInString(path) > 2048 {
		return azerr.ErrOutOfRangeInput.WithMessage("The specified resource name length is not within the permissible limits.")
	}
	for _, part := range strings.Split(path, "/") {
		if part == "" || part == "." || part == ".." || utf8.RuneCountInString(part) > 255 ||
			strings.ContainsAny(part, "\"\\:|<>*?") || strings.ContainsFunc(part, func(r rune) bool { return r < 0x20 }) {
			return azerr.ErrInvalidResourceName
		}
	}
	return nil
}
