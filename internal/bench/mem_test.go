package bench

import (
	"context"
	"net"
	"os"
	"testing"
	"time"
)

func TestParseStatusMemory(t *testing.T) {
	status := "Name:\tcerulean\nUmask:\t0022\nVmPeak:\t 1300000 kB\nVmHWM:\t   81234 kB\nVmRSS:\t   70000 kB\nThreads:\t9\n"
	m, err := parseStatusMemory(status)
	if err != nil {
		t.Fatal(err)
	}
	if m.PeakRSS != 81234*1024 || m.RSS != 70000*1024 {
		t.Fatalf("got %+v", m)
	}
	for _, bad := range []string{
		"Name:\tkthreadd\nThreads:\t1\n", // a kernel thread: no Vm lines
		"VmHWM:\t10 kB\n",                // no VmRSS
		"VmHWM:\tx kB\nVmRSS:\t1 kB\n",   // not a number
		"VmHWM:\t10 MB\nVmRSS:\t1 kB\n",  // unexpected unit
		"VmHWM:\t10\nVmRSS:\t1 kB\n",     // no unit
	} {
		if _, err := parseStatusMemory(bad); err == nil {
			t.Errorf("%q: no error", bad)
		}
	}
}

func TestProcessMemoryOfSelf(t *testing.T) {
	if _, err := os.Stat("/proc/self/status"); err != nil {
		t.Skip("no /proc")
	}
	m, err := ProcessMemory(os.Getpid())
	if err != nil {
		t.Fatal(err)
	}
	if m.RSS <= 0 || m.PeakRSS < m.RSS {
		t.Fatalf("implausible %+v", m)
	}
}

func TestIdleConns(t *testing.T) {
	if _, err := os.Stat("/proc/self/status"); err != nil {
		t.Skip("no /proc")
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer func() { _ = ln.Close() }()
	accepted := make(chan net.Conn, 16)
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				close(accepted)
				return
			}
			accepted <- c
		}
	}()
	r, err := IdleConns(context.Background(), ln.Addr().String(), 6, 10*time.Millisecond, os.Getpid())
	if err != nil {
		t.Fatal(err)
	}
	if r.Conns != 6 || r.Partial != 3 || r.ClosedByPeer != 0 || r.RSSHeldMiB <= 0 {
		t.Fatalf("got %+v", r)
	}
	_ = ln.Close()
	for c := range accepted {
		_ = c.Close()
	}
}
