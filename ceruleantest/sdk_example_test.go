package ceruleantest_test

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"testing"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/streaming"
	"github.com/Azure/azure-sdk-for-go/sdk/data/azcosmos"
	"github.com/Azure/azure-sdk-for-go/sdk/data/aztables"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/blob"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/bloberror"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/blockblob"

	"github.com/cerulean-db/cerulean/ceruleantest"
)

// These tests use the package as a user's tests would: the public API
// and the official SDKs, nothing of cerulean's internals.

// isPreconditionFailed reports whether err is the service's 412 answer.
func isPreconditionFailed(err error) bool {
	var re *azcore.ResponseError
	return errors.As(err, &re) && re.StatusCode == http.StatusPreconditionFailed
}

func TestBlobSDK(t *testing.T) {
	t.Parallel()
	srv := ceruleantest.Start(t)
	ctx := context.Background()

	client, err := azblob.NewClientFromConnectionString(srv.ConnectionString, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := client.CreateContainer(ctx, "photos", nil); err != nil {
		t.Fatalf("create container: %v", err)
	}
	b := client.ServiceClient().NewContainerClient("photos").NewBlockBlobClient("cat.txt")
	first, err := b.Upload(ctx, streaming.NopCloser(bytes.NewReader([]byte("meow"))), nil)
	if err != nil {
		t.Fatalf("upload: %v", err)
	}
	got, err := client.DownloadStream(ctx, "photos", "cat.txt", nil)
	if err != nil {
		t.Fatalf("download: %v", err)
	}
	body, err := io.ReadAll(got.Body)
	if closeErr := got.Body.Close(); err == nil {
		err = closeErr
	}
	if err != nil || string(body) != "meow" || *got.ETag != *first.ETag {
		t.Fatalf("read back %q (ETag %v, err %v), want %q with ETag %v", body, *got.ETag, err, "meow", *first.ETag)
	}

	ifMatch := func(etag *azcore.ETag) *blockblob.UploadOptions {
		return &blockblob.UploadOptions{AccessConditions: &blob.AccessConditions{
			ModifiedAccessConditions: &blob.ModifiedAccessConditions{IfMatch: etag}}}
	}
	if _, err := b.Upload(ctx, streaming.NopCloser(bytes.NewReader([]byte("purr"))), ifMatch(first.ETag)); err != nil {
		t.Fatalf("conditional upload with the current ETag: %v", err)
	}
	_, err = b.Upload(ctx, streaming.NopCloser(bytes.NewReader([]byte("hiss"))), ifMatch(first.ETag))
	if !isPreconditionFailed(err) || !bloberror.HasCode(err, bloberror.ConditionNotMet) {
		t.Fatalf("conditional upload with a stale ETag: %v, want 412 ConditionNotMet", err)
	}
}

func TestTableSDK(t *testing.T) {
	t.Parallel()
	srv := ceruleantest.Start(t)
	ctx := context.Background()

	svc, err := aztables.NewServiceClientFromConnectionString(srv.ConnectionString, nil)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := svc.CreateTable(ctx, "people", nil); err != nil {
		t.Fatalf("create table: %v", err)
	}
	table := svc.NewClient("people")
	entity := func(name string) []byte {
		b, err := json.Marshal(aztables.EDMEntity{Entity: aztables.Entity{PartitionKey: "team", RowKey: "ada"},
			Properties: map[string]any{"Name": name}})
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	added, err := table.AddEntity(ctx, entity("Ada"), nil)
	if err != nil {
		t.Fatalf("add entity: %v", err)
	}
	got, err := table.GetEntity(ctx, "team", "ada", nil)
	if err != nil {
		t.Fatalf("get entity: %v", err)
	}
	var read aztables.EDMEntity
	if err := json.Unmarshal(got.Value, &read); err != nil || read.Properties["Name"] != "Ada" || got.ETag != added.ETag {
		t.Fatalf("read back %s (ETag %v, err %v), want Name Ada with ETag %v", got.Value, got.ETag, err, added.ETag)
	}

	replace := func(name string, etag azcore.ETag) error {
		_, err := table.UpdateEntity(ctx, entity(name), &aztables.UpdateEntityOptions{IfMatch: &etag, UpdateMode: aztables.UpdateModeReplace})
		return err
	}
	if err := replace("Ada Lovelace", added.ETag); err != nil {
		t.Fatalf("replace with the current ETag: %v", err)
	}
	if err := replace("Ada King", added.ETag); !isPreconditionFailed(err) {
		t.Fatalf("replace with a stale ETag: %v, want 412", err)
	}
}

func TestCosmosSDK(t *testing.T) {
	t.Parallel()
	srv := ceruleantest.Start(t)
	ctx := context.Background()

	// The gateway is HTTPS with a certificate made at start: the
	// server's HTTP client trusts it.
	opts := &azcosmos.ClientOptions{ClientOptions: azcore.ClientOptions{Transport: srv.HTTPClient()}}
	client, err := azcosmos.NewClientFromConnectionString(srv.CosmosConnectionString, opts)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := client.CreateDatabase(ctx, azcosmos.DatabaseProperties{ID: "shop"}, nil); err != nil {
		t.Fatalf("create database: %v", err)
	}
	db, err := client.NewDatabase("shop")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := db.CreateContainer(ctx, azcosmos.ContainerProperties{ID: "orders",
		PartitionKeyDefinition: azcosmos.PartitionKeyDefinition{Paths: []string{"/customer"}}}, nil); err != nil {
		t.Fatalf("create container: %v", err)
	}
	orders, err := db.NewContainer("orders")
	if err != nil {
		t.Fatal(err)
	}
	type order struct {
		ID       string `json:"id"`
		Customer string `json:"customer"`
		Total    int    `json:"total"`
	}
	pk := azcosmos.NewPartitionKeyString("c1")
	item := func(total int) []byte {
		b, err := json.Marshal(order{ID: "o1", Customer: "c1", Total: total})
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	created, err := orders.CreateItem(ctx, pk, item(10), nil)
	if err != nil {
		t.Fatalf("create item: %v", err)
	}
	got, err := orders.ReadItem(ctx, pk, "o1", nil)
	if err != nil {
		t.Fatalf("read item: %v", err)
	}
	var read order
	if err := json.Unmarshal(got.Value, &read); err != nil || read.Total != 10 || got.ETag != created.ETag {
		t.Fatalf("read back %s (ETag %v, err %v), want total 10 with ETag %v", got.Value, got.ETag, err, created.ETag)
	}

	replace := func(total int, etag azcore.ETag) error {
		_, err := orders.ReplaceItem(ctx, pk, "o1", item(total), &azcosmos.ItemOptions{IfMatchEtag: &etag})
		return err
	}
	if err := replace(20, created.ETag); err != nil {
		t.Fatalf("replace with the current ETag: %v", err)
	}
	if err := replace(30, created.ETag); !isPreconditionFailed(err) {
		t.Fatalf("replace with a stale ETag: %v, want 412", err)
	}
}
