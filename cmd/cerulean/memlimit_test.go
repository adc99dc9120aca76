package main

import (
	"bytes"
	"io/fs"
	"log/slog"
	"math"
	"runtime/debug"
	"strconv"
	"strings"
	"testing"
	"testing/fstest"

	"github.com/cerulean-db/cerulean/internal/kv/pebble"
)

func TestCgroupMemoryLimit(t *testing.T) {
	file := func(s string) *fstest.MapFile { return &fstest.MapFile{Data: []byte(s)} }
	for _, tc := range []struct {
		name  string
		fs    fstest.MapFS
		want  int64
		found bool
	}{
		{"v2 in a container's own namespace", fstest.MapFS{
			"proc/self/cgroup":         file("0::/\n"),
			"sys/fs/cgroup/memory.max": file("536870912\n"),
		}, 512 << 20, true},
		{"v2 without a limit", fstest.MapFS{
			"proc/self/cgroup":         file("0::/\n"),
			"sys/fs/cgroup/memory.max": file("max\n"),
		}, 0, false},
		// A nested group: its own limit and a parent's lower one; the
		// lower holds.
		{"v2 nested under a lower parent", fstest.MapFS{
			"proc/self/cgroup": file("0::/system.slice/app.service\n"),
			"sys/fs/cgroup/system.slice/app.service/memory.max": file("1073741824\n"),
			"sys/fs/cgroup/system.slice/memory.max":             file("805306368\n"),
		}, 768 << 20, true},
		// v1 with the memory controller among others, and a path that
		// names the group on the host while the container sees it as the
		// mount's root.
		{"v1 seen from inside a container", fstest.MapFS{
			"proc/self/cgroup":                           file("12:pids:/docker/abc\n4:memory:/docker/abc\n3:cpu,cpuacct:/docker/abc\n1:name=systemd:/docker/abc\n"),
			"sys/fs/cgroup/memory/memory.limit_in_bytes": file("268435456\n"),
		}, 256 << 20, true},
		{"v1 without a limit", fstest.MapFS{
			"proc/self/cgroup":                           file("4:memory:/process_api/x\n0::/\n"),
			"sys/fs/cgroup/memory/memory.limit_in_bytes": file("9223372036854771712\n"),
		}, 0, false},
		{"no cgroup files", fstest.MapFS{}, 0, false},
		{"unreadable limit", fstest.MapFS{
			"proc/self/cgroup":         file("0::/\n"),
			"sys/fs/cgroup/memory.max": file("lots\n"),
		}, 0, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, found := cgroupMemoryLimit(tc.fs)
			if found != tc.found || found && got != tc.want {
				t.Fatalf("cgroupMemoryLimit = %d, %v; want %d, %v", got, found, tc.want, tc.found)
			}
		})
	}
}

func TestGoMemoryLimit(t *testing.T) {
	const manual = 76 << 20
	for _, tc := range []struct{ limit, want int64 }{
		// A gibibyte leaves 948 MiB beside the store's own memory; Go gets
		// nine tenths of that.
		{1 << 30, (1<<30 - manual) / 10 * 9},
		// A small container: a quarter of it, not what little the store
		// leaves.
		{96 << 20, 24 << 20},
	} {
		if got := goMemoryLimit(tc.limit, manual); got != tc.want {
			t.Errorf("goMemoryLimit(%d) = %d, want %d", tc.limit, got, tc.want)
		}
	}
}

// TestLimitMemory: serve's start sets Go's memory limit from the
// container's, logging both, and leaves it alone when GOMEMLIMIT is set.
func TestLimitMemory(t *testing.T) {
	was := debug.SetMemoryLimit(-1)
	t.Cleanup(func() { debug.SetMemoryLimit(was) })
	defer func(old fs.FS) { rootFS = old }(rootFS)
	rootFS = fstest.MapFS{
		"proc/self/cgroup":         {Data: []byte("0::/\n")},
		"sys/fs/cgroup/memory.max": {Data: []byte("1073741824\n")},
	}
	var logged bytes.Buffer
	logger := slog.New(slog.NewTextHandler(&logged, nil))

	debug.SetMemoryLimit(math.MaxInt64)
	limitMemory(func(name string) string {
		if name == "GOMEMLIMIT" {
			return "300MiB"
		}
		return ""
	}, logger)
	if got := debug.SetMemoryLimit(-1); got != math.MaxInt64 || logged.Len() != 0 {
		t.Fatalf("with GOMEMLIMIT set the limit became %d, logging %q", got, logged.String())
	}

	limitMemory(func(string) string { return "" }, logger)
	want := goMemoryLimit(1<<30, pebble.ManualMemory)
	if got := debug.SetMemoryLimit(-1); got != want {
		t.Fatalf("Go's memory limit is %d, want %d", got, want)
	}
	if !strings.Contains(logged.String(), "container_bytes=1073741824") || !strings.Contains(logged.String(), "go_bytes="+strconv.FormatInt(want, 10)) {
		t.Fatalf("logged %q", logged.String())
	}
}
