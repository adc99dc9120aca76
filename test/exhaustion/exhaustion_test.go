package exhaustion_test

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"runtime"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/data/azcosmos"
	"github.com/Azure/azure-sdk-for-go/sdk/data/aztables"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/sas"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/service"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azqueue"

	"github.com/cerulean-db/cerulean/internal/servertest"
	"github.com/cerulean-db/cerulean/internal/testkit"
)

var (
	idleConns = flag.Int("exhaustion.conns", 1000, "idle connections held open, spread over the services")
	duration  = flag.Duration("exhaustion.duration", 8*time.Second, "how long valid traffic runs among them")
	slow      = flag.Int("exhaustion.slow", 30, "slow senders (trickled headers and bodies)")
	workers   = flag.Int("exhaustion.workers", 4, "concurrent valid SDK clients")
)

// maxHeapInUse is the loose bound on the server process's heap in use
// (Go's HeapInuse, sampled) while the default-sized test runs: the test's
// own slow senders and SDK clients share the process, the idle
// connections' client ends do not.
const maxHeapInUse = 1 << 30

// latencies records how long each kind of valid request took.
type latencies struct {
	mu     sync.Mutex
	byKind map[string][]time.Duration
	errs   []string
	failed int
}

func (l *latencies) record(kind string, start time.Time, err error) {
	d := time.Since(start)
	l.mu.Lock()
	defer l.mu.Unlock()
	if err != nil {
		l.failed++
		if len(l.errs) < 10 {
			l.errs = append(l.errs, fmt.Sprintf("%s: %s", kind, testkit.Describe(err)))
		}
		return
	}
	l.byKind[kind] = append(l.byKind[kind], d)
}

func (l *latencies) report(t *testing.T) (served int) {
	l.mu.Lock()
	defer l.mu.Unlock()
	kinds := make([]string, 0, len(l.byKind))
	for k := range l.byKind {
		kinds = append(kinds, k)
	}
	slices.Sort(kinds)
	for _, k := range kinds {
		ds := l.byKind[k]
		slices.Sort(ds)
		served += len(ds)
		t.Logf("  %-13s %6d served   p50 %8v   p99 %8v   max %8v", k, len(ds),
			ds[len(ds)*50/100].Round(10*time.Microsecond), ds[len(ds)*99/100].Round(10*time.Microsecond), ds[len(ds)-1].Round(10*time.Microsecond))
	}
	return served
}

func TestIdleConnectionsSlowSendersAndValidTraffic(t *testing.T) {
	if testing.Short() {
		t.Skip("exhaustion test")
	}
	// This process holds the server's end of every idle connection, and
	// the slow senders' and clients' both ends.
	if err := raiseFileLimit(*idleConns + 4*(*slow) + 512); err != nil {
		t.Skipf("cannot hold %d connections: %v", *idleConns, err)
	}
	// On disk, so that the heap reports the connections and requests in
	// flight rather than every record the valid traffic wrote.
	env := servertest.Start(t, servertest.WithDataDir(t.TempDir()))
	ctx := t.Context()
	c := newClients(t, env)

	addrs := []string{hostOf(t, env.BlobURL), hostOf(t, env.QueueURL), hostOf(t, env.TableURL), hostOf(t, env.FileURL), hostOf(t, env.CosmosURL), hostOf(t, env.SearchURL)}

	var peakHeap atomic.Uint64
	stopSampling := make(chan struct{})
	var sampling sync.WaitGroup
	sampling.Go(func() {
		for {
			var ms runtime.MemStats
			runtime.ReadMemStats(&ms)
			if ms.HeapInuse > peakHeap.Load() {
				peakHeap.Store(ms.HeapInuse)
			}
			select {
			case <-stopSampling:
				return
			case <-time.After(250 * time.Millisecond):
			}
		}
	})

	start := time.Now()
	h := startHolder(t, *idleConns, addrs)
	select {
	case <-h.reachedAll:
	case <-time.After(90 * time.Second):
		held, _, _, _, errLine := h.stats()
		t.Fatalf("only %d of %d idle connections open after 90 s (%s)", held, *idleConns, errLine)
	}
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	t.Logf("%d idle connections open over %d services in %v; heap in use %d MiB", *idleConns, len(addrs), time.Since(start).Round(time.Millisecond), ms.HeapInuse>>20)

	// Slow senders: until the valid traffic is done.
	slowCtx, stopSlow := context.WithCancel(ctx)
	var slowWG sync.WaitGroup
	var slowConns atomic.Int64
	for i := range *slow {
		slowWG.Go(func() {
			for slowCtx.Err() == nil {
				slowConns.Add(1)
				switch i % 3 {
				case 0:
					trickleHeaders(slowCtx, addrs[i%len(addrs)])
				case 1:
					trickleBlobBody(slowCtx, c.blobAddr, c.signed(fmt.Sprintf("exh/trickle-%d", i)))
				default:
					trickleCosmosBody(slowCtx, env, i)
				}
			}
		})
	}

	lat := &latencies{byKind: map[string][]time.Duration{}}
	deadline := time.Now().Add(*duration)
	var valid sync.WaitGroup
	for w := range *workers {
		valid.Go(func() {
			for n := 0; time.Now().Before(deadline); n++ {
				c.validRound(ctx, lat, w, n)
			}
		})
	}
	valid.Wait()
	stopSlow()
	slowWG.Wait()
	close(stopSampling)
	sampling.Wait()

	held, minHeld, maxHeld, redialed, _ := h.stats()
	t.Logf("valid traffic for %v among %d idle connections (held now %d, fewest %d, most %d; %d reopened after the server closed them) and %d slow-sender connections:",
		*duration, *idleConns, held, minHeld, maxHeld, redialed, slowConns.Load())
	served := lat.report(t)
	t.Logf("%d valid requests served, %d failed; peak heap in use %d MiB, peak RSS %s (server, slow senders and SDK clients in one process)",
		served, lat.failed, peakHeap.Load()>>20, peakRSS())
	for _, e := range lat.errs {
		t.Error(e)
	}
	if served == 0 {
		t.Error("no valid request was served")
	}
	if *idleConns <= 1000 && peakHeap.Load() > maxHeapInUse {
		t.Errorf("peak heap in use %d MiB, over the %d MiB bound", peakHeap.Load()>>20, maxHeapInUse>>20)
	}
}

// clients are the SDK clients of the valid traffic.
type clients struct {
	blob     *azblob.Client
	blobAddr string
	sasQuery string
	blobURL  string
	queue    *azqueue.QueueClient
	table    *aztables.Client
	cosmos   *azcosmos.ContainerClient
}

func newClients(t *testing.T, env *servertest.Env) *clients {
	t.Helper()
	ctx := t.Context()
	c := &clients{blobURL: env.BlobURL}
	var err error
	c.blob, err = azblob.NewClientFromConnectionString(env.ConnectionString, nil)
	testkit.Must(t, err, "blob client")
	_, err = c.blob.CreateContainer(ctx, "exh", nil)
	testkit.Must(t, err, "create container")
	cred, err := service.NewSharedKeyCredential(env.Account, env.Key)
	testkit.Must(t, err, "shared key")
	now := time.Now().UTC()
	qp, err := sas.AccountSignatureValues{
		Protocol: sas.ProtocolHTTPSandHTTP, StartTime: now.Add(-time.Hour), ExpiryTime: now.Add(2 * time.Hour),
		Permissions:   (&sas.AccountPermissions{Read: true, Write: true, Create: true, Add: true, Delete: true, List: true}).String(),
		ResourceTypes: (&sas.AccountResourceTypes{Service: true, Container: true, Object: true}).String(),
	}.SignWithSharedKey(cred)
	testkit.Must(t, err, "account SAS")
	c.sasQuery = qp.Encode()
	u, _ := url.Parse(env.BlobURL)
	c.blobAddr = u.Host

	qs, err := azqueue.NewServiceClientFromConnectionString(env.ConnectionString, nil)
	testkit.Must(t, err, "queue client")
	_, err = qs.CreateQueue(ctx, "exh", nil)
	testkit.Must(t, err, "create queue")
	c.queue = qs.NewQueueClient("exh")

	ts, err := aztables.NewServiceClientFromConnectionString(env.ConnectionString, nil)
	testkit.Must(t, err, "table client")
	_, err = ts.CreateTable(ctx, "exh", nil)
	testkit.Must(t, err, "create table")
	c.table = ts.NewClient("exh")

	kc, err := azcosmos.NewKeyCredential(env.CosmosKey)
	testkit.Must(t, err, "cosmos key")
	cc, err := azcosmos.NewClientWithKey(env.CosmosURL, kc, nil)
	testkit.Must(t, err, "cosmos client")
	_, err = cc.CreateDatabase(ctx, azcosmos.DatabaseProperties{ID: "exh"}, nil)
	testkit.Must(t, err, "create database")
	db, err := cc.NewDatabase("exh")
	testkit.Must(t, err, "database client")
	_, err = db.CreateContainer(ctx, azcosmos.ContainerProperties{ID: "items", PartitionKeyDefinition: azcosmos.PartitionKeyDefinition{Paths: []string{"/pk"}}}, nil)
	testkit.Must(t, err, "create container")
	c.cosmos, err = db.NewContainer("items")
	testkit.Must(t, err, "container client")
	return c
}

// signed is the blob URL path (from the account on) with the account SAS.
func (c *clients) signed(path string) string {
	return "/" + strings.TrimPrefix(strings.TrimPrefix(c.blobURL, "http://"+c.blobAddr), "/") + path + "?" + c.sasQuery
}

// validRound is one round of valid SDK traffic: a blob put and get, a
// table insert, a queue put and get, a Cosmos create and read; each
// request must succeed, and each one's latency is recorded.
func (c *clients) validRound(ctx context.Context, lat *latencies, w, n int) {
	ctx, cancel := context.WithTimeout(ctx, time.Minute)
	defer cancel()
	key := fmt.Sprintf("w%d-%d", w, n)
	body := bytes.Repeat([]byte{byte(n)}, 1024+n%4096)

	start := time.Now()
	_, err := c.blob.UploadBuffer(ctx, "exh", key, body, nil)
	lat.record("blob put", start, err)
	start = time.Now()
	resp, err := c.blob.DownloadStream(ctx, "exh", key, nil)
	if err == nil {
		var got []byte
		got, err = io.ReadAll(resp.Body)
		_ = resp.Body.Close()
		if err == nil && !bytes.Equal(got, body) {
			err = fmt.Errorf("blob %s came back with other content", key)
		}
	}
	lat.record("blob get", start, err)

	start = time.Now()
	entity := fmt.Appendf(nil, `{"PartitionKey":"w%d","RowKey":"%d","N":%d}`, w, n, n)
	_, err = c.table.AddEntity(ctx, entity, nil)
	lat.record("table insert", start, err)

	start = time.Now()
	_, err = c.queue.EnqueueMessage(ctx, key, nil)
	lat.record("queue put", start, err)
	start = time.Now()
	got, err := c.queue.DequeueMessage(ctx, nil)
	if err == nil && len(got.Messages) == 1 {
		_, err = c.queue.DeleteMessage(ctx, *got.Messages[0].MessageID, *got.Messages[0].PopReceipt, nil)
	} else if err == nil {
		err = fmt.Errorf("dequeue returned %d messages", len(got.Messages))
	}
	lat.record("queue get", start, err)

	start = time.Now()
	pk := azcosmos.NewPartitionKeyString(fmt.Sprintf("w%d", w))
	_, err = c.cosmos.CreateItem(ctx, pk, fmt.Appendf(nil, `{"id":%q,"pk":"w%d","n":%d}`, key, w, n), nil)
	lat.record("cosmos create", start, err)
	start = time.Now()
	_, err = c.cosmos.ReadItem(ctx, pk, key, nil)
	lat.record("cosmos read", start, err)
}

// trickleHeaders sends a request's headers a line every half second and
// never ends them, until the server hangs up (30 s) or ctx ends.
func trickleHeaders(ctx context.Context, addr string) {
	conn, err := dial(ctx, addr)
	if err != nil {
		return
	}
	defer func() { _ = conn.Close() }() // the server may have closed it first
	if _, err := fmt.Fprintf(conn, "GET / HTTP/1.1\r\nHost: %s\r\n", addr); err != nil {
		return
	}
	for i := 0; ctx.Err() == nil; i++ {
		if _, err := fmt.Fprintf(conn, "x-slow-%d: y\r\n", i); err != nil {
			return
		}
		sleep(ctx, 500*time.Millisecond)
	}
}

// trickleBlobBody announces a 6 MiB upload and sends it a kilobyte every
// half second.
func trickleBlobBody(ctx context.Context, addr, pathAndQuery string) {
	conn, err := dial(ctx, addr)
	if err != nil {
		return
	}
	defer func() { _ = conn.Close() }()
	if _, err := fmt.Fprintf(conn, "PUT %s HTTP/1.1\r\nHost: %s\r\nx-ms-blob-type: BlockBlob\r\nContent-Length: %d\r\n\r\n", pathAndQuery, addr, 6<<20); err != nil {
		return
	}
	trickle(ctx, conn)
}

// trickleCosmosBody announces a 1 MB item and sends it a kilobyte every
// half second.
func trickleCosmosBody(ctx context.Context, env *servertest.Env, i int) {
	u, _ := url.Parse(env.CosmosURL)
	req, _ := http.NewRequest(http.MethodPost, env.CosmosURL+"dbs/exh/colls/items/docs", nil)
	if err := testkit.CosmosSign(req, env.CosmosKey, "docs", "dbs/exh/colls/items", time.Now()); err != nil {
		return
	}
	conn, err := dial(ctx, u.Host)
	if err != nil {
		return
	}
	defer func() { _ = conn.Close() }()
	var head strings.Builder
	fmt.Fprintf(&head, "POST /dbs/exh/colls/items/docs HTTP/1.1\r\nHost: %s\r\nContent-Type: application/json\r\nContent-Length: %d\r\n", u.Host, 1<<20)
	fmt.Fprintf(&head, "x-ms-documentdb-partitionkey: [\"slow-%d\"]\r\n", i)
	for k, vs := range req.Header {
		fmt.Fprintf(&head, "%s: %s\r\n", k, vs[0])
	}
	head.WriteString("\r\n")
	if _, err := io.WriteString(conn, head.String()); err != nil {
		return
	}
	trickle(ctx, conn)
}

func trickle(ctx context.Context, conn net.Conn) {
	chunk := bytes.Repeat([]byte{' '}, 1024)
	for ctx.Err() == nil {
		if _, err := conn.Write(chunk); err != nil {
			return
		}
		sleep(ctx, 500*time.Millisecond)
	}
}

func dial(ctx context.Context, addr string) (net.Conn, error) {
	var d net.Dialer
	c, err := d.DialContext(ctx, "tcp", addr)
	if err != nil {
		sleep(ctx, 100*time.Millisecond)
	}
	return c, err
}

// hostOf is a URL's host:port.
func hostOf(t *testing.T, u string) string {
	t.Helper()
	p, err := url.Parse(u)
	if err != nil {
		t.Fatal(err)
	}
	return p.Host
}

func sleep(ctx context.Context, d time.Duration) {
	select {
	case <-ctx.Done():
	case <-time.After(d):
	}
}

// peakRSS reads the process's high-water resident size (Linux).
func peakRSS() string {
	b, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return "unknown"
	}
	for line := range strings.SplitSeq(string(b), "\n") {
		if v, ok := strings.CutPrefix(line, "VmHWM:"); ok {
			return strings.TrimSpace(v)
		}
	}
	return "unknown"
}
