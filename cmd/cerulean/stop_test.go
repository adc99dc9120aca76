package main

import (
	"errors"
	"net/http"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"
)

// syncBuffer is a log destination the test reads while serve writes it.
type syncBuffer struct {
	mu sync.Mutex
	b  strings.Builder
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.b.String()
}

// waitFor waits until the log matches re and returns the first match's
// groups.
func (b *syncBuffer) waitFor(t *testing.T, re *regexp.Regexp) []string {
	t.Helper()
	for deadline := time.Now().Add(20 * time.Second); time.Now().Before(deadline); time.Sleep(10 * time.Millisecond) {
		if m := re.FindStringSubmatch(b.String()); m != nil {
			return m
		}
	}
	t.Fatalf("log never matched %s:\n%s", re, b.String())
	return nil
}

// inMemoryOnFreePorts are serve's flags for a server on free ports, in memory.
var inMemoryOnFreePorts = []string{"--in-memory", "--blob-port", "0", "--queue-port", "0", "--table-port", "0", "--file-port", "0",
	"--smb-port", "0", "--cosmos-port", "0", "--search-port", "0", "--admin-port", "0"}

// serving runs serve with extra flags until it returns; the returned
// channel delivers serve's error.
func serving(t *testing.T, log *syncBuffer, sigs chan os.Signal, extra ...string) <-chan error {
	t.Helper()
	// --in-memory keeps its certificate in the user's cache directory.
	t.Setenv("XDG_CACHE_HOME", t.TempDir())
	done := make(chan error, 1)
	go func() {
		done <- serveUntil(append(append([]string{}, inMemoryOnFreePorts...), extra...), envOf(nil), log, sigs)
	}()
	log.waitFor(t, regexp.MustCompile(`msg="cerulean started"`))
	return done
}

var blobAddrLine = regexp.MustCompile(`service=blob addr=(\S+)`)

// slowRequest sends a request the server holds for a minute.
func slowRequest(t *testing.T, log *syncBuffer) {
	t.Helper()
	addr := log.waitFor(t, blobAddrLine)[1]
	go func() {
		resp, err := http.Get("http://" + addr + "/devstoreaccount1?comp=list")
		if err == nil {
			_ = resp.Body.Close()
		}
	}()
	log.waitFor(t, regexp.MustCompile(`msg="injected fault"`))
}

// TestStopSaysWhatItWaitsFor: the first signal says how many requests the
// stop waits for and how long, and an idle server's last line is
// "stopped".
func TestStopSaysWhatItWaitsFor(t *testing.T) {
	var log syncBuffer
	sigs := make(chan os.Signal, 2)
	done := serving(t, &log, sigs)
	sigs <- os.Interrupt
	if err := <-done; err != nil {
		t.Fatalf("stop: %v", err)
	}
	out := log.String()
	if !strings.Contains(out, "requests=0 up_to=30s") || !strings.Contains(out, "Ctrl-C again") {
		t.Errorf("stopping line does not say what it waits for:\n%s", out)
	}
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if last := lines[len(lines)-1]; !strings.Contains(last, "msg=stopped") {
		t.Errorf("last line %q, want stopped", last)
	}
}

// TestStopTimeoutSaysStopped: requests still running at the deadline end
// the stop with "stopped" and how many were cut off, not a bare
// "context deadline exceeded".
func TestStopTimeoutSaysStopped(t *testing.T) {
	defer func(d time.Duration) { shutdownTimeout = d }(shutdownTimeout)
	shutdownTimeout = 300 * time.Millisecond
	var log syncBuffer
	sigs := make(chan os.Signal, 2)
	done := serving(t, &log, sigs, "--faults", "blob=latency:1m@100%")
	slowRequest(t, &log)
	sigs <- os.Interrupt
	err := <-done
	if err == nil || !strings.HasPrefix(err.Error(), "stopped after 300ms: the requests still running then were cut off") ||
		strings.Contains(err.Error(), "deadline exceeded") {
		t.Errorf("stop with a request running: %v", err)
	}
	if !strings.Contains(log.String(), "requests=1 up_to=300ms") {
		t.Errorf("stopping line does not count the request:\n%s", log.String())
	}
}

// TestSecondSignalStopsAtOnce: a second signal does not wait for the
// requests still running.
func TestSecondSignalStopsAtOnce(t *testing.T) {
	var log syncBuffer
	sigs := make(chan os.Signal, 2)
	done := serving(t, &log, sigs, "--faults", "blob=latency:1m@100%")
	slowRequest(t, &log)
	sigs <- os.Interrupt
	log.waitFor(t, regexp.MustCompile(`requests=1`))
	sigs <- os.Interrupt
	select {
	case err := <-done:
		if !errors.Is(err, errStoppedAtOnce) {
			t.Errorf("second signal: %v, want %v", err, errStoppedAtOnce)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("a second signal did not stop at once")
	}
}

// TestDataDirLoggedAbsolute: the start-up line names the data directory
// as an absolute path, whatever directory the shell was in.
func TestDataDirLoggedAbsolute(t *testing.T) {
	dir := t.TempDir()
	t.Chdir(dir)
	var log syncBuffer
	sigs := make(chan os.Signal, 2)
	done := serving(t, &log, sigs, "--in-memory=false", "--data", "rel-data")
	sigs <- os.Interrupt
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	if want := "store=" + filepath.Join(dir, "rel-data") + " "; !strings.Contains(log.String(), want) {
		t.Errorf("start-up log lacks %q:\n%s", want, log.String())
	}
}
