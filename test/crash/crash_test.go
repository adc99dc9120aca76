package crash_test

import (
	"bytes"
	"context"
	"crypto/md5"
	"encoding/base64"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"github.com/Azure/azure-sdk-for-go/sdk/azcore"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/policy"
	"github.com/Azure/azure-sdk-for-go/sdk/azcore/streaming"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/blockblob"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/container"
	"github.com/Azure/azure-sdk-for-go/sdk/storage/azblob/service"

	"github.com/cerulean-db/cerulean/internal/kv"
	"github.com/cerulean-db/cerulean/internal/servertest"
)

const (
	account = "devstoreaccount1"
	devKey  = "Eby8vdM02xNOcqFlqUwJPLlmEtlCDXJ1OUzFT50uSRZ6IFsuFq2UVErCz4I6tq/K1SZFPTOtr/KBHBeksoGMGw=="
	cntName = "crashtest"
)

// ---------------------------------------------------------------------------
// the server process

type server struct {
	t      *testing.T
	cmd    *exec.Cmd
	port   int
	url    string
	logf   string
	done   chan struct{}
	waitMu sync.Mutex
	exit   error
}

// buildServer compiles ./cmd/cerulean once into a temp dir.
func buildServer(t *testing.T) string {
	t.Helper()
	out, err := exec.Command("go", "env", "GOMOD").Output()
	if err != nil {
		t.Fatalf("go env GOMOD: %v", err)
	}
	root := filepath.Dir(strings.TrimSpace(string(out)))
	bin := filepath.Join(t.TempDir(), "cerulean")
	cmd := exec.Command("go", "build", "-o", bin, "./cmd/cerulean")
	cmd.Dir = root
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("go build ./cmd/cerulean in %s: %v\n%s", root, err, b)
	}
	return bin
}

func freePort(t *testing.T) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatalf("finding a free port: %v", err)
	}
	port := l.Addr().(*net.TCPAddr).Port
	if err := l.Close(); err != nil {
		t.Fatalf("finding a free port: %v", err)
	}
	return port
}

// startServer runs the binary on a free loopback port with the given data
// directory and waits until the port accepts connections.
func startServer(t *testing.T, bin, dataDir, tag string) *server {
	t.Helper()
	port := freePort(t)
	logf := filepath.Join(t.TempDir(), "server-"+tag+".log")
	lf, err := os.Create(logf)
	if err != nil {
		t.Fatalf("creating log file: %v", err)
	}
	// The other services listen on ports of the kernel's choosing, so the
	// test never collides with a server on the default ports.
	cmd := exec.Command(bin, "serve", "--host", "127.0.0.1", "--blob-port", strconv.Itoa(port), "--queue-port", "0", "--table-port", "0", "--file-port", "0", "--cosmos-port", "0", "--search-port", "0", "--smb-port", "0", "--admin-port", "0", "--data", dataDir)
	cmd.Stdout = lf
	cmd.Stderr = lf
	if err := cmd.Start(); err != nil {
		t.Fatalf("starting %s: %v", bin, errors.Join(err, lf.Close()))
	}
	s := &server{t: t, cmd: cmd, port: port, logf: logf, done: make(chan struct{}),
		url: fmt.Sprintf("http://127.0.0.1:%d/%s/", port, account)}
	go func() {
		err := cmd.Wait()
		// The log is read back by name; a failed close loses at most its
		// tail, and the exit status below is what the test checks.
		_ = lf.Close()
		s.waitMu.Lock()
		s.exit = err
		s.waitMu.Unlock()
		close(s.done)
	}()
	t.Cleanup(func() { s.kill() })

	deadline := time.Now().Add(60 * time.Second)
	for {
		select {
		case <-s.done:
			t.Fatalf("server (%s) exited before accepting connections: %v\n%s", tag, s.exitErr(), s.log())
		default:
		}
		c, err := net.DialTimeout("tcp", fmt.Sprintf("127.0.0.1:%d", port), 200*time.Millisecond)
		if err == nil {
			_ = c.Close() // a probe: nothing was sent, so nothing can be lost
			return s
		}
		if time.Now().After(deadline) {
			t.Fatalf("server (%s) did not accept connections on port %d within 60s\n%s", tag, port, s.log())
		}
		time.Sleep(20 * time.Millisecond)
	}
}

func (s *server) exitErr() error {
	s.waitMu.Lock()
	defer s.waitMu.Unlock()
	return s.exit
}

func (s *server) log() string {
	b, _ := os.ReadFile(s.logf)
	if len(b) > 8000 {
		b = append([]byte("...\n"), b[len(b)-8000:]...)
	}
	return string(b)
}

// kill sends SIGKILL and waits for the process to be gone.
func (s *server) kill() {
	select {
	case <-s.done:
		return
	default:
	}
	_ = s.cmd.Process.Signal(syscall.SIGKILL)
	select {
	case <-s.done:
	case <-time.After(30 * time.Second):
		s.t.Errorf("server did not exit within 30s of SIGKILL")
	}
}

// alive fails the test if the server died on its own.
func (s *server) alive(what string) {
	s.t.Helper()
	select {
	case <-s.done:
		s.t.Fatalf("server exited unexpectedly (%s): %v\n%s", what, s.exitErr(), s.log())
	default:
	}
}

func (s *server) client() *service.Client {
	s.t.Helper()
	cred, err := service.NewSharedKeyCredential(account, devKey)
	if err != nil {
		s.t.Fatalf("NewSharedKeyCredential: %v", err)
	}
	o := &service.ClientOptions{}
	o.Retry = policy.RetryOptions{MaxRetries: -1, TryTimeout: time.Minute}
	c, err := service.NewClientWithSharedKeyCredential(s.url, cred, o)
	if err != nil {
		s.t.Fatalf("service client: %v", err)
	}
	return c
}

// ---------------------------------------------------------------------------
// the write history

type op struct {
	md5   string
	size  int
	acked bool
}

// history records every attempted and acknowledged upload per blob name. Each
// name is written by one goroutine at a time, so per-name order is exact.
type history struct {
	mu  sync.Mutex
	ops map[string][]op
}

func newHistory() *history { return &history{ops: map[string][]op{}} }

func (h *history) attempt(name string, data []byte) int {
	sum := md5.Sum(data)
	h.mu.Lock()
	defer h.mu.Unlock()
	h.ops[name] = append(h.ops[name], op{md5: hex.EncodeToString(sum[:]), size: len(data)})
	return len(h.ops[name]) - 1
}

func (h *history) ack(name string, i int) {
	h.mu.Lock()
	defer h.mu.Unlock()
	h.ops[name][i].acked = true
}

func (h *history) counts() (names, attempts, acks int) {
	h.mu.Lock()
	defer h.mu.Unlock()
	for _, ops := range h.ops {
		names++
		for _, o := range ops {
			attempts++
			if o.acked {
				acks++
			}
		}
	}
	return
}

// verify checks the restarted server against the history:
//   - a name whose last operation was acknowledged holds exactly that content;
//   - a name with an acknowledged write followed by unacknowledged attempts
//     holds the acknowledged content or one of the later attempts;
//   - a name never acknowledged is absent or holds one of its attempts;
//   - nothing else exists, and listings agree with the blobs.
func (h *history) verify(t *testing.T, s *server, what string) {
	t.Helper()
	ctx := context.Background()
	cc := s.client().NewContainerClient(cntName)
	h.mu.Lock()
	defer h.mu.Unlock()

	listed := map[string]int64{}
	pager := cc.NewListBlobsFlatPager(&container.ListBlobsFlatOptions{MaxResults: ptr(int32(500))})
	for pager.More() {
		page, err := pager.NextPage(ctx)
		if err != nil {
			t.Fatalf("%s: List Blobs: %v", what, err)
		}
		if page.Segment == nil {
			continue
		}
		for _, it := range page.Segment.BlobItems {
			var n int64 = -1
			if it.Properties != nil && it.Properties.ContentLength != nil {
				n = *it.Properties.ContentLength
			}
			listed[*it.Name] = n
		}
	}
	for name := range listed {
		if _, ok := h.ops[name]; !ok {
			t.Errorf("%s: blob %q exists but was never written", what, name)
		}
	}

	names := make([]string, 0, len(h.ops))
	for n := range h.ops {
		names = append(names, n)
	}
	sort.Strings(names)
	lost, torn, checked := 0, 0, 0
	for _, name := range names {
		ops := h.ops[name]
		lastAck := -1
		for i, o := range ops {
			if o.acked {
				lastAck = i
			}
		}
		valid := map[string]bool{}
		start := lastAck
		if start < 0 {
			start = 0
		}
		for _, o := range ops[start:] {
			valid[o.md5] = true
		}
		mustExist := lastAck >= 0

		resp, err := cc.NewBlobClient(name).DownloadStream(ctx, nil)
		if err != nil {
			var re *azcore.ResponseError
			if errors.As(err, &re) && re.StatusCode == 404 {
				if mustExist {
					lost++
					if lost <= 10 {
						t.Errorf("%s: acknowledged blob %q (md5 %s, %d bytes) is missing after restart", what, name, ops[lastAck].md5, ops[lastAck].size)
					}
				}
				if _, ok := listed[name]; ok {
					t.Errorf("%s: blob %q is listed but Get Blob says 404", what, name)
				}
				continue
			}
			t.Fatalf("%s: Get Blob %q: %v", what, name, err)
		}
		body, err := io.ReadAll(resp.Body)
		if err := errors.Join(err, resp.Body.Close()); err != nil {
			t.Fatalf("%s: reading %q: %v", what, name, err)
		}
		checked++
		sum := md5.Sum(body)
		got := hex.EncodeToString(sum[:])
		if !valid[got] {
			torn++
			if torn <= 10 {
				var desc []string
				for _, o := range ops {
					desc = append(desc, fmt.Sprintf("%s/%dB/acked=%v", o.md5[:8], o.size, o.acked))
				}
				t.Errorf("%s: blob %q holds %d bytes with md5 %s, which is not what its last acknowledged or later attempted upload wrote; history: %v",
					what, name, len(body), got, desc)
			}
		}
		if n, ok := listed[name]; !ok {
			t.Errorf("%s: blob %q can be read but is not listed", what, name)
		} else if n != int64(len(body)) {
			t.Errorf("%s: blob %q listed with Content-Length %d but holds %d bytes", what, name, n, len(body))
		}
	}
	if lost > 10 || torn > 10 {
		t.Errorf("%s: %d acknowledged blobs lost, %d blobs with unexpected content in total", what, lost, torn)
	}
	t.Logf("%s: verified %d names (%d present, %d listed)", what, len(names), checked, len(listed))
}

// ---------------------------------------------------------------------------
// writers

func ptr[T any](v T) *T { return &v }

func blockID(i int) string {
	return base64.StdEncoding.EncodeToString([]byte(fmt.Sprintf("crash-%06d", i)))
}

// randomSize returns 1 B .. 300 KiB, skewed towards small sizes but with
// plenty of multi-value payloads.
func randomSize(r *rand.Rand) int {
	switch r.IntN(4) {
	case 0:
		return 1 + r.IntN(100)
	case 1:
		return 1 + r.IntN(10*1024)
	default:
		return 1 + r.IntN(300*1024)
	}
}

// write uploads data as name, either as one Put Blob or as staged blocks plus
// Put Block List, recording the attempt before and the acknowledgement after.
func write(ctx context.Context, cc *container.Client, h *history, name string, data []byte, multiBlock bool, seq *atomic.Int64) error {
	idx := h.attempt(name, data)
	bb := cc.NewBlockBlobClient(name)
	if !multiBlock || len(data) < 2 {
		if _, err := bb.Upload(ctx, streaming.NopCloser(bytes.NewReader(data)), nil); err != nil {
			return fmt.Errorf("Put Blob %q: %w", name, err)
		}
	} else {
		const chunk = 64 * 1024
		var ids []string
		for off, i := 0, 0; off < len(data); off, i = off+chunk, i+1 {
			end := min(off+chunk, len(data))
			id := blockID(int(seq.Add(1)))
			if _, err := bb.StageBlock(ctx, id, streaming.NopCloser(bytes.NewReader(data[off:end])), nil); err != nil {
				return fmt.Errorf("Put Block %q #%d: %w", name, i, err)
			}
			ids = append(ids, id)
		}
		if _, err := bb.CommitBlockList(ctx, ids, nil); err != nil {
			return fmt.Errorf("Put Block List %q: %w", name, err)
		}
	}
	h.ack(name, idx)
	return nil
}

// ---------------------------------------------------------------------------
// the test

func TestCrashRecovery(t *testing.T) {
	if testing.Short() {
		t.Skip("crash test builds and kills a real server; skipped with -short")
	}
	bin := buildServer(t)
	dataDir := t.TempDir()
	h := newHistory()
	var seq atomic.Int64

	// Phase 1: 200 blobs from 8 goroutines, SIGKILL right after the last ack.
	s1 := startServer(t, bin, dataDir, "1")
	ctx := context.Background()
	cc := s1.client().NewContainerClient(cntName)
	if _, err := cc.Create(ctx, nil); err != nil {
		t.Fatalf("Create Container: %v\n%s", err, s1.log())
	}
	const workers, perWorker = 8, 25
	var wg sync.WaitGroup
	errs := make(chan error, workers)
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			r := rand.New(rand.NewPCG(uint64(w), 1))
			for i := 0; i < perWorker; i++ {
				name := fmt.Sprintf("p1/w%d/blob-%03d", w, i)
				data := make([]byte, randomSize(r))
				fillRand(r, data)
				if err := write(ctx, cc, h, name, data, r.IntN(4) == 0, &seq); err != nil {
					errs <- err
					return
				}
				// Worker 0 also writes one blob larger than a store
				// transaction (kv.MaxTxnSize is 10 MB).
				if w == 0 && i == perWorker/2 {
					data := make([]byte, 11<<20)
					fillRand(r, data)
					if err := write(ctx, cc, h, "p1/large", data, false, &seq); err != nil {
						errs <- err
						return
					}
				}
				// Sometimes overwrite an earlier blob of this worker.
				if i > 0 && r.IntN(6) == 0 {
					j := r.IntN(i)
					data := make([]byte, randomSize(r))
					fillRand(r, data)
					if err := write(ctx, cc, h, fmt.Sprintf("p1/w%d/blob-%03d", w, j), data, r.IntN(3) == 0, &seq); err != nil {
						errs <- err
						return
					}
				}
			}
		}(w)
	}
	wg.Wait()
	s1.kill() // immediately after the last acknowledgement
	close(errs)
	for err := range errs {
		t.Errorf("phase 1 write failed while the server was up: %v", err)
	}
	if t.Failed() {
		t.Fatalf("server log:\n%s", s1.log())
	}
	names, attempts, acks := h.counts()
	t.Logf("phase 1: %d names, %d uploads, %d acknowledged, then SIGKILL", names, attempts, acks)

	s2 := startServer(t, bin, dataDir, "2")
	h.verify(t, s2, "after SIGKILL following the last acknowledgement")
	s2.alive("after phase 1 verification")
	if t.Failed() {
		t.FailNow()
	}

	// Phase 2: an upload storm, SIGKILL while writes are in flight.
	cc2 := s2.client().NewContainerClient(cntName)
	var stop atomic.Bool
	var inflight, phase2Acks atomic.Int64
	var failures atomic.Int64
	for w := 0; w < workers; w++ {
		wg.Add(1)
		go func(w int) {
			defer wg.Done()
			r := rand.New(rand.NewPCG(uint64(w), 2))
			for i := 0; !stop.Load() && i < 100000; i++ {
				var name string
				if r.IntN(3) == 0 {
					name = fmt.Sprintf("p1/w%d/blob-%03d", w, r.IntN(perWorker)) // overwrite
				} else {
					name = fmt.Sprintf("p2/w%d/blob-%05d", w, i)
				}
				data := make([]byte, randomSize(r))
				fillRand(r, data)
				inflight.Add(1)
				err := write(ctx, cc2, h, name, data, r.IntN(4) == 0, &seq)
				inflight.Add(-1)
				if err != nil {
					failures.Add(1)
					return // the server is gone (or broken); stop this writer
				}
				phase2Acks.Add(1)
			}
		}(w)
	}
	// One more writer keeps overwriting large (multi-transaction) blobs.
	var largeAcks atomic.Int64
	wg.Add(1)
	go func() {
		defer wg.Done()
		r := rand.New(rand.NewPCG(99, 2))
		for i := 0; !stop.Load(); i++ {
			name := "p1/large"
			if i%2 == 1 {
				name = "p2/large"
			}
			data := make([]byte, 10<<20+r.IntN(2<<20))
			fillRand(r, data)
			inflight.Add(1)
			err := write(ctx, cc2, h, name, data, false, &seq)
			inflight.Add(-1)
			if err != nil {
				failures.Add(1)
				return
			}
			largeAcks.Add(1)
		}
	}()
	deadline := time.Now().Add(20 * time.Second)
	for (phase2Acks.Load() < 150 || largeAcks.Load() < 2) && time.Now().Before(deadline) && failures.Load() == 0 {
		time.Sleep(5 * time.Millisecond)
	}
	if failures.Load() != 0 {
		stop.Store(true)
		wg.Wait()
		t.Fatalf("phase 2 writes failed before the kill\n%s", s2.log())
	}
	inFlightAtKill := inflight.Load()
	s2.kill()
	stop.Store(true)
	wg.Wait()
	names, attempts, acks = h.counts()
	t.Logf("phase 2: SIGKILL with %d uploads in flight after %d small and %d large phase-2 acks; totals %d names, %d uploads, %d acknowledged",
		inFlightAtKill, phase2Acks.Load(), largeAcks.Load(), names, attempts, acks)
	if inFlightAtKill == 0 {
		t.Logf("warning: no upload was in flight at the moment of the kill")
	}

	s3 := startServer(t, bin, dataDir, "3")
	h.verify(t, s3, "after SIGKILL during an upload storm")
	s3.alive("after phase 2 verification")

	// Phase 3: the recovered store keeps working and survives another kill.
	cc3 := s3.client().NewContainerClient(cntName)
	data := bytes.Repeat([]byte("after recovery "), 1000)
	if err := write(ctx, cc3, h, "p3/after-recovery", data, true, &seq); err != nil {
		t.Fatalf("write after recovery: %v\n%s", err, s3.log())
	}
	s3.kill()
	s4 := startServer(t, bin, dataDir, "4")
	h.verify(t, s4, "after a third SIGKILL")
	if t.Failed() {
		t.Fatalf("last server log:\n%s", s4.log())
	}

	// Phase 4: no orphaned bytes. Writes killed half-way (including
	// multi-transaction Put Blobs) must not leave data the blobs and their
	// legitimately pending uncommitted blocks do not account for.
	committed, uncommitted := h.accountedBytes(t, s4)
	s4.kill()
	env := servertest.Start(t, servertest.WithDataDir(dataDir))
	var keys int
	var total int64
	err := env.Store.View(ctx, func(r kv.Reader) error {
		return r.Scan(nil, nil, func(k, v []byte) error {
			keys++
			total += int64(len(k) + len(v))
			return nil
		})
	})
	if err != nil {
		t.Fatalf("scanning the recovered store: %v", err)
	}
	names, _, _ = h.counts()
	allowance := int64(1<<20) + int64(names)*4096
	t.Logf("recovered store: %d keys, %d bytes; blobs hold %d bytes, pending uncommitted blocks %d bytes",
		keys, total, committed, uncommitted)
	if total > committed+uncommitted+allowance {
		t.Errorf("recovered store holds %d bytes but the blobs (%d) and their uncommitted blocks (%d) account for only %d (+%d allowance): %d orphaned bytes",
			total, committed, uncommitted, committed+uncommitted, allowance, total-committed-uncommitted)
	}
}

// accountedBytes sums the committed size of every blob and the size of every
// uncommitted block the server reports for the names ever written.
func (h *history) accountedBytes(t *testing.T, s *server) (committed, uncommitted int64) {
	t.Helper()
	ctx := context.Background()
	cc := s.client().NewContainerClient(cntName)
	h.mu.Lock()
	defer h.mu.Unlock()
	for name := range h.ops {
		bl, err := cc.NewBlockBlobClient(name).GetBlockList(ctx, blockblob.BlockListTypeAll, nil)
		if err != nil {
			var re *azcore.ResponseError
			if errors.As(err, &re) && re.StatusCode == 404 {
				continue
			}
			t.Fatalf("Get Block List %q: %v", name, err)
		}
		for _, b := range bl.UncommittedBlocks {
			uncommitted += *b.Size
		}
		p, err := cc.NewBlobClient(name).GetProperties(ctx, nil)
		if err != nil {
			var re *azcore.ResponseError
			if errors.As(err, &re) && re.StatusCode == 404 {
				continue
			}
			t.Fatalf("Get Blob Properties %q: %v", name, err)
		}
		committed += *p.ContentLength
	}
	return committed, uncommitted
}

func fillRand(r *rand.Rand, b []byte) {
	for i := 0; i < len(b); i += 8 {
		v := r.Uint64()
		for j := 0; j < 8 && i+j < len(b); j++ {
			b[i+j] = byte(v >> (8 * j))
		}
	}
}
