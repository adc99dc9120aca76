package cosmossdk

import (
	"context"
	"net"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
	"github.com/Azure/azure-sdk-for-go/sdk/data/azcosmos"
	"github.com/cerulean-db/cerulean/internal/cosmos"
	"github.com/cerulean-db/cerulean/internal/servertest"
	"github.com/cerulean-db/cerulean/internal/testkit"
)

// startBinary runs the built cerulean on dataDir with the Cosmos gateway
// on port (plain HTTP) and waits until it accepts connections.
func startBinary(t *testing.T, bin, dataDir string, port int) *exec.Cmd {
	t.Helper()
	cmd := exec.Command(bin, "serve", "--host", "127.0.0.1", "--blob-port", "0", "--queue-port", "0", "--table-port", "0", "--file-port", "0", "--search-port", "0", "--admin-port", "0",
		"--cosmos-port", strconv.Itoa(port), "--cosmos-http", "--data", dataDir, "--log-level", "error")
	cmd.Stdout, cmd.Stderr = os.Stderr, os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	deadline := time.Now().Add(20 * time.Second)
	for time.Now().Before(deadline) {
		if c, err := net.Dial("tcp", "127.0.0.1:"+strconv.Itoa(port)); err == nil {
			_ = c.Close() // a probe connection: only the dial mattered
			return cmd
		}
		time.Sleep(20 * time.Millisecond)
	}
	t.Fatal("cerulean did not start")
	return nil
}

// killableServer is a built cerulean serving Cosmos on a fixed port over a
// data directory, so that a test can SIGKILL it and start it again on the
// same data.
type killableServer struct {
	bin, dataDir string
	port         int
	env          *servertest.Env
	proc         *exec.Cmd
}

// startKillable builds and starts the server on a free port and a fresh
// data directory; under -short it skips the test.
func startKillable(t *testing.T) *killableServer {
	t.Helper()
	if testing.Short() {
		t.Skip("builds and kills a real server")
	}
	s := &killableServer{bin: servertest.BuildBinary(t), dataDir: t.TempDir()}
	l, _ := net.Listen("tcp", "127.0.0.1:0")
	s.port = l.Addr().(*net.TCPAddr).Port
	_ = l.Close() // only the free port number was wanted
	s.env = &servertest.Env{CosmosURL: "http://127.0.0.1:" + strconv.Itoa(s.port) + "/", CosmosKey: cosmos.EmulatorKey}
	s.proc = startBinary(t, s.bin, s.dataDir, s.port)
	return s
}

// kill9 sends SIGKILL and reaps the process.
func (s *killableServer) kill9(t *testing.T) {
	t.Helper()
	if err := s.proc.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	_ = s.proc.Wait()
}

// restart starts the binary again on the same port and data directory.
func (s *killableServer) restart(t *testing.T) {
	t.Helper()
	s.proc = startBinary(t, s.bin, s.dataDir, s.port)
}

// createItems makes database "db" with container "items" partitioned on /pk.
func createItems(t *testing.T, ctx context.Context, c *azcosmos.Client) {
	t.Helper()
	if _, err := c.CreateDatabase(ctx, azcosmos.DatabaseProperties{ID: "db"}, nil); err != nil {
		t.Fatal(err)
	}
	db, _ := c.NewDatabase("db")
	if _, err := db.CreateContainer(ctx, azcosmos.ContainerProperties{ID: "items", PartitionKeyDefinition: azcosmos.PartitionKeyDefinition{Paths: []string{"/pk"}}}, nil); err != nil {
		t.Fatal(err)
	}
}

// writeUntilDead starts four writers, each on its own client and partition
// key "w<n>", creating items named idOf(pk, i) until a create fails (the
// server died); ack is called for every acknowledged create.
func writeUntilDead(t *testing.T, ctx context.Context, env *servertest.Env, idOf func(pk string, i int) string, ack func(pk, id string, etag azcore.ETag)) *sync.WaitGroup {
	var wg sync.WaitGroup
	for w := range 4 {
		wg.Go(func() {
			cc, _ := newClient(t, env).NewContainer("db", "items")
			pk := "w" + strconv.Itoa(w)
			for i := 0; ; i++ {
				id := idOf(pk, i)
				r, err := cc.CreateItem(ctx, azcosmos.NewPartitionKeyString(pk), mustJSON(t, map[string]any{"id": id, "pk": pk}), nil)
				if err != nil {
					return // the server died
				}
				ack(pk, id, r.ETag)
			}
		})
	}
	return &wg
}

// TestAcknowledgedItemsSurviveKill9 writes items from several clients,
// kills the server with SIGKILL while they write, restarts it on the same
// data directory and checks that every acknowledged item is there with
// the acknowledged _etag.
func TestAcknowledgedItemsSurviveKill9(t *testing.T) {
	srv := startKillable(t)
	env := srv.env
	ctx := context.Background()
	createItems(t, ctx, newClient(t, env))
	var mu sync.Mutex
	acked := map[string]string{} // "pk/id" -> etag
	wg := writeUntilDead(t, ctx, env, func(_ string, i int) string { return strconv.Itoa(i) }, func(pk, id string, etag azcore.ETag) {
		mu.Lock()
		acked[pk+"/"+id] = string(etag)
		mu.Unlock()
	})
	// Kill once some writes are acknowledged, while others are in flight.
	t0 := time.Now()
	testkit.PollUntil(func() bool {
		mu.Lock()
		defer mu.Unlock()
		return len(acked) >= 10
	}, 10*time.Millisecond, 15*time.Second)
	srv.kill9(t)
	wg.Wait()

	srv.restart(t)
	cc, _ := newClient(t, env).NewContainer("db", "items")
	mu.Lock()
	defer mu.Unlock()
	if len(acked) == 0 {
		t.Fatal("no write was acknowledged before the kill")
	}
	for key, etag := range acked {
		pk, id, _ := strings.Cut(key, "/")
		r, err := cc.ReadItem(ctx, azcosmos.NewPartitionKeyString(pk), id, nil)
		if err != nil {
			t.Fatalf("acknowledged item %s lost: %v", key, err)
		}
		if string(r.ETag) != etag {
			t.Fatalf("item %s has etag %s, acknowledged %s", key, r.ETag, etag)
		}
	}
	t.Logf("%d acknowledged items survived kill -9 (%v)", len(acked), time.Since(t0))
}
