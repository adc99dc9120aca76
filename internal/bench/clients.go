package bench

import (
	"fmt"
	"net/http"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/policy"
	"github.com/Azure/azure-sdk-for-go/sdk/data/azcosmos"
	"github.com/Azure/azure-sdk-for-go/sdk/data/aztables"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob"
	azservice "github.com/Azure/azure-sdk-for-go/sdk/storage/azfile/service"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azqueue"
)

// DevConnectionString reaches a local cerulean (or Azurite) on the default
// ports with the development account.
const DevConnectionString = "DefaultEndpointsProtocol=http;AccountName=devstoreaccount1;" +
	"AccountKey=Eby8vdM02xNOcqFlqUwJPLlmEtlCDXJ1OUzFT50uSRZ6IFsuFq2UVErCz4I6tq/K1SZFPTOtr/KBHBeksoGMGw==;" +
	"BlobEndpoint=http://127.0.0.1:10000/devstoreaccount1;QueueEndpoint=http://127.0.0.1:10001/devstoreaccount1;" +
	"TableEndpoint=http://127.0.0.1:10002/devstoreaccount1;"

// Clients are SDK clients for one endpoint. Retries are off so that every
// error the server gives is counted, and connections are pooled per host
// as wide as the concurrency needs.
type Clients struct {
	Blob   *azblob.Client
	Tables *aztables.ServiceClient
	Queues *azqueue.ServiceClient
	Cosmos *azcosmos.Client
	Files  *azservice.Client
	Search *searchClient
}

func clientOptions() azcore.ClientOptions {
	transport := &http.Client{Transport: &http.Transport{
		MaxIdleConns:        1024,
		MaxIdleConnsPerHost: 1024,
		IdleConnTimeout:     90 * time.Second,
	}}
	return azcore.ClientOptions{
		Retry:     policy.RetryOptions{MaxRetries: -1, TryTimeout: 5 * time.Minute},
		Transport: transport,
	}
}

// NewClients builds the clients a workload needs from cfg's storage
// connection string (or the Cosmos or Search one, for those workloads).
func NewClients(cfg Config, w Workload) (*Clients, error) {
	conn := cfg.ConnectionString
	c := &Clients{}
	var err error
	switch w.(type) {
	case cosmosWorkload:
		c.Cosmos, err = newCosmosClient(cfg.CosmosConnectionString)
	case searchWorkload:
		c.Search, err = newSearchClient(cfg.SearchConnection)
	case tableWorkload:
		c.Tables, err = aztables.NewServiceClientFromConnectionString(conn, &aztables.ClientOptions{ClientOptions: clientOptions()})
	case fileWorkload:
		c.Files, err = newFileClient(conn)
	case queueWorkload:
		c.Queues, err = azqueue.NewServiceClientFromConnectionString(conn, &azqueue.ClientOptions{ClientOptions: clientOptions()})
	default:
		c.Blob, err = azblob.NewClientFromConnectionString(conn, &azblob.ClientOptions{ClientOptions: clientOptions()})
	}
	if err != nil {
		return nil, fmt.Errorf("clients for %s: %w", w.Name(), err)
	}
	return c, nil
}
