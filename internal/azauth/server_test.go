package azauth_test

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/policy"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob"

	"github.com/cerulean-db/cerulean/internal/azauth"
	"github.com/cerulean-db/cerulean/internal/azhttp"
)

var quietLogger = slog.New(slog.NewTextHandler(io.Discard, nil))

func testAccounts(t *testing.T) *azauth.Accounts {
	t.Helper()
	accts, err := azauth.LoadAccounts(func(name string) string {
		if name == "CERULEAN_ACCOUNTS" {
			return "acct2:" + azauth.Key1 + ":" + azauth.Key2
		}
		return ""
	})
	if err != nil {
		t.Fatal(err)
	}
	return accts
}

// splitPath splits a decoded path-style path into account, container and
// blob, the way a service would before calling Authenticate.
func splitPath(p string) (account, container, blob string) {
	parts := strings.SplitN(strings.TrimPrefix(p, "/"), "/", 3)
	parts = append(parts, "", "")
	return parts[0], parts[1], parts[2]
}

// outcome is what the test server's Authenticator concluded last.
type outcome struct {
	mu     sync.Mutex
	access azauth.Access
	err    error
	calls  int
}

func (o *outcome) get() (azauth.Access, int, error) {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.access, o.calls, o.err
}

// newAuthServer serves auth behind Wrap; every request is authenticated,
// the outcome recorded, and an authenticated request answered with an empty
// success.
func newAuthServer(t *testing.T, auth *azauth.Authenticator) (*httptest.Server, *outcome) {
	t.Helper()
	o := &outcome{}
	h := authHandler(auth, o, func(account string) string { return account })
	srv := httptest.NewServer(azhttp.Wrap(auth.Service, quietLogger, nil, azhttp.WriteError, h))
	t.Cleanup(srv.Close)
	return srv, o
}

// authHandler authenticates every request for the account (as primary
// maps the path's first segment), container and blob its path names,
// records the outcome in o, and answers an authenticated request with an
// empty success: the handler behind both newAuthServer and
// newHostStyleServer.
func authHandler(auth *azauth.Authenticator, o *outcome, primary func(account string) string) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		account, container, blob := splitPath(r.URL.Path)
		acc, err := auth.Authenticate(r, primary(account), container, blob)
		o.mu.Lock()
		o.access, o.err = acc, err
		o.calls++
		o.mu.Unlock()
		if err != nil {
			azhttp.WriteError(w, r, err)
			return
		}
		switch r.Method {
		case http.MethodPut:
			w.WriteHeader(http.StatusCreated)
		case http.MethodDelete:
			w.WriteHeader(http.StatusAccepted)
		default:
			w.WriteHeader(http.StatusOK)
		}
	})
}

// clientOptions disables retries (a 403 must surface at once) and installs
// extra policies that run before the SDK signs the request.
func clientOptions(perCall ...policy.Policy) *azblob.ClientOptions {
	return &azblob.ClientOptions{ClientOptions: azcore.ClientOptions{
		Retry:           policy.RetryOptions{MaxRetries: -1},
		PerCallPolicies: perCall,
	}}
}

// sign returns the base64 HMAC-SHA256 of s under the base64 key.
func sign(t *testing.T, key, s string) string {
	t.Helper()
	k, err := base64.StdEncoding.DecodeString(key)
	if err != nil {
		t.Fatal(err)
	}
	m := hmac.New(sha256.New, k)
	m.Write([]byte(s))
	return base64.StdEncoding.EncodeToString(m.Sum(nil))
}

// newRequest builds a server-side request for a raw target, as the HTTP
// server would hand it to a handler.
func newRequest(method, target string, header map[string]string) *http.Request {
	r := httptest.NewRequest(method, "http://localhost"+target, nil)
	r.RequestURI = target
	for k, v := range header {
		r.Header.Set(k, v)
	}
	return r
}
