package server_test

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/cerulean-db/cerulean/internal/server"
)

func startOn(t *testing.T, dir string) (*server.Server, error) {
	t.Helper()
	return server.Start(context.Background(), server.Config{Host: "127.0.0.1", DataDir: dir, AdminDisabled: true,
		Logger: slog.New(slog.NewTextHandler(io.Discard, nil))})
}

// TestSecondServerOnDataDir: a second server on a directory another one
// serves is refused with who holds it and what to do instead, not the
// store's "resource temporarily unavailable"; once the first stops, the
// directory is free again.
func TestSecondServerOnDataDir(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "data")
	first, err := startOn(t, dir)
	if err != nil {
		t.Fatal(err)
	}
	_, err = startOn(t, dir)
	if !errors.Is(err, server.ErrDataDirInUse) {
		if serr := first.Shutdown(context.Background()); serr != nil {
			t.Error(serr)
		}
		t.Fatalf("second server on the same directory: %v, want ErrDataDirInUse", err)
	}
	for _, want := range []string{dir, "another cerulean (pid " + strconv.Itoa(os.Getpid()) + ")", "--data", "--store postgres://"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error %q does not say %q", err, want)
		}
	}
	if strings.Contains(err.Error(), "temporarily unavailable") {
		t.Errorf("error %q is the store's bare lock error", err)
	}
	if err := first.Shutdown(context.Background()); err != nil {
		t.Fatal(err)
	}
	again, err := startOn(t, dir)
	if err != nil {
		t.Fatalf("directory still held after shutdown: %v", err)
	}
	if err := again.Shutdown(context.Background()); err != nil {
		t.Fatal(err)
	}
}

// TestDataDirHeldByStoreLock: a directory whose store another process
// holds without the pid file (an older release) is refused with the same
// advice, the pid unknown, not the store's bare lock error. The store
// locks with fcntl, which a process shares with itself, so a child
// process holds the lock.
func TestDataDirHeldByStoreLock(t *testing.T) {
	dir := t.TempDir()
	child := exec.Command(os.Args[0], "-test.run=^TestHoldStoreLock$")
	child.Env = append(os.Environ(), "CERULEAN_TEST_HOLD_LOCK="+dir)
	out, err := child.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := child.Start(); err != nil {
		t.Fatal(err)
	}
	defer func() { _ = child.Process.Kill(); _ = child.Wait() }()
	if _, err := bufio.NewReader(out).ReadString('\n'); err != nil { // "locked"
		t.Fatal(err)
	}
	srv, err := startOn(t, dir)
	if err == nil {
		_ = srv.Shutdown(context.Background())
		t.Fatal("started on a directory whose store another process holds")
	}
	if !errors.Is(err, server.ErrDataDirInUse) || !strings.Contains(err.Error(), "another cerulean;") || !strings.Contains(err.Error(), "--data") {
		t.Errorf("store-held directory: %v, want ErrDataDirInUse without a pid", err)
	}
}

// TestHoldStoreLock is TestDataDirHeldByStoreLock's child: it holds the
// store's lock file as the store does until killed.
func TestHoldStoreLock(t *testing.T) {
	dir := os.Getenv("CERULEAN_TEST_HOLD_LOCK")
	if dir == "" {
		t.Skip("run by TestDataDirHeldByStoreLock")
	}
	f, err := os.OpenFile(filepath.Join(dir, "LOCK"), os.O_RDWR|os.O_CREATE, 0o644)
	if err != nil {
		t.Fatal(err)
	}
	lk := syscall.Flock_t{Type: syscall.F_WRLCK}
	if err := syscall.FcntlFlock(f.Fd(), syscall.F_SETLK, &lk); err != nil {
		t.Fatal(err)
	}
	fmt.Println("locked")
	select {}
}
