package cosmossdk

import (
	"context"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/data/azcosmos"
	"github.com/cerulean-db/cerulean/internal/cosmos"
	"github.com/cerulean-db/cerulean/internal/servertest"
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

// TestAcknowledgedItemsSurviveKill9 writes items from several clients,
// kills the server with SIGKILL while they write, restarts it on the same
// data directory and checks that every acknowledged item is there with
// the acknowledged _etag.
func TestAcknowledgedItemsSurviveKill9(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and kills a real server")
	}
	out, err := exec.Command("go", "env", "GOMOD").Output()
	if err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(t.TempDir(), "cerulean")
	build := exec.Command("go", "build", "-o", bin, "./cmd/cerulean")
	build.Dir = filepath.Dir(strings.TrimSpace(string(out)))
	if b, err := build.CombinedOutput(); err != nil {
		t.Fatalf("build: %v\n%s", err, b)
	}
	dataDir := t.TempDir()
	l, _ := net.Listen("tcp", "127.0.0.1:0")
	port := l.Addr().(*net.TCPAddr).Port
	_ = l.Close() // only the free port number was wanted
	env := &servertest.Env{CosmosURL: "http://127.0.0.1:" + strconv.Itoa(port) + "/", CosmosKey: cosmos.EmulatorKey}

	proc := startBinary(t, bin, dataDir, port)
	ctx := context.Background()
	c := newClient(t, env)
	if _, err := c.CreateDatabase(ctx, azcosmos.DatabaseProperties{ID: "db"}, nil); err != nil {
		t.Fatal(err)
	}
	db, _ := c.NewDatabase("db")
	if _, err := db.CreateContainer(ctx, azcosmos.ContainerProperties{ID: "items", PartitionKeyDefinition: azcosmos.PartitionKeyDefinition{Paths: []string{"/pk"}}}, nil); err != nil {
		t.Fatal(err)
	}
	var mu sync.Mutex
	acked := map[string]string{} // "pk/id" -> etag
	var wg sync.WaitGroup
	for w := range 4 {
		wg.Go(func() {
			cc, _ := newClient(t, env).NewContainer("db", "items")
			pk := "w" + strconv.Itoa(w)
			for i := 0; ; i++ {
				id := strconv.Itoa(i)
				r, err := cc.CreateItem(ctx, azcosmos.NewPartitionKeyString(pk), mustJSON(t, map[string]any{"id": id, "pk": pk}), nil)
				if err != nil {
					return // the server died
				}
				mu.Lock()
				acked[pk+"/"+id] = string(r.ETag)
				mu.Unlock()
			}
		})
	}
	// Kill once some writes are acknowledged, while others are in flight.
	t0 := time.Now()
	for time.Since(t0) < 15*time.Second {
		mu.Lock()
		n := len(acked)
		mu.Unlock()
		if n >= 10 {
			break
		}
		time.Sleep(10 * time.Millisecond)
	}
	if err := proc.Process.Signal(syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	wg.Wait()
	_ = proc.Wait()

	startBinary(t, bin, dataDir, port)
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
