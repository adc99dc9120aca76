package server

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
)

// dataDirLockName is the file in the data directory that the process
// serving it holds locked and writes its pid to: the store's own lock
// only says "resource temporarily unavailable", which tells a second
// server neither who holds the directory nor what to do instead.
const dataDirLockName = "cerulean.pid"

// ErrDataDirInUse is returned by Start when another process serves the
// same data directory.
var ErrDataDirInUse = errors.New("data directory in use")

// dataDirLock is the held lock on a data directory; the kernel releases
// it when the process ends, however it ends.
type dataDirLock struct{ f *os.File }

// lockDataDir takes dir's lock file, creating dir as the store would.
func lockDataDir(dir string) (*dataDirLock, error) {
	// A directory where the file cannot be made (a full or read-only
	// volume) goes without it: the store opens it or says why not, and
	// its own lock still keeps a second server out.
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, nil
	}
	path := filepath.Join(dir, dataDirLockName)
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		return nil, nil
	}
	if err := syscall.Flock(int(f.Fd()), syscall.LOCK_EX|syscall.LOCK_NB); err != nil {
		pid := readPid(f)
		_ = f.Close()
		if errors.Is(err, syscall.EWOULDBLOCK) {
			return nil, dataDirInUse(dir, pid)
		}
		return nil, fmt.Errorf("lock data directory %s: %w", dir, err)
	}
	if err := f.Truncate(0); err == nil {
		_, _ = f.WriteAt([]byte(strconv.Itoa(os.Getpid())+"\n"), 0)
	}
	return &dataDirLock{f: f}, nil
}

// readPid is the pid a lock file holds, 0 when it holds none.
func readPid(f *os.File) int {
	b := make([]byte, 32)
	n, _ := f.ReadAt(b, 0)
	pid, err := strconv.Atoi(strings.TrimSpace(string(b[:n])))
	if err != nil || pid <= 0 {
		return 0
	}
	return pid
}

// dataDirInUse says who holds dir (pid 0: not known) and what to do.
func dataDirInUse(dir string, pid int) error {
	if abs, err := filepath.Abs(dir); err == nil {
		dir = abs
	}
	who := "another cerulean"
	if pid > 0 {
		who += " (pid " + strconv.Itoa(pid) + ")"
	}
	return fmt.Errorf("%w: %s is used by %s; stop it, give this one its own directory with --data, "+
		"or let several servers share one PostgreSQL store with --store postgres://user@host:port/database",
		ErrDataDirInUse, dir, who)
}

// release gives the directory back; nil-safe and idempotent.
func (l *dataDirLock) release() {
	if l == nil || l.f == nil {
		return
	}
	_ = l.f.Close() // closing drops the flock
	l.f = nil
}
