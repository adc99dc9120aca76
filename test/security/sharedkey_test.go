package security

import (
	"net/http"
	"testing"
	"time"

	"github.com/cerulean-db/cerulean/internal/testkit"
)

// TestSharedKeySchemes: every Storage service accepts Shared Key and
// Shared Key Lite signed with either form of the account, and the SDKs'
// own signing; a wrong key, another account's name or key are refused.
func TestSharedKeySchemes(t *testing.T) {
	t.Parallel()
	forEachProbe(t, func(t *testing.T, f *fixture, p probe) {
		n := p.setup(t, f)
		for _, scheme := range []keyScheme{sharedKey, sharedKeyLite} {
			name := map[keyScheme]string{sharedKey: "SharedKey", sharedKeyLite: "SharedKeyLite"}[scheme]
			wantOK(t, f.withKey(t, p.svc.name, p.read(n), scheme), name)
			refuses(t, f.signedAs(t, p.svc.name, p.read(n), scheme, f.env.Account, otherKey, time.Now()),
				"AuthenticationFailed", name+" with another account's key")
			refuses(t, f.signedAs(t, p.svc.name, p.read(n), scheme, otherAccount, otherKey, time.Now()),
				"AuthenticationFailed", name+" by another account")
			elsewhere := p.read(n)
			elsewhere.account = otherAccount
			refuses(t, f.signedAs(t, p.svc.name, elsewhere, scheme, f.env.Account, f.env.Key, time.Now()),
				"AuthenticationFailed", name+" by "+f.env.Account+" at "+otherAccount)
		}
		// The other account is served with its own key.
		listing := call{method: http.MethodGet, query: q("comp", "list")}
		if p.svc.name == "table" {
			listing = call{method: http.MethodGet, path: "Tables"}
		}
		listing.account = otherAccount
		wantOK(t, f.signedAs(t, p.svc.name, listing, sharedKey, otherAccount, otherKey, time.Now()), otherAccount+" with its own key")

		var sdk testkit.Signer
		switch p.svc.name {
		case "blob":
			sdk = testkit.BlobSharedKey(t, f.env.BlobURL, f.env.Account, f.env.Key)
		case "queue":
			sdk = testkit.QueueSharedKey(t, f.env.QueueURL, f.env.Account, f.env.Key)
		case "table":
			sdk = testkit.TableSharedKeyLite(t, f.env.TableURL, f.env.Account, f.env.Key)
		default:
			return
		}
		c := p.read(n)
		h := map[string]string{}
		for k, v := range c.header {
			h[k] = v
		}
		if p.svc.name == "table" {
			h["Accept"] = "application/json;odata=nometadata"
		}
		wantOK(t, sdk.Send(t, testkit.Request{Method: c.method, URL: c.url(f.serviceURL(p.svc.name), nil), Header: h}), "the SDK's signing")
	})
}

// TestSharedKeyReplay: a Shared Key signature covers the method, the
// resource, the signed headers and (but for Table and Lite, which sign
// only comp) the query; it does not carry over to a request that differs
// in any of them.
func TestSharedKeyReplay(t *testing.T) {
	t.Parallel()
	forEachProbe(t, func(t *testing.T, f *fixture, p probe) {
		n, other := p.setup(t, f), p.setup(t, f)
		for _, scheme := range []keyScheme{sharedKey, sharedKeyLite} {
			signed := f.rawRequest(t, p.svc.name, p.read(n))
			signSharedKey(signed, f.env.Account, f.env.Key, scheme, p.svc.name == "table", time.Now())
			replay := func(what string, c call, edit func(r *http.Request)) {
				t.Helper()
				r := f.rawRequest(t, p.svc.name, c)
				r.Header.Set("Authorization", signed.Header.Get("Authorization"))
				r.Header.Set("x-ms-date", signed.Header.Get("x-ms-date"))
				if edit != nil {
					edit(r)
				}
				refuses(t, do(t, r), "AuthenticationFailed", what)
			}
			del := p.read(n)
			del.method = http.MethodDelete
			if p.svc.name == "table" {
				del = entityCall(http.MethodDelete, true)(n)
			}
			if p.svc.name != "table" || scheme == sharedKey {
				// Table's Shared Key Lite signs only the date and the
				// resource: Azure documents no method in it.
				replay("signature of a GET on a DELETE", del, nil)
			}
			replay("signature on another container's object", p.read(other), nil)
			replay("signature with x-ms-date moved", p.read(n), func(r *http.Request) {
				r.Header.Set("x-ms-date", time.Now().Add(time.Second).UTC().Format(http.TimeFormat))
			})
			if p.svc.name == "table" {
				continue
			}
			replay("signature with a signed header added", p.read(n), func(r *http.Request) { r.Header.Set("x-ms-client-request-id", "x") })
			if scheme == sharedKey {
				more := p.read(n)
				more.query = q("timeout", "30")
				for k, v := range p.read(n).query {
					more.query[k] = v
				}
				replay("signature with a query parameter added", more, nil)
			}
		}
	})
}

// TestSharedKeyClockSkew: a Shared Key request is refused when the date
// it was signed at (x-ms-date, else Date) is more than 15 minutes from
// the server's clock either way, or missing. The margins are a minute, so
// the test does not depend on how fast it runs.
func TestSharedKeyClockSkew(t *testing.T) {
	t.Parallel()
	forEachProbe(t, func(t *testing.T, f *fixture, p probe) {
		n := p.setup(t, f)
		for _, scheme := range []keyScheme{sharedKey, sharedKeyLite} {
			at := func(d time.Duration) testkit.Response {
				return f.signedAs(t, p.svc.name, p.read(n), scheme, f.env.Account, f.env.Key, time.Now().Add(d))
			}
			wantOK(t, at(-14*time.Minute), "signed 14 minutes ago")
			wantOK(t, at(14*time.Minute), "signed 14 minutes ahead")
			refuses(t, at(-16*time.Minute), "AuthenticationFailed", "signed 16 minutes ago")
			refuses(t, at(16*time.Minute), "AuthenticationFailed", "signed 16 minutes ahead")
			refuses(t, at(-24*time.Hour), "AuthenticationFailed", "signed yesterday")
		}
		// Date stands in for x-ms-date; with neither there is no date.
		for _, d := range []time.Duration{0, -time.Hour} {
			r := f.rawRequest(t, p.svc.name, p.read(n))
			r.Header.Set("Date", time.Now().Add(d).UTC().Format(http.TimeFormat))
			signSharedKey(r, f.env.Account, f.env.Key, sharedKey, p.svc.name == "table", time.Time{})
			resp := do(t, r)
			if d == 0 {
				wantOK(t, resp, "Date header only")
				continue
			}
			refuses(t, resp, "AuthenticationFailed", "Date header an hour old")
		}
	})
}
