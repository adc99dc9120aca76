package security

import (
	"flag"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/cerulean-db/cerulean/internal/servertest"
	"github.com/cerulean-db/cerulean/internal/testkit"
)

// storageOp is one row of a Storage service's permission table: what an
// operation needs from an account SAS and from a service SAS, per Azure's
// "Create an account SAS" and "Create a service SAS".
type storageOp struct {
	name  string
	level byte // the account SAS resource type (srt) it needs: s, c or o
	// account and service are the permissions a SAS must carry: letter
	// sets separated by "|", any one of which is enough ("c|w"); a set of
	// several letters needs them all ("au"). "-" means no SAS of that
	// kind may perform the operation (403 AuthorizationFailure); for
	// service, "" means a service SAS cannot even be signed for the URL
	// (service-level operations).
	account, service string
	// containerSASOnly: a service SAS for one object is not for this
	// operation's kind of resource (a directory is not a file).
	containerSASOnly bool
	// prep readies the target with the account key; call is the request.
	prep func(t testing.TB, f *fixture, n *target)
	call func(n *target) call
}

// target names what one attempt works on: a fresh object in the
// operation's container, or a fresh container for container operations.
// prep may note what the call needs (a pop receipt, a lease id).
type target struct {
	container, object string
	note              string
}

// storageService is what the matrix needs to know of one service.
type storageService struct {
	name string
	ss   string // its account SAS service letter
	// accountLetters are the account SAS permissions it defines;
	// containerLetters and objectLetters the service SAS ones for a SAS
	// on the container (queue, table, share) and on one object ("" when
	// the service has no object-scoped SAS).
	accountLetters, containerLetters, objectLetters string
	// options start the server the matrix runs on.
	options []servertest.Option
	// createContainer makes the container the object operations run in.
	createContainer func(t testing.TB, f *fixture, name string)
	// serviceSAS signs a service SAS for n: for its object when object is
	// set, else for its container.
	serviceSAS func(f *fixture, n *target, object bool, sp string) sasValues
}

// objectPath is the path of n's object, for the services whose objects
// sit directly under the container (blob, file).
func objectPath(n *target) string { return n.container + "/" + n.object }

// createWithRestype is a storageService.createContainer that makes the
// container with a PUT naming its restype (blob containers, file shares).
func createWithRestype(service, restype string) func(t testing.TB, f *fixture, name string) {
	return func(t testing.TB, f *fixture, name string) {
		f.prepare(t, service, call{method: http.MethodPut, path: name, query: q("restype", restype)})
	}
}

// objectScopedSAS is a storageService.serviceSAS for a service whose SAS
// names either the container (signed resource containerSR) or one object
// in it (objectSR).
func objectScopedSAS(service, containerSR, objectSR string) func(f *fixture, n *target, object bool, sp string) sasValues {
	return func(f *fixture, n *target, object bool, sp string) sasValues {
		v := sasValues{service: service, resource: "/" + f.env.Account + "/" + n.container, sr: containerSR, permissions: sp}
		if object {
			v.resource += "/" + n.object
			v.sr = objectSR
		}
		return v
	}
}

// sasKind is one way of signing a SAS for the matrix.
type sasKind struct {
	name    string
	letters string
	sign    func(f *fixture, n *target, sp string) sasValues
	needs   string
}

// runMatrix checks every operation of ops against every permission letter
// of svc, with account SAS and service SAS alike: each operation succeeds
// with each set of letters that grants it, is refused with each single
// letter that does not, and is refused once any letter it cannot do
// without is taken away from the full set.
func runMatrix(t *testing.T, svc storageService, ops []storageOp) {
	f := newFixture(t, svc.options...)
	var attempts atomic.Int64
	t.Cleanup(func() { t.Logf("%s: %d operations, %d signed attempts", svc.name, len(ops), attempts.Load()) })
	for _, op := range ops {
		t.Run(op.name, func(t *testing.T) {
			t.Parallel()
			container := ""
			if op.level == 'o' {
				container = f.name("m")
				svc.createContainer(t, f, container)
			}
			fresh := func() *target {
				n := &target{container: container}
				switch op.level {
				case 'o':
					n.object = f.name("o")
				case 'c':
					n.container = f.name("c")
				}
				op.prep(t, f, n)
				return n
			}
			kinds := []sasKind{{
				name: "account SAS", letters: svc.accountLetters, needs: op.account,
				sign: func(_ *fixture, _ *target, sp string) sasValues {
					return sasValues{services: "bqtf", resourceTypes: "sco", permissions: sp}
				},
			}}
			if op.service != "" && op.level != 's' {
				kinds = append(kinds, sasKind{
					name: "service SAS on the container", letters: svc.containerLetters, needs: op.service,
					sign: func(f *fixture, n *target, sp string) sasValues { return svc.serviceSAS(f, n, false, sp) },
				})
				if op.level == 'o' && svc.objectLetters != "" && !op.containerSASOnly {
					kinds = append(kinds, sasKind{
						name: "service SAS on the object", letters: svc.objectLetters, needs: op.service,
						sign: func(f *fixture, n *target, sp string) sasValues { return svc.serviceSAS(f, n, true, sp) },
					})
				}
			}
			shared := fresh()
			for _, k := range kinds {
				attempt := func(sp string, allowed bool, refusal string) {
					t.Helper()
					attempts.Add(1)
					n := shared
					if allowed {
						n = fresh()
					}
					v := k.sign(f, n, sp)
					v.expiry = f.clock.Now().Add(time.Hour)
					resp := f.withSAS(t, svc.name, op.call(n), v.sign(f.env.Account, f.env.Key))
					what := k.name + " sp=" + sp
					if allowed {
						if resp.StatusCode/100 != 2 {
							t.Errorf("%s: got HTTP %d %q, want success\n%s", what, resp.StatusCode, resp.Code, resp.Body)
						}
						return
					}
					resp.Check(t, http.StatusForbidden, refusal, what)
				}
				if k.needs == "-" {
					attempt(k.letters, false, "AuthorizationFailure")
					continue
				}
				alts := strings.Split(k.needs, "|")
				for _, alt := range alts {
					attempt(alt, true, "")
				}
				for _, l := range k.letters {
					if !contains(alts, string(l)) {
						attempt(string(l), false, "AuthorizationPermissionMismatch")
					}
				}
				for _, l := range uniqueLetters(alts) {
					rest := strings.ReplaceAll(k.letters, string(l), "")
					attempt(rest, grantsWithout(alts, l), "AuthorizationPermissionMismatch")
				}
				if *pairs {
					for i, a := range k.letters {
						for _, b := range k.letters[i+1:] {
							sp := string(a) + string(b)
							attempt(sp, grantedBy(alts, sp), "AuthorizationPermissionMismatch")
						}
					}
				}
			}
			if op.account != "-" {
				// The account SAS must also be for this service and this
				// resource type.
				alt := strings.Split(op.account, "|")[0]
				check := func(v sasValues, code, what string) {
					t.Helper()
					v.permissions, v.expiry = alt, f.clock.Now().Add(time.Hour)
					resp := f.withSAS(t, svc.name, op.call(shared), v.sign(f.env.Account, f.env.Key))
					resp.Check(t, http.StatusForbidden, code, what)
				}
				check(sasValues{services: strings.ReplaceAll("bqtf", svc.ss, ""), resourceTypes: "sco"},
					"AuthorizationServiceMismatch", "account SAS without ss="+svc.ss)
				check(sasValues{services: "bqtf", resourceTypes: strings.ReplaceAll("sco", string(op.level), "")},
					"AuthorizationResourceTypeMismatch", "account SAS without srt="+string(op.level))
			}
		})
	}
}

// pairs runs the long form of the matrix: every pair of letters against
// every operation, which finds letters that grant together what neither
// grants alone.
var pairs = flag.Bool("security.pairs", false, "also try every pair of SAS permission letters against every operation")

// grantedBy reports whether the letters sp include all of some letter set
// of alts.
func grantedBy(alts []string, sp string) bool {
	for _, a := range alts {
		if strings.Trim(a, sp) == "" {
			return true
		}
	}
	return false
}

func contains(set []string, s string) bool {
	for _, x := range set {
		if x == s {
			return true
		}
	}
	return false
}

func uniqueLetters(alts []string) []rune {
	var out []rune
	for _, a := range alts {
		for _, c := range a {
			if !strings.ContainsRune(string(out), c) {
				out = append(out, c)
			}
		}
	}
	return out
}

// grantsWithout reports whether some letter set of alts does not need l.
func grantsWithout(alts []string, l rune) bool {
	for _, a := range alts {
		if !strings.ContainsRune(a, l) {
			return true
		}
	}
	return false
}

// refuses is a shorthand for checks that expect a 403 with code.
func refuses(t testing.TB, resp testkit.Response, code, what string) {
	t.Helper()
	resp.Check(t, http.StatusForbidden, code, what)
}
