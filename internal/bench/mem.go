package bench

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"net"
	"os"
	"strconv"
	"strings"
	"time"
)

// Memory is a process's resident set size, from /proc/<pid>/status.
type Memory struct {
	PeakRSS int64 // VmHWM, bytes: the highest RSS since the process started
	RSS     int64 // VmRSS, bytes: the RSS now
}

// ProcessMemory returns the peak and current RSS of the process pid, from
// /proc/<pid>/status (Linux only).
func ProcessMemory(pid int) (Memory, error) {
	b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", pid))
	if err != nil {
		return Memory{}, fmt.Errorf("process memory: %w", err)
	}
	m, err := parseStatusMemory(string(b))
	if err != nil {
		return Memory{}, fmt.Errorf("process memory of %d: %w", pid, err)
	}
	return m, nil
}

// parseStatusMemory reads the VmHWM and VmRSS lines ("VmRSS:   1234 kB")
// of a /proc/<pid>/status file. Both must be present: a kernel thread or a
// zombie has neither, and reporting 0 for them would read as a measurement.
func parseStatusMemory(status string) (Memory, error) {
	var m Memory
	var seenHWM, seenRSS bool
	sc := bufio.NewScanner(strings.NewReader(status))
	for sc.Scan() {
		key, val, ok := strings.Cut(sc.Text(), ":")
		if !ok || (key != "VmHWM" && key != "VmRSS") {
			continue
		}
		f := strings.Fields(val)
		if len(f) != 2 || f[1] != "kB" {
			return Memory{}, fmt.Errorf("%s line %q is not \"N kB\"", key, val)
		}
		kb, err := strconv.ParseInt(f[0], 10, 64)
		if err != nil {
			return Memory{}, fmt.Errorf("%s: %w", key, err)
		}
		if key == "VmHWM" {
			m.PeakRSS, seenHWM = kb*1024, true
		} else {
			m.RSS, seenRSS = kb*1024, true
		}
	}
	if err := sc.Err(); err != nil {
		return Memory{}, err
	}
	if !seenHWM || !seenRSS {
		return Memory{}, fmt.Errorf("status has no VmHWM and VmRSS lines")
	}
	return m, nil
}

// mib is bytes in MiB.
func mib(b int64) float64 { return float64(b) / (1 << 20) }

// IdleConnsResult is what IdleConns measured.
type IdleConnsResult struct {
	Addr    string  `json:"addr"`
	Conns   int     `json:"conns"`   // connections held open
	Partial int     `json:"partial"` // of which sent a partial request line
	HoldSec float64 `json:"hold_seconds"`
	// RSS before opening the connections and while holding them, and the
	// peak after; PerConnKiB is (held - before) / Conns.
	RSSBeforeMiB float64 `json:"rss_before_mib"`
	RSSHeldMiB   float64 `json:"rss_held_mib"`
	PeakRSSMiB   float64 `json:"peak_rss_mib"`
	PerConnKiB   float64 `json:"per_conn_kib"`
	ClosedByPeer int     `json:"closed_by_peer"` // connections the server had closed by the end of the hold
}

// IdleConns opens n TCP connections to addr, sends a partial request line
// ("GET / HTTP/1.1\r\nHost: x\r\n", no blank line) on every other one,
// holds them all for hold and reports the server's RSS (process pid)
// before and while holding them. The connections are closed on return.
func IdleConns(ctx context.Context, addr string, n int, hold time.Duration, pid int) (*IdleConnsResult, error) {
	before, err := ProcessMemory(pid)
	if err != nil {
		return nil, err
	}
	conns := make([]net.Conn, 0, n)
	defer func() {
		for _, c := range conns {
			_ = c.Close() // the measurement is taken; a failed close changes nothing
		}
	}()
	var d net.Dialer
	res := &IdleConnsResult{Addr: addr, Conns: n, HoldSec: hold.Seconds()}
	for i := range n {
		c, err := d.DialContext(ctx, "tcp", addr)
		if err != nil {
			return nil, fmt.Errorf("connection %d of %d: %w", i+1, n, err)
		}
		conns = append(conns, c)
		if i%2 == 1 {
			if _, err := c.Write([]byte("GET / HTTP/1.1\r\nHost: x\r\n")); err != nil {
				return nil, fmt.Errorf("partial request on connection %d: %w", i+1, err)
			}
			res.Partial++
		}
	}
	select {
	case <-time.After(hold):
	case <-ctx.Done():
		return nil, ctx.Err()
	}
	held, err := ProcessMemory(pid)
	if err != nil {
		return nil, err
	}
	for _, c := range conns {
		res.ClosedByPeer += closedByPeer(c)
	}
	res.RSSBeforeMiB, res.RSSHeldMiB, res.PeakRSSMiB = mib(before.RSS), mib(held.RSS), mib(held.PeakRSS)
	if n > 0 {
		res.PerConnKiB = float64(held.RSS-before.RSS) / 1024 / float64(n)
	}
	return res, nil
}

// closedByPeer is 1 when the server has closed (or answered on) c: a read
// that doesn't time out at once.
func closedByPeer(c net.Conn) int {
	if err := c.SetReadDeadline(time.Now().Add(time.Millisecond)); err != nil {
		return 1
	}
	var b [1]byte
	_, err := c.Read(b[:])
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() {
		return 0
	}
	return 1
}
