package bench

import (
	"bytes"
	"context"
	"os"
	"strings"
	"testing"
	"time"
)

func TestParseStatCPUTicks(t *testing.T) {
	for _, tc := range []struct {
		name, stat string
		want       uint64
	}{
		{"plain", "1234 (cerulean) S 1 1234 1234 0 -1 4194560 5000 0 0 0 250 75 0 0 20 0 12 0 100 0 0", 325},
		// The name may hold spaces and parentheses: fields count from the last ')'.
		{"odd name", "77 (node (azurite) x) R 1 77 77 0 -1 0 0 0 0 0 1000 1 0 0 20 0 1 0 5 0 0\n", 1001},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, err := parseStatCPUTicks(tc.stat)
			if err != nil || got != tc.want {
				t.Fatalf("parseStatCPUTicks = %d, %v; want %d", got, err, tc.want)
			}
		})
	}
	for _, bad := range []string{"", "12 cerulean S 1", "12 (x) S 1 2 3", "12 (x) S 1 1 1 0 -1 0 0 0 0 0 u 5 0"} {
		if _, err := parseStatCPUTicks(bad); err == nil {
			t.Errorf("parseStatCPUTicks(%q) accepted a malformed line", bad)
		}
	}
	if got := ticksToDuration(325); got != 3250*time.Millisecond {
		t.Fatalf("325 ticks = %v, want 3.25s", got)
	}
}

func TestProcessCPUOfSelf(t *testing.T) {
	if _, err := os.Stat("/proc/self/stat"); err != nil {
		t.Skip("no /proc here")
	}
	if _, err := ProcessCPU(os.Getpid()); err != nil {
		t.Fatal(err)
	}
	if _, err := ProcessCPU(-1); err == nil {
		t.Fatal("ProcessCPU of a process that cannot exist succeeded")
	}
}

func TestCPUPerOp(t *testing.T) {
	if got := cpuPerOp(2*time.Second, 4000); got != 500 {
		t.Fatalf("2s over 4000 ops = %v µs/op, want 500", got)
	}
	if got := cpuPerOp(time.Second, 0); got != 0 {
		t.Fatalf("no ops = %v µs/op, want 0", got)
	}
}

func TestCeilings(t *testing.T) {
	// 16 clients over a 2 ms sync commit at most 16 writes per sync: 8,000/s.
	if got := FsyncCeiling(16, 2*time.Millisecond); got != 8000 {
		t.Fatalf("FsyncCeiling(16, 2ms) = %v, want 8000", got)
	}
	if FsyncCeiling(16, 0) != 0 || FsyncCeiling(0, time.Millisecond) != 0 {
		t.Fatal("FsyncCeiling without a latency or clients must be 0 (unknown)")
	}
	for _, tc := range []struct {
		workload string
		null     float64
		fsync    time.Duration
		want     float64
	}{
		{"blob-put-1k", 20000, 2 * time.Millisecond, 8000}, // the disk bounds it
		{"blob-put-1k", 5000, 2 * time.Millisecond, 5000},  // the null server bounds it
		{"blob-put-1k", 20000, 0, 20000},                   // no fsync figure: null only
		{"blob-get-1k", 20000, 2 * time.Millisecond, 20000},
		{"table-insert", 20000, 4 * time.Millisecond, 4000},
		{"blob-get-1k", 0, time.Millisecond, 0},
	} {
		if got := Ceiling(tc.workload, 16, tc.null, tc.fsync); got != tc.want {
			t.Errorf("Ceiling(%s, 16, %v, %v) = %v, want %v", tc.workload, tc.null, tc.fsync, got, tc.want)
		}
	}
}

func TestFsyncSummary(t *testing.T) {
	r := fsyncSummary("d", []time.Duration{4 * time.Millisecond, time.Millisecond, 2 * time.Millisecond, 1 * time.Millisecond})
	if r.N != 4 || r.P50 != 2*time.Millisecond || r.Mean != 2*time.Millisecond || r.MeanMs != 2 {
		t.Fatalf("summary = %+v", r)
	}
}

func TestMeasureFsync(t *testing.T) {
	r, err := MeasureFsync(t.TempDir(), 3)
	if err != nil {
		t.Fatal(err)
	}
	if r.N != 3 || r.Mean <= 0 {
		t.Fatalf("MeasureFsync = %+v", r)
	}
	if _, err := MeasureFsync(t.TempDir(), 0); err == nil {
		t.Fatal("MeasureFsync with no rounds succeeded")
	}
}

func TestWriteCeilings(t *testing.T) {
	run := func(put, get float64) []*Result {
		return []*Result{{Workload: "blob-put-1k", Clients: 16, OpsPerSec: put}, {Workload: "blob-get-1k", Clients: 16, OpsPerSec: get}}
	}
	var out bytes.Buffer
	err := WriteCeilings(&out, []string{"cerulean", "null"}, [][]*Result{run(4000, 7000), run(20000, 10000)}, 1, 2*time.Millisecond)
	if err != nil {
		t.Fatal(err)
	}
	lines := strings.Split(strings.TrimSpace(out.String()), "\n")
	if len(lines) != 3 {
		t.Fatalf("want a header and two rows, got:\n%s", out.String())
	}
	// put: ceiling min(20000, 16/2ms = 8000) → 4000/8000; get: 7000/10000.
	if f := strings.Fields(lines[1]); f[len(f)-1] != "0.50" || f[len(f)-2] != "8000" {
		t.Errorf("put row = %q", lines[1])
	}
	if f := strings.Fields(lines[2]); f[len(f)-1] != "0.70" || f[len(f)-3] != "-" {
		t.Errorf("get row = %q", lines[2])
	}
}

// spinWorkload spends about spin of CPU per operation and touches no
// server.
type spinWorkload struct{ spin time.Duration }

func (spinWorkload) Name() string                          { return "spin" }
func (spinWorkload) Setup(context.Context, *Clients) error { return nil }
func (spinWorkload) Verify(context.Context) error          { return nil }
func (w spinWorkload) Op(context.Context, int) (int64, error) {
	for start := time.Now(); time.Since(start) < w.spin; {
	}
	return 0, nil
}

func TestRunReportsTheClientsCPU(t *testing.T) {
	if _, err := os.Stat("/proc/self/stat"); err != nil {
		t.Skip("no /proc here")
	}
	// 40 operations of 2 ms on one client: 80 ms of CPU, eight clock
	// ticks, so even a descheduled run reads more than none.
	res, err := Run(context.Background(), Config{ConnectionString: DevConnectionString, Concurrency: 1, Ops: 40}, spinWorkload{spin: 2 * time.Millisecond})
	if err != nil {
		t.Fatal(err)
	}
	if res.Ops != 40 || res.ClientCPUMicrosPerOp <= 0 || res.ClientCPUMicrosPerOp > 10_000 {
		t.Fatalf("%d ops at %v client µs/op; want 40 at about 2,000", res.Ops, res.ClientCPUMicrosPerOp)
	}
	var out bytes.Buffer
	if err := WriteTable(&out, []*Result{res}); err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), "client cpu µs/op") {
		t.Fatalf("table without the client's CPU:\n%s", out.String())
	}
}
