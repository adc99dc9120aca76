package bench

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"time"
)

// ReadResults loads a --json output file.
func ReadResults(path string) ([]*Result, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var out []*Result
	if err := json.Unmarshal(b, &out); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	return out, nil
}

// WriteComparison prints, per workload, each target's ops/s, p99, server
// CPU per operation, the load generator's CPU per operation and errors,
// then the ratio of the first target's
// ops/s to every other's and of its CPU per operation to every other's
// (below 1: the first spends less).
func WriteComparison(out io.Writer, names []string, runs [][]*Result) error {
	t := newTable(out)
	t.printf("workload\t")
	for _, n := range names {
		t.printf("%s ops/s\t%s p99\t%s cpu µs/op\t%s client cpu µs/op\t%s errors\t", n, n, n, n, n)
	}
	for _, n := range names[1:] {
		t.printf("%s/%s\t", names[0], n)
	}
	for _, n := range names[1:] {
		t.printf("cpu %s/%s\t", names[0], n)
	}
	t.printf("\n")
	index := indexRuns(runs)
	for _, base := range runs[0] {
		t.printf("%s\t", base.Workload)
		for i := range runs {
			r := index[i][base.Workload]
			if r == nil {
				t.printf("-\t-\t-\t-\t-\t")
				continue
			}
			t.printf("%.0f\t%vms\t%s\t%s\t%s\t", r.OpsPerSec, r.LatencyMs["p99"], cpuCell(r), clientCPUCell(r), errorSummary(r.Errors))
		}
		for i := 1; i < len(runs); i++ {
			r := index[i][base.Workload]
			if r == nil || r.OpsPerSec == 0 {
				t.printf("-\t")
				continue
			}
			t.printf("%.2fx\t", base.OpsPerSec/r.OpsPerSec)
		}
		for i := 1; i < len(runs); i++ {
			r := index[i][base.Workload]
			if r == nil || r.CPUMicrosPerOp == 0 || base.CPUMicrosPerOp == 0 {
				t.printf("-\t")
				continue
			}
			t.printf("%.2fx\t", base.CPUMicrosPerOp/r.CPUMicrosPerOp)
		}
		t.printf("\n")
	}
	return t.flush()
}

func indexRuns(runs [][]*Result) []map[string]*Result {
	index := make([]map[string]*Result, len(runs))
	for i, run := range runs {
		index[i] = map[string]*Result{}
		for _, r := range run {
			index[i][r.Workload] = r
		}
	}
	return index
}

// WriteCeilings prints, per workload of the first run, its ceiling on
// this machine and each target's ops/s as a fraction of it. runs[null] is
// the null server's run; fsync is the disk's mean fdatasync latency (0
// when unknown: then durable writes are held to the null server alone).
func WriteCeilings(out io.Writer, names []string, runs [][]*Result, null int, fsync time.Duration) error {
	t := newTable(out)
	t.printf("workload\tclients\tnull ops/s\tfsync ceiling\tceiling\t")
	for i, n := range names {
		if i != null {
			t.printf("%s/ceiling\t", n)
		}
	}
	t.printf("\n")
	index := indexRuns(runs)
	for _, base := range runs[0] {
		nullRes := index[null][base.Workload]
		var nullRate float64
		if nullRes != nil && len(nullRes.Errors) == 0 {
			nullRate = nullRes.OpsPerSec
		}
		fsyncCell := "-"
		if DurableSmallWrites[base.Workload] && fsync > 0 {
			fsyncCell = fmt.Sprintf("%.0f", FsyncCeiling(base.Clients, fsync))
		}
		ceiling := Ceiling(base.Workload, base.Clients, nullRate, fsync)
		t.printf("%s\t%d\t%s\t%s\t%s\t", base.Workload, base.Clients, rateCell(nullRate), fsyncCell, rateCell(ceiling))
		for i := range runs {
			if i == null {
				continue
			}
			r := index[i][base.Workload]
			if r == nil || ceiling == 0 {
				t.printf("-\t")
				continue
			}
			t.printf("%.2f\t", r.OpsPerSec/ceiling)
		}
		t.printf("\n")
	}
	return t.flush()
}

func rateCell(r float64) string {
	if r == 0 {
		return "-"
	}
	return fmt.Sprintf("%.0f", r)
}

// ReadFsync loads the --json output of bench fsync.
func ReadFsync(path string) (*FsyncResult, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	var r FsyncResult
	if err := json.Unmarshal(b, &r); err != nil {
		return nil, fmt.Errorf("%s: %w", path, err)
	}
	r.P50 = time.Duration(r.P50Ms * float64(time.Millisecond))
	r.Mean = time.Duration(r.MeanMs * float64(time.Millisecond))
	return &r, nil
}
