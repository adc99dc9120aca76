package smb

import (
	"net"
	"syscall"

	"golang.org/x/sys/unix"
)

// TCP states (include/net/tcp_states.h) in which the peer has sent its
// FIN or reset the connection.
const (
	tcpClose     = 7
	tcpCloseWait = 8
	tcpLastAck   = 9
)

// hungUp reports whether the client of nc has closed its end (the kernel
// has its FIN or reset, whatever the server has yet to read before it), or
// the server has closed nc already and is tearing the connection down.
func hungUp(nc net.Conn) bool {
	sc, ok := nc.(syscall.Conn)
	if !ok {
		return false
	}
	rc, err := sc.SyscallConn()
	if err != nil {
		return true
	}
	var state uint8
	var serr error
	if err := rc.Control(func(fd uintptr) {
		var info *unix.TCPInfo
		if info, serr = unix.GetsockoptTCPInfo(int(fd), unix.IPPROTO_TCP, unix.TCP_INFO); serr == nil {
			state = info.State
		}
	}); err != nil {
		return true // closed: being torn down
	}
	if serr != nil {
		return false
	}
	return state == tcpCloseWait || state == tcpLastAck || state == tcpClose
}
