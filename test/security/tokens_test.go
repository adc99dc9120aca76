package security

import (
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"github.com/cerulean-db/cerulean/internal/servertest"
	"github.com/cerulean-db/cerulean/internal/testkit"
)

// probe is one service's representative object and what the token tests
// do to it: read needs r, write needs w (a for queue messages and table
// entities).
type probe struct {
	svc         storageService
	writeLetter string
	// object makes an object in container with the account key.
	object func(t testing.TB, f *fixture, n *target)
	read   func(n *target) call
	write  func(n *target) call
	// acl is the Set ACL request for the container, whose body is the
	// SignedIdentifiers document.
	acl func(n *target, body string) call
}

var probes = []probe{
	{svc: blobService, writeLetter: "w", object: prepBlob, read: blobCall(http.MethodGet, "", nil, nil),
		write: blobCall(http.MethodPut, "metadata", map[string]string{"x-ms-meta-k": "v"}, nil),
		acl: func(n *target, body string) call {
			return call{method: http.MethodPut, path: n.container, query: q("restype", "container", "comp", "acl"), body: []byte(body)}
		}},
	{svc: queueService, writeLetter: "a", object: prepMessage,
		read: func(n *target) call {
			return call{method: http.MethodGet, path: n.container + "/messages", query: q("peekonly", "true")}
		},
		write: func(n *target) call {
			return call{method: http.MethodPost, path: n.container + "/messages", body: messageBody}
		},
		acl: func(n *target, body string) call {
			return call{method: http.MethodPut, path: n.container, query: q("comp", "acl"), body: []byte(body)}
		}},
	{svc: tableService, writeLetter: "a", object: prepEntity, read: entityCall(http.MethodGet, false),
		write: func(n *target) call {
			return call{method: http.MethodPost, path: n.container, header: jsonHeader,
				body: []byte(`{"PartitionKey":"p","RowKey":"` + n.object + `-new","v":1}`)}
		},
		acl: func(n *target, body string) call {
			return call{method: http.MethodPut, path: n.container, query: q("comp", "acl"), body: []byte(body)}
		}},
	{svc: fileService, writeLetter: "w", object: prepFile, read: fileCall(http.MethodGet, "", nil, nil),
		write: fileCall(http.MethodPut, "metadata", map[string]string{"x-ms-meta-k": "v"}, nil),
		acl: func(n *target, body string) call {
			return call{method: http.MethodPut, path: n.container, query: q("restype", "share", "comp", "acl"), body: []byte(body)}
		}},
}

// setup makes a container with one object in it.
func (p probe) setup(t testing.TB, f *fixture) *target {
	n := &target{container: f.name("t"), object: f.name("o")}
	p.svc.createContainer(t, f, n.container)
	p.object(t, f, n)
	return n
}

// sasFor is a container-scoped service SAS for n with permissions sp,
// valid for an hour from the server's clock.
func (p probe) sasFor(f *fixture, n *target, sp string) sasValues {
	v := p.svc.serviceSAS(f, n, false, sp)
	v.expiry = f.clock.Now().Add(time.Hour)
	return v
}

// forEachProbe runs fn for every Storage service on one server.
func forEachProbe(t *testing.T, fn func(t *testing.T, f *fixture, p probe)) {
	f := newFixture(t)
	for _, p := range probes {
		t.Run(p.svc.name, func(t *testing.T) {
			t.Parallel()
			fn(t, f, p)
		})
	}
}

func (f *fixture) sasRead(t testing.TB, p probe, n *target, v sasValues) testkit.Response {
	t.Helper()
	return f.withSAS(t, p.svc.name, p.read(n), v.sign(f.env.Account, f.env.Key))
}

func wantOK(t testing.TB, resp testkit.Response, what string) {
	t.Helper()
	if resp.StatusCode/100 != 2 {
		t.Errorf("%s: got HTTP %d %q, want success\n%s", what, resp.StatusCode, resp.Code, resp.Body)
	}
}

// TestSASTimeWindow: a SAS is valid from st (inclusive) to se, by the
// server's clock, with no tolerance either side; se must follow st.
func TestSASTimeWindow(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	for _, p := range probes {
		t.Run(p.svc.name, func(t *testing.T) {
			// Not parallel: the clock moves.
			n := p.setup(t, f)
			now := f.clock.Now()

			v := p.sasFor(f, n, "r")
			wantOK(t, f.sasRead(t, p, n, v), "valid SAS")

			v.expiry = now.Add(-time.Second)
			refuses(t, f.sasRead(t, p, n, v), "AuthenticationFailed", "expired SAS")

			early := p.sasFor(f, n, "r")
			early.start = now.Add(time.Minute)
			refuses(t, f.sasRead(t, p, n, early), "AuthenticationFailed", "SAS whose start is a minute ahead")

			backwards := p.sasFor(f, n, "r")
			backwards.start, backwards.expiry = now.Add(-time.Minute), now.Add(-2*time.Minute)
			refuses(t, f.sasRead(t, p, n, backwards), "AuthenticationFailed", "SAS whose expiry precedes its start")

			f.clock.Advance(time.Minute)
			wantOK(t, f.sasRead(t, p, n, early), "SAS once its start has come")
			f.clock.Advance(2 * time.Hour)
			refuses(t, f.sasRead(t, p, n, early), "AuthenticationFailed", "SAS once its expiry has passed")
		})
	}
}

// TestSASVersion: sv is mandatory and must be a service version; a SAS
// signed for one version and presented with another does not verify.
func TestSASVersion(t *testing.T) {
	t.Parallel()
	forEachProbe(t, func(t *testing.T, f *fixture, p probe) {
		n := p.setup(t, f)
		for _, sv := range []string{"2015-4-5", "latest", "2008-01-01"} {
			v := p.sasFor(f, n, "r")
			v.version = sv
			refuses(t, f.sasRead(t, p, n, v), "AuthenticationFailed", "sv="+sv)
		}
		v := p.sasFor(f, n, "r")
		sas := v.sign(f.env.Account, f.env.Key)
		sas.Del("sv")
		refuses(t, f.withSAS(t, p.svc.name, p.read(n), sas), "AuthenticationFailed", "SAS without sv")
		sas = v.sign(f.env.Account, f.env.Key)
		sas.Set("sv", "2020-12-06")
		refuses(t, f.withSAS(t, p.svc.name, p.read(n), sas), "AuthenticationFailed", "SAS signed for "+sasVersion+" sent as 2020-12-06")
	})
}

// TestSASProtocolAndIP: spr=https refuses plain HTTP; sip admits the
// addresses it names (one, or an inclusive range) and refuses the rest.
// The test's requests come from 127.0.0.1.
func TestSASProtocolAndIP(t *testing.T) {
	t.Parallel()
	forEachProbe(t, func(t *testing.T, f *fixture, p probe) {
		n := p.setup(t, f)
		cases := []struct {
			spr, sip string
			code     string // "" allowed
		}{
			{spr: "https", code: "AuthorizationProtocolMismatch"},
			{spr: "https,http"},
			{sip: "127.0.0.1"},
			{sip: "127.0.0.0-127.0.0.255"},
			{sip: "127.0.0.1-127.0.0.1"},
			{sip: "10.0.0.1", code: "AuthorizationSourceIPMismatch"},
			{sip: "10.0.0.0-10.255.255.255", code: "AuthorizationSourceIPMismatch"},
			{sip: "127.0.0.2-127.0.0.9", code: "AuthorizationSourceIPMismatch"},
			{sip: "::1", code: "AuthorizationSourceIPMismatch"},
			{sip: "127.0.0", code: "AuthenticationFailed"},
		}
		for _, c := range cases {
			for _, account := range []bool{false, true} {
				v := p.sasFor(f, n, "r")
				if account {
					v = sasValues{services: p.svc.ss, resourceTypes: "o", permissions: "r", expiry: v.expiry}
				}
				v.protocol, v.ip = c.spr, c.sip
				what := "spr=" + c.spr + " sip=" + c.sip
				if account {
					what = "account SAS " + what
				}
				resp := f.sasRead(t, p, n, v)
				if c.code == "" {
					wantOK(t, resp, what)
				} else {
					refuses(t, resp, c.code, what)
				}
			}
		}
	})
}

// TestSASTampering: changing, adding or removing any signed field after
// signing breaks the signature (AuthenticationFailed), even when the change
// would only narrow the grant.
func TestSASTampering(t *testing.T) {
	t.Parallel()
	forEachProbe(t, func(t *testing.T, f *fixture, p probe) {
		n := p.setup(t, f)
		service := p.sasFor(f, n, "r")
		service.start = f.clock.Now().Add(-time.Minute)
		account := sasValues{services: p.svc.ss, resourceTypes: "sco", permissions: "r", start: service.start, expiry: service.expiry}
		edits := map[string]func(url.Values){
			"sp widened":    func(q url.Values) { q.Set("sp", "r"+p.writeLetter) },
			"sp narrowed":   func(q url.Values) { q.Set("sp", "r") },
			"se extended":   func(q url.Values) { q.Set("se", service.expiry.Add(time.Hour).UTC().Format(sasTime)) },
			"st moved":      func(q url.Values) { q.Set("st", service.start.Add(-time.Hour).UTC().Format(sasTime)) },
			"st dropped":    func(q url.Values) { q.Del("st") },
			"sip added":     func(q url.Values) { q.Set("sip", "127.0.0.1") },
			"spr added":     func(q url.Values) { q.Set("spr", "https,http") },
			"sig altered":   func(q url.Values) { q.Set("sig", flipFirst(q.Get("sig"))) },
			"sig truncated": func(q url.Values) { q.Set("sig", q.Get("sig")[:20]) },
		}
		for name, edit := range edits {
			for _, v := range []sasValues{service, account} {
				kind := "service SAS"
				if v.services != "" {
					kind = "account SAS"
				}
				v.permissions = "r" + p.writeLetter
				if name == "sp widened" {
					v.permissions = "r"
				}
				sas := v.sign(f.env.Account, f.env.Key)
				edit(sas)
				refuses(t, f.withSAS(t, p.svc.name, p.read(n), sas), "AuthenticationFailed", kind+" with "+name)
			}
		}
		// Fields only one kind signs.
		sas := account.sign(f.env.Account, f.env.Key)
		sas.Set("ss", "bqtf")
		refuses(t, f.withSAS(t, p.svc.name, p.read(n), sas), "AuthenticationFailed", "account SAS with ss widened")
		sas = account.sign(f.env.Account, f.env.Key)
		sas.Set("srt", "o")
		refuses(t, f.withSAS(t, p.svc.name, p.read(n), sas), "AuthenticationFailed", "account SAS with srt narrowed")
		switch p.svc.name {
		case "blob", "file":
			sas = p.svc.serviceSAS(f, n, true, "r").withExpiry(service.expiry).sign(f.env.Account, f.env.Key)
			sas.Set("sr", map[string]string{"blob": "c", "file": "s"}[p.svc.name])
			refuses(t, f.withSAS(t, p.svc.name, p.read(n), sas), "AuthenticationFailed", "object SAS with sr widened to the container")
		case "table":
			sas = service.sign(f.env.Account, f.env.Key)
			sas.Set("epk", "p")
			refuses(t, f.withSAS(t, p.svc.name, p.read(n), sas), "AuthenticationFailed", "table SAS with a partition bound added")
		}
	})
}

func (v sasValues) withExpiry(t time.Time) sasValues {
	v.expiry = t
	return v
}

func flipFirst(s string) string {
	if strings.HasPrefix(s, "A") {
		return "B" + s[1:]
	}
	return "A" + s[1:]
}

// TestSASReplay: a SAS signed for one resource does not open another: not
// another container or object, not the same name under another service,
// not another account; and a SAS signed by another account's key does not
// verify here.
func TestSASReplay(t *testing.T) {
	t.Parallel()
	forEachProbe(t, func(t *testing.T, f *fixture, p probe) {
		n, other := p.setup(t, f), p.setup(t, f)
		v := p.sasFor(f, n, "r")
		sas := v.sign(f.env.Account, f.env.Key)
		wantOK(t, f.withSAS(t, p.svc.name, p.read(n), sas), "SAS on its own resource")

		moved := *other
		code := "AuthenticationFailed"
		if p.svc.name == "table" {
			// tn names the table: another table's URL is refused before
			// the signature is checked.
			code = "AuthorizationFailure"
		}
		refuses(t, f.withSAS(t, p.svc.name, p.read(&moved), sas), code, "container SAS on another container")

		if p.svc.objectLetters != "" {
			obj := p.svc.serviceSAS(f, n, true, "r").withExpiry(v.expiry).sign(f.env.Account, f.env.Key)
			wantOK(t, f.withSAS(t, p.svc.name, p.read(n), obj), "object SAS on its own object")
			sibling := &target{container: n.container, object: f.name("o")}
			p.object(t, f, sibling)
			refuses(t, f.withSAS(t, p.svc.name, p.read(sibling), obj), "AuthenticationFailed", "object SAS on another object of the container")
		}

		// The same names under the other Storage services.
		for _, q := range probes {
			if q.svc.name == p.svc.name {
				continue
			}
			twin := &target{container: strings.ToLower(n.container), object: n.object}
			q.svc.createContainer(t, f, twin.container)
			q.object(t, f, twin)
			resp := f.withSAS(t, q.svc.name, q.read(twin), sas)
			if q.svc.name == "table" {
				refuses(t, resp, "AuthenticationFailed", p.svc.name+" SAS on a table of the same name")
				continue
			}
			refuses(t, resp, "AuthenticationFailed", p.svc.name+" SAS on a "+q.svc.name+" resource of the same name")
		}

		// Another account: the canonical resource names the account, and
		// each account has its own key.
		elsewhere := p.read(n)
		elsewhere.account = otherAccount
		resp := f.withSAS(t, p.svc.name, elsewhere, sas)
		if resp.StatusCode/100 == 2 || resp.StatusCode != http.StatusForbidden {
			t.Errorf("SAS of %s on %s: got HTTP %d %q, want 403", f.env.Account, otherAccount, resp.StatusCode, resp.Code)
		}
		foreign := v.sign(f.env.Account, otherKey)
		refuses(t, f.withSAS(t, p.svc.name, p.read(n), foreign), "AuthenticationFailed", "SAS signed with another account's key")
	})
}

// TestSASOverHTTPS: over HTTPS a SAS with spr=https is served, and so is
// one with spr=https,http, on every Storage service; the same SAS over
// plain HTTP is refused (see TestSASProtocolAndIP).
func TestSASOverHTTPS(t *testing.T) {
	t.Parallel()
	f := newFixture(t, servertest.WithStorageTLS())
	for _, p := range probes {
		n := p.setup(t, f)
		for _, spr := range []string{"https", "https,http"} {
			for _, account := range []bool{false, true} {
				v := p.sasFor(f, n, "r")
				if account {
					v = sasValues{services: p.svc.ss, resourceTypes: "o", permissions: "r", expiry: v.expiry}
				}
				v.protocol = spr
				wantOK(t, f.sasRead(t, p, n, v), p.svc.name+" spr="+spr+" over HTTPS")
			}
		}
	}
}
