package servertest_test

import (
	"context"
	"strings"
	"testing"

	"github.com/cerulean-db/cerulean/internal/kv"
	"github.com/cerulean-db/cerulean/internal/servertest"
	"github.com/cerulean-db/cerulean/internal/testkit"
)

// TestStopChecksInvariants: a server whose store a test corrupted fails
// that test when it stops, naming the service whose invariant broke; an
// intact one passes and counts as checked.
func TestStopChecksInvariants(t *testing.T) {
	ctx := context.Background()
	intact := &testkit.Recorder{TB: t}
	t.Cleanup(intact.RunCleanups)
	env := servertest.Start(intact)
	before := servertest.InvariantChecks()
	if err := env.Server.Shutdown(ctx); err != nil {
		t.Fatal(err)
	}
	if got := intact.ErrorText(); got != "" {
		t.Errorf("an intact store failed the check: %s", got)
	}
	if servertest.InvariantChecks() != before+1 {
		t.Errorf("the stop was not counted as checked")
	}

	corrupt := &testkit.Recorder{TB: t}
	t.Cleanup(corrupt.RunCleanups)
	env = servertest.Start(corrupt)
	// A queue message whose record does not decode, in a queue that does
	// not exist: written behind the Queue service's back.
	key := append([]byte("Qa"), "devstoreaccount1\x00m\x00nowhere\x00"...)
	if err := env.Store.Update(ctx, func(tx kv.Txn) error { return tx.Set(key, []byte("garbage")) }); err != nil {
		t.Fatal(err)
	}
	if err := env.Server.Shutdown(ctx); err != nil {
		t.Fatal(err)
	}
	if got := corrupt.ErrorText(); !strings.Contains(got, "store invariants violated") || !strings.Contains(got, "queue:") {
		t.Errorf("the corrupted store stopped with %q, want a queue invariant violation", got)
	}
}

// TestStartsThroughThePublicAPI: the server is the one ceruleantest
// started, and its endpoints are the public package's.
func TestStartsThroughThePublicAPI(t *testing.T) {
	env := servertest.Start(t, servertest.WithCosmosTLS())
	pub := env.Embedded
	if pub == nil || env.BlobURL != pub.BlobURL || env.ConnectionString != pub.ConnectionString || env.CosmosURL != pub.CosmosEndpoint || env.AdminURL != pub.AdminURL {
		t.Fatalf("Env %+v does not describe the embedded server %+v", env, pub)
	}
	if !strings.HasPrefix(env.CosmosURL, "https://") {
		t.Errorf("WithCosmosTLS: Cosmos at %s", env.CosmosURL)
	}
}
