package powerloss_test

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"sync"
	"time"

	"github.com/cockroachdb/pebble/v2/vfs"

	"github.com/cerulean-db/cerulean/internal/azauth"
	"github.com/cerulean-db/cerulean/internal/azhttp"
	"github.com/cerulean-db/cerulean/internal/blob"
	"github.com/cerulean-db/cerulean/internal/cosmos"
	"github.com/cerulean-db/cerulean/internal/kv/pebble"
	"github.com/cerulean-db/cerulean/internal/liveness"
	"github.com/cerulean-db/cerulean/internal/queue"
	"github.com/cerulean-db/cerulean/internal/svcconfig"
	"github.com/cerulean-db/cerulean/internal/table"
)

// dataDir is where the store lives on the in-memory file system.
const dataDir = "/data"

// node is the Blob, Queue, Table and Cosmos DB services over one embedded
// store on fs, started as the server starts them (the same recovery steps
// in the same order) but on a file system the test can crash.
type node struct {
	store     *pebble.Store
	processes *liveness.Registry
	servers   []*http.Server
	wg        sync.WaitGroup
	stops     []func()
	// cut is set once the connections were cut: the servers are closed.
	cut      bool
	stopOnce sync.Once
	stopErr  error

	connectionString string
	cosmosURL        string
}

// startNode opens the store in dataDir on fs and serves the services on
// loopback ports of the kernel's choosing.
func startNode(ctx context.Context, fs vfs.FS) (n *node, err error) {
	store, err := pebble.Open(dataDir, pebble.Options{FS: fs})
	if err != nil {
		return nil, err
	}
	n = &node{store: store}
	defer func() {
		if err != nil {
			err = errors.Join(err, n.stop(context.Background()))
		}
	}()
	accounts, err := azauth.LoadAccounts(func(string) string { return "" })
	if err != nil {
		return nil, err
	}
	log := slog.New(slog.NewTextHandler(io.Discard, nil))
	cfg := svcconfig.Config{Store: store, Accounts: accounts, Logger: log}

	blobs := blob.New(cfg)
	// The embedded store is this process's alone: every staged upload
	// was interrupted by the crash.
	if _, err := blobs.SweepStaged(ctx); err != nil {
		return n, err
	}
	if _, err := blobs.PurgeExpired(ctx); err != nil {
		return n, err
	}
	n.stops = append(n.stops, blobs.StartPurger(time.Hour))
	if n.processes, err = liveness.Register(ctx, store, nil, log); err != nil {
		return n, err
	}
	blobs.UseProcesses(n.processes)
	n.stops = append(n.stops, blobs.StartSweeper(liveness.TTL))
	blobAddr, err := n.serve(blob.NewHandler(blobs), true)
	if err != nil {
		return n, err
	}
	queues := queue.New(cfg)
	n.stops = append(n.stops, queues.StartSweeper(5*time.Minute))
	queueAddr, err := n.serve(queue.NewHandler(queues), true)
	if err != nil {
		return n, err
	}
	tableAddr, err := n.serve(table.NewHandler(table.New(cfg)), true)
	if err != nil {
		return n, err
	}
	cosmosSvc, err := cosmos.New(cosmos.Config{Store: store, Logger: log})
	if err != nil {
		return n, err
	}
	n.stops = append(n.stops, cosmosSvc.StartTTLSweeper(30*time.Second))
	cosmosAddr, err := n.serve(cosmos.NewHandler(cosmosSvc), false)
	if err != nil {
		return n, err
	}
	acct := azauth.DevAccount
	n.connectionString = fmt.Sprintf("DefaultEndpointsProtocol=http;AccountName=%[1]s;AccountKey=%[2]s;BlobEndpoint=http://%[3]s/%[1]s;QueueEndpoint=http://%[4]s/%[1]s;TableEndpoint=http://%[5]s/%[1]s;",
		acct, azauth.DevKey, blobAddr, queueAddr, tableAddr)
	n.cosmosURL = "http://" + cosmosAddr + "/"
	return n, nil
}

// serve serves h on a free loopback port; storage services keep the raw
// header case their Shared Key signatures are computed over.
func (n *node) serve(h http.Handler, storage bool) (string, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", err
	}
	srv := &http.Server{Handler: h, ReadHeaderTimeout: 30 * time.Second}
	if storage {
		ln = azhttp.CaseListener(ln)
		srv.ConnContext = azhttp.CaseConnContext
	}
	n.servers = append(n.servers, srv)
	n.wg.Go(func() {
		// Serve returns ErrServerClosed once stop shuts it down; any other
		// end shows up as the load's requests failing.
		_ = srv.Serve(ln)
	})
	return ln.Addr().String(), nil
}

// cutConnections drops every listener and connection at once, as a
// machine losing power does: requests in flight get no response. Their
// handlers run on to the end in the background (stop waits for them),
// but nothing they write reaches a crash clone taken before.
func (n *node) cutConnections() error {
	n.cut = true
	var errs []error
	for _, srv := range n.servers {
		errs = append(errs, srv.Close())
	}
	return errors.Join(errs...)
}

// stop shuts the services down and closes the store; calls after the
// first return the first result.
func (n *node) stop(ctx context.Context) error {
	n.stopOnce.Do(func() { n.stopErr = n.shutdown(ctx) })
	return n.stopErr
}

func (n *node) shutdown(ctx context.Context) error {
	var errs []error
	for _, srv := range n.servers {
		if n.cut {
			continue
		}
		if err := srv.Shutdown(ctx); err != nil {
			errs = append(errs, err, srv.Close())
		}
	}
	n.wg.Wait()
	for _, stop := range n.stops {
		stop()
	}
	if n.processes != nil {
		errs = append(errs, n.processes.Close(ctx))
	}
	errs = append(errs, n.store.Close())
	return errors.Join(errs...)
}
