package main

import (
	"bufio"
	"bytes"
	"io/fs"
	"log/slog"
	"math"
	"os"
	"path"
	"runtime/debug"
	"strconv"
	"strings"

	"github.com/cerulean-db/cerulean/internal/kv/pebble"
)

// A container's memory limit is a cgroup's, which Go's garbage collector
// does not know: a heap left to grow to twice its live size under a burst
// of large uploads takes the process past the limit, and the kernel kills
// it. Unless GOMEMLIMIT says otherwise, the server sets Go's soft memory
// limit below the container's, leaving room for what the store allocates
// outside the Go heap, so that the collector works harder near the limit
// instead.

// rootFS is the file system the cgroup files are read from.
var rootFS = os.DirFS("/")

// limitMemory sets Go's memory limit from the container's, unless
// GOMEMLIMIT sets it.
func limitMemory(getenv func(string) string, logger *slog.Logger) {
	if getenv("GOMEMLIMIT") != "" {
		return
	}
	limit, ok := cgroupMemoryLimit(rootFS)
	if !ok {
		return
	}
	goLimit := goMemoryLimit(limit, pebble.ManualMemory)
	debug.SetMemoryLimit(goLimit)
	logger.Info("Go memory limit set below the container's", "container_bytes", limit, "go_bytes", goLimit)
}

// cgroupMemoryLimit returns the memory limit of the cgroup this process
// is in, read from fsys (the root file system): cgroup v2's memory.max or
// v1's memory.limit_in_bytes, the lowest found from the process's own
// group up to the hierarchy's root (a container sees its own group as
// the root, and a group's limit holds for its children). ok is false when
// no limit is set or none can be read.
func cgroupMemoryLimit(fsys fs.FS) (limit int64, ok bool) {
	self, err := fs.ReadFile(fsys, "proc/self/cgroup")
	if err != nil {
		return 0, false
	}
	limit = math.MaxInt64
	sc := bufio.NewScanner(bytes.NewReader(self))
	for sc.Scan() {
		// hierarchy-ID:controllers:path
		fields := strings.SplitN(sc.Text(), ":", 3)
		if len(fields) != 3 {
			continue
		}
		var mount, file string
		switch {
		case fields[0] == "0" && fields[1] == "":
			mount, file = "sys/fs/cgroup", "memory.max"
		case hasController(fields[1], "memory"):
			mount, file = "sys/fs/cgroup/memory", "memory.limit_in_bytes"
		default:
			continue
		}
		for dir := path.Clean("/" + fields[2]); ; dir = path.Dir(dir) {
			if v, found := readLimit(fsys, path.Join(mount, dir, file)); found && v < limit {
				limit = v
			}
			if dir == "/" {
				break
			}
		}
	}
	return limit, limit != math.MaxInt64
}

func hasController(list, name string) bool {
	for c := range strings.SplitSeq(list, ",") {
		if c == name {
			return true
		}
	}
	return false
}

// unlimitedV1 is the least of the values cgroup v1 reports for no limit
// (the largest page-aligned int64, which depends on the page size).
const unlimitedV1 = 1 << 62

// readLimit reads one limit file: a number of bytes, or "max" for none.
func readLimit(fsys fs.FS, name string) (int64, bool) {
	b, err := fs.ReadFile(fsys, name)
	if err != nil {
		return 0, false
	}
	s := strings.TrimSpace(string(b))
	if s == "max" {
		return 0, false
	}
	v, err := strconv.ParseInt(s, 10, 64)
	if err != nil || v <= 0 || v >= unlimitedV1 {
		return 0, false
	}
	return v, true
}

// goMemoryLimit is the Go heap's soft limit for a container limit of
// limit bytes when manual bytes are allocated outside the Go heap: nine
// tenths of what they leave, so that stacks, the runtime's own memory
// and the kernel's accounting of page cache fit, and at least a quarter
// of the container's limit, however small it is.
func goMemoryLimit(limit, manual int64) int64 {
	return max((limit-manual)/10*9, limit/4)
}
