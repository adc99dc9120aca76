package servertest

import (
	"fmt"
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

	"github.com/cerulean-db/cerulean/internal/azauth"
	"github.com/cerulean-db/cerulean/internal/cosmos"
)

var (
	buildOnce sync.Once
	builtBin  string
	buildErr  error
)

// BuildBinary compiles ./cmd/cerulean once per test process.
func BuildBinary(t testing.TB) string {
	t.Helper()
	buildOnce.Do(func() {
		out, err := exec.Command("go", "env", "GOMOD").Output()
		if err != nil {
			buildErr = fmt.Errorf("go env GOMOD: %w", err)
			return
		}
		removeStaleBinaries()
		dir, err := os.MkdirTemp("", fmt.Sprintf("%s%d-", binDirPrefix, os.Getpid()))
		if err != nil {
			buildErr = err
			return
		}
		builtBin = filepath.Join(dir, "cerulean")
		cmd := exec.Command("go", "build", "-o", builtBin, "./cmd/cerulean")
		cmd.Dir = filepath.Dir(strings.TrimSpace(string(out)))
		if b, err := cmd.CombinedOutput(); err != nil {
			buildErr = fmt.Errorf("go build ./cmd/cerulean: %w\n%s", err, b)
		}
	})
	if buildErr != nil {
		t.Fatal(buildErr)
	}
	return builtBin
}

// binDirPrefix starts the name of the directory each test process builds
// the binary into, followed by the process's pid.
const binDirPrefix = "cerulean-bin-"

// removeStaleBinaries removes the binaries earlier test processes built
// (about 70 MB each, one per test package every run): those whose process
// has ended, and those named before the pid was part of the name once
// they are an hour old. A test process has no hook at its exit to remove
// its own.
func removeStaleBinaries() {
	dirs, _ := filepath.Glob(filepath.Join(os.TempDir(), binDirPrefix+"*"))
	for _, dir := range dirs {
		rest := strings.TrimPrefix(filepath.Base(dir), binDirPrefix)
		pidText, _, named := strings.Cut(rest, "-")
		pid, err := strconv.Atoi(pidText)
		switch {
		case named && err == nil && pid > 0:
			if syscall.Kill(pid, 0) != syscall.ESRCH {
				continue // still running (or not ours to ask)
			}
		default:
			info, err := os.Stat(dir)
			if err != nil || time.Since(info.ModTime()) < time.Hour {
				continue
			}
		}
		_ = os.RemoveAll(dir)
	}
}

// Process is the built binary running on free loopback ports.
type Process struct {
	ConnectionString string
	BlobPort         int
	QueuePort        int
	TablePort        int
	FilePort         int
	// CosmosURL is the Cosmos DB gateway (plain HTTP), CosmosKey its key.
	CosmosURL, CosmosKey string
	cosmosPort           int
	// SearchPort is the Azure AI Search service's port (plain HTTP).
	SearchPort int

	cmd  *exec.Cmd
	done chan struct{}
	log  string
}

func freePort(t testing.TB) int {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatalf("free port: %v", err)
	}
	port := l.Addr().(*net.TCPAddr).Port
	if err := l.Close(); err != nil {
		t.Fatalf("free port: %v", err)
	}
	return port
}

// StartProcess runs bin on dataDir, with extra serve flags appended, and
// waits until every service accepts connections. It is killed at cleanup
// if still running. The ports are picked free but released before the
// server binds them, so another process may take one in between: a start
// that fails only because a port was taken is tried again on new ports.
func StartProcess(t testing.TB, bin, dataDir string, extra ...string) *Process {
	t.Helper()
	for attempt := 1; ; attempt++ {
		p, portTaken := startProcess(t, bin, dataDir, extra)
		if !portTaken {
			return p
		}
		if attempt == 5 {
			t.Fatalf("server could not bind its ports in %d attempts:\n%s", attempt, p.Log())
		}
	}
}

// startProcess is one attempt of StartProcess; portTaken reports a server
// that exited because one of its ports was in use.
func startProcess(t testing.TB, bin, dataDir string, extra []string) (p *Process, portTaken bool) {
	t.Helper()
	p = &Process{BlobPort: freePort(t), QueuePort: freePort(t), TablePort: freePort(t), FilePort: freePort(t), cosmosPort: freePort(t), SearchPort: freePort(t), done: make(chan struct{})}
	logf, err := os.CreateTemp("", "cerulean-log-")
	if err != nil {
		t.Fatal(err)
	}
	p.log = logf.Name()
	// Registered before Kill's cleanup, so it runs after it: the log is
	// read back until the process is gone, and not needed after the test.
	t.Cleanup(func() { _ = os.Remove(p.log) })
	p.cmd = exec.Command(bin, "serve", "--host", "127.0.0.1", "--data", dataDir, "--log-level", "warn",
		"--blob-port", strconv.Itoa(p.BlobPort), "--queue-port", strconv.Itoa(p.QueuePort), "--table-port", strconv.Itoa(p.TablePort),
		"--file-port", strconv.Itoa(p.FilePort),
		"--cosmos-port", strconv.Itoa(p.cosmosPort), "--cosmos-http", "--search-port", strconv.Itoa(p.SearchPort), "--admin-port", "0")
	p.cmd.Args = append(p.cmd.Args, extra...)
	p.cmd.Stdout, p.cmd.Stderr = logf, logf
	if err := p.cmd.Start(); err != nil {
		t.Fatalf("start %s: %v", bin, err)
	}
	go func() {
		// A killed server exits with an error by design, and its log is
		// read back by name: neither error has anyone to go to.
		_ = p.cmd.Wait()
		_ = logf.Close()
		close(p.done)
	}()
	t.Cleanup(p.Kill)
	for _, port := range []int{p.BlobPort, p.QueuePort, p.TablePort, p.FilePort, p.cosmosPort, p.SearchPort} {
		deadline := time.Now().Add(60 * time.Second)
		for {
			if c, err := net.DialTimeout("tcp", "127.0.0.1:"+strconv.Itoa(port), 200*time.Millisecond); err == nil {
				_ = c.Close() // a probe: nothing was sent, so nothing can be lost
				break
			}
			select {
			case <-p.done:
				if strings.Contains(p.Log(), "address already in use") {
					return p, true
				}
				t.Fatalf("server exited while starting:\n%s", p.Log())
			default:
			}
			if time.Now().After(deadline) {
				t.Fatalf("port %d not open within 60s:\n%s", port, p.Log())
			}
			time.Sleep(20 * time.Millisecond)
		}
	}
	ep := func(port int) string { return fmt.Sprintf("http://127.0.0.1:%d/%s", port, azauth.DevAccount) }
	p.ConnectionString = fmt.Sprintf("DefaultEndpointsProtocol=http;AccountName=%s;AccountKey=%s;BlobEndpoint=%s;QueueEndpoint=%s;TableEndpoint=%s;FileEndpoint=%s;",
		azauth.DevAccount, azauth.DevKey, ep(p.BlobPort), ep(p.QueuePort), ep(p.TablePort), ep(p.FilePort))
	p.CosmosURL = fmt.Sprintf("http://127.0.0.1:%d/", p.cosmosPort)
	p.CosmosKey = cosmos.EmulatorKey
	return p, false
}

// Kill sends SIGKILL and waits for the process to be gone.
func (p *Process) Kill() {
	select {
	case <-p.done:
		return
	default:
	}
	_ = p.cmd.Process.Signal(syscall.SIGKILL)
	<-p.done
}

// Exited reports whether the process has ended.
func (p *Process) Exited() bool {
	select {
	case <-p.done:
		return true
	default:
		return false
	}
}

// Log returns the tail of the process's output.
func (p *Process) Log() string {
	b, _ := os.ReadFile(p.log)
	if len(b) > 8000 {
		b = b[len(b)-8000:]
	}
	return string(b)
}
