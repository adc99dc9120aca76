// Package upgrade_test checks that a data directory written by an earlier
// release still serves everything it held, and keeps working once the
// current release has written to it.
package upgrade_test

import (
	"context"
	"encoding/json"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"maps"
	"os"
	"path"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/data/azcosmos"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/container"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azqueue"

	"github.com/cerulean-db/cerulean/internal/kv/pebble"
	"github.com/cerulean-db/cerulean/internal/kv/record"
	"github.com/cerulean-db/cerulean/internal/server"
	"github.com/cerulean-db/cerulean/internal/servertest"
	"github.com/cerulean-db/cerulean/internal/testkit"
)

// generate writes the fixture of this release's data format,
// testdata/v<record.DataFormat>. Each release that changes the data format
// adds its own; the fixtures of earlier formats are kept, so that every
// later release is tested against data each earlier one wrote.
var generate = flag.Bool("generate", false, "write testdata/v<data format> with this build")

// fixtureDirs are the committed fixtures, one per data format.
func fixtureDirs(t *testing.T) []string {
	t.Helper()
	dirs, err := filepath.Glob("testdata/v*")
	if err != nil || len(dirs) == 0 {
		t.Fatalf("no fixtures in testdata: %v", err)
	}
	return dirs
}

// fixture is what the generator writes; snapshot timestamps are filled in
// when it runs.
func fixture() *manifest {
	return &manifest{
		Containers: []containerFixture{{
			Name:     "photos",
			Metadata: map[string]string{"owner": "ada", "purpose": "upgrade-fixture"},
			Blobs: []blobFixture{
				{Name: "cat.txt", Content: "a cat, third edition", ContentType: "text/plain",
					Metadata: map[string]string{"camera": "x100"}, Tags: map[string]string{"animal": "cat", "year": "2024"},
					Snapshots: map[string]string{"a cat, first edition": "", "a cat, second edition": ""}},
				{Name: "dir/dog.json", Content: `{"dog":true}`, ContentType: "application/json",
					Metadata: map[string]string{}, Tags: map[string]string{"animal": "dog"}},
			},
		}, {
			Name:     "empty",
			Metadata: map[string]string{},
		}},
		Queues: []queueFixture{{
			Name:     "orders",
			Metadata: map[string]string{"team": "billing"},
			Messages: []string{"order 1", "order 2", "order 3"},
		}},
		Tables: []tableFixture{{
			Name: "people",
			Entities: []map[string]any{
				// Azure writes an Edm.DateTime with a zero fraction as whole
				// seconds (test/parity's Table recordings).
				{"PartitionKey": "uk", "RowKey": "ada", "Name": "Ada", "Born": "1815-12-10T00:00:00Z", "Born@odata.type": "Edm.DateTime",
					"Papers": "7", "Papers@odata.type": "Edm.Int64", "Active": false, "Score": 9.5},
				{"PartitionKey": "uk", "RowKey": "alan", "Name": "Alan", "Id": "6f1f2b2a-1a2b-4c5d-8e9f-0a1b2c3d4e5f", "Id@odata.type": "Edm.Guid",
					"Photo": "AAEC", "Photo@odata.type": "Edm.Binary", "Count": float64(3)},
				{"PartitionKey": "us", "RowKey": "grace", "Name": "Grace"},
			},
		}},
		Databases: []databaseFixture{{
			ID: "shop",
			Containers: []cosmosContainerFixture{{
				ID:           "carts",
				PartitionKey: "pk",
				Items: []map[string]any{
					{"id": "c1", "pk": "p1", "total": float64(12), "lines": []any{"apple", "pear"}},
					{"id": "c2", "pk": "p2", "total": 3.5, "nested": map[string]any{"a": true}},
				},
				Sprocs: map[string]string{"hello": "hello from the fixture"},
			}},
		}},
		Shares: []shareFixture{{
			Name:  "docs",
			Files: map[string]string{"readme.txt": "read me", "sub/notes.md": "# notes"},
		}},
	}
}

func readManifest(t *testing.T, path string) *manifest {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var m manifest
	if err := json.Unmarshal(b, &m); err != nil {
		t.Fatal(err)
	}
	return &m
}

// TestGenerateFixture writes the fixture of this release's data format
// and its manifest (with -generate).
func TestGenerateFixture(t *testing.T) {
	if !*generate {
		t.Skip("run with -generate to write the fixture of this release's data format")
	}
	fixtureDir := fmt.Sprintf("testdata/v%d", record.DataFormat)
	dir := filepath.Join(fixtureDir, "data")
	if err := os.RemoveAll(dir); err != nil {
		t.Fatal(err)
	}
	env := servertest.Start(t, servertest.WithDataDir(dir))
	c := connect(t, env)
	m := fixture()
	c.populate(t, m)
	c.check(t, m)
	shutdown(t, env)
	b, err := json.MarshalIndent(m, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(fixtureDir, "manifest.json"), append(b, '\n'), 0o644); err != nil {
		t.Fatal(err)
	}
}

// TestUpgradeFromFixture opens a copy of each fixture, reads everything
// it lists, writes new records and rewrites old ones, then reopens and
// reads both.
func TestUpgradeFromFixture(t *testing.T) {
	for _, fixtureDir := range fixtureDirs(t) {
		t.Run(filepath.Base(fixtureDir), func(t *testing.T) { upgradeFrom(t, fixtureDir) })
	}
}

func upgradeFrom(t *testing.T, fixtureDir string) {
	dir := t.TempDir()
	if err := os.CopyFS(dir, os.DirFS(filepath.Join(fixtureDir, "data"))); err != nil {
		t.Fatal(err)
	}
	old := readManifest(t, filepath.Join(fixtureDir, "manifest.json"))

	env := servertest.Start(t, servertest.WithDataDir(dir))
	c := connect(t, env)
	c.check(t, old)
	c.checkNamesIgnoreCase(t, old)
	// Opening marked the directory as holding this release's records.
	if prev, err := record.OpenDataFormat(context.Background(), env.Store, "data directory"); err != nil || prev != record.DataFormat {
		t.Fatalf("data format after opening: %d, %v", prev, err)
	}

	added := &manifest{
		Containers: []containerFixture{{Name: "new-container", Metadata: map[string]string{"k": "v"},
			Blobs: []blobFixture{{Name: "n.txt", Content: "new", ContentType: "text/plain", Metadata: map[string]string{"m": "1"}, Tags: map[string]string{"t": "1"},
				Snapshots: map[string]string{"newer snapshot": ""}}}}},
		Queues: []queueFixture{{Name: "new-queue", Metadata: map[string]string{}, Messages: []string{"fresh"}}},
		Tables: []tableFixture{{Name: "newtable", Entities: []map[string]any{{"PartitionKey": "p", "RowKey": "r", "V": "x"}}}},
		Databases: []databaseFixture{{ID: "newdb", Containers: []cosmosContainerFixture{{ID: "c", PartitionKey: "pk",
			Items: []map[string]any{{"id": "i", "pk": "p1", "n": float64(1)}}, Sprocs: map[string]string{"sp": "new sproc"}}}}},
		Shares: []shareFixture{{Name: "newshare", Files: map[string]string{"f.txt": "new file"}}},
	}
	c.populate(t, added)
	c.rewrite(t, old)
	c.check(t, old)
	c.check(t, added)
	shutdown(t, env)

	env = servertest.Start(t, servertest.WithDataDir(dir))
	c = connect(t, env)
	c.check(t, old)
	c.check(t, added)
	c.checkNamesIgnoreCase(t, old)
}

// checkNamesIgnoreCase checks the fixture's files and directories by
// their names in upper case, and that listings show them as created:
// releases before case-insensitive names keyed directory entries by the
// names as given, and the File service moves them to keys it finds in
// any case (internal/file/names_upgrade.go).
func (c *clients) checkNamesIgnoreCase(t *testing.T, m *manifest) {
	t.Helper()
	ctx := context.Background()
	for _, s := range m.Shares {
		sc := c.file.NewShareClient(s.Name)
		top := map[string]bool{}
		for p, content := range s.Files {
			top[strings.Split(p, "/")[0]] = true
			dir, name := path.Split(strings.ToUpper(p))
			fc := sc.NewRootDirectoryClient().NewFileClient(name)
			if dir != "" {
				fc = sc.NewDirectoryClient(strings.TrimSuffix(dir, "/")).NewFileClient(name)
				_, err := sc.NewDirectoryClient(strings.TrimSuffix(dir, "/")).Create(ctx, nil)
				if err == nil || !strings.Contains(err.Error(), "ResourceAlreadyExists") {
					t.Errorf("create directory %s beside its lower-case self: %v, want ResourceAlreadyExists", dir, err)
				}
			}
			resp, err := fc.DownloadStream(ctx, nil)
			if err != nil {
				t.Fatalf("file %s in upper case: %v", p, err)
			}
			if got := string(testkit.ReadBody(t, resp.Body)); got != content {
				t.Errorf("file %s in upper case = %q, want %q", p, got, content)
			}
		}
		listed := map[string]bool{}
		pager := sc.NewRootDirectoryClient().NewListFilesAndDirectoriesPager(nil)
		for pager.More() {
			page, err := pager.NextPage(ctx)
			if err != nil {
				t.Fatal(err)
			}
			for _, d := range page.Segment.Directories {
				listed[*d.Name] = true
			}
			for _, f := range page.Segment.Files {
				listed[*f.Name] = true
			}
		}
		if !maps.Equal(listed, top) {
			t.Errorf("share %s lists %v, want %v", s.Name, listed, top)
		}
	}
}

// rewrite changes one record of every kind the fixture holds, so that the
// current release writes over records an earlier one wrote, and updates m
// to match.
func (c *clients) rewrite(t *testing.T, m *manifest) {
	t.Helper()
	ctx := context.Background()
	ct := &m.Containers[0]
	ct.Metadata["rewritten"] = "yes"
	if _, err := c.blob.ServiceClient().NewContainerClient(ct.Name).SetMetadata(ctx, &container.SetMetadataOptions{Metadata: ptrs(ct.Metadata)}); err != nil {
		t.Fatalf("container metadata: %v", err)
	}
	b := &ct.Blobs[0]
	b.Metadata["rewritten"] = "yes"
	if _, err := c.blob.ServiceClient().NewContainerClient(ct.Name).NewBlobClient(b.Name).SetMetadata(ctx, ptrs(b.Metadata), nil); err != nil {
		t.Fatalf("blob metadata: %v", err)
	}
	q := &m.Queues[0]
	q.Metadata["rewritten"] = "yes"
	if _, err := c.queue.NewQueueClient(q.Name).SetMetadata(ctx, &azqueue.SetMetadataOptions{Metadata: ptrs(q.Metadata)}); err != nil {
		t.Fatalf("queue metadata: %v", err)
	}
	e := m.Tables[0].Entities[0]
	e["Name"] = "Ada Lovelace"
	body, err := json.Marshal(e)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := c.table.NewClient(m.Tables[0].Name).UpsertEntity(ctx, body, nil); err != nil {
		t.Fatalf("upsert entity: %v", err)
	}
	d := m.Databases[0]
	cc, err := c.cosmos.NewContainer(d.ID, d.Containers[0].ID)
	if err != nil {
		t.Fatal(err)
	}
	item := d.Containers[0].Items[0]
	item["total"] = float64(13)
	if body, err = json.Marshal(item); err != nil {
		t.Fatal(err)
	}
	if _, err := cc.ReplaceItem(ctx, azcosmos.NewPartitionKeyString(item["pk"].(string)), item["id"].(string), body, nil); err != nil {
		t.Fatalf("replace item: %v", err)
	}
	// Changing the container's throughput rewrites its offer record.
	if _, err := cc.ReplaceThroughput(ctx, azcosmos.NewManualThroughputProperties(500), nil); err != nil {
		t.Fatalf("replace throughput: %v", err)
	}
}

func shutdown(t *testing.T, env *servertest.Env) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := env.Server.Shutdown(ctx); err != nil {
		t.Fatalf("shutdown: %v", err)
	}
}

// TestNewerDataFormatRefused: a data directory a newer release marked is
// refused at startup, naming both formats, and left as it was.
func TestNewerDataFormatRefused(t *testing.T) {
	dir := t.TempDir()
	if err := os.CopyFS(dir, os.DirFS(filepath.Join(fixtureDirs(t)[0], "data"))); err != nil {
		t.Fatal(err)
	}
	store, err := pebble.Open(dir, pebble.Options{})
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	if err := errors.Join(record.SetDataFormat(ctx, store, record.DataFormat+1), store.Close()); err != nil {
		t.Fatal(err)
	}
	srv, err := server.Start(ctx, server.Config{Host: "127.0.0.1", DataDir: dir, Logger: slog.New(slog.DiscardHandler)})
	if err == nil {
		_ = srv.Shutdown(ctx)
		t.Fatal("a data directory of a newer data format was opened")
	}
	want := fmt.Sprintf("data directory %s was written by a newer cerulean (data format %d); this release reads up to %d", dir, record.DataFormat+1, record.DataFormat)
	if !strings.Contains(err.Error(), want) {
		t.Fatalf("error %q does not say %q", err, want)
	}
	// The refusal released the directory: a release that reads the format
	// can open it.
	store, err = pebble.Open(dir, pebble.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if err := store.Close(); err != nil {
		t.Fatal(err)
	}
}
