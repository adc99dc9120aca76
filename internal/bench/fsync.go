package bench

import (
	"fmt"
	"os"
	"slices"
	"time"
)

// FsyncResult is the measured latency of a small durable write on one
// filesystem: write 4 KiB, then fdatasync.
type FsyncResult struct {
	Dir    string        `json:"dir"`
	N      int           `json:"n"`
	P50    time.Duration `json:"-"`
	Mean   time.Duration `json:"-"`
	P50Ms  float64       `json:"p50_ms"`
	MeanMs float64       `json:"mean_ms"`
}

// MeasureFsync writes 4 KiB at the start of a temporary file in dir and
// fdatasyncs it, n times, and reports the latencies. Rewriting the same
// block keeps each sync to one data block, which is what a group commit
// of small writes costs the disk.
func MeasureFsync(dir string, n int) (*FsyncResult, error) {
	if n < 1 {
		return nil, fmt.Errorf("measure fsync: n must be at least 1, got %d", n)
	}
	f, err := os.CreateTemp(dir, "cerulean-fsync-*")
	if err != nil {
		return nil, fmt.Errorf("measure fsync: %w", err)
	}
	defer func() {
		_ = f.Close()
		_ = os.Remove(f.Name())
	}()
	block := make([]byte, 4<<10)
	// The first sync allocates the block; later ones measure overwrites.
	if _, err := f.WriteAt(block, 0); err != nil {
		return nil, fmt.Errorf("measure fsync: %w", err)
	}
	if err := fdatasync(f); err != nil {
		return nil, fmt.Errorf("measure fsync: %w", err)
	}
	lat := make([]time.Duration, 0, n)
	for i := range n {
		block[0] = byte(i)
		t0 := time.Now()
		if _, err := f.WriteAt(block, 0); err != nil {
			return nil, fmt.Errorf("measure fsync: %w", err)
		}
		if err := fdatasync(f); err != nil {
			return nil, fmt.Errorf("measure fsync: %w", err)
		}
		lat = append(lat, time.Since(t0))
	}
	return fsyncSummary(dir, lat), nil
}

func fsyncSummary(dir string, lat []time.Duration) *FsyncResult {
	slices.Sort(lat)
	var sum time.Duration
	for _, d := range lat {
		sum += d
	}
	r := &FsyncResult{Dir: dir, N: len(lat), P50: lat[len(lat)/2], Mean: sum / time.Duration(len(lat))}
	r.P50Ms, r.MeanMs = float64(r.P50.Microseconds())/1000, float64(r.Mean.Microseconds())/1000
	return r
}

// FsyncCeiling is the most durable small writes per second that clients
// concurrent writers can have acknowledged when every acknowledgement
// waits for a sync of latency lat: at best each sync commits one write of
// every client (perfect group commit), so clients ÷ lat.
func FsyncCeiling(clients int, lat time.Duration) float64 {
	if lat <= 0 || clients < 1 {
		return 0
	}
	return float64(clients) / lat.Seconds()
}

// DurableSmallWrites are the workloads whose every operation is one small
// write the server must make durable before answering; their ceiling is
// the lower of the null server's rate and FsyncCeiling.
var DurableSmallWrites = map[string]bool{
	"blob-put-1k":   true,
	"table-insert":  true,
	"queue-put":     true,
	"cosmos-create": true,
}

// Ceiling is what a workload run at clients could reach on this machine:
// the null server's rate (nullOpsPerSec), lowered for durable small
// writes to the fsync ceiling when fsync is known (> 0). It is 0 when
// the null rate is unknown.
func Ceiling(workload string, clients int, nullOpsPerSec float64, fsync time.Duration) float64 {
	if nullOpsPerSec <= 0 {
		return 0
	}
	if DurableSmallWrites[workload] && fsync > 0 {
		return min(nullOpsPerSec, FsyncCeiling(clients, fsync))
	}
	return nullOpsPerSec
}
