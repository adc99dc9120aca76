package queuesdk_test

import (
	"context"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore/policy"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azqueue"

	"github.com/cerulean-db/cerulean/internal/azhttp"
	"github.com/cerulean-db/cerulean/internal/testkit"
)

// process is a cerulean binary serving one data directory.
type process struct {
	cmd  *exec.Cmd
	port int
	log  string
	done chan struct{}
}

// buildBinary compiles ./cmd/cerulean into a temp dir.
func buildBinary(t *testing.T) string {
	t.Helper()
	out, err := exec.Command("go", "env", "GOMOD").Output()
	must(t, err, "go env GOMOD")
	root := filepath.Dir(strings.TrimSpace(string(out)))
	bin := filepath.Join(t.TempDir(), "cerulean")
	cmd := exec.Command("go", "build", "-o", bin, "./cmd/cerulean")
	cmd.Dir = root
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build ./cmd/cerulean: %v\n%s", err, b)
	}
	return bin
}

func freePort(t *testing.T) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	must(t, err, "finding a free port")
	defer func() { _ = l.Close() }() // only the free port number was wanted
	return l.Addr().(*net.TCPAddr).Port
}

// startProcess runs the binary with the queue service on port and every
// other service on a port of the kernel's choosing.
func startProcess(t *testing.T, bin, dataDir string, port int) *process {
	t.Helper()
	logf := filepath.Join(t.TempDir(), "server.log")
	lf, err := os.Create(logf)
	must(t, err, "log file")
	args := []string{"serve", "--host", "127.0.0.1", "--data", dataDir, "--queue-port", strconv.Itoa(port)}
	for _, other := range []string{"blob", "table", "cosmos", "admin"} {
		args = append(args, "--"+other+"-port", "0")
	}
	p := &process{cmd: exec.Command(bin, args...), port: port, log: logf, done: make(chan struct{})}
	p.cmd.Stdout, p.cmd.Stderr = lf, lf
	must(t, p.cmd.Start(), "starting %s", bin)
	go func() {
		_ = p.cmd.Wait()
		_ = lf.Close() // the log is read back only when the test fails
		close(p.done)
	}()
	t.Cleanup(p.kill)
	deadline := time.Now().Add(30 * time.Second)
	for {
		select {
		case <-p.done:
			b, _ := os.ReadFile(logf)
			t.Fatalf("server exited before listening:\n%s", b)
		default:
		}
		if c, err := net.DialTimeout("tcp", fmt.Sprintf("127.0.0.1:%d", port), 200*time.Millisecond); err == nil {
			_ = c.Close() // a probe connection: only the dial mattered
			return p
		}
		if time.Now().After(deadline) {
			t.Fatalf("server not listening on %d after 30s", port)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// kill sends SIGKILL: no shutdown, no flush.
func (p *process) kill() {
	_ = p.cmd.Process.Signal(syscall.SIGKILL)
	<-p.done
}

func (p *process) client(t *testing.T) *azqueue.ServiceClient {
	t.Helper()
	cred, err := azqueue.NewSharedKeyCredential(azhttp.DevAccount, azhttp.DevKey)
	must(t, err, "credential")
	o := clientOptions()
	o.Retry = policy.RetryOptions{MaxRetries: -1, TryTimeout: 10 * time.Second}
	svc, err := azqueue.NewServiceClientWithSharedKeyCredential(fmt.Sprintf("http://127.0.0.1:%d/%s/", p.port, azhttp.DevAccount), cred, o)
	must(t, err, "client")
	return svc
}

// TestDurability kills the server with SIGKILL while producers are
// putting, restarts it on the same data, and checks that every
// acknowledged Put survived, nothing was invented or duplicated, and the
// messages a consumer had dequeued are still invisible — their windows
// survived the restart — and still deletable with the pre-crash receipts.
func TestDurability(t *testing.T) {
	t.Parallel()
	bin := buildBinary(t)
	dir := t.TempDir()
	port := freePort(t)
	p := startProcess(t, bin, dir, port)
	ctx := context.Background()
	svc := p.client(t)
	name := qname("durable")
	_, err := svc.CreateQueue(ctx, name, nil)
	must(t, err, "create")
	qc := svc.NewQueueClient(name)

	var mu sync.Mutex
	acked := map[string]string{} // text -> message id
	var attempted sync.Map       // text -> true
	var stop atomic.Bool
	var wg sync.WaitGroup
	for w := range 4 {
		wg.Go(func() {
			for i := 0; !stop.Load(); i++ {
				text := fmt.Sprintf("w%d-%06d", w, i)
				attempted.Store(text, true)
				resp, err := qc.EnqueueMessage(ctx, text, &azqueue.EnqueueMessageOptions{TimeToLive: ptr(int32(-1))})
				if err != nil {
					return // the server is gone
				}
				mu.Lock()
				acked[text] = deref(resp.Messages[0].MessageID)
				mu.Unlock()
			}
		})
	}
	testkit.PollUntil(func() bool {
		mu.Lock()
		defer mu.Unlock()
		return len(acked) >= 400
	}, 5*time.Millisecond, 0)
	// A consumer takes some messages for an hour, then the server dies
	// with puts in flight.
	hidden := dequeue(t, qc, 16, 3600)
	if len(hidden) != 16 {
		t.Fatalf("dequeued %d before the crash", len(hidden))
	}
	p.kill()
	stop.Store(true)
	wg.Wait()
	t.Logf("%d puts acknowledged before SIGKILL", len(acked))

	p = startProcess(t, bin, dir, port)
	qc = p.client(t).NewQueueClient(name)
	hiddenIDs := map[string]bool{}
	for _, m := range hidden {
		hiddenIDs[deref(m.MessageID)] = true
	}
	found := map[string]string{} // text -> id
	for {
		msgs := dequeue(t, qc, 32, 3600)
		if len(msgs) == 0 {
			break
		}
		for _, m := range msgs {
			text, id := deref(m.MessageText), deref(m.MessageID)
			if hiddenIDs[id] {
				t.Errorf("message %s (%s) was invisible before the crash but handed out after it", id, text)
			}
			if _, dup := found[text]; dup {
				t.Errorf("message %q delivered twice", text)
			}
			if _, ok := attempted.Load(text); !ok {
				t.Errorf("message %q was never put", text)
			}
			if deref(m.DequeueCount) != 1 {
				t.Errorf("message %q: DequeueCount %d after restart, want 1", text, deref(m.DequeueCount))
			}
			found[text] = id
		}
	}
	hiddenTexts := map[string]bool{}
	for _, m := range hidden {
		hiddenTexts[deref(m.MessageText)] = true
	}
	lost := 0
	for text, id := range acked {
		if hiddenTexts[text] {
			continue
		}
		if got, ok := found[text]; !ok || got != id {
			lost++
			if lost <= 5 {
				t.Errorf("acknowledged put %q (id %s) lost in the crash", text, id)
			}
		}
	}
	if lost > 0 {
		t.Errorf("%d of %d acknowledged puts lost", lost, len(acked))
	}
	if n := approxCount(t, qc); int(n) != len(found)+len(hidden) {
		t.Errorf("count after restart %d, want %d delivered + %d hidden", n, len(found), len(hidden))
	}
	for _, m := range hidden {
		_, err := qc.DeleteMessage(ctx, deref(m.MessageID), deref(m.PopReceipt), nil)
		must(t, err, "delete %s with its pre-crash receipt", deref(m.MessageID))
	}
}
