package scaleout_test

import (
	"errors"
	"testing"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/policy"
	"github.com/Azure/azure-sdk-for-go/sdk/data/azcosmos"
	"github.com/Azure/azure-sdk-for-go/sdk/data/aztables"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azqueue"

	blobstore "github.com/cerulean-db/cerulean/internal/blob"
	filestore "github.com/cerulean-db/cerulean/internal/file"
	"github.com/cerulean-db/cerulean/internal/servertest"
	"github.com/cerulean-db/cerulean/internal/testkit"
)

// frontEnds is how many servers share the store in every test.
const frontEnds = 3

// deployment is frontEnds servers on one PostgreSQL schema. Client i of a
// test talks to front end i mod frontEnds.
type deployment struct {
	t   *testing.T
	fes []*servertest.Env
}

// startDeployment starts the front ends on a fresh schema and, at the end
// of the test (before the servers stop), checks the shared store's
// layout invariants: whatever the front ends wrote together must still
// be one consistent store.
func startDeployment(t *testing.T) *deployment {
	t.Helper()
	dsn, schema := testkit.PostgresDSN(t), testkit.PostgresSchema()
	d := &deployment{t: t}
	for range frontEnds {
		d.fes = append(d.fes, servertest.Start(t, servertest.WithPostgres(dsn, schema)))
	}
	testkit.CheckAfter(t, d.fes[0].Store, testkit.KeysAscending, blobstore.CheckInvariants, filestore.CheckInvariants)
	return d
}

// at is the front end client i talks to.
func (d *deployment) at(i int) *servertest.Env { return d.fes[i%frontEnds] }

// noRetry makes every SDK call observe the server's first answer: a
// retried conditional write whose first attempt committed would count an
// increment twice, and a retried error would hide what a front end said.
var noRetry = policy.ClientOptions{Retry: policy.RetryOptions{MaxRetries: -1, TryTimeout: 2 * time.Minute}}

func (d *deployment) blob(i int) *azblob.Client {
	d.t.Helper()
	c, err := azblob.NewClientFromConnectionString(d.at(i).ConnectionString, &azblob.ClientOptions{ClientOptions: noRetry})
	if err != nil {
		d.t.Fatal(err)
	}
	return c
}

func (d *deployment) table(i int, name string) *aztables.Client {
	d.t.Helper()
	svc, err := aztables.NewServiceClientFromConnectionString(d.at(i).ConnectionString, &aztables.ClientOptions{ClientOptions: noRetry})
	if err != nil {
		d.t.Fatal(err)
	}
	return svc.NewClient(name)
}

func (d *deployment) queue(i int, name string) *azqueue.QueueClient {
	d.t.Helper()
	svc, err := azqueue.NewServiceClientFromConnectionString(d.at(i).ConnectionString, &azqueue.ClientOptions{ClientOptions: noRetry})
	if err != nil {
		d.t.Fatal(err)
	}
	return svc.NewQueueClient(name)
}

func (d *deployment) cosmos(i int) *azcosmos.Client {
	d.t.Helper()
	env := d.at(i)
	cred, err := azcosmos.NewKeyCredential(env.CosmosKey)
	if err != nil {
		d.t.Fatal(err)
	}
	c, err := azcosmos.NewClientWithKey(env.CosmosURL, cred, &azcosmos.ClientOptions{ClientOptions: noRetry})
	if err != nil {
		d.t.Fatal(err)
	}
	return c
}

// statusOf is the HTTP status of an SDK error, 0 if it has none.
func statusOf(err error) int {
	var re *azcore.ResponseError
	if errors.As(err, &re) {
		return re.StatusCode
	}
	return 0
}

// errorCode is the service's error code of an SDK error.
func errorCode(err error) string {
	var re *azcore.ResponseError
	if errors.As(err, &re) {
		return re.ErrorCode
	}
	return ""
}
