// Package tablesdk_test holds black-box conformance tests that drive a
// cerulean server only through the official Azure Tables SDK for Go
// (aztables), falling back to raw net/http only where the SDK cannot
// express a request.
package tablesdk_test

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/policy"
	"github.com/Azure/azure-sdk-for-go/sdk/data/aztables"

	"github.com/cerulean-db/cerulean/internal/servertest"
	"github.com/cerulean-db/cerulean/internal/testkit"
)

// fixture is one server plus an SDK service client authorised with Shared
// Key (the SDK signs with Shared Key Lite).
type fixture struct {
	t    *testing.T
	env  *servertest.Env
	cred *aztables.SharedKeyCredential
	svc  *aztables.ServiceClient
	// signer signs raw requests as the SDK does.
	signer testkit.Signer
}

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
	signer := testkit.TableSharedKeyLite(t, strings.TrimSuffix(env.TableURL, "/"), env.Account, env.Key)
	return &fixture{t: t, env: env, cred: cred, svc: svc, signer: signer}
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
	name := testkit.Name("t")
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

// the kit under the names this suite's files use
var must = testkit.Must

// wantCode fails unless err is an azcore.ResponseError with status and
// code.
func wantCode(t testing.TB, err error, status int, code string) {
	t.Helper()
	testkit.MustErr(t, err, status, code, "request")
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
// signs it, for what the SDK cannot express; path is relative to the
// service URL.
func (f *fixture) rawRequest(method, path string, header map[string]string, body []byte) (testkit.Response, []byte) {
	f.t.Helper()
	r := f.signer.Send(f.t, testkit.Request{Method: method, URL: f.serviceURL() + path, Header: header, Body: body})
	return r, r.Body
}
