package main

import (
	"encoding/json"
	"io"
	"log/slog"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/cerulean-db/cerulean/internal/faults"
	"github.com/cerulean-db/cerulean/internal/server"
)

func envOf(vars map[string]string) func(string) string {
	return func(name string) string { return vars[name] }
}

func parse(t *testing.T, args []string, env map[string]string) (*serveFlags, error) {
	t.Helper()
	return parseServeFlags(args, envOf(env), io.Discard)
}

func TestServeDefaults(t *testing.T) {
	f, err := parse(t, nil, nil)
	if err != nil {
		t.Fatal(err)
	}
	want := serveFlags{host: "127.0.0.1", blobPort: 10000, queuePort: 10001, tablePort: 10002, filePort: 10003, smbPort: 10445, cosmosPort: 8081,
		searchPort: 8082, searchAdminKeys: apiKeys{"cerulean-search-admin-key"}, searchQueryKeys: apiKeys{"cerulean-search-query-key"},
		dataDir: "./cerulean-data", logLevel: logLevel(slog.LevelInfo), scriptBudget: budget(5 * time.Second),
		adminHost: "127.0.0.1", adminPort: 10080, minFreeSpace: reserveSize{auto: true}}
	if !reflect.DeepEqual(*f, want) {
		t.Errorf("defaults: %+v, want %+v", *f, want)
	}
}

// TestServeEnvUnderstood: every value the documentation promises is read
// as meant, booleans exactly as strconv.ParseBool reads them.
func TestServeEnvUnderstood(t *testing.T) {
	f, err := parse(t, nil, map[string]string{
		"CERULEAN_HOST": "0.0.0.0", "CERULEAN_BLOB_PORT": "0", "CERULEAN_QUEUE_PORT": "65535",
		"CERULEAN_TABLE_PORT": "20002", "CERULEAN_FILE_PORT": "20004", "CERULEAN_SMB_PORT": "20445", "CERULEAN_COSMOS_PORT": "20003", "CERULEAN_COSMOS_HTTP": "TRUE",
		"CERULEAN_DATA": "/tmp/x", "CERULEAN_IN_MEMORY": "1", "CERULEAN_LOG_LEVEL": "WARN", "CERULEAN_ADMIN_PORT": "off", "CERULEAN_TEST_CLOCK": "true",
		"CERULEAN_FAULTS": "blob/PutBlob=busy@50%;retry-after=10ms", "CERULEAN_ADMIN_HOST": "127.0.0.2", "CERULEAN_MIN_FREE_SPACE": "1GiB",
		"CERULEAN_COSMOS_SCRIPT_BUDGET": "750ms", "CERULEAN_SEARCH_PORT": "20005", "CERULEAN_SEARCH_HTTPS": "true",
		"CERULEAN_SEARCH_ADMIN_KEY": "admin-1", "CERULEAN_SEARCH_QUERY_KEY": "q1,q2",
	})
	if err != nil {
		t.Fatal(err)
	}
	want := serveFlags{host: "0.0.0.0", blobPort: 0, queuePort: 65535, tablePort: 20002, filePort: 20004, smbPort: 20445, cosmosPort: 20003, cosmosHTTP: true,
		searchPort: 20005, searchHTTPS: true, searchAdminKeys: apiKeys{"admin-1"}, searchQueryKeys: apiKeys{"q1", "q2"},
		dataDir: "/tmp/x", inMemory: true, logLevel: logLevel(slog.LevelWarn), scriptBudget: budget(750 * time.Millisecond),
		adminHost: "127.0.0.2", adminPort: -1, testClock: true, minFreeSpace: reserveSize{size: 1 << 30},
		faults: faultRules{{Service: "blob", Operation: "PutBlob", Kind: faults.Busy, Rate: 0.5, RetryAfter: faults.Duration(10 * time.Millisecond)}}}
	if !reflect.DeepEqual(*f, want) {
		t.Errorf("got %+v, want %+v", *f, want)
	}
	for value, want := range map[string]boolean{"1": true, "t": true, "T": true, "true": true, "True": true,
		"0": false, "f": false, "F": false, "false": false, "FALSE": false} {
		f, err := parse(t, nil, map[string]string{"CERULEAN_IN_MEMORY": value})
		if err != nil {
			t.Errorf("CERULEAN_IN_MEMORY=%s: %v", value, err)
		} else if f.inMemory != want {
			t.Errorf("CERULEAN_IN_MEMORY=%s: in-memory %v, want %v", value, f.inMemory, want)
		}
	}
}

// TestServeBadEnvRefused: a value that is not understood stops the start
// with the variable's name and value, instead of leaving the default.
func TestServeBadEnvRefused(t *testing.T) {
	for _, tc := range []struct{ name, value, why string }{
		{"CERULEAN_BLOB_PORT", "abc", "port"},
		{"CERULEAN_QUEUE_PORT", "65536", "port"},
		{"CERULEAN_TABLE_PORT", "-1", "port"},
		{"CERULEAN_FILE_PORT", "10003x", "port"},
		{"CERULEAN_COSMOS_PORT", "0x1f90", "port"},
		{"CERULEAN_SMB_PORT", "445445", "port"},
		{"CERULEAN_SMB_PORT", "smb", "port"},
		{"CERULEAN_BLOB_PORT", " 10000", "port"},
		{"CERULEAN_IN_MEMORY", "yes", "boolean"},
		{"CERULEAN_IN_MEMORY", "on", "boolean"},
		{"CERULEAN_COSMOS_HTTP", "tRuE", "boolean"},
		{"CERULEAN_LOG_LEVEL", "verbose", "log level"},
		{"CERULEAN_LOG_LEVEL", "info+2", "log level"},
		{"CERULEAN_COSMOS_SCRIPT_BUDGET", "5", "duration"},
		{"CERULEAN_COSMOS_SCRIPT_BUDGET", "0s", "duration"},
		{"CERULEAN_COSMOS_SCRIPT_BUDGET", "1h", "duration"},
		{"CERULEAN_SEARCH_PORT", "8082a", "port"},
		{"CERULEAN_SEARCH_PORT", "99999", "port"},
		{"CERULEAN_SEARCH_ADMIN_KEY", "has space", "api-keys"},
		{"CERULEAN_SEARCH_QUERY_KEY", "a,,b", "api-keys"},
		{"CERULEAN_SEARCH_QUERY_KEY", "clé", "api-keys"},
		{"CERULEAN_STORE", "mysql://db/x", "PostgreSQL URL"},
		{"CERULEAN_STORE", "postgres://", "PostgreSQL URL"},
		{"CERULEAN_STORE", "./data", "PostgreSQL URL"},
		{"CERULEAN_ADMIN_PORT", "none", "port"},
		{"CERULEAN_MIN_FREE_SPACE", "lots", "size"},
		{"CERULEAN_MIN_FREE_SPACE", "-1MiB", "size"},
		{"CERULEAN_MIN_FREE_SPACE", "1.5GiB", "size"},
		{"CERULEAN_FAULTS", "blob/PutBlob=busy", "rate"},
		{"CERULEAN_FAULTS", "blob=explode@5%", "kind"},
		{"CERULEAN_FAULTS", "disk=busy@5%", "service"},
		{"CERULEAN_FAULTS", "blob=busy@150%", "rate"},
		{"CERULEAN_FAULTS", "blob=latency@50%", "delay"},
	} {
		_, err := parse(t, nil, map[string]string{tc.name: tc.value})
		if err == nil {
			t.Errorf("%s=%q accepted", tc.name, tc.value)
			continue
		}
		for _, part := range []string{tc.name, `"` + tc.value + `"`, tc.why} {
			if !strings.Contains(err.Error(), part) {
				t.Errorf("%s=%q: error %q does not mention %s", tc.name, tc.value, err, part)
			}
		}
	}
}

// TestServeBadEnvRefusedUnderFlag: a bad variable is refused even when a
// flag overrides it, so a broken environment never goes unnoticed.
func TestServeBadEnvRefusedUnderFlag(t *testing.T) {
	_, err := parse(t, []string{"--blob-port", "20000"}, map[string]string{"CERULEAN_BLOB_PORT": "abc"})
	if err == nil || !strings.Contains(err.Error(), "CERULEAN_BLOB_PORT") {
		t.Errorf("got %v, want the bad variable refused", err)
	}
}

func TestServeBadFlagRefused(t *testing.T) {
	for _, args := range [][]string{
		{"--blob-port", "abc"},
		{"--queue-port", "70000"},
		{"--table-port=-5"},
		{"--file-port", "65536"},
		{"--search-port", "-1"},
		{"--search-admin-key", ""},
		{"--search-query-key", "ok,"},
		{"--smb-port", "-445"},
		{"--in-memory=yes"},
		{"--log-level", "verbose"},
		{"--log-format", "xml"},
		{"--data", ""},
		{"--store", "postgres:///db"},
		{"--store", "postgres://db.example/x", "--in-memory"},
		{"stray"},
	} {
		if _, err := parse(t, args, nil); err == nil {
			t.Errorf("%q accepted", args)
		}
	}
}

// TestServeStore: --store takes a PostgreSQL URL (either scheme), and the
// log shows it without its password.
func TestServeStore(t *testing.T) {
	for _, u := range []string{"postgres://u:secret@db.example:5432/cerulean", "postgresql://u@10.0.0.5/cerulean?sslmode=require"} {
		f, err := parse(t, []string{"--store", u}, nil)
		if err != nil {
			t.Fatalf("--store %s: %v", u, err)
		}
		if string(f.store) != u {
			t.Errorf("--store %s read as %q", u, f.store)
		}
		if strings.Contains(f.store.redacted(), "secret") {
			t.Errorf("redacted %q shows the password", f.store.redacted())
		}
	}
	f, err := parse(t, nil, map[string]string{"CERULEAN_STORE": "postgres://db.example/x"})
	if err != nil || f.store != "postgres://db.example/x" {
		t.Errorf("CERULEAN_STORE: %q, %v", f.store, err)
	}
}

func TestServeUnknownFlagRefused(t *testing.T) {
	for _, args := range [][]string{{"--smbport", "10445"}, {"--searchport", "8082"}, {"--blobport", "1"}} {
		_, err := parse(t, args, nil)
		if err == nil || !strings.Contains(err.Error(), "not defined") {
			t.Errorf("%q: got %v, want the flag refused", args, err)
		}
	}
}

func TestServeFlagOverridesEnv(t *testing.T) {
	f, err := parse(t, []string{"--blob-port", "4321", "--in-memory=false", "--log-level", "error", "--host", "::1"},
		map[string]string{"CERULEAN_BLOB_PORT": "1234", "CERULEAN_IN_MEMORY": "true", "CERULEAN_LOG_LEVEL": "debug", "CERULEAN_HOST": "0.0.0.0"})
	if err != nil {
		t.Fatal(err)
	}
	if f.blobPort != 4321 || f.inMemory || f.logLevel != logLevel(slog.LevelError) || f.host != "::1" {
		t.Errorf("flags did not win: %+v", *f)
	}
	// A bare boolean flag means true whatever the environment says.
	f, err = parse(t, []string{"--in-memory"}, map[string]string{"CERULEAN_IN_MEMORY": "0"})
	if err != nil {
		t.Fatal(err)
	}
	if !f.inMemory {
		t.Error("--in-memory lost to CERULEAN_IN_MEMORY=0")
	}
	// auto, the default reserve, can be asked for over a fixed one.
	f, err = parse(t, []string{"--min-free-space", "auto"}, map[string]string{"CERULEAN_MIN_FREE_SPACE": "1GiB"})
	if err != nil {
		t.Fatal(err)
	}
	if f.minFreeSpace != (reserveSize{auto: true}) || f.minFreeSpace.bytes() != server.AutoMinFree {
		t.Errorf("--min-free-space auto read as %+v", f.minFreeSpace)
	}
}

// TestServeRefusesBeforeStarting: the serve command itself stops on a bad
// value (it would otherwise listen on the default ports).
func TestServeRefusesBeforeStarting(t *testing.T) {
	err := run([]string{"serve"}, envOf(map[string]string{"CERULEAN_BLOB_PORT": "abc"}), io.Discard, io.Discard)
	if err == nil || !strings.Contains(err.Error(), `CERULEAN_BLOB_PORT="abc"`) {
		t.Errorf("got %v, want CERULEAN_BLOB_PORT refused", err)
	}
	if err := run([]string{"serve", "--nope"}, envOf(nil), io.Discard, io.Discard); err == nil {
		t.Error("unknown flag accepted")
	}
}

func TestServeHelpListsEnv(t *testing.T) {
	var out strings.Builder
	if _, err := parseServeFlags([]string{"-h"}, envOf(nil), &out); err == nil {
		t.Fatal("-h did not stop parsing")
	}
	for _, want := range []string{"CERULEAN_BLOB_PORT", "CERULEAN_IN_MEMORY", "CERULEAN_LOG_LEVEL", "default 10000", "default info",
		"CERULEAN_SEARCH_PORT", "default 8082", "CERULEAN_SEARCH_ADMIN_KEY", "CERULEAN_SEARCH_QUERY_KEY"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("usage lacks %q:\n%s", want, out.String())
		}
	}
}

// TestServeStorageHTTPSFlags: --cert and --key (or their variables) are
// read together; one without the other stops the start.
func TestServeStorageHTTPSFlags(t *testing.T) {
	f, err := parse(t, []string{"--cert", "c.pem", "--key", "k.pem"}, map[string]string{"CERULEAN_STORAGE_HTTPS": "true"})
	if err != nil {
		t.Fatal(err)
	}
	if f.certFile != "c.pem" || f.keyFile != "k.pem" || !bool(f.storageHTTPS) {
		t.Errorf("got cert %q key %q storage-https %v", f.certFile, f.keyFile, f.storageHTTPS)
	}
	if f, err = parse(t, nil, map[string]string{"CERULEAN_CERT": "c.pem", "CERULEAN_KEY": "k.pem"}); err != nil || f.certFile != "c.pem" || f.keyFile != "k.pem" {
		t.Errorf("from the environment: %+v, %v", f, err)
	}
	for _, args := range [][]string{{"--cert", "c.pem"}, {"--key", "k.pem"}, {"--storage-https=maybe"}} {
		if _, err := parse(t, args, nil); err == nil {
			t.Errorf("%q accepted", args)
		}
	}
}

// TestLogFormat: --log-format json writes one JSON object a line.
func TestLogFormat(t *testing.T) {
	f, err := parse(t, []string{"--log-format", "JSON"}, nil)
	if err != nil {
		t.Fatal(err)
	}
	var b strings.Builder
	slog.New(f.logFormat.handler(&b, nil)).Info("cerulean started", "store", "memory")
	var line map[string]any
	if err := json.Unmarshal([]byte(b.String()), &line); err != nil {
		t.Fatalf("%q: %v", b.String(), err)
	}
	if line["msg"] != "cerulean started" || line["store"] != "memory" || line["level"] != "INFO" {
		t.Errorf("json line %v", line)
	}
	f, err = parse(t, nil, map[string]string{"CERULEAN_LOG_FORMAT": "text"})
	if err != nil {
		t.Fatal(err)
	}
	b.Reset()
	slog.New(f.logFormat.handler(&b, nil)).Info("x", "k", "v")
	if !strings.Contains(b.String(), "level=INFO msg=x k=v") {
		t.Errorf("text line %q", b.String())
	}
}
