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

// onSocket runs fn with nc's descriptor. ok is false when nc is not a
// socket; closed reports that it is one the server has closed already.
func onSocket(nc net.Conn, fn func(fd int)) (ok, closed bool) {
	sc, isSocket := nc.(syscall.Conn)
	if !isSocket {
		return false, false
	}
	rc, err := sc.SyscallConn()
	if err != nil {
		return true, true
	}
	if err := rc.Control(func(fd uintptr) { fn(int(fd)) }); err != nil {
		return true, true
	}
	return true, false
}

// hungUp reports whether the client of nc has closed its end (the kernel
// has its FIN or reset, whatever the server has yet to read before it), or
// the server has closed nc already and is tearing the connection down.
func hungUp(nc net.Conn) bool {
	var state uint8
	var err error
	ok, closed := onSocket(nc, func(fd int) {
		var info *unix.TCPInfo
		if info, err = unix.GetsockoptTCPInfo(fd, unix.IPPROTO_TCP, unix.TCP_INFO); err == nil {
			state = info.State
		}
	})
	switch {
	case !ok:
		return false
	case closed:
		return true // being torn down
	case err != nil:
		return false
	}
	return state == tcpCloseWait || state == tcpLastAck || state == tcpClose
}

// unreadInput reports whether the kernel holds bytes of nc that the
// server has not read yet.
func unreadInput(nc net.Conn) bool {
	n := 0
	if ok, closed := onSocket(nc, func(fd int) { n, _ = unix.IoctlGetInt(fd, unix.SIOCINQ) }); !ok || closed {
		return false
	}
	return n > 0
}
