package bench

import (
	"fmt"
	"os"
	"strconv"
	"strings"
	"time"
)

// clockTicksPerSecond is USER_HZ, the unit of utime and stime in
// /proc/<pid>/stat. The kernel fixes it at 100 on every architecture Go
// supports on Linux, whatever CONFIG_HZ is; reading it from sysconf would
// need cgo.
const clockTicksPerSecond = 100

// ProcessCPU returns the user+sys CPU time the process pid has used so
// far, from /proc/<pid>/stat (Linux only). Its resolution is one clock
// tick (10 ms), so a measured window should last seconds.
func ProcessCPU(pid int) (time.Duration, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", pid))
	if err != nil {
		return 0, fmt.Errorf("process cpu: %w", err)
	}
	ticks, err := parseStatCPUTicks(string(b))
	if err != nil {
		return 0, fmt.Errorf("process cpu of %d: %w", pid, err)
	}
	return ticksToDuration(ticks), nil
}

func ticksToDuration(ticks uint64) time.Duration {
	return time.Duration(ticks) * (time.Second / clockTicksPerSecond)
}

// parseStatCPUTicks returns utime+stime (fields 14 and 15) of a
// /proc/<pid>/stat line. The command name (field 2) is in parentheses and
// may itself hold spaces and parentheses, so fields are counted from the
// last ')'.
func parseStatCPUTicks(stat string) (uint64, error) {
	end := strings.LastIndexByte(stat, ')')
	if end < 0 {
		return 0, fmt.Errorf("stat line without a command name: %q", stat)
	}
	// After the name come field 3 (state) onwards: utime is field 14,
	// the 12th of these, and stime the 13th.
	rest := strings.Fields(stat[end+1:])
	const utimeIdx, stimeIdx = 14 - 3, 15 - 3
	if len(rest) <= stimeIdx {
		return 0, fmt.Errorf("stat line has %d fields after the command name, want more than %d", len(rest), stimeIdx)
	}
	utime, err := strconv.ParseUint(rest[utimeIdx], 10, 64)
	if err != nil {
		return 0, fmt.Errorf("utime: %w", err)
	}
	stime, err := strconv.ParseUint(rest[stimeIdx], 10, 64)
	if err != nil {
		return 0, fmt.Errorf("stime: %w", err)
	}
	return utime + stime, nil
}

// cpuPerOp is the CPU spent per operation in microseconds; 0 without
// operations.
func cpuPerOp(cpu time.Duration, ops int64) float64 {
	if ops <= 0 {
		return 0
	}
	return float64(cpu.Microseconds()) / float64(ops)
}
