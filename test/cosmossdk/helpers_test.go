// Package cosmossdk drives cerulean's Cosmos DB gateway through the
// official Go SDK (azcosmos) and, where the Go SDK has no API, through
// master-key-signed raw requests.
package cosmossdk

import (
	"bytes"
	"context"
	"crypto/tls"
	"encoding/json"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore/policy"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/runtime"
	"github.com/Azure/azure-sdk-for-go/sdk/data/azcosmos"
	"github.com/cerulean-db/cerulean/internal/servertest"
	"github.com/cerulean-db/cerulean/internal/testkit"
)

// countAll reads every page of p and adds up what size counts on each.
func countAll[T any](t testing.TB, p *runtime.Pager[T], size func(T) int) int {
	t.Helper()
	n := 0
	for p.More() {
		page, err := p.NextPage(context.Background())
		if err != nil {
			t.Fatal(err)
		}
		n += size(page)
	}
	return n
}

// newClient returns an azcosmos client for env.
func newClient(t testing.TB, env *servertest.Env) *azcosmos.Client {
	t.Helper()
	cred, err := azcosmos.NewKeyCredential(env.CosmosKey)
	if err != nil {
		t.Fatal(err)
	}
	opts := &azcosmos.ClientOptions{}
	opts.Retry = policy.RetryOptions{MaxRetries: -1}
	if strings.HasPrefix(env.CosmosURL, "https") {
		opts.Transport = &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{InsecureSkipVerify: true}}}
	}
	c, err := azcosmos.NewClientWithKey(env.CosmosURL, cred, opts)
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// setup starts a server and creates a database and a container
// partitioned on /pk.
func setup(t testing.TB, opts ...servertest.Option) (*servertest.Env, *azcosmos.Client, *azcosmos.ContainerClient) {
	t.Helper()
	env := servertest.Start(t, opts...)
	c := newClient(t, env)
	return env, c, createItems(t, c)
}

// createItems creates database "db" and its container "items",
// partitioned on /pk.
func createItems(t testing.TB, c *azcosmos.Client) *azcosmos.ContainerClient {
	t.Helper()
	ctx := context.Background()
	if _, err := c.CreateDatabase(ctx, azcosmos.DatabaseProperties{ID: "db"}, nil); err != nil {
		t.Fatalf("create database: %v", err)
	}
	db, err := c.NewDatabase("db")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.CreateContainer(ctx, azcosmos.ContainerProperties{
		ID:                     "items",
		PartitionKeyDefinition: azcosmos.PartitionKeyDefinition{Paths: []string{"/pk"}},
	}, nil); err != nil {
		t.Fatalf("create container: %v", err)
	}
	cc, err := c.NewContainer("db", "items")
	if err != nil {
		t.Fatal(err)
	}
	return cc
}

// startKillable runs the built binary bin on dataDir, for a test that
// kills it, and returns it with the Env of its Cosmos gateway.
func startKillable(t *testing.T, bin, dataDir string) (*servertest.Process, *servertest.Env) {
	t.Helper()
	proc := servertest.StartProcess(t, bin, dataDir)
	return proc, &servertest.Env{CosmosURL: proc.CosmosURL, CosmosKey: proc.CosmosKey}
}

// statusOf returns the HTTP status of an SDK error (0 if none).
var statusOf = testkit.StatusOf

// mustJSON is v as JSON, failing t when it cannot be.
var mustJSON = testkit.JSON

func decode(t testing.TB, b []byte) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatalf("decode %s: %v", b, err)
	}
	return m
}

// rawRequest sends a master-key-signed request the way the SDKs sign
// them; resourceType and link are what the signature covers.
type rawRequest struct {
	method, path, resourceType, link string
	body                             []byte
	header                           map[string]string
	date                             time.Time
	key                              string
}

func send(t testing.TB, env *servertest.Env, rr rawRequest) (*http.Response, []byte) {
	t.Helper()
	if rr.date.IsZero() {
		rr.date = time.Now()
	}
	if rr.key == "" {
		rr.key = env.CosmosKey
	}
	u := strings.TrimSuffix(env.CosmosURL, "/") + rr.path
	req, err := http.NewRequest(rr.method, u, bytes.NewReader(rr.body))
	if err != nil {
		t.Fatal(err)
	}
	if err := testkit.CosmosSign(req, rr.key, rr.resourceType, rr.link, rr.date); err != nil {
		t.Fatal(err)
	}
	for k, v := range rr.header {
		req.Header.Set(k, v)
	}
	client := http.DefaultClient
	if strings.HasPrefix(u, "https") {
		client = &http.Client{Transport: &http.Transport{TLSClientConfig: &tls.Config{InsecureSkipVerify: true}}}
	}
	resp, err := client.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = resp.Body.Close() }()
	var buf bytes.Buffer
	if _, err := buf.ReadFrom(resp.Body); err != nil {
		t.Fatal(err)
	}
	return resp, buf.Bytes()
}
