package powerloss_test

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"math/rand/v2"
	"net/url"
	"path"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/policy"
	"github.com/cockroachdb/pebble/v2/vfs"

	"github.com/cerulean-db/cerulean/internal/cosmos"
)

var (
	points  = flag.Int("powerloss.points", 20, "crash points to survive")
	seed    = flag.Uint64("powerloss.seed", 0, "seed of the workers' choices and the crash moments (0: random)")
	workers = flag.Int("powerloss.workers", 2, "concurrent workers per service")
	maxLoad = flag.Duration("powerloss.load", 500*time.Millisecond, "longest stretch of load before a crash point")
)

var noRetry = policy.ClientOptions{Retry: policy.RetryOptions{MaxRetries: -1}}

const cosmosKey = cosmos.EmulatorKey

func ptr[T any](v T) *T { return &v }

func isStatus(err error, code int) bool {
	var re *azcore.ResponseError
	return errors.As(err, &re) && re.StatusCode == code
}

// workload is one service's part of the mixed load.
type workload interface {
	name() string
	// connect makes the workload's clients for a (re)started node.
	connect(n *node) error
	// setup creates what the workers share, before the first crash point.
	setup(ctx context.Context) error
	// step sends one random operation of w, between w.begin and w.commit.
	step(ctx context.Context, w *worker) error
	// observe reads every key of w's key space from the service.
	observe(ctx context.Context, w *worker) (map[string]item, error)
}

// TestPowerLoss runs mixed Blob, Table, Queue and Cosmos DB load against
// services over a store on a crashable file system and, at random
// moments, keeps only what was synced: the services restart on that, and
// every worker's keys must hold exactly its acknowledged writes, or those
// and the one operation it had in flight, applied whole. Every ETag ever
// reported must name one content. Each crash point continues from the
// state the previous one recovered.
func TestPowerLoss(t *testing.T) {
	s := *seed
	if s == 0 {
		s = rand.Uint64()
	}
	t.Logf("seed %d", s)
	defer func() {
		if t.Failed() {
			t.Logf("replay the choices with -powerloss.seed %d (the crash lands on whatever requests the scheduler has in flight then)", s)
		}
	}()
	ctx := context.Background()
	rng := rand.New(rand.NewPCG(s, 0))
	loads := []workload{&blobLoad{}, &tableLoad{}, &queueLoad{}, &cosmosLoad{}}
	etags := newETagRegistry()
	var all []*worker
	for _, l := range loads {
		for id := range *workers {
			all = append(all, newWorker(l.name(), id, s, etags))
		}
	}
	fs := vfs.NewCrashableMem()
	n := startLoaded(t, ctx, fs, loads)
	// Only the running node is stopped at the end: a cleanup per node
	// would keep every crashed store (its whole file system) in memory
	// until the test ends.
	t.Cleanup(func() {
		if err := n.stop(context.Background()); err != nil {
			t.Errorf("stopping the services: %v", err)
		}
	})
	for _, l := range loads {
		if err := l.setup(ctx); err != nil {
			t.Fatalf("%s setup: %v", l.name(), err)
		}
	}

	began := time.Now()
	var verified int
	for point := 1; point <= *points; point++ {
		var crashing atomic.Bool
		var wg sync.WaitGroup
		errs := make(chan error, len(all))
		for _, w := range all {
			w.crashing = &crashing
			l := loadOf(loads, w.svc)
			wg.Go(func() {
				for !crashing.Load() {
					err := l.step(ctx, w)
					if err != nil && crashing.Load() && connectionLost(err) {
						// The connection was cut: the operation stays
						// in flight, unacknowledged.
						return
					}
					if err != nil {
						errs <- fmt.Errorf("%s worker %d: %w", w.svc, w.id, err)
						return
					}
				}
			})
		}
		// The crash lands while requests are in flight: the load crosses
		// the wire, so only a wait on the wall clock places it.
		time.Sleep(time.Duration(rng.Int64N(int64(*maxLoad))))
		crashing.Store(true)
		cfg := vfs.CrashCloneCfg{}
		if rng.IntN(2) == 0 {
			// Some of what was written but not synced survives too, in
			// 4 KiB blocks and directory entries chosen at random.
			cfg = vfs.CrashCloneCfg{UnsyncedDataPercent: 1 + rng.IntN(50), RNG: rand.New(rand.NewPCG(s, uint64(point)))}
		}
		crashed := fs.CrashClone(cfg)
		if err := n.cutConnections(); err != nil {
			t.Errorf("point %d: cutting the connections: %v", point, err)
		}
		wg.Wait()
		close(errs)
		for err := range errs {
			t.Errorf("point %d: load failed before the crash: %v", point, err)
		}
		if err := n.stop(ctx); err != nil {
			t.Errorf("point %d: stopping the crashed node: %v", point, err)
		}
		if t.Failed() {
			t.FailNow()
		}

		fs = crashed
		n = startLoaded(t, ctx, fs, loads)
		// in flight: [acknowledged after the crash began?][found applied?]
		var inFlight [2][2]int
		keys := 0
		for _, w := range all {
			observed, err := loadOf(loads, w.svc).observe(ctx, w)
			if err != nil {
				t.Fatalf("point %d: reading back %s worker %d: %v", point, w.svc, w.id, err)
			}
			keys += len(w.state)
			hadPending, lateAck := w.pending != nil, w.ackedPending != nil
			applied, err := w.settle(observed)
			if err != nil {
				t.Fatalf("point %d (%d%% of unsynced data kept): %v", point, cfg.UnsyncedDataPercent, err)
			}
			if hadPending {
				inFlight[b2i(lateAck)][b2i(applied)]++
			}
		}
		verified += keys
		acked := 0
		for _, w := range all {
			acked += w.acked
		}
		t.Logf("point %d: %d%% of unsynced data kept; %d acknowledged key states verified; in flight: %d unacknowledged (%d found applied), %d acknowledged after the crash (%d found applied); so far %d acknowledged operations in %s",
			point, cfg.UnsyncedDataPercent, keys, inFlight[0][0]+inFlight[0][1], inFlight[0][1], inFlight[1][0]+inFlight[1][1], inFlight[1][1],
			acked, time.Since(began).Round(time.Second))
	}
	var acked int
	for _, w := range all {
		acked += w.acked
	}
	t.Logf("%d crash points survived in %s: %d acknowledged operations, %d acknowledged key states verified, %d distinct ETags each naming one content",
		*points, time.Since(began).Round(time.Second), acked, verified, etags.count)
	// Each restart flushes the replayed log into a table, so the crashes
	// land among flushes and compactions, not only log appends.
	if names, err := fs.List(dataDir); err == nil {
		var tables int
		for _, name := range names {
			if path.Ext(name) == ".sst" {
				tables++
			}
		}
		t.Logf("the store ends with %d tables", tables)
	}
}

// startLoaded starts a node on fs and connects every workload to it.
func startLoaded(t *testing.T, ctx context.Context, fs vfs.FS, loads []workload) *node {
	t.Helper()
	n, err := startNode(ctx, fs)
	if err != nil {
		t.Fatalf("start the services on the crashed file system: %v", err)
	}
	for _, l := range loads {
		if err := l.connect(n); err != nil {
			t.Fatalf("%s clients: %v", l.name(), err)
		}
	}
	return n
}

// connectionLost reports an error of a request that got no response: the
// HTTP client reports every such failure as a *url.Error, never one with
// a response (that is an *azcore.ResponseError).
func connectionLost(err error) bool {
	var urlErr *url.Error
	return errors.As(err, &urlErr)
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

func loadOf(loads []workload, name string) workload {
	for _, l := range loads {
		if l.name() == name {
			return l
		}
	}
	panic("no workload " + name)
}
