package testkit

import (
	"fmt"
	"strings"
	"sync"
	"testing"
)

// Recorder is a test whose errors and logs are recorded instead of
// reported, and whose cleanups wait for RunCleanups: a test hands it to a
// helper to watch the helper fail a test. It is safe for concurrent use.
type Recorder struct {
	testing.TB
	mu       sync.Mutex
	errs     []string
	logs     []string
	cleanups []func()
}

// Helper does nothing: the recorded lines need no caller.
func (r *Recorder) Helper() {}

// Errorf records an error.
func (r *Recorder) Errorf(format string, args ...any) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.errs = append(r.errs, fmt.Sprintf(format, args...))
}

// Logf records a log line.
func (r *Recorder) Logf(format string, args ...any) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.logs = append(r.logs, fmt.Sprintf(format, args...))
}

// Cleanup keeps f for RunCleanups.
func (r *Recorder) Cleanup(f func()) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.cleanups = append(r.cleanups, f)
}

// RunCleanups runs the kept cleanups, last first, as a test's end does.
func (r *Recorder) RunCleanups() {
	r.mu.Lock()
	fs := r.cleanups
	r.cleanups = nil
	r.mu.Unlock()
	for i := len(fs) - 1; i >= 0; i-- {
		fs[i]()
	}
}

// Errors are the errors recorded so far.
func (r *Recorder) Errors() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]string(nil), r.errs...)
}

// Logs are the log lines recorded so far.
func (r *Recorder) Logs() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]string(nil), r.logs...)
}

// ErrorText is the errors recorded so far, one a line.
func (r *Recorder) ErrorText() string { return strings.Join(r.Errors(), "\n") }
