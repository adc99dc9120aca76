package bench

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
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

// WriteComparison prints, per workload, each target's ops/s and errors and
// the ratio of the first target to every other.
func WriteComparison(out io.Writer, names []string, runs [][]*Result) error {
	t := newTable(out)
	t.printf("workload\t")
	for _, n := range names {
		t.printf("%s ops/s\t%s p99\t%s errors\t", n, n, n)
	}
	for _, n := range names[1:] {
		t.printf("%s/%s\t", names[0], n)
	}
	t.printf("\n")
	index := make([]map[string]*Result, len(runs))
	for i, run := range runs {
		index[i] = map[string]*Result{}
		for _, r := range run {
			index[i][r.Workload] = r
		}
	}
	for _, base := range runs[0] {
		t.printf("%s\t", base.Workload)
		for i := range runs {
			r := index[i][base.Workload]
			if r == nil {
				t.printf("-\t-\t-\t")
				continue
			}
			t.printf("%.0f\t%vms\t%s\t", r.OpsPerSec, r.LatencyMs["p99"], errorSummary(r.Errors))
		}
		for i := 1; i < len(runs); i++ {
			r := index[i][base.Workload]
			if r == nil || r.OpsPerSec == 0 {
				t.printf("-\t")
				continue
			}
			t.printf("%.2fx\t", base.OpsPerSec/r.OpsPerSec)
		}
		t.printf("\n")
	}
	return t.flush()
}
