package security

import (
	"net/http"
	"strings"
	"testing"
	"time"
)

// policy is one stored access policy; zero fields are left out.
type policy struct {
	id            string
	start, expiry time.Time
	permissions   string
}

func aclBody(policies ...policy) string {
	var b strings.Builder
	b.WriteString(`<?xml version="1.0" encoding="utf-8"?><SignedIdentifiers>`)
	for _, p := range policies {
		b.WriteString("<SignedIdentifier><Id>" + p.id + "</Id><AccessPolicy>")
		if !p.start.IsZero() {
			b.WriteString("<Start>" + p.start.UTC().Format(sasTime) + "</Start>")
		}
		if !p.expiry.IsZero() {
			b.WriteString("<Expiry>" + p.expiry.UTC().Format(sasTime) + "</Expiry>")
		}
		if p.permissions != "" {
			b.WriteString("<Permission>" + p.permissions + "</Permission>")
		}
		b.WriteString("</AccessPolicy></SignedIdentifier>")
	}
	b.WriteString("</SignedIdentifiers>")
	return b.String()
}

// TestStoredAccessPolicies: a service SAS naming a stored access policy
// (si) takes its start, expiry and permissions from the policy; a field
// given by both is refused; the policy's letters bound what the SAS may
// do; deleting the policy or letting it expire revokes every SAS naming
// it; a policy of one container means nothing on another; an account SAS
// cannot name a policy.
func TestStoredAccessPolicies(t *testing.T) {
	t.Parallel()
	for _, p := range probes {
		t.Run(p.svc.name, func(t *testing.T) {
			t.Parallel()
			f := newFixture(t)
			n, other := p.setup(t, f), p.setup(t, f)
			now := f.clock.Now()
			f.prepare(t, p.svc.name, p.acl(n, aclBody(
				policy{id: "full", expiry: now.Add(30 * time.Minute), permissions: "r"},
				policy{id: "noperms", expiry: now.Add(30 * time.Minute)},
				policy{id: "noexpiry", permissions: "r"},
				policy{id: "later", start: now.Add(10 * time.Minute), expiry: now.Add(time.Hour), permissions: "r"},
			)))
			si := func(id, sp string, expiry time.Time) sasValues {
				v := p.svc.serviceSAS(f, n, false, sp)
				v.identifier, v.expiry = id, expiry
				return v
			}
			// read answers "ok" for a success, else the error code.
			read := func(v sasValues, target *target) string {
				r := f.withSAS(t, p.svc.name, p.read(target), v.sign(f.env.Account, f.env.Key))
				if r.StatusCode/100 == 2 {
					return "ok"
				}
				return r.Code
			}
			expect := func(what string, v sasValues, want string) {
				t.Helper()
				if got := read(v, n); got != want {
					t.Errorf("%s: got %q, want %q", what, got, want)
				}
			}
			expect("policy supplies everything", si("full", "", time.Time{}), "ok")
			expect("policy and SAS both give sp", si("full", "r", time.Time{}), "AuthenticationFailed")
			expect("policy and SAS both give se", si("full", "", now.Add(time.Hour)), "AuthenticationFailed")
			expect("SAS gives the sp the policy leaves out", si("noperms", "r", time.Time{}), "ok")
			expect("SAS gives the se the policy leaves out", si("noexpiry", "", now.Add(time.Hour)), "ok")
			expect("nobody gives se", si("noexpiry", "", time.Time{}), "AuthenticationFailed")
			expect("nobody gives sp", si("noperms", "", time.Time{}), "AuthenticationFailed")
			expect("unknown identifier", si("nosuch", "", time.Time{}), "AuthenticationFailed")
			expect("identifiers are case-sensitive", si("FULL", "", time.Time{}), "AuthenticationFailed")
			expect("policy not started yet", si("later", "", time.Time{}), "AuthenticationFailed")

			// The policy's letters bound the SAS.
			full := si("full", "", time.Time{})
			refuses(t, f.withSAS(t, p.svc.name, p.write(n), full.sign(f.env.Account, f.env.Key)), "AuthorizationPermissionMismatch", "write under a read policy")

			// Another container's SAS cannot borrow this container's policy.
			elsewhere := p.svc.serviceSAS(f, other, false, "")
			elsewhere.identifier = "full"
			if got := read(elsewhere, other); got != "AuthenticationFailed" {
				t.Errorf("policy of another container: got %q, want AuthenticationFailed", got)
			}

			// An account SAS names no policy.
			account := sasValues{services: p.svc.ss, resourceTypes: "sco", permissions: "r", expiry: now.Add(time.Hour), identifier: "full"}
			expectAccount := f.withSAS(t, p.svc.name, p.read(n), account.sign(f.env.Account, f.env.Key))
			refuses(t, expectAccount, "AuthenticationFailed", "account SAS with si")

			// The clock moves the window of the policy, not of the SAS.
			f.clock.Advance(15 * time.Minute)
			expect("policy started", si("later", "", time.Time{}), "ok")
			f.clock.Advance(20 * time.Minute)
			expect("policy expired", si("full", "", time.Time{}), "AuthenticationFailed")

			// Revocation: rewriting the ACL without the policy.
			expect("before revocation", si("noexpiry", "", f.clock.Now().Add(time.Hour)), "ok")
			f.prepare(t, p.svc.name, p.acl(n, aclBody()))
			expect("after revocation", si("noexpiry", "", f.clock.Now().Add(time.Hour)), "AuthenticationFailed")
		})
	}
}

// TestUserDelegationSAS: this server has no Entra ID, so it issues no
// user delegation key and refuses a SAS signed with one, as Azure refuses
// a user delegation SAS it cannot verify.
func TestUserDelegationSAS(t *testing.T) {
	t.Parallel()
	f := newFixture(t)
	n := probes[0].setup(t, f)
	now := f.clock.Now()
	v := blobService.serviceSAS(f, n, false, "r")
	v.expiry = now.Add(time.Hour)
	sas := v.sign(f.env.Account, f.env.Key)
	for k, val := range map[string]string{
		"skoid": "00000000-0000-0000-0000-000000000001", "sktid": "00000000-0000-0000-0000-000000000002",
		"skt": now.Add(-time.Minute).UTC().Format(sasTime), "ske": now.Add(time.Hour).UTC().Format(sasTime),
		"sks": "b", "skv": sasVersion,
	} {
		sas.Set(k, val)
	}
	refuses(t, f.withSAS(t, "blob", probes[0].read(n), sas), "AuthenticationFailed", "user delegation SAS")

	keyRequest := call{method: http.MethodPost, query: q("restype", "service", "comp", "userdelegationkey"),
		body: []byte(`<?xml version="1.0" encoding="utf-8"?><KeyInfo><Start>` + now.UTC().Format(sasTime) + `</Start><Expiry>` +
			now.Add(time.Hour).UTC().Format(sasTime) + `</Expiry></KeyInfo>`)}
	refuses(t, f.withKey(t, "blob", keyRequest, sharedKey), "AuthenticationFailed", "Get User Delegation Key with Shared Key")
}
