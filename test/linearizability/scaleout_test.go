package linearizability_test

import (
	"testing"

	blobstore "github.com/cerulean-db/cerulean/internal/blob"
	"github.com/cerulean-db/cerulean/internal/servertest"
	"github.com/cerulean-db/cerulean/internal/testkit"
)

// The histories again, with the clients spread over three front ends that
// share one PostgreSQL schema: a front end that answered from state of
// its own (a cache, an in-process lock, a lease table) would let a client
// on another front end observe an order no single copy allows. The
// models are the single server's; only the deployment differs.

// threeFrontEnds starts three servers on a fresh schema of the test
// PostgreSQL cluster and checks the shared store's layout when the
// history ends.
func threeFrontEnds(t *testing.T) []*servertest.Env {
	t.Helper()
	dsn, schema := testkit.PostgresDSN(t), testkit.PostgresSchema()
	fes := make([]*servertest.Env, 3)
	for i := range fes {
		fes[i] = servertest.Start(t, servertest.WithPostgres(dsn, schema))
	}
	testkit.CheckAfter(t, fes[0].Store, testkit.KeysAscending, blobstore.CheckInvariants)
	return fes
}

func TestScaleOutBlobConditionalWrites(t *testing.T) {
	inRounds(t, threeFrontEnds, blobConditionalWrites)
}

func TestScaleOutLeaseOperations(t *testing.T) { inRounds(t, threeFrontEnds, leaseOperations) }

func TestScaleOutTableIfMatchMerges(t *testing.T) { inRounds(t, threeFrontEnds, tableIfMatchMerges) }

func TestScaleOutQueueGetDelete(t *testing.T) { inRounds(t, threeFrontEnds, queueGetDelete) }

func TestScaleOutCosmosIfMatchReplaces(t *testing.T) {
	inRounds(t, threeFrontEnds, cosmosIfMatchReplaces)
}
