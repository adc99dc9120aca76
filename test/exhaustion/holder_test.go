package exhaustion_test

import (
	"bufio"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"
)

// holderEnv, set in a child process, makes this test binary hold idle
// connections instead of running tests: the value is the number to hold,
// holderAddrsEnv the comma-separated host:ports to spread them over.
const (
	holderEnv      = "CERULEAN_EXHAUSTION_HOLD"
	holderAddrsEnv = "CERULEAN_EXHAUSTION_ADDRS"
)

func TestMain(m *testing.M) {
	if n := os.Getenv(holderEnv); n != "" {
		count, err := strconv.Atoi(n)
		if err != nil {
			fmt.Fprintln(os.Stderr, "bad", holderEnv, err)
			os.Exit(2)
		}
		holdConnections(count, strings.Split(os.Getenv(holderAddrsEnv), ","), os.Stdout)
		os.Exit(0)
	}
	os.Exit(m.Run())
}

// holdConnections opens count connections over addrs and keeps them open
// until the process is killed: every other one sends one request and then
// idles as a keep-alive connection, the rest never send a byte. A
// connection the server closes (its header or idle timeout) is opened
// again. Every 200 ms it prints "held N redialed M".
func holdConnections(count int, addrs []string, out io.Writer) {
	if err := raiseFileLimit(count + 200); err != nil {
		_, _ = fmt.Fprintln(out, "error", err) // the parent reports it, if it is still there
		return
	}
	var held, redialed atomic.Int64
	hold := func(i int) {
		addr := addrs[i%len(addrs)]
		for first := true; ; first = false {
			if !first {
				redialed.Add(1)
				time.Sleep(100 * time.Millisecond)
			}
			c, err := net.DialTimeout("tcp", addr, 10*time.Second)
			if err != nil {
				continue
			}
			if i%2 == 0 {
				// One request (any answer will do), then idle keep-alive.
				if _, err := fmt.Fprintf(c, "GET / HTTP/1.1\r\nHost: %s\r\n\r\n", addr); err != nil {
					_ = c.Close()
					continue
				}
				resp, err := http.ReadResponse(bufio.NewReader(c), nil)
				if err != nil {
					_ = c.Close()
					continue
				}
				_, _ = io.Copy(io.Discard, resp.Body)
				_ = resp.Body.Close()
			}
			held.Add(1)
			_, _ = io.Copy(io.Discard, c) // until the server closes it
			held.Add(-1)
			_ = c.Close()
		}
	}
	for i := range count {
		go hold(i)
		if i%200 == 199 {
			time.Sleep(20 * time.Millisecond) // stay within the listen backlogs
		}
	}
	for {
		if _, err := fmt.Fprintf(out, "held %d redialed %d\n", held.Load(), redialed.Load()); err != nil {
			return // the test that started this process is gone
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// holder is the child process holding idle connections.
type holder struct {
	cmd              *exec.Cmd
	mu               sync.Mutex
	held, redialed   int
	minHeld, maxHeld int
	reachedAll       chan struct{}
	err              string
}

// startHolder runs this test binary as a holder of count connections.
func startHolder(t *testing.T, count int, addrs []string) *holder {
	t.Helper()
	cmd := exec.Command(os.Args[0], "-test.run=^$")
	cmd.Env = append(os.Environ(), holderEnv+"="+strconv.Itoa(count), holderAddrsEnv+"="+strings.Join(addrs, ","))
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	h := &holder{cmd: cmd, reachedAll: make(chan struct{}), minHeld: -1}
	t.Cleanup(func() {
		_ = cmd.Process.Kill()
		_ = cmd.Wait()
	})
	go func() {
		sc := bufio.NewScanner(stdout)
		reached := false
		for sc.Scan() {
			var held, redialed int
			if _, err := fmt.Sscanf(sc.Text(), "held %d redialed %d", &held, &redialed); err != nil {
				h.mu.Lock()
				h.err = sc.Text()
				h.mu.Unlock()
				continue
			}
			h.mu.Lock()
			h.held, h.redialed = held, redialed
			if reached {
				h.minHeld = min(h.minHeld, held)
			}
			h.maxHeld = max(h.maxHeld, held)
			h.mu.Unlock()
			if !reached && held >= count {
				reached = true
				h.mu.Lock()
				h.minHeld = held
				h.mu.Unlock()
				close(h.reachedAll)
			}
		}
	}()
	return h
}

// stats are the holder's latest figures: connections held now, the
// fewest held since all were first open, the most, and redials.
func (h *holder) stats() (held, minHeld, maxHeld, redialed int, errLine string) {
	h.mu.Lock()
	defer h.mu.Unlock()
	return h.held, h.minHeld, h.maxHeld, h.redialed, h.err
}

// raiseFileLimit raises the soft open-file limit to at least n, within
// the hard limit.
func raiseFileLimit(n int) error {
	var lim syscall.Rlimit
	if err := syscall.Getrlimit(syscall.RLIMIT_NOFILE, &lim); err != nil {
		return err
	}
	if lim.Cur >= uint64(n) {
		return nil
	}
	if lim.Max < uint64(n) {
		return fmt.Errorf("the open-file limit is %d (hard), below the %d needed", lim.Max, n)
	}
	lim.Cur = uint64(n)
	return syscall.Setrlimit(syscall.RLIMIT_NOFILE, &lim)
}
