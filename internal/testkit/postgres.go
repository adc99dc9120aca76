package testkit

import (
	"context"
	"fmt"
	"os"
	"sync/atomic"
	"testing"
	"time"

	"github.com/cerulean-db/cerulean/internal/kv/postgres"
)

// PostgresEnv names the variable holding the connection string of the
// throw-away PostgreSQL cluster that `make test` starts for the tests.
const PostgresEnv = "CERULEAN_TEST_POSTGRES"

// PostgresDSN returns the test cluster's connection string. Without one
// the test is skipped, with a message saying how to get one, except in CI
// (CI=true), where the test command always starts the cluster and its
// absence is a failure.
func PostgresDSN(t testing.TB) string {
	t.Helper()
	dsn := os.Getenv(PostgresEnv)
	if dsn != "" {
		return dsn
	}
	if os.Getenv("CI") == "true" {
		t.Fatalf("%s is not set: `make test` starts a PostgreSQL cluster for these tests (scripts/test-postgres)", PostgresEnv)
	}
	t.Skipf("no PostgreSQL: set %s to a database URL, or run `make test`, which starts a throw-away cluster (scripts/test-postgres)", PostgresEnv)
	return ""
}

var schemas atomic.Uint64

// PostgresSchema returns a schema name no other test of this run uses, so
// that tests sharing one cluster start from empty tables.
func PostgresSchema() string {
	return fmt.Sprintf("t%d_%d_%d", os.Getpid(), time.Now().UnixNano()%1e9, schemas.Add(1))
}

// Postgres opens the test cluster's database in a schema of its own (see
// PostgresDSN for a missing cluster), with at most maxConns connections,
// closed when the test ends.
func Postgres(t testing.TB, maxConns int32) *postgres.Store {
	t.Helper()
	pg, err := postgres.Open(context.Background(), PostgresDSN(t), postgres.Options{Schema: PostgresSchema(), MaxConns: maxConns})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = pg.Close() })
	return pg
}
