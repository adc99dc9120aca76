package server

import (
	"bytes"
	"errors"
	"io"
	"log/slog"
	"net"
	"strings"
	"sync"
	"testing"
	"time"
)

// syncBuffer is a log destination safe for the accept loop's goroutine.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

func TestLimitConnectionsClosesExcessAndLogs(t *testing.T) {
	raw, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	var logs syncBuffer
	ln := limitConnections(raw, 1, "blob", slog.New(slog.NewTextHandler(&logs, nil)))
	t.Cleanup(func() { _ = ln.Close() })
	accepted := make(chan net.Conn, 4)
	go func() {
		for {
			c, err := ln.Accept()
			if err != nil {
				return
			}
			accepted <- c
		}
	}()
	dial := func() net.Conn {
		c, err := net.Dial("tcp", raw.Addr().String())
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = c.Close() })
		return c
	}
	dial()
	first := <-accepted

	// Past the bound: closed by the server at once, never handed on.
	excess := dial()
	if err := excess.SetReadDeadline(time.Now().Add(10 * time.Second)); err != nil {
		t.Fatal(err)
	}
	if n, err := excess.Read(make([]byte, 1)); err == nil || n != 0 {
		t.Fatalf("a connection past the bound was kept open (read %d, %v)", n, err)
	} else if !errors.Is(err, io.EOF) && !strings.Contains(err.Error(), "reset") {
		t.Fatalf("a connection past the bound: want it closed, got %v", err)
	}
	// The line follows the close the client saw.
	for deadline := time.Now().Add(10 * time.Second); !strings.Contains(logs.String(), "connection limit") && time.Now().Before(deadline); {
		time.Sleep(5 * time.Millisecond)
	}
	if got := logs.String(); !strings.Contains(got, "connection limit reached") || !strings.Contains(got, "service=blob") || !strings.Contains(got, "max_connections=1") {
		t.Errorf("no log line for the refused connection: %q", got)
	}
	select {
	case c := <-accepted:
		t.Fatalf("the connection past the bound was handed on: %v", c.RemoteAddr())
	default:
	}

	// Closing twice frees one slot, not two.
	if err := first.Close(); err != nil {
		t.Fatal(err)
	}
	_ = first.Close()
	dial()
	select {
	case <-accepted:
	case <-time.After(10 * time.Second):
		t.Fatal("a freed slot did not serve a new connection")
	}
	if n := ln.(*connLimiter).open.Load(); n != 1 {
		t.Fatalf("%d connections counted open, want 1", n)
	}
}
