// Package tablesdk_test holds black-box conformance tests that drive a
// cerulean server only through the official Azure Tables SDK for Go
// (aztables), falling back to raw net/http only where the SDK cannot
// express a request.
package tablesdk_test

import (
	"bytes"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/policy"
	"github.com/Azure/azure-sdk-for-go/sdk/data/aztables"

	"github.com/cerulean-db/cerulean/internal/servertest"
)

// fixture is one server plus an SDK service client authorised with Shared
// Key (the SDK signs with Shared Key Lite).
type fixture struct {
	t    *testing.T
	env  *servertest.Env
	cred *aztables.SharedKeyCredential
	svc  *aztables.ServiceClient
}

// tableCounter makes table names unique within the test binary.
var tableCounter atomic.Int64

// newFixture starts a fresh in-memory server for the test.
func newFixture(t *testing.T, opts ...servertest.Option) *fixture {
	t.Helper()
	env := servertest.Start(t, opts...)
	if !strings.HasSuffix(env.TableURL, "/") || !strings.Contains(env.ConnectionString, "TableEndpoint=") {
		t.Fatalf("servertest.Env: TableURL %q, connection string %q", env.TableURL, env.ConnectionString)
	}
	svc, err := aztables.NewServiceClientFromConnectionString(env.ConnectionString, clientOptions())
	if err != nil {
		t.Fatalf("NewServiceClientFromConnectionString: %v", err)
	}
	cred, err := aztables.NewSharedKeyCredential(env.Account, env.Key)
	if err != nil {
		t.Fatal(err)
	}
	return &fixture{t: t, env: env, cred: cred, svc: svc}
}

// clientOptions disables retries, so every call observes the server's
// first answer.
func clientOptions(policies ...policy.Policy) *aztables.ClientOptions {
	o := &aztables.ClientOptions{}
	o.Retry = policy.RetryOptions{MaxRetries: -1, TryTimeout: 2 * time.Minute}
	o.PerRetryPolicies = policies
	return o
}

// serviceURL is the table endpoint without its trailing slash, as the
// SDK's connection string form has it.
func (f *fixture) serviceURL() string { return strings.TrimSuffix(f.env.TableURL, "/") }

// table is a table's SDK client and its name.
type table struct {
	*aztables.Client
	name string
}

// newTable creates a table with a fresh name.
func (f *fixture) newTable() table {
	f.t.Helper()
	name := fmt.Sprintf("t%dx%d", time.Now().UnixNano()%1e6, tableCounter.Add(1))
	_, err := f.svc.CreateTable(f.t.Context(), name, nil)
	must(f.t, err, "CreateTable %s", name)
	return table{f.svc.NewClient(name), name}
}

// entity marshals an EDMEntity for the SDK's []byte API.
func entity(pk, rk string, props map[string]any) []byte {
	b, err := json.Marshal(aztables.EDMEntity{Entity: aztables.Entity{PartitionKey: pk, RowKey: rk}, Properties: props})
	if err != nil {
		panic(err)
	}
	return b
}

// decode unmarshals an SDK entity value.
func decode(t *testing.T, raw []byte) aztables.EDMEntity {
	t.Helper()
	var e aztables.EDMEntity
	if err := json.Unmarshal(raw, &e); err != nil {
		t.Fatalf("unmarshal entity %s: %v", raw, err)
	}
	return e
}

func must(t testing.TB, err error, format string, args ...any) {
	t.Helper()
	if err != nil {
		t.Fatalf("%s: %v", fmt.Sprintf(format, args...), err)
	}
}

// wantCode fails unless err is an azcore.ResponseError with status and
// code.
func wantCode(t testing.TB, err error, status int, code string) {
	t.Helper()
	var re *azcore.ResponseError
	if !errors.As(err, &re) {
		t.Fatalf("err = %v, want %d %s", err, status, code)
	}
	if re.StatusCode != status || re.ErrorCode != code {
		t.Fatalf("got %d %s, want %d %s (%v)", re.StatusCode, re.ErrorCode, status, code, err)
	}
}

// getEntity reads an entity and its ETag.
func getEntity(t *testing.T, c table, pk, rk string) (aztables.EDMEntity, azcore.ETag) {
	t.Helper()
	resp, err := c.GetEntity(t.Context(), pk, rk, nil)
	must(t, err, "GetEntity(%q, %q)", pk, rk)
	return decode(t, resp.Value), resp.ETag
}

// listAll reads every page of a query and returns the entities.
func listAll(t *testing.T, c table, opts *aztables.ListEntitiesOptions) []aztables.EDMEntity {
	t.Helper()
	var out []aztables.EDMEntity
	pager := c.NewListEntitiesPager(opts)
	for pager.More() {
		page, err := pager.NextPage(t.Context())
		must(t, err, "NextPage")
		for _, raw := range page.Entities {
			out = append(out, decode(t, raw))
		}
	}
	return out
}

// rawRequest sends a request signed with Shared Key Lite the way the SDK
// signs it, for what the SDK cannot express.
func (f *fixture) rawRequest(method, path string, header map[string]string, body []byte) (*http.Response, []byte) {
	f.t.Helper()
	req, err := http.NewRequestWithContext(f.t.Context(), method, f.serviceURL()+path, bytes.NewReader(body))
	must(f.t, err, "new request")
	for k, v := range header {
		req.Header.Set(k, v)
	}
	key, err := base64.StdEncoding.DecodeString(f.env.Key)
	must(f.t, err, "decode key")
	signer := sharedKeyLite{account: f.env.Account, key: key}
	resp, err := signer.send(req)
	must(f.t, err, "%s %s", method, path)
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	must(f.t, err, "read body")
	return resp, data
}

// sharedKeyLite signs raw requests as aztables does (Table Shared Key
// Lite: the date and the canonicalized resource).
type sharedKeyLite struct {
	account string
	key     []byte
}

func (s sharedKeyLite) send(req *http.Request) (*http.Response, error) {
	date := time.Now().UTC().Format(http.TimeFormat)
	req.Header.Set("x-ms-date", date)
	if req.Header.Get("x-ms-version") == "" {
		req.Header.Set("x-ms-version", "2019-02-02")
	}
	resource := "/" + s.account + req.URL.EscapedPath()
	if comp := req.URL.Query().Get("comp"); comp != "" {
		resource += "?comp=" + comp
	}
	mac := hmac.New(sha256.New, s.key)
	mac.Write([]byte(date + "\n" + resource))
	req.Header.Set("Authorization", "SharedKeyLite "+s.account+":"+base64.StdEncoding.EncodeToString(mac.Sum(nil)))
	return http.DefaultClient.Do(req)
}
