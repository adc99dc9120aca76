package bench

import (
	"encoding/json"
	"fmt"
	"io"
	"text/tabwriter"
	"time"
)

// WriteTable prints results as an aligned table.
func WriteTable(out io.Writer, results []*Result) {
	tw := tabwriter.NewWriter(out, 0, 0, 2, ' ', tabwriter.AlignRight)
	fmt.Fprintln(tw, "workload\tclients\tops\tops/s\tMiB/s\tp50\tp90\tp99\tmax\terrors\tverify\t")
	for _, r := range results {
		verify := "ok"
		if r.VerifyError != "" {
			verify = "FAILED: " + r.VerifyError
		}
		fmt.Fprintf(tw, "%s\t%d\t%d\t%.0f\t%.2f\t%s\t%s\t%s\t%s\t%s\t%s\t\n", r.Workload, r.Clients, r.Ops, r.OpsPerSec, r.MiBPerSec,
			ms(r.P50), ms(r.P90), ms(r.P99), ms(r.Max), errorSummary(r.Errors), verify)
	}
	tw.Flush()
}

func ms(d time.Duration) string { return fmt.Sprintf("%.2fms", float64(d.Microseconds())/1000) }

// WriteJSON prints results as a JSON array.
func WriteJSON(out io.Writer, results []*Result) error {
	enc := json.NewEncoder(out)
	enc.SetIndent("", "  ")
	return enc.Encode(results)
}
