package azauth_test

import (
	"encoding/base64"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/cerulean-db/cerulean/internal/azauth"
	"github.com/cerulean-db/cerulean/internal/azhttp"
)

// TestSignSharedKeyIsAccepted signs requests of every Storage service the
// way the console's proxy does and lets the verifier check them; a request
// signed with another key must fail.
func TestSignSharedKeyIsAccepted(t *testing.T) {
	good, _ := base64.StdEncoding.DecodeString(azauth.Key2)
	bad, _ := base64.StdEncoding.DecodeString(azauth.DevKey)
	for _, service := range []string{"blob", "queue", "file", "table"} {
		srv, got := newAuthServer(t, &azauth.Authenticator{Accounts: testAccounts(t), Service: service})
		for _, tc := range []struct {
			method, path, body string
			header             map[string]string
		}{
			{"GET", "/acct2/?comp=list&prefix=a%20b&include=metadata", "", nil},
			{"PUT", "/acct2/c/dir/na%20me+%C3%BC.txt?comp=metadata", "", map[string]string{"x-ms-meta-Zed": "z", "x-ms-meta-a_b": "x  y", "If-Match": `"0x1"`}},
			{"POST", "/acct2/q/messages", "<QueueMessage/>", map[string]string{"Content-Type": "application/xml"}},
			{"PUT", "/acct2/t(PartitionKey='p',RowKey='r')", `{"a":1}`, map[string]string{"Content-Type": "application/json"}},
		} {
			for _, signer := range []struct {
				key    []byte
				wantOK bool
			}{{good, true}, {bad, false}} {
				req, err := http.NewRequest(tc.method, srv.URL+tc.path, strings.NewReader(tc.body))
				if err != nil {
					t.Fatal(err)
				}
				for k, v := range tc.header {
					req.Header.Set(k, v)
				}
				req.Header.Set("x-ms-version", azhttp.DefaultVersion)
				azauth.SignSharedKey(req, service, "acct2", signer.key, time.Now())
				resp, err := http.DefaultClient.Do(req)
				if err != nil {
					t.Fatal(err)
				}
				_ = resp.Body.Close()
				acc, _, err := got.get()
				if signer.wantOK != (err == nil) || (signer.wantOK && acc.Kind != azauth.AccessSharedKey) {
					t.Errorf("%s %s %s signed with the right key %v: verifier says %v (HTTP %d)", service, tc.method, tc.path, signer.wantOK, err, resp.StatusCode)
				}
			}
		}
	}
}
