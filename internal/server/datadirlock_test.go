package server_test

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strconv"
	"strings"
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
		first.Shutdown(context.Background())
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
