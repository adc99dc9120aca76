package main

import (
	"bytes"
	"encoding/json"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cerulean-db/cerulean/internal/bench"
	"github.com/cerulean-db/cerulean/internal/servertest"
)

func noEnv(string) string { return "" }

// TestRunMeasuresWorkloads runs the default subcommand, with and without
// its explicit name, against a real server: each prints one JSON result
// per workload, with every operation done and none failed.
func TestRunMeasuresWorkloads(t *testing.T) {
	env := servertest.Start(t)
	profile := filepath.Join(t.TempDir(), "cpu.pprof")
	for _, args := range [][]string{
		{"-q", "-json", "-n", "20", "-warmup", "0", "-c", "2", "-conn", env.ConnectionString, "blob-put-1k", "queue-put"},
		{"run", "-q", "-json", "-n", "20", "-warmup", "0", "-c", "2", "-cpuprofile", profile, "-conn", env.ConnectionString, "blob-put-1k", "queue-put"},
	} {
		var stdout, stderr bytes.Buffer
		if err := run(args, noEnv, &stdout, &stderr); err != nil {
			t.Fatalf("%q: %v\n%s", args, err, stderr.String())
		}
		var results []*bench.Result
		if err := json.Unmarshal(stdout.Bytes(), &results); err != nil {
			t.Fatalf("%q: output is not a JSON result list: %v\n%s", args, err, stdout.String())
		}
		if len(results) != 2 || results[0].Workload != "blob-put-1k" || results[1].Workload != "queue-put" {
			t.Fatalf("%q: results %+v, want blob-put-1k and queue-put", args, results)
		}
		for _, r := range results {
			if r.Ops != 20 || len(r.Errors) != 0 || r.VerifyError != "" {
				t.Errorf("%q: %s: %d ops, errors %v, verify %q; want 20 ops and no errors", args, r.Workload, r.Ops, r.Errors, r.VerifyError)
			}
		}
	}
	// -cpuprofile wrote a whole profile: gzip-compressed, as pprof's are.
	if b, err := os.ReadFile(profile); err != nil || len(b) < 2 || b[0] != 0x1f || b[1] != 0x8b {
		t.Fatalf("-cpuprofile wrote %d bytes, %v; want a gzip-compressed profile", len(b), err)
	}
}

// TestRunSearchQuery: -search-conn reaches the Search service and
// -search-docs sizes search-query's index.
func TestRunSearchQuery(t *testing.T) {
	env := servertest.Start(t)
	args := []string{"-q", "-json", "-n", "20", "-warmup", "0", "-c", "2", "-search-docs", "1500",
		"-search-conn", "Endpoint=" + env.SearchURL + ";Key=" + env.SearchAdminKey, "search-query"}
	var stdout, stderr bytes.Buffer
	if err := run(args, noEnv, &stdout, &stderr); err != nil {
		t.Fatalf("%v\n%s", err, stderr.String())
	}
	var results []*bench.Result
	if err := json.Unmarshal(stdout.Bytes(), &results); err != nil {
		t.Fatalf("output is not a JSON result list: %v\n%s", err, stdout.String())
	}
	if len(results) != 1 || results[0].Ops != 20 || len(results[0].Errors) != 0 {
		t.Fatalf("results %+v (stderr %s), want 20 search-query operations and no errors", results, stderr.String())
	}
}

// TestConnFromEnvironment: CERULEAN_BENCH_CONN,
// CERULEAN_BENCH_COSMOS_CONN and CERULEAN_BENCH_SEARCH_CONN are the
// endpoints' defaults, as the usage shows them.
func TestConnFromEnvironment(t *testing.T) {
	env := map[string]string{"CERULEAN_BENCH_CONN": "AccountName=fromenv", "CERULEAN_BENCH_COSMOS_CONN": "AccountEndpoint=https://cosmos.fromenv/",
		"CERULEAN_BENCH_SEARCH_CONN": "Endpoint=https://search.fromenv;Key=k"}
	var stderr bytes.Buffer
	if err := run([]string{"-h"}, func(k string) string { return env[k] }, io.Discard, &stderr); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{`(default "AccountName=fromenv")`, `(default "AccountEndpoint=https://cosmos.fromenv/")`, `(default "Endpoint=https://search.fromenv;Key=k")`, "usage: cerulean-bench", "idle-conns"} {
		if !strings.Contains(stderr.String(), want) {
			t.Errorf("usage lacks %q:\n%s", want, stderr.String())
		}
	}
}

func TestRunRefusesBadArguments(t *testing.T) {
	for _, tc := range []struct {
		args []string
		want string
	}{
		{nil, "name at least one workload"},
		{[]string{"run"}, "name at least one workload"},
		{[]string{"no-such-workload"}, `unknown workload "no-such-workload"`},
		{[]string{"compare", "a=x.json"}, "at least two NAME=FILE"},
		{[]string{"compare", "b", "a=x.json"}, `"b" is not NAME=FILE`},
		{[]string{"idle-conns"}, "needs -server-pid"},
		{[]string{"null-server"}, "at least one address"},
		// A wrong pid fails before any workload reaches the endpoint.
		{[]string{"-server-pid", "999999999", "blob-put-1k"}, "-server-pid"},
	} {
		err := run(tc.args, noEnv, io.Discard, io.Discard)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%q: error %v, want one saying %q", tc.args, err, tc.want)
		}
	}
}

// TestFsyncAndCompare measures the disk briefly and compares two result
// files against a null server's, as scripts/bench-vs-azurite does.
func TestFsyncAndCompare(t *testing.T) {
	dir := t.TempDir()
	var fsyncOut bytes.Buffer
	if err := run([]string{"fsync", "-dir", dir, "-n", "5", "-json"}, noEnv, &fsyncOut, io.Discard); err != nil {
		t.Fatal(err)
	}
	fsyncFile := filepath.Join(dir, "fsync.json")
	if err := os.WriteFile(fsyncFile, fsyncOut.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	write := func(name string, opsPerSec float64) string {
		path := filepath.Join(dir, name+".json")
		var b bytes.Buffer
		if err := bench.WriteJSON(&b, []*bench.Result{{Workload: "blob-put-1k", Clients: 8, Ops: 100, Seconds: 1, OpsPerSec: opsPerSec, ClientCPUMicrosPerOp: 57}}); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, b.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
		return name + "=" + path
	}
	var out bytes.Buffer
	args := []string{"compare", "-null", "null", "-fsync", fsyncFile, write("cerulean", 500), write("null", 1000)}
	if err := run(args, noEnv, &out, io.Discard); err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"blob-put-1k", "cerulean", "null", "ceilings:", "cerulean client cpu µs/op", " 57 "} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("compare output lacks %q:\n%s", want, out.String())
		}
	}
	if err := run([]string{"compare", "-null", "absent", write("a", 1), write("b", 2)}, noEnv, io.Discard, io.Discard); err == nil || !strings.Contains(err.Error(), `"absent" names none`) {
		t.Errorf("compare -null absent: %v, want an error naming it", err)
	}
}
