// Package azcli_test drives the az CLI (Debian's azure-cli, which `make
// debtools` installs) against a cerulean server: the storage commands a
// user types first, for Blob, Queue, Table and Files and the services'
// properties, each checked by the JSON it prints. The CLI reaches the
// server through the connection string alone, as the README shows.
package azcli_test

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/cerulean-db/cerulean/internal/servertest"
	"github.com/cerulean-db/cerulean/internal/testkit"
)

// cli runs az against one server, with a configuration directory of its
// own so that nothing on the machine (a login, defaults) takes part.
type cli struct {
	t    *testing.T
	path string
	conn string
	env  []string
	work string // a directory for the files commands read and write
}

func newCLI(t *testing.T) *cli {
	t.Helper()
	path := testkit.Tool(t, "az", "azure-cli")
	env := servertest.Start(t)
	return &cli{
		t:    t,
		path: path,
		conn: env.ConnectionString,
		env: append(os.Environ(),
			"AZURE_CONFIG_DIR="+t.TempDir(),
			"AZURE_CORE_COLLECT_TELEMETRY=false",
			"AZURE_CORE_ONLY_SHOW_ERRORS=true",
			"AZURE_CORE_NO_COLOR=true",
			// The connection string is the only credential.
			"AZURE_STORAGE_CONNECTION_STRING=",
			"AZURE_STORAGE_ACCOUNT=",
			"AZURE_STORAGE_KEY=",
			"AZURE_STORAGE_SAS_TOKEN=",
		),
		work: t.TempDir(),
	}
}

// raw runs az with args as given and returns what it printed.
func (c *cli) raw(args ...string) (stdout, stderr string, err error) {
	c.t.Helper()
	ctx, cancel := context.WithTimeout(c.t.Context(), 2*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, c.path, args...)
	cmd.Env = c.env
	cmd.Dir = c.work
	var out, errOut bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &errOut
	err = cmd.Run()
	return out.String(), errOut.String(), err
}

// storage runs `az storage args... --connection-string ... -o json` and
// returns what it printed, with the command as a message names it.
func (c *cli) storage(args []string) (command, stdout, stderr string, err error) {
	c.t.Helper()
	command = "az storage " + strings.Join(args, " ")
	stdout, stderr, err = c.raw(append(append([]string{"storage"}, args...), "--connection-string", c.conn, "-o", "json")...)
	return command, stdout, stderr, err
}

// run runs `az storage args...` and decodes its output into v (when v is
// not nil); the command must succeed.
func (c *cli) run(v any, args ...string) {
	c.t.Helper()
	command, out, errOut, err := c.storage(args)
	if err != nil {
		c.t.Fatalf("%s: %v\n%s%s", command, err, out, errOut)
	}
	if v == nil {
		return
	}
	if err := json.Unmarshal([]byte(out), v); err != nil {
		c.t.Fatalf("%s: output is not the JSON expected (%v):\n%s", command, err, out)
	}
}

// fails runs `az storage args...` and requires it to fail printing code:
// Azure's error code or, where the CLI prints only the message, Azure's
// message.
func (c *cli) fails(code string, args ...string) {
	c.t.Helper()
	command, out, errOut, err := c.storage(args)
	if err == nil {
		c.t.Fatalf("%s succeeded, want it to fail with %s:\n%s", command, code, out)
	}
	if !strings.Contains(out+errOut, code) {
		c.t.Fatalf("%s failed without naming %s:\n%s%s", command, code, out, errOut)
	}
}

// file writes a file in the working directory and returns its path.
func (c *cli) file(name, content string) string {
	c.t.Helper()
	p := filepath.Join(c.work, name)
	if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
		c.t.Fatal(err)
	}
	if err := os.WriteFile(p, []byte(content), 0o644); err != nil {
		c.t.Fatal(err)
	}
	return p
}

// read returns the content of a file the CLI wrote.
func (c *cli) read(p string) string {
	c.t.Helper()
	b, err := os.ReadFile(p)
	if err != nil {
		c.t.Fatal(err)
	}
	return string(b)
}

type created struct {
	Created bool `json:"created"`
}

func (c *cli) create(args ...string) {
	c.t.Helper()
	var out created
	c.run(&out, args...)
	if !out.Created {
		c.t.Fatalf("az storage %s: created false", strings.Join(args, " "))
	}
}

// createListed creates the container, queue, table or share (kind) name
// and checks that `az storage KIND list` lists it alone.
func (c *cli) createListed(kind, name string) {
	c.t.Helper()
	c.create(kind, "create", "--name", name)
	var listed []named
	c.run(&listed, kind, "list")
	want(c.t, kind+"s listed", strings.Join(names(listed), ","), name)
}

type named struct {
	Name string `json:"name"`
}

func names(list []named) []string {
	out := make([]string, 0, len(list))
	for _, n := range list {
		out = append(out, n.Name)
	}
	return out
}

func want[T comparable](t *testing.T, what string, got, wanted T) {
	t.Helper()
	if got != wanted {
		t.Errorf("%s: %v, want %v", what, got, wanted)
	}
}

// TestBlobCommands: the README's first commands and the ones after them.
func TestBlobCommands(t *testing.T) {
	t.Parallel()
	c := newCLI(t)
	hello := c.file("hello.txt", "hello\n")
	c.createListed("container", "hello")

	var up struct {
		ETag       string `json:"etag"`
		ContentMD5 string `json:"content_md5"`
	}
	c.run(&up, "blob", "upload", "--container-name", "hello", "--name", "hello.txt", "--file", hello)
	if up.ETag == "" {
		t.Error("blob upload: no etag")
	}
	var blobs []named
	c.run(&blobs, "blob", "list", "--container-name", "hello")
	want(t, "blobs listed", strings.Join(names(blobs), ","), "hello.txt")
	var shown struct {
		Properties struct {
			ContentLength int64  `json:"contentLength"`
			BlobType      string `json:"blobType"`
		} `json:"properties"`
	}
	c.run(&shown, "blob", "show", "--container-name", "hello", "--name", "hello.txt")
	want(t, "blob show: content length", shown.Properties.ContentLength, 6)
	want(t, "blob show: blob type", shown.Properties.BlobType, "BlockBlob")
	got := filepath.Join(c.work, "got.txt")
	c.run(nil, "blob", "download", "--container-name", "hello", "--name", "hello.txt", "--file", got)
	want(t, "downloaded content", c.read(got), "hello\n")

	c.run(nil, "blob", "metadata", "update", "--container-name", "hello", "--name", "hello.txt", "--metadata", "team=blue")
	var meta map[string]string
	c.run(&meta, "blob", "metadata", "show", "--container-name", "hello", "--name", "hello.txt")
	want(t, "blob metadata", meta["team"], "blue")

	// A lease keeps others from writing until it is released.
	var leaseID string
	c.run(&leaseID, "blob", "lease", "acquire", "--container-name", "hello", "--blob-name", "hello.txt", "--lease-duration", "15")
	if leaseID == "" {
		t.Fatal("blob lease acquire: no lease id")
	}
	c.fails("LeaseIdMissing", "blob", "upload", "--container-name", "hello", "--name", "hello.txt", "--file", hello, "--overwrite")
	c.run(nil, "blob", "upload", "--container-name", "hello", "--name", "hello.txt", "--file", hello, "--overwrite", "--lease-id", leaseID)
	c.run(nil, "blob", "lease", "release", "--container-name", "hello", "--blob-name", "hello.txt", "--lease-id", leaseID)

	// A read-only SAS the CLI makes reads the blob and may not write it.
	var sas string
	c.run(&sas, "blob", "generate-sas", "--container-name", "hello", "--name", "hello.txt", "--permissions", "r", "--expiry", time.Now().Add(time.Hour).UTC().Format("2006-01-02T15:04Z"))
	endpoint := blobEndpoint(t, c.conn)
	viaSAS := filepath.Join(c.work, "sas.txt")
	if out, errOut, err := c.raw("storage", "blob", "download", "--blob-endpoint", endpoint, "--sas-token", sas, "--container-name", "hello", "--name", "hello.txt", "--file", viaSAS, "-o", "none"); err != nil {
		t.Fatalf("blob download with the SAS: %v\n%s%s", err, out, errOut)
	}
	want(t, "content read with the SAS", c.read(viaSAS), "hello\n")
	// The CLI prints its own words for any 403.
	if out, errOut, err := c.raw("storage", "blob", "upload", "--blob-endpoint", endpoint, "--sas-token", sas, "--container-name", "hello", "--name", "other.txt", "--file", hello, "-o", "none"); err == nil || !strings.Contains(out+errOut, "Authentication failure") {
		t.Fatalf("blob upload with a read-only SAS: %v, want the CLI's authentication failure\n%s%s", err, out, errOut)
	}

	var copied struct {
		Status string `json:"copy_status"`
	}
	c.run(&copied, "blob", "copy", "start", "--destination-container", "hello", "--destination-blob", "copy.txt", "--source-container", "hello", "--source-blob", "hello.txt")
	want(t, "blob copy start: status", copied.Status, "success")
	var snap struct {
		Snapshot string `json:"snapshot"`
	}
	c.run(&snap, "blob", "snapshot", "--container-name", "hello", "--name", "hello.txt")
	if snap.Snapshot == "" {
		t.Error("blob snapshot: no snapshot time")
	}

	// Batches: a folder up, then down again.
	src := filepath.Join(c.work, "batch")
	c.file("batch/a.txt", "a")
	c.file("batch/sub/b.txt", "bb")
	c.run(nil, "blob", "upload-batch", "--destination", "hello", "--source", src, "--destination-path", "batch")
	dst := filepath.Join(c.work, "down")
	if err := os.Mkdir(dst, 0o755); err != nil {
		t.Fatal(err)
	}
	c.run(nil, "blob", "download-batch", "--source", "hello", "--destination", dst, "--pattern", "batch/*")
	want(t, "downloaded batch/sub/b.txt", c.read(filepath.Join(dst, "batch", "sub", "b.txt")), "bb")

	var exists struct {
		Exists bool `json:"exists"`
	}
	c.run(nil, "blob", "delete", "--container-name", "hello", "--name", "copy.txt")
	c.run(&exists, "blob", "exists", "--container-name", "hello", "--name", "copy.txt")
	want(t, "a deleted blob exists", exists.Exists, false)
	var deleted struct {
		Deleted bool `json:"deleted"`
	}
	c.run(&deleted, "container", "delete", "--name", "hello")
	want(t, "container delete: deleted", deleted.Deleted, true)
}

// blobEndpoint returns the BlobEndpoint of a connection string.
func blobEndpoint(t *testing.T, conn string) string {
	t.Helper()
	for _, part := range strings.Split(conn, ";") {
		if v, ok := strings.CutPrefix(part, "BlobEndpoint="); ok {
			return v
		}
	}
	t.Fatalf("no BlobEndpoint in %q", conn)
	return ""
}

// TestQueueCommands: a queue, a message put, peeked, received and deleted.
func TestQueueCommands(t *testing.T) {
	t.Parallel()
	c := newCLI(t)
	c.createListed("queue", "orders")
	type message struct {
		ID         string `json:"id"`
		Content    string `json:"content"`
		PopReceipt string `json:"popReceipt"`
	}
	var put message
	c.run(&put, "message", "put", "--queue-name", "orders", "--content", "first order")
	if put.ID == "" || put.PopReceipt == "" {
		t.Fatalf("message put: id %q, pop receipt %q", put.ID, put.PopReceipt)
	}
	var peeked []message
	c.run(&peeked, "message", "peek", "--queue-name", "orders")
	if len(peeked) != 1 || peeked[0].Content != "first order" {
		t.Fatalf("message peek: %+v", peeked)
	}
	var got []message
	c.run(&got, "message", "get", "--queue-name", "orders", "--visibility-timeout", "30")
	if len(got) != 1 || got[0].Content != "first order" || got[0].PopReceipt == "" {
		t.Fatalf("message get: %+v", got)
	}
	var none []message
	c.run(&none, "message", "get", "--queue-name", "orders")
	want(t, "messages while the only one is invisible", len(none), 0)
	c.run(nil, "message", "delete", "--queue-name", "orders", "--id", got[0].ID, "--pop-receipt", got[0].PopReceipt)
	c.fails("MessageNotFound", "message", "delete", "--queue-name", "orders", "--id", got[0].ID, "--pop-receipt", got[0].PopReceipt)
	c.run(nil, "queue", "metadata", "update", "--name", "orders", "--metadata", "team=blue")
	var meta map[string]string
	c.run(&meta, "queue", "metadata", "show", "--name", "orders")
	want(t, "queue metadata", meta["team"], "blue")
	c.run(nil, "queue", "delete", "--name", "orders")
}

// TestTableCommands: a table, an entity inserted, read, queried, merged
// and deleted.
func TestTableCommands(t *testing.T) {
	t.Parallel()
	c := newCLI(t)
	c.createListed("table", "people")
	c.run(nil, "entity", "insert", "--table-name", "people", "--entity", "PartitionKey=team", "RowKey=ada", "name=Ada", "age=36", "age@odata.type=Edm.Int32")
	c.fails("The specified entity already exists.", "entity", "insert", "--table-name", "people", "--entity", "PartitionKey=team", "RowKey=ada", "name=Ada")
	var ada map[string]any
	c.run(&ada, "entity", "show", "--table-name", "people", "--partition-key", "team", "--row-key", "ada")
	want(t, "entity name", ada["name"], any("Ada"))
	want(t, "entity age", ada["age"], any(float64(36)))
	c.run(nil, "entity", "merge", "--table-name", "people", "--entity", "PartitionKey=team", "RowKey=ada", "city=London")
	var queried struct {
		Items []map[string]any `json:"items"`
	}
	c.run(&queried, "entity", "query", "--table-name", "people", "--filter", "PartitionKey eq 'team' and city eq 'London'")
	if len(queried.Items) != 1 || queried.Items[0]["name"] != "Ada" {
		t.Fatalf("entity query: %+v", queried.Items)
	}
	c.run(nil, "entity", "delete", "--table-name", "people", "--partition-key", "team", "--row-key", "ada")
	c.fails("ResourceNotFound", "entity", "show", "--table-name", "people", "--partition-key", "team", "--row-key", "ada")
	c.run(nil, "table", "delete", "--name", "people")
}

// TestFileCommands: a share, a directory, a file uploaded, listed,
// downloaded, copied and snapshotted.
func TestFileCommands(t *testing.T) {
	t.Parallel()
	c := newCLI(t)
	hello := c.file("hello.txt", "hello\n")
	c.createListed("share", "docs")
	c.create("directory", "create", "--share-name", "docs", "--name", "notes")
	c.run(nil, "file", "upload", "--share-name", "docs", "--source", hello, "--path", "notes/hello.txt")
	var files []named
	c.run(&files, "file", "list", "--share-name", "docs", "--path", "notes")
	want(t, "files listed", strings.Join(names(files), ","), "hello.txt")
	var shown struct {
		Properties struct {
			ContentLength int64 `json:"contentLength"`
		} `json:"properties"`
	}
	c.run(&shown, "file", "show", "--share-name", "docs", "--path", "notes/hello.txt")
	want(t, "file show: content length", shown.Properties.ContentLength, 6)
	got := filepath.Join(c.work, "got.txt")
	c.run(nil, "file", "download", "--share-name", "docs", "--path", "notes/hello.txt", "--dest", got)
	want(t, "downloaded content", c.read(got), "hello\n")
	var copied struct {
		Status string `json:"status"`
	}
	c.run(&copied, "file", "copy", "start", "--source-share", "docs", "--source-path", "notes/hello.txt", "--destination-share", "docs", "--destination-path", "notes/copy.txt")
	want(t, "file copy start: status", copied.Status, "success")
	var snap struct {
		Snapshot string `json:"snapshot"`
	}
	c.run(&snap, "share", "snapshot", "--name", "docs")
	if snap.Snapshot == "" {
		t.Error("share snapshot: no snapshot time")
	}
	c.run(nil, "file", "delete", "--share-name", "docs", "--path", "notes/copy.txt")
	var exists struct {
		Exists bool `json:"exists"`
	}
	c.run(&exists, "file", "exists", "--share-name", "docs", "--path", "notes/copy.txt")
	want(t, "a deleted file exists", exists.Exists, false)
	c.fails("ShareHasSnapshots", "share", "delete", "--name", "docs")
	c.run(nil, "share", "delete", "--name", "docs", "--delete-snapshots", "include")
}

// TestServicePropertiesCommands: CORS rules, metrics and logging, set and
// read back for every service that has them.
func TestServicePropertiesCommands(t *testing.T) {
	t.Parallel()
	c := newCLI(t)
	var rules []struct {
		Service         string `json:"Service"`
		AllowedOrigins  string `json:"AllowedOrigins"`
		AllowedMethods  string `json:"AllowedMethods"`
		MaxAgeInSeconds int    `json:"MaxAgeInSeconds"`
	}
	c.run(&rules, "cors", "list")
	want(t, "CORS rules of a new account", len(rules), 0)
	c.run(nil, "cors", "add", "--services", "bfqt", "--methods", "GET", "PUT", "--origins", "https://example.com", "--allowed-headers", "x-ms-meta-*", "--exposed-headers", "x-ms-meta-*", "--max-age", "60")
	c.run(&rules, "cors", "list")
	want(t, "CORS rules after one was added to four services", len(rules), 4)
	for _, r := range rules {
		if r.AllowedOrigins != "https://example.com" || strings.ReplaceAll(r.AllowedMethods, " ", "") != "GET,PUT" || r.MaxAgeInSeconds != 60 {
			t.Errorf("CORS rule of %s: %+v", r.Service, r)
		}
	}
	c.run(nil, "cors", "clear", "--services", "bfqt")
	c.run(&rules, "cors", "list")
	want(t, "CORS rules after clear", len(rules), 0)

	c.run(nil, "metrics", "update", "--services", "bfqt", "--hour", "true", "--minute", "false", "--api", "true", "--retention", "5")
	var metrics map[string]struct {
		Hour struct {
			Enabled         bool `json:"enabled"`
			RetentionPolicy struct {
				Days int `json:"days"`
			} `json:"retentionPolicy"`
		} `json:"hour"`
	}
	c.run(&metrics, "metrics", "show", "--services", "bfqt")
	for _, svc := range []string{"blob", "file", "queue", "table"} {
		m, ok := metrics[svc]
		if !ok || !m.Hour.Enabled || m.Hour.RetentionPolicy.Days != 5 {
			t.Errorf("hour metrics of %s: %+v (listed: %v)", svc, m, ok)
		}
	}

	c.run(nil, "logging", "update", "--services", "bqt", "--log", "rwd", "--retention", "3")
	var logging map[string]struct {
		Read, Write, Delete bool
	}
	c.run(&logging, "logging", "show", "--services", "bqt")
	for _, svc := range []string{"blob", "queue", "table"} {
		if l := logging[svc]; !l.Read || !l.Write || !l.Delete {
			t.Errorf("logging of %s: %+v", svc, l)
		}
	}
}
