package ceruleantest_test

import (
	"context"
	"fmt"
	"io"
	"log"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
	"github.com/Azure/azure-sdk-for-go/sdk/data/azcosmos"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob"

	"github.com/cerulean-db/cerulean/ceruleantest"
)

// A program outside a test starts a server with New and stops it with
// Close; the Storage SDKs take its connection string. (A test calls
// ceruleantest.Start(t) instead, and the server stops when the test ends.)
func ExampleNew() {
	ctx := context.Background()
	srv, err := ceruleantest.New(ctx, ceruleantest.Options{})
	if err != nil {
		log.Fatal(err)
	}
	client, err := azblob.NewClientFromConnectionString(srv.ConnectionString, nil)
	if err != nil {
		log.Fatal(err)
	}
	if _, err := client.CreateContainer(ctx, "docs", nil); err != nil {
		log.Fatal(err)
	}
	if _, err := client.UploadBuffer(ctx, "docs", "hello.txt", []byte("hello, cerulean"), nil); err != nil {
		log.Fatal(err)
	}
	resp, err := client.DownloadStream(ctx, "docs", "hello.txt", nil)
	if err != nil {
		log.Fatal(err)
	}
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(string(body))
	if err := resp.Body.Close(); err != nil {
		log.Fatal(err)
	}
	if err := srv.Close(ctx); err != nil {
		log.Fatal(err)
	}
	// Output: hello, cerulean
}

// The Cosmos DB gateway is served over HTTPS with a certificate made at
// start; the server's HTTP client trusts it, and the Cosmos SDK takes it
// as its transport.
func ExampleServer_HTTPClient() {
	ctx := context.Background()
	srv, err := ceruleantest.New(ctx, ceruleantest.Options{})
	if err != nil {
		log.Fatal(err)
	}
	opts := &azcosmos.ClientOptions{ClientOptions: azcore.ClientOptions{Transport: srv.HTTPClient()}}
	client, err := azcosmos.NewClientFromConnectionString(srv.CosmosConnectionString, opts)
	if err != nil {
		log.Fatal(err)
	}
	db, err := client.CreateDatabase(ctx, azcosmos.DatabaseProperties{ID: "shop"}, nil)
	if err != nil {
		log.Fatal(err)
	}
	fmt.Println(db.DatabaseProperties.ID)
	if err := srv.Close(ctx); err != nil {
		log.Fatal(err)
	}
	// Output: shop
}
