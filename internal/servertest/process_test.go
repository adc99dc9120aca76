package servertest

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"
)

// Binaries of test processes that have ended are removed; this process's,
// and an unnamed one younger than an hour, stay.
func TestRemoveStaleBinaries(t *testing.T) {
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	ended := exec.Command("true")
	if err := ended.Run(); err != nil {
		t.Skip("no true command:", err)
	}
	dirs := map[string]bool{ // name: kept
		fmt.Sprintf("%s%d-1", binDirPrefix, ended.Process.Pid): false,
		fmt.Sprintf("%s%d-2", binDirPrefix, os.Getpid()):       true,
		binDirPrefix + "123456789":                             true,
		binDirPrefix + "987654321":                             false,
	}
	for name := range dirs {
		if err := os.Mkdir(filepath.Join(tmp, name), 0o755); err != nil {
			t.Fatal(err)
		}
	}
	old := time.Now().Add(-2 * time.Hour)
	if err := os.Chtimes(filepath.Join(tmp, binDirPrefix+"987654321"), old, old); err != nil {
		t.Fatal(err)
	}
	removeStaleBinaries()
	for name, kept := range dirs {
		_, err := os.Stat(filepath.Join(tmp, name))
		if (err == nil) != kept {
			t.Errorf("%s: kept %v, want %v", name, err == nil, kept)
		}
	}
}

// A process's log is readable while the test runs and removed with the
// test: every test process used to leave one file behind per start.
func TestProcessLogRemovedAtCleanup(t *testing.T) {
	if testing.Short() {
		t.Skip("builds and starts the server")
	}
	bin := BuildBinary(t)
	var log string
	t.Run("start", func(t *testing.T) {
		p := StartProcess(t, bin, t.TempDir())
		log = p.log
		if _, err := os.Stat(log); err != nil {
			t.Fatalf("log of a running server: %v", err)
		}
	})
	if _, err := os.Stat(log); !os.IsNotExist(err) {
		t.Errorf("log %s after the test: %v, want it removed", log, err)
	}
}
