package bench

import (
	"encoding/json"
	"fmt"
	"io"
	"text/tabwriter"
	"time"
)

// table writes a tab-aligned table and keeps the first write error, so
// the rows read as a sequence of prints and the caller checks once.
type table struct {
	tw  *tabwriter.Writer
	err error
}

func newTable(out io.Writer) *table {
	return &table{tw: tabwriter.NewWriter(out, 0, 0, 2, ' ', tabwriter.AlignRight)}
}

func (t *table) printf(format string, args ...any) {
	if t.err == nil {
		_, t.err = fmt.Fprintf(t.tw, format, args...)
	}
}

// flush writes the aligned table out and reports the first error.
func (t *table) flush() error {
	if t.err != nil {
		return t.err
	}
	return t.tw.Flush()
}

// WriteTable prints results as an aligned table.
func WriteTable(out io.Writer, results []*Result) error {
	t := newTable(out)
	t.printf("workload\tclients\tops\tops/s\tMiB/s\tp50\tp90\tp99\tmax\tcpu µs/op\tclient cpu µs/op\trss MiB\tpeak rss MiB\terrors\tverify\t\n")
	for _, r := range results {
		verify := "ok"
		if r.VerifyError != "" {
			verify = "FAILED: " + r.VerifyError
		}
		t.printf("%s\t%d\t%d\t%.0f\t%.2f\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t\n", r.Workload, r.Clients, r.Ops, r.OpsPerSec, r.MiBPerSec,
			ms(r.P50), ms(r.P90), ms(r.P99), ms(r.Max), cpuCell(r), clientCPUCell(r), mibCell(r.ServerRSSMiB), mibCell(r.ServerPeakRSSMiB), errorSummary(r.Errors), verify)
	}
	return t.flush()
}

// cpuCell is the server CPU per operation, or "-" when not measured.
func cpuCell(r *Result) string {
	if r.ServerCPUSeconds == 0 && r.CPUMicrosPerOp == 0 {
		return "-"
	}
	return fmt.Sprintf("%.0f", r.CPUMicrosPerOp)
}

// clientCPUCell is the load generator's CPU per operation, or "-" when
// not measured.
func clientCPUCell(r *Result) string {
	if r.ClientCPUMicrosPerOp == 0 {
		return "-"
	}
	return fmt.Sprintf("%.0f", r.ClientCPUMicrosPerOp)
}

// mibCell is a server RSS in MiB, or "-" when not measured.
func mibCell(v float64) string {
	if v == 0 {
		return "-"
	}
	return fmt.Sprintf("%.1f", v)
}

func ms(d time.Duration) string { return fmt.Sprintf("%.2fms", float64(d.Microseconds())/1000) }

// WriteJSON prints v (results, or one measurement) as indented JSON.
func WriteJSON(out io.Writer, v any) error {
	enc := json.NewEncoder(out)
	enc.SetIndent("", "  ")
	return enc.Encode(v)
}
