package security

import (
	"bytes"
	"crypto/tls"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/cerulean-db/cerulean/internal/servertest"
	"github.com/cerulean-db/cerulean/internal/testkit"
)

// fixture is one in-process server on a clock the test moves, and the
// means to send it requests signed with its account key or a SAS.
type fixture struct {
	t     *testing.T
	env   *servertest.Env
	clock *testkit.Clock
	seq   atomic.Int64
	// client trusts the server's certificate when Storage is on HTTPS.
	client *http.Client
}

// Second account, for signatures replayed across accounts.
const (
	otherAccount = "secondacct"
	otherKey     = "c2Vjb25kLWFjY291bnQta2V5LXNlY29uZC1hY2NvdW50LWtleQ=="
)

func newFixture(t *testing.T, opts ...servertest.Option) *fixture {
	t.Helper()
	clock := testkit.NewClock(time.Now().UTC().Truncate(time.Second))
	opts = append([]servertest.Option{
		servertest.WithClock(clock.Now),
		servertest.WithAccountsEnv(func(name string) string {
			if name == "CERULEAN_ACCOUNTS" {
				return otherAccount + ":" + otherKey
			}
			return ""
		}),
	}, opts...)
	env := servertest.Start(t, opts...)
	f := &fixture{t: t, env: env, clock: clock, client: client}
	if env.CertPool != nil {
		tr := http.DefaultTransport.(*http.Transport).Clone()
		tr.TLSClientConfig = &tls.Config{RootCAs: env.CertPool}
		f.client = &http.Client{Timeout: client.Timeout, CheckRedirect: client.CheckRedirect, Transport: tr}
	}
	return f
}

// name returns a fresh name with the given lower-case prefix, valid for
// containers, queues, tables and shares alike (letters and digits, at
// least three).
func (f *fixture) name(prefix string) string {
	return fmt.Sprintf("%s%06d", prefix, f.seq.Add(1))
}

// serviceURL is the root of a Storage service for the development account,
// ending in "/".
func (f *fixture) serviceURL(service string) string {
	switch service {
	case "blob":
		return f.env.BlobURL
	case "queue":
		return f.env.QueueURL
	case "table":
		return f.env.TableURL
	case "file":
		return f.env.FileURL
	}
	f.t.Fatalf("unknown service %q", service)
	return ""
}

// call is one request to a Storage service, its path relative to the
// account (path-style: the server puts the account first).
type call struct {
	method string
	path   string // "container/blob", "" for the service
	query  url.Values
	header map[string]string
	body   []byte
	// account addresses another account than the development one.
	account string
}

func (c call) url(base string, extra url.Values) string {
	q := url.Values{}
	for k, v := range c.query {
		q[k] = append([]string(nil), v...)
	}
	for k, v := range extra {
		q[k] = append(q[k], v...)
	}
	if c.account != "" {
		base = strings.Replace(base, "/devstoreaccount1/", "/"+c.account+"/", 1)
	}
	u := base + c.path
	if len(q) > 0 {
		u += "?" + q.Encode()
	}
	return u
}

// withSAS sends c to service authorised by the SAS query parameters sas
// alone.
func (f *fixture) withSAS(t testing.TB, service string, c call, sas url.Values) testkit.Response {
	t.Helper()
	var body io.Reader
	if c.body != nil {
		body = bytes.NewReader(c.body)
	}
	r, err := http.NewRequestWithContext(t.Context(), c.method, c.url(f.serviceURL(service), sas), body)
	if err != nil {
		t.Fatalf("build %s %s: %v", c.method, c.path, err)
	}
	for k, v := range c.header {
		r.Header.Set(k, v)
	}
	return doWith(t, f.client, r)
}

// withKey sends c to service signed with the account key.
func (f *fixture) withKey(t testing.TB, service string, c call, scheme keyScheme) testkit.Response {
	t.Helper()
	// Signed at the wall clock's time, as a client would: the server's
	// clock is the one the test moves.
	return f.signedAs(t, service, c, scheme, f.env.Account, f.env.Key, time.Now())
}

// signedAs sends c signed by account with key, x-ms-date set to date.
func (f *fixture) signedAs(t testing.TB, service string, c call, scheme keyScheme, account, key string, date time.Time) testkit.Response {
	t.Helper()
	r := f.rawRequest(t, service, c)
	signSharedKey(r, account, key, scheme, service == "table", date)
	return doWith(t, f.client, r)
}

// rawRequest builds c as an http.Request (unsigned).
func (f *fixture) rawRequest(t testing.TB, service string, c call) *http.Request {
	t.Helper()
	var body io.Reader
	if c.body != nil {
		body = bytes.NewReader(c.body)
	}
	r, err := http.NewRequestWithContext(t.Context(), c.method, c.url(f.serviceURL(service), nil), body)
	if err != nil {
		t.Fatalf("build %s %s: %v", c.method, c.path, err)
	}
	for k, v := range c.header {
		r.Header.Set(k, v)
	}
	r.Header.Set("x-ms-version", "2025-01-05")
	if service == "table" {
		r.Header.Set("Accept", "application/json;odata=nometadata")
		r.Header.Set("DataServiceVersion", "3.0")
	}
	return r
}

// client never follows a redirect: Azure sends none, and one that led
// out of the addressed container would be a finding, not a detour.
var client = &http.Client{
	Timeout:       time.Minute,
	CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
}

// do sends r and reads the answer.
func do(t testing.TB, r *http.Request) testkit.Response {
	t.Helper()
	return doWith(t, client, r)
}

// doWith sends r with c and reads the answer.
func doWith(t testing.TB, c *http.Client, r *http.Request) testkit.Response {
	t.Helper()
	resp, err := c.Do(r)
	if err != nil {
		t.Fatalf("%s %s: %v", r.Method, r.URL, err)
	}
	defer func() { _ = resp.Body.Close() }()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("%s %s: read body: %v", r.Method, r.URL, err)
	}
	code := resp.Header.Get("x-ms-error-code")
	if code == "" {
		if i := bytes.Index(b, []byte("<Code>")); i >= 0 {
			if j := bytes.Index(b[i:], []byte("</Code>")); j > 0 {
				code = string(b[i+len("<Code>") : i+j])
			}
		}
	}
	return testkit.Response{StatusCode: resp.StatusCode, Code: code, Header: resp.Header, Body: b}
}

// must2xx stops the test unless resp is a success.
func must2xx(t testing.TB, resp testkit.Response, what string) {
	t.Helper()
	if resp.StatusCode/100 != 2 {
		t.Fatalf("%s: HTTP %d %q\n%s", what, resp.StatusCode, resp.Code, resp.Body)
	}
}

// prepare sends c with the account key and stops the test unless it
// succeeds.
func (f *fixture) prepare(t testing.TB, service string, c call) {
	t.Helper()
	must2xx(t, f.withKey(t, service, c, sharedKey), "prepare "+c.method+" "+c.path)
}

func q(kv ...string) url.Values {
	v := url.Values{}
	for i := 0; i+1 < len(kv); i += 2 {
		v.Add(kv[i], kv[i+1])
	}
	return v
}
