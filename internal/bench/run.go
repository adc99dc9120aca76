package bench

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"slices"
	"sort"
	"strconv"
	"sync"
	"sync/atomic"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
)

// Config is one benchmark run.
type Config struct {
	ConnectionString string
	// CosmosConnectionString is AccountEndpoint=...;AccountKey=... for the
	// Cosmos workloads.
	CosmosConnectionString string
	// SearchConnection is Endpoint=...;Key=... (an admin key) for the
	// search-* workloads.
	SearchConnection string
	Concurrency      int           // clients; a workload may fix its own
	Duration         time.Duration // measured time, unless Ops is set
	Ops              int           // measured operations in all, overrides Duration
	Warmup           time.Duration
	Progress         io.Writer // one line a second while running; nil for none
	// ServerPID, when > 0, is the server's process on this machine: its
	// user+sys CPU time over the measured window is reported per
	// operation.
	ServerPID int
}

// Workload is one named benchmark.
type Workload interface {
	Name() string
	// Setup prepares the data the operations need.
	Setup(ctx context.Context, c *Clients) error
	// Op performs one operation for worker w and returns the payload bytes
	// it moved.
	Op(ctx context.Context, w int) (int64, error)
	// Verify checks the end state (e.g. no lost update); nil when fine.
	Verify(ctx context.Context) error
}

// Concurrencer is a workload that fixes its own number of clients.
type Concurrencer interface{ Clients() int }

// Result is what one workload measured.
type Result struct {
	Workload    string         `json:"workload"`
	Clients     int            `json:"clients"`
	Ops         int64          `json:"ops"`
	Seconds     float64        `json:"seconds"`
	OpsPerSec   float64        `json:"ops_per_sec"`
	MiBPerSec   float64        `json:"mib_per_sec"`
	P50, P90    time.Duration  `json:"-"`
	P99, Max    time.Duration  `json:"-"`
	LatencyMs   map[string]any `json:"latency_ms"`
	Errors      map[string]int `json:"errors"`
	VerifyError string         `json:"verify_error,omitempty"`
	// ServerCPUSeconds is the server process's user+sys CPU time over the
	// measured window and CPUMicrosPerOp that per successful operation;
	// both are absent without Config.ServerPID.
	ServerCPUSeconds float64 `json:"server_cpu_seconds,omitempty"`
	CPUMicrosPerOp   float64 `json:"cpu_us_per_op,omitempty"`
	// ServerPeakRSSMiB is the server's peak RSS (VmHWM, since it started)
	// and ServerRSSMiB its RSS after the measured window; both absent
	// without Config.ServerPID.
	ServerPeakRSSMiB float64 `json:"server_peak_rss_mib,omitempty"`
	ServerRSSMiB     float64 `json:"server_rss_mib,omitempty"`
	// ClientCPUMicrosPerOp is this load generator's own user+sys CPU time
	// over the measured window per successful operation: what the SDK
	// clients spend, on the same machine as the server when both share
	// it. Absent where the process's CPU time cannot be read.
	ClientCPUMicrosPerOp float64 `json:"client_cpu_us_per_op,omitempty"`
}

// Run sets a workload up, warms it up and measures it.
func Run(ctx context.Context, cfg Config, w Workload) (*Result, error) {
	clients, err := NewClients(cfg, w)
	if err != nil {
		return nil, err
	}
	n := cfg.Concurrency
	if c, ok := w.(Concurrencer); ok {
		n = c.Clients()
	}
	if n < 1 {
		n = 1
	}
	if err := w.Setup(ctx, clients); err != nil {
		return nil, fmt.Errorf("%s setup: %w", w.Name(), err)
	}
	if cfg.Warmup > 0 {
		wctx, cancel := context.WithTimeout(ctx, cfg.Warmup)
		drive(wctx, w, n, 0, nil)
		cancel()
	}
	mctx := ctx
	var cancel context.CancelFunc = func() {}
	if cfg.Ops == 0 {
		mctx, cancel = context.WithTimeout(ctx, cfg.Duration)
	}
	defer cancel()
	var done atomic.Int64
	var cpuBefore time.Duration
	if cfg.ServerPID > 0 {
		if cpuBefore, err = ProcessCPU(cfg.ServerPID); err != nil {
			return nil, err
		}
	}
	// Our own CPU time is best effort: it is only unreadable off Linux.
	selfBefore, selfErr := ProcessCPU(os.Getpid())
	stopProgress := progress(cfg.Progress, w.Name(), &done)
	start := time.Now()
	rec := drive(mctx, w, n, int64(cfg.Ops), &done)
	elapsed := time.Since(start)
	stopProgress()
	res := rec.result(w.Name(), n, elapsed)
	if selfAfter, err := ProcessCPU(os.Getpid()); selfErr == nil && err == nil {
		res.ClientCPUMicrosPerOp = cpuPerOp(selfAfter-selfBefore, res.Ops)
	}
	if cfg.ServerPID > 0 {
		cpuAfter, err := ProcessCPU(cfg.ServerPID)
		if err != nil {
			return nil, err
		}
		res.ServerCPUSeconds = (cpuAfter - cpuBefore).Seconds()
		res.CPUMicrosPerOp = cpuPerOp(cpuAfter-cpuBefore, res.Ops)
		mem, err := ProcessMemory(cfg.ServerPID)
		if err != nil {
			return nil, err
		}
		res.ServerPeakRSSMiB, res.ServerRSSMiB = mib(mem.PeakRSS), mib(mem.RSS)
	}
	if err := w.Verify(ctx); err != nil {
		res.VerifyError = err.Error()
	}
	return res, nil
}

// recorder gathers latencies and errors from all workers.
type recorder struct {
	mu     sync.Mutex
	lat    []time.Duration
	bytes  int64
	errors map[string]int
}

// drive runs n workers until ctx ends or limit operations (if > 0) were
// started; done counts successful operations for progress.
func drive(ctx context.Context, w Workload, n int, limit int64, done *atomic.Int64) *recorder {
	rec := &recorder{errors: map[string]int{}}
	var started atomic.Int64
	var wg sync.WaitGroup
	for worker := range n {
		wg.Go(func() {
			var lat []time.Duration
			var bytes int64
			errs := map[string]int{}
			for ctx.Err() == nil {
				if limit > 0 && started.Add(1) > limit {
					break
				}
				t0 := time.Now()
				b, err := w.Op(ctx, worker)
				d := time.Since(t0)
				if err != nil {
					if ctx.Err() != nil && limit == 0 {
						break // the run ended mid-operation
					}
					errs[statusOf(err)]++
					continue
				}
				lat = append(lat, d)
				bytes += b
				if done != nil {
					done.Add(1)
				}
			}
			rec.mu.Lock()
			rec.lat = append(rec.lat, lat...)
			rec.bytes += bytes
			for k, v := range errs {
				rec.errors[k] += v
			}
			rec.mu.Unlock()
		})
	}
	wg.Wait()
	return rec
}

func statusOf(err error) string {
	var re *azcore.ResponseError
	if errors.As(err, &re) {
		return strconv.Itoa(re.StatusCode)
	}
	var se *searchStatusError
	if errors.As(err, &se) {
		return strconv.Itoa(se.status)
	}
	if errors.Is(err, context.DeadlineExceeded) || errors.Is(err, context.Canceled) {
		return "timeout"
	}
	return "error"
}

func (r *recorder) result(name string, clients int, elapsed time.Duration) *Result {
	slices.Sort(r.lat)
	pct := func(p float64) time.Duration {
		if len(r.lat) == 0 {
			return 0
		}
		return r.lat[min(len(r.lat)-1, int(p*float64(len(r.lat))))]
	}
	res := &Result{
		Workload: name, Clients: clients, Ops: int64(len(r.lat)), Seconds: elapsed.Seconds(),
		P50: pct(0.50), P90: pct(0.90), P99: pct(0.99), Errors: r.errors,
	}
	if len(r.lat) > 0 {
		res.Max = r.lat[len(r.lat)-1]
	}
	res.OpsPerSec = float64(res.Ops) / elapsed.Seconds()
	res.MiBPerSec = float64(r.bytes) / (1 << 20) / elapsed.Seconds()
	ms := func(d time.Duration) float64 { return float64(d.Microseconds()) / 1000 }
	res.LatencyMs = map[string]any{"p50": ms(res.P50), "p90": ms(res.P90), "p99": ms(res.P99), "max": ms(res.Max)}
	return res
}

func progress(out io.Writer, name string, done *atomic.Int64) (stop func()) {
	if out == nil {
		return func() {}
	}
	quit := make(chan struct{})
	var wg sync.WaitGroup
	wg.Go(func() {
		t := time.NewTicker(time.Second)
		defer t.Stop()
		start, last := time.Now(), int64(0)
		for {
			select {
			case <-quit:
				return
			case <-t.C:
				n := done.Load()
				// Progress is advisory: a failed write must not stop the run.
				_, _ = fmt.Fprintf(out, "%s: %d ops in %.0fs (%d ops/s now)\n", name, n, time.Since(start).Seconds(), n-last)
				last = n
			}
		}
	})
	return func() { close(quit); wg.Wait() }
}

// errorSummary renders errors by status, sorted.
func errorSummary(m map[string]int) string {
	if len(m) == 0 {
		return "-"
	}
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	s := ""
	for i, k := range keys {
		if i > 0 {
			s += " "
		}
		s += fmt.Sprintf("%s:%d", k, m[k])
	}
	return s
}
