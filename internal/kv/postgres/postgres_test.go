package postgres_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/jackc/pgx/v5"

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
		ScansRead:    true,
	})
}

// TestUpgradeFromSchema1: a database written at schema version 1, whose
// appends were numbered at commit, opens at version 2 (gaining the table
// where appends wait for their numbers), and a new append to its
// sequence is numbered after the numbers it holds.
func TestUpgradeFromSchema1(t *testing.T) {
	dsn := testkit.PostgresDSN(t)
	ctx := context.Background()
	schema := testkit.PostgresSchema()
	conn, err := pgx.Connect(ctx, dsn)
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = conn.Close(ctx) }()
	for _, stmt := range []string{
		"CREATE SCHEMA " + pgx.Identifier{schema}.Sanitize(),
		"SET search_path = " + pgx.Identifier{schema}.Sanitize(),
		// Version 1's layout, as it wrote it.
		`CREATE TABLE cerulean_kv (k BYTEA PRIMARY KEY, v BYTEA NOT NULL)`,
		`CREATE SEQUENCE cerulean_version`,
		`CREATE TABLE cerulean_meta (name TEXT PRIMARY KEY, value TEXT NOT NULL)`,
		`INSERT INTO cerulean_meta (name, value) VALUES ('schema', '1')`,
		`INSERT INTO cerulean_kv (k, v) VALUES ('seq', '\x0000000000000002'), ('log/1', 'one'), ('log/2', 'two')`,
	} {
		if _, err := conn.Exec(ctx, stmt); err != nil {
			t.Fatalf("%s: %v", stmt, err)
		}
	}
	s := open(t, dsn, schema)
	var v string
	if err := conn.QueryRow(ctx, `SELECT value FROM cerulean_meta WHERE name = 'schema'`).Scan(&v); err != nil || v != "2" {
		t.Fatalf("schema version %q (%v), want 2", v, err)
	}
	key := func(n uint64, _ int) []byte { return fmt.Appendf(nil, "log/%d", n) }
	if err := s.Update(ctx, func(tx kv.Txn) error {
		return tx.Append(kv.Sequenced{Seq: []byte("seq"), Key: key, Values: [][]byte{[]byte("three")}})
	}); err != nil {
		t.Fatal(err)
	}
	if err := kv.Settle(ctx, s, []byte("seq"), key); err != nil {
		t.Fatal(err)
	}
	var got []string
	err = s.View(ctx, func(r kv.Reader) error {
		return r.Scan([]byte("log/"), []byte("log0"), func(k, v []byte) error {
			got = append(got, string(k)+"="+string(v))
			return nil
		})
	})
	if err != nil || fmt.Sprint(got) != "[log/1=one log/2=two log/3=three]" {
		t.Fatalf("the log: %v (%v)", got, err)
	}
}
