package postgres_test

import (
	"context"
	"testing"

	"github.com/cerulean-db/cerulean/internal/kv"
	"github.com/cerulean-db/cerulean/internal/kv/kvtest"
	"github.com/cerulean-db/cerulean/internal/kv/postgres"
	"github.com/cerulean-db/cerulean/internal/testkit"
)

func open(t *testing.T, dsn, schema string) *postgres.Store {
	t.Helper()
	s, err := postgres.Open(context.Background(), dsn, postgres.Options{Schema: schema, MaxConns: 8})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := s.Close(); err != nil {
			t.Error(err)
		}
	})
	return s
}

// TestConformance runs the kv suite unchanged; each test gets its own
// schema, and Reopen opens a second pool on the same schema.
func TestConformance(t *testing.T) {
	dsn := testkit.PostgresDSN(t)
	schemaOf := map[kv.Store]string{}
	kvtest.Run(t, kvtest.Opener{
		Open: func(t *testing.T) kv.Store {
			schema := testkit.PostgresSchema()
			s := open(t, dsn, schema)
			schemaOf[s] = schema
			return s
		},
		Reopen: func(t *testing.T, old kv.Store) kv.Store {
			schema := schemaOf[old]
			if err := old.Close(); err != nil {
				t.Fatal(err)
			}
			s := open(t, dsn, schema)
			schemaOf[s] = schema
			return s
		},
		AddsConflict: true,
	})
}
