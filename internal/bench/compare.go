package bench

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"text/tabwriter"
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
func WriteComparison(out io.Writer, names []string, runs [][]*Result) {
	tw := tabwriter.NewWriter(out, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprint(tw, "workload\t")
	for _, n := range names {
		fmt.Fprintf(tw, "%s ops/s\t%s p99\t%s errors\t", n, n, n)
	}
	for _, n := range names[1:] {
		fmt.Fprintf(tw, "%s/%s\t", names[0], n)
	}
	fmt.Fprintln(tw)
	index := make([]map[string]*Result, len(runs))
	for i, run := range runs {
		index[i] = map[string]*Result{}
		for _, r := range run {
			index[i][r.Workload] = r
		}
	}
	for _, base := range runs[0] {
		fmt.Fprintf(tw, "%s\t", base.Workload)
		for i := range runs {
			r := index[i][base.Workload]
			if r == nil {
				fmt.Fprint(tw, "-\t-\t-\t")
				continue
			}
			fmt.Fprintf(tw, "%.0f\t%vms\t%s\t", r.OpsPerSec, r.LatencyMs["p99"], errorSummary(r.Errors))
		}
		for i := 1; i < len(runs); i++ {
			r := index[i][base.Workload]
			if r == nil || r.OpsPerSec == 0 {
				fmt.Fprint(tw, "-\t")
				continue
			}
			fmt.Fprintf(tw, "%.2fx\t", base.OpsPerSec/r.OpsPerSec)
		}
		fmt.Fprintln(tw)
	}
	tw.Flush()
}
