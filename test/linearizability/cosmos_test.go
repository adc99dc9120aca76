package linearizability_test

import (
	"encoding/json"
	"testing"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
	"github.com/Azure/azure-sdk-for-go/sdk/data/azcosmos"

	"github.com/cerulean-db/cerulean/internal/servertest"
)

// TestCosmosIfMatchReplaces: reads, If-Match replaces and blind upserts of
// one Cosmos item form a linearizable register history, and every
// successful write yields a fresh _etag.
func TestCosmosIfMatchReplaces(t *testing.T) { inRounds(t, oneServer, cosmosIfMatchReplaces) }

func newCosmosClient(t *testing.T, env *servertest.Env) *azcosmos.Client {
	t.Helper()
	cred, err := azcosmos.NewKeyCredential(env.CosmosKey)
	if err != nil {
		t.Fatal(err)
	}
	client, err := azcosmos.NewClientWithKey(env.CosmosURL, cred, &azcosmos.ClientOptions{ClientOptions: noRetry})
	if err != nil {
		t.Fatal(err)
	}
	return client
}

func cosmosIfMatchReplaces(t *testing.T, fes []*servertest.Env) {
	client := newCosmosClient(t, fes[0])
	ctx := t.Context()
	if _, err := client.CreateDatabase(ctx, azcosmos.DatabaseProperties{ID: "lin"}, nil); err != nil {
		t.Fatal(err)
	}
	db, _ := client.NewDatabase("lin")
	if _, err := db.CreateContainer(ctx, azcosmos.ContainerProperties{ID: "c", PartitionKeyDefinition: azcosmos.PartitionKeyDefinition{Paths: []string{"/pk"}}}, nil); err != nil {
		t.Fatal(err)
	}
	containers := clientsFor(fes, func(env *servertest.Env) *azcosmos.ContainerClient {
		cc, _ := newCosmosClient(t, env).NewContainer("lin", "c")
		return cc
	})
	cc := containers.at(0)
	pk := azcosmos.NewPartitionKeyString("p")
	item := func(v string) []byte {
		b, _ := json.Marshal(map[string]any{"id": "r", "pk": "p", "value": v})
		return b
	}
	created, err := cc.CreateItem(ctx, pk, item("init"), nil)
	if err != nil {
		t.Fatal(err)
	}
	initial := regState{"init", string(created.ETag)}
	checkRegister(t, initial, func(cl int) register {
		cc := containers.at(cl)
		return register{
			read: func() (string, string, error) {
				resp, err := cc.ReadItem(ctx, pk, "r", nil)
				return jsonValue(resp.Value, resp.ETag, err)
			},
			condWrite: func(ifMatch azcore.ETag, value string) (string, error) {
				resp, err := cc.ReplaceItem(ctx, pk, "r", item(value), &azcosmos.ItemOptions{IfMatchEtag: &ifMatch})
				return string(resp.ETag), err
			},
			write: func(value string) (string, error) {
				resp, err := cc.UpsertItem(ctx, pk, item(value), nil)
				return string(resp.ETag), err
			},
			writeSetsETag: true,
		}
	})
}
